#include "views/traceview.h"

#include "panels/panellayout.h"

#include "analysis/report/analysisresult.h"
#include "model/textformat.h"
#include "panels/analysispanels.h"
#include "panels/areasummarypanel.h"
#include "panels/detailspanel.h"
#include "query/areasummary.h"
#include "query/search.h"
#include "shell/backgroundjobs.h"
#include "shell/loadjob.h"
#include "timeline/criticalpathbar.h"
#include "timeline/searchbar.h"
#include "timeline/timelinewidget.h"
#include "timeline/viewkeyforwarder.h"

#include <array>

#include <QCoreApplication>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QPointer>
#include <QProgressBar>
#include <QPushButton>
#include <QSettings>
#include <QSplitter>
#include <QStackedWidget>
#include <QTabWidget>
#include <QThreadPool>
#include <QTimer>

#include <QVBoxLayout>
#include <algorithm>

namespace kinetoscope {

namespace {
const QString splitterKey = QStringLiteral("traceView/splitter");
} // namespace

struct TraceView::SearchState {
    SearchResult result;
    std::shared_ptr<const std::vector<bool>> names;
};

namespace {
// Binary units from bytes up ("59.5 KiB", "1.20 GiB"), as everywhere else: a small file must not read "0.0
// MB".
QString sizeText(quint64 bytes) {
    return QString::fromStdString(formatBytes(double(bytes)));
}
QString countText(quint64 n) {
    if (n >= 10'000'000) return QString::number(double(n) / 1e6, 'f', 1) + QStringLiteral(" M");
    return QLocale().toString(n);
}
} // namespace

void TraceView::buildPages() {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    m_stack = new QStackedWidget(this);
    layout->addWidget(m_stack);

    // Page 0: loading.
    auto* loading = new QWidget(m_stack);
    auto* ll = new QVBoxLayout(loading);
    ll->addStretch(1);
    m_loadingLabel = new QLabel(tr("Opening %1…").arg(QFileInfo(m_path).fileName()), loading);
    m_loadingLabel->setAlignment(Qt::AlignCenter);
    m_progress = new QProgressBar(loading);
    m_progress->setRange(0, 1000);
    m_progress->setMaximumWidth(520);
    m_progress->setTextVisible(false);
    m_cancel = new QPushButton(tr("Cancel"), loading);
    m_cancel->setMaximumWidth(120);
    ll->addWidget(m_loadingLabel);
    ll->addWidget(m_progress, 0, Qt::AlignHCenter);
    ll->addWidget(m_cancel, 0, Qt::AlignHCenter);
    ll->addStretch(2);
    m_stack->addWidget(loading);

    // Page 1: failure.
    m_errorLabel = new QLabel(m_stack);
    m_errorLabel->setAlignment(Qt::AlignCenter);
    m_errorLabel->setWordWrap(true);
    m_errorLabel->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_errorLabel->setStyleSheet(QStringLiteral("QLabel{color:#991b1b;font-size:11pt;padding:24px}"));
    m_stack->addWidget(m_errorLabel);

    connect(m_cancel, &QPushButton::clicked, this, &TraceView::cancelLoad);
    m_progressTimer = new QTimer(this);
    m_progressTimer->setInterval(100);
    connect(m_progressTimer, &QTimer::timeout, this, &TraceView::updateProgress);
}

TraceView::TraceView(QString path, QWidget* parent) : QWidget(parent), m_path(std::move(path)) {
    buildPages();
    m_job = new LoadJob(m_path, this);
    connect(m_job, &LoadJob::previewed, this, &TraceView::onPreview);
    connect(m_job, &LoadJob::loaded, this, &TraceView::onLoaded);
    connect(m_job, &LoadJob::failed, this, &TraceView::onFailed);
    m_job->start();
    m_loadClock.start();
    m_progressTimer->start();
}

TraceView::TraceView(std::shared_ptr<LoadedTrace> trace, QString title, QWidget* parent)
    : QWidget(parent), m_path(std::move(title)) {
    buildPages();
    onLoaded(std::move(trace));
}

TraceView::~TraceView() {
    if (m_searchCancel) *m_searchCancel = true;
}

void TraceView::cancelLoad() {
    if (m_state != State::Loading || !m_job) return;
    m_job->cancel();
    m_cancel->setEnabled(false);
    m_loadingLabel->setText(tr("Cancelling…"));
    if (m_previewCancel) m_previewCancel->setEnabled(false);
    updatePreviewStrip({}, m_progress->value());
}

void TraceView::updateProgress() {
    if (!m_job || m_state != State::Loading) return;
    const LoadJob::Progress p = m_job->progress();
    if (p.bytesTotal > 0) m_progress->setValue(int(1000.0 * double(p.bytesDone) / double(p.bytesTotal)));
    // A gzip file is read by inflating it, a member at a time (usually one: its progress comes at the end).
    const bool inflating = p.stage == 0 && m_path.endsWith(QLatin1String(".gz"));
    static const char* stages[] = {"Reading", "Parsing", "Building"};
    const QString stage = inflating ? tr("Inflating") : QLatin1String(stages[std::clamp(p.stage, 0, 2)]);
    // The fast inflater takes a gzip member whole and says nothing until it ends: no "0 B of 104 MiB"
    // throughout, but what is known, and a busy bar.
    const bool silentInflate = inflating && p.bytesDone == 0 && p.bytesTotal > 0;
    m_progress->setRange(0, silentInflate ? 0 : 1000);
    const QString amount =
        silentInflate ? tr("%1 compressed, %2 s so far (one gzip member: its progress shows when it ends)")
                            .arg(sizeText(p.bytesTotal))
                            .arg(m_loadClock.elapsed() / 1000)
        : p.bytesTotal > 0 ? tr("%1 of %2").arg(sizeText(p.bytesDone), sizeText(p.bytesTotal))
                           : QString();
    if (m_cancel->isEnabled()) {
        m_loadingLabel->setText(
            tr("%1 %2 — %3, %4 events")
                .arg(stage, QFileInfo(m_path).fileName(), amount, countText(p.eventsDone)));
    }
    updatePreviewStrip(QStringLiteral("%1 %2").arg(stage.toLower(), amount).trimmed(),
                       silentInflate ? -1 : m_progress->value());
}

void TraceView::onFailed(const QString& message, bool cancelled) {
    m_progressTimer->stop();
    m_state = cancelled ? State::Cancelled : State::Failed;
    m_error = message;
    dropPreview(); // a cancelled or failed load leaves nothing of itself behind
    m_errorLabel->setText(cancelled ? tr("Loading %1 was cancelled.").arg(QFileInfo(m_path).fileName())
                                    : message);
    m_stack->setCurrentIndex(1);
    emit stateChanged(m_state);
}

QString TraceView::bannerText() const {
    if (!m_trace) return {};
    const ImportStats& st = m_trace->store->stats();
    QStringList parts;
    // Offsets are in the text (inflated for gzip), not in the file a user may be looking at: say which.
    const QString events = countText(m_trace->store->sliceCount() + m_trace->store->counterSampleCount());
    const QString text = st.wireStream ? tr("capture stream") : tr("JSON");
    if (st.gzipCutShort && !st.truncated) {
        // Only the stream's end (its trailer, or bytes after the document) is lost or corrupt: every event is
        // here, and there is no cut byte to name.
        parts << tr("The gzip stream's end is cut off or corrupt, but the %1 inside is whole (%2 inflated): "
                    "showing all %3 events.")
                     .arg(text, sizeText(st.jsonBytes), events);
    } else if (st.gzipCutShort) {
        parts
            << tr("The gzip stream ends early or is corrupt: showing the %1 events before byte %2 of the %3 "
                  "of %4 that inflated.")
                   .arg(events)
                   .arg(st.truncatedAt)
                   .arg(sizeText(st.jsonBytes), text);
    } else if (st.truncated && st.gzip) {
        parts << tr("The %1 inside is cut off at byte %2 (of %3 inflated): showing the %4 events before the "
                    "cut.")
                     .arg(text)
                     .arg(st.truncatedAt)
                     .arg(sizeText(st.jsonBytes), events);
    } else if (st.truncated) {
        parts << tr("The file is cut off at byte %1: showing the %2 events before the cut.")
                     .arg(st.truncatedAt)
                     .arg(events);
    }
    if (st.malformedEvents > 0) {
        QString first;
        if (!st.issues.empty())
            first = tr(" (first at byte %1%2: %3)")
                        .arg(st.issues.front().offset)
                        .arg(st.gzip ? tr(" of the inflated %1").arg(text) : QString())
                        .arg(QString::fromStdString(st.issues.front().reason));
        parts << tr("%1 skipped%2.")
                     .arg(QString::fromStdString(countText(st.malformedEvents, "malformed event")), first);
    }
    if (st.unknownPhaseEvents > 0)
        parts << tr("%1 with an unknown phase skipped.")
                     .arg(QString::fromStdString(countText(st.unknownPhaseEvents, "event")));
    if (st.endWithoutBegin > 0) parts << tr("%1 `E` events without a `B` dropped.").arg(st.endWithoutBegin);
    if (!st.trailingProblem.empty()) parts << QString::fromStdString(st.trailingProblem);
    // A file of another format: what its reader could not read.
    for (const std::string& note : st.conversionNotes)
        parts << QString::fromStdString(note) + QLatin1Char('.');
    return parts.join(QLatin1Char(' '));
}

void TraceView::onLoaded(std::shared_ptr<LoadedTrace> trace) {
    m_progressTimer->stop();
    m_trace = trace;
    const TraceStore& store = *trace->store;

    auto* content = new QWidget(m_stack);
    auto* cl = new QVBoxLayout(content);
    cl->setContentsMargins(0, 0, 0, 0);
    cl->setSpacing(0);
    const QString banner = bannerText();
    if (!banner.isEmpty()) {
        m_banner = new QLabel(banner, content);
        m_banner->setWordWrap(true);
        m_banner->setTextInteractionFlags(Qt::TextSelectableByMouse);
        m_banner->setStyleSheet(QStringLiteral(
            "QLabel{background:#fef3c7;color:#78350f;border-bottom:1px solid #f59e0b;padding:5px 8px}"));
        cl->addWidget(m_banner);
    }
    m_searchBar = new SearchBar(content);
    m_searchBar->hide();
    cl->addWidget(m_searchBar);
    m_pathBar = new CriticalPathBar(content);
    m_pathBar->hide();
    cl->addWidget(m_pathBar);

    auto* splitter = new QSplitter(Qt::Vertical, content);
    m_timeline = new TimelineWidget(trace, splitter);
    new ViewKeyForwarder(this, m_timeline); // W/A/S/D/0 whatever has focus in the view
    m_bottomTabs = new QTabWidget(splitter);
    m_details = new DetailsPanel(store, m_bottomTabs);
    m_areaPanel = new AreaSummaryPanel(store, m_bottomTabs);
    m_overview = new OverviewPanel(store, m_bottomTabs);
    m_operators = new OperatorPanel(store, m_bottomTabs);
    m_kernels = new KernelPanel(store, m_bottomTabs);
    m_memory = new MemoryPanel(store, m_bottomTabs);
    m_modules = new ModulePanel(store, m_bottomTabs);
    m_roofline = new RooflinePanel(m_bottomTabs);
    m_compiled = new CompiledPanel(m_bottomTabs);
    m_bottomTabs->addTab(m_details, tr("Details"));
    m_bottomTabs->addTab(m_areaPanel, tr("Area Selection"));
    m_bottomTabs->addTab(m_overview, tr("Overview"));
    m_bottomTabs->addTab(m_operators, tr("Operators"));
    m_bottomTabs->addTab(m_kernels, tr("Kernels"));
    m_bottomTabs->addTab(m_compiled, tr("Compiled"));
    m_bottomTabs->setTabVisible(m_bottomTabs->indexOf(m_compiled), false);
    m_bottomTabs->addTab(m_memory, tr("Memory"));
    m_bottomTabs->addTab(m_modules, tr("Modules"));
    m_bottomTabs->addTab(m_roofline, tr("Roofline"));
    // The analysis scope, and the way back to the whole trace.
    auto* scopeBar = new QWidget(m_bottomTabs);
    auto* scopeLayout = new QHBoxLayout(scopeBar);
    scopeLayout->setContentsMargins(4, 0, 4, 0);
    m_scopeLabel = new QLabel(scopeBar);
    auto* wholeTrace = new QPushButton(tr("Whole trace"), scopeBar);
    wholeTrace->setFlat(true);
    scopeLayout->addWidget(m_scopeLabel);
    scopeLayout->addWidget(wholeTrace);
    m_bottomTabs->setCornerWidget(scopeBar, Qt::TopRightCorner);
    buildQueryTab();
    scopeLayout->insertWidget(0, m_showAsQuery);
    connect(wholeTrace, &QPushButton::clicked, this, [this] { setAnalysisScope(std::nullopt); });
    for (AnalysisPanel* panel : std::initializer_list<AnalysisPanel*>{
             m_overview, m_operators, m_kernels, m_memory, m_modules, m_roofline, m_compiled}) {
        connect(panel, &AnalysisPanel::jumpRequested, this, [this](EventRef ref) {
            m_revealingFromPanel = true;
            m_timeline->revealEvent(ref);
            m_revealingFromPanel = false;
        });
        connect(panel, &AnalysisPanel::rangeRequested, this,
                [this](qint64 a, qint64 b) { m_timeline->setVisibleRange(a, b); });
        connect(panel, &AnalysisPanel::scopeRequested, this, [this](qint64 a, qint64 b) {
            setAnalysisScope(std::make_pair(a, b));
            m_timeline->setVisibleRange(a, b);
        });
        connect(panel, &AnalysisPanel::highlightRequested, this, &TraceView::highlightName);
        connect(panel, &AnalysisPanel::groupingChanged, this, &TraceView::runAnalysis);
    }
    splitter->addWidget(m_timeline);
    splitter->addWidget(m_bottomTabs);
    // The split between timeline and panels is remembered across traces and sessions, within bounds.
    m_splitter = splitter;
    panellayout::install(splitter, splitterKey);
    cl->addWidget(splitter, 1);
    m_stack->addWidget(content);
    m_stack->setCurrentWidget(content);

    connect(m_timeline, &TimelineWidget::selectionChanged, this, [this](EventRef ref) {
        m_details->showEvent(ref);
        if (ref.isValid() && !m_revealingFromPanel) m_bottomTabs->setCurrentWidget(m_details);
    });
    connect(m_details, &DetailsPanel::jumpRequested, m_timeline, &TimelineWidget::revealEvent);
    connect(m_details, &DetailsPanel::kernelFolderRequested, this, &TraceView::chooseKernelFolder);
    connect(m_details, &DetailsPanel::kernelSourceRequested, this, &TraceView::showKernelSource);
    connect(m_compiled, &CompiledPanel::kernelSourceRequested, this, &TraceView::showKernelSource);
    findKernelSources(QSettings().value(kernelFolderKey()).toString());
    connect(m_timeline, &TimelineWidget::areaSelectionChanged, this, &TraceView::updateArea);
    connect(m_areaPanel, &AreaSummaryPanel::groupingChanged, this, &TraceView::updateArea);
    // A range selected on the timeline (area or measurement) scopes every analysis panel.
    connect(m_timeline, &TimelineWidget::areaSelectionChanged, this, [this] {
        if (const auto area = m_timeline->areaSelection())
            setAnalysisScope(std::make_pair(area->range.from, area->range.to));
    });
    connect(m_timeline, &TimelineWidget::measurementChanged, this, [this] {
        if (const auto m = m_timeline->measurement())
            setAnalysisScope(std::make_pair(std::min(m->from, m->to), std::max(m->from, m->to)));
    });
    connect(m_timeline, &TimelineWidget::criticalPathRequested, this,
            [this](TimeNs at) { showCriticalPath(qint64(at)); });
    connect(m_pathBar, &CriticalPathBar::closeRequested, this, &TraceView::clearCriticalPath);
    connect(m_timeline, &TimelineWidget::criticalPathClearRequested, this, &TraceView::clearCriticalPath);
    connect(m_pathBar, &CriticalPathBar::zoomRequested, this,
            [this](TimeNs from, TimeNs to) { m_timeline->setVisibleRange(from, to); });
    connect(m_searchBar, &SearchBar::queryChanged, this, &TraceView::runSearch);
    connect(m_searchBar, &SearchBar::next, this, &TraceView::nextMatch);
    connect(m_searchBar, &SearchBar::previous, this, &TraceView::previousMatch);
    connect(m_searchBar, &SearchBar::closed, this, [this] {
        m_searchBar->hide();
        m_searchBar->setText({});
        m_timeline->setFocus();
    });
    takeViewFromPreview(); // with everything connected: a selection carried over shows in Details
    applyPendingView();    // a view or link asked for before the load finished
    m_state = State::Ready;
    m_timeline->setFocus();
    runAnalysis();
    emit stateChanged(m_state);
}

void TraceView::setAnalysisScope(std::optional<std::pair<qint64, qint64>> scope) {
    if (scope && scope->second <= scope->first) scope.reset();
    if (scope == m_scope && m_analysis) return;
    m_scope = scope;
    runAnalysis();
}

void TraceView::runAnalysis() {
    if (!m_trace || !m_overview) return;
    const std::uint64_t generation = ++m_analysisGeneration;
    const auto scope = m_scope;
    const OperatorGrouping ops = m_operators->grouping();
    const KernelGrouping kernels = m_kernels->grouping();
    const TraceStore& store = *m_trace->store;
    m_scopeLabel->setText(
        scope ? tr("Scope: %1 selected (from %2) — computing…")
                    .arg(QString::fromStdString(formatDuration(scope->second - scope->first)),
                         QString::fromStdString(formatTimeOffset(scope->first - store.minTime(), 1000)))
              : tr("Scope: whole trace — computing…"));
    for (AnalysisPanel* panel : std::initializer_list<AnalysisPanel*>{
             m_overview, m_operators, m_kernels, m_memory, m_modules, m_roofline, m_compiled})
        panel->setComputing(true);
    auto trace = m_trace;
    QPointer<TraceView> self(this);
    startBackground([trace, scope, ops, kernels, self, generation] {
        std::optional<std::pair<TimeNs, TimeNs>> s;
        if (scope) s = std::make_pair(TimeNs(scope->first), TimeNs(scope->second));
        std::shared_ptr<const AnalysisResult> result = computeAnalysis(*trace->store, s, ops, kernels);
        QMetaObject::invokeMethod(
            QCoreApplication::instance(),
            [self, result, generation] {
                if (!self || generation != self->m_analysisGeneration) return;
                self->m_analysis = result;
                self->fillPanel(result, generation, 0);
                const TraceStore& st = *self->m_trace->store;
                self->m_scopeLabel->setText(result->scope
                                                ? tr("Scope: %1 selected (from %2)")
                                                      .arg(QString::fromStdString(formatDuration(
                                                               result->scope->second - result->scope->first)),
                                                           QString::fromStdString(formatTimeOffset(
                                                               result->scope->first - st.minTime(), 1000)))
                                                : tr("Scope: whole trace"));
            },
            Qt::QueuedConnection);
    });
}

void TraceView::showCriticalPath(std::optional<qint64> at) {
    if (!m_trace || !m_timeline) return;
    const std::uint64_t generation = ++m_pathGeneration;
    const TimeNs from = at ? TimeNs(*at) : m_timeline->axis().start;
    const TimeNs to = at ? TimeNs(*at) : m_timeline->axis().end;
    m_pathBar->setComputing(at ? tr("the step at the cursor") : tr("the step in view"));
    m_pathBar->show();
    auto trace = m_trace;
    QPointer<TraceView> self(this);
    startBackground([trace, from, to, self, generation] {
        auto path = std::make_shared<const StepCriticalPath>(criticalPathAt(*trace->store, from, to));
        QMetaObject::invokeMethod(
            QCoreApplication::instance(),
            [self, path, generation] {
                // A newer request, or a clear, supersedes this one.
                if (!self || generation != self->m_pathGeneration) return;
                self->m_pathBar->setPath(path);
                self->m_timeline->setCriticalPath(path);
                emit self->criticalPathReady();
            },
            Qt::QueuedConnection);
    });
}

void TraceView::clearCriticalPath() {
    ++m_pathGeneration;
    if (m_pathBar) m_pathBar->hide();
    if (m_timeline) m_timeline->setCriticalPath(nullptr);
}

// One panel per event-loop turn: filling tables for a big trace takes tens of ms each, and the UI must keep
// answering in between. Each panel schedules the next, so the order is fixed and analysisReady comes only
// after every panel holds the result (timers of different delays may fire in either order on a busy loop).
void TraceView::fillPanel(std::shared_ptr<const AnalysisResult> result, std::uint64_t generation,
                          std::size_t index) {
    if (generation != m_analysisGeneration) return;
    const std::array<QPointer<AnalysisPanel>, 7> panels{m_overview, m_operators, m_kernels, m_memory,
                                                        m_modules,  m_roofline,  m_compiled};
    if (index >= panels.size()) {
        emit analysisReady();
        return;
    }
    if (panels[index]) {
        panels[index]->setResult(result);
        panels[index]->setComputing(false);
    }
    if (panels[index] && panels[index] == m_compiled) // shown for compiled models only
        m_bottomTabs->setTabVisible(m_bottomTabs->indexOf(m_compiled), m_compiled->hasContent());
    // A trace without GPU work (a CPU-only run) has no kernels to list or to place on a roofline: those tabs
    // would be empty tables.
    if (panels[index] && (panels[index] == m_kernels || panels[index] == m_roofline) && trace()) {
        const auto& tracks = trace()->store->tracks();
        const bool gpuWork = std::any_of(tracks.begin(), tracks.end(),
                                         [](const Track& t) { return t.kind == TrackKind::GpuStream; });
        m_bottomTabs->setTabVisible(m_bottomTabs->indexOf(panels[index]), gpuWork);
    }
    QTimer::singleShot(0, this, [this, result = std::move(result), generation, index] {
        fillPanel(result, generation, index + 1);
    });
}

void TraceView::highlightName(const QString& name) {
    if (!m_searchBar) return;
    m_searchBar->show();
    // The previous row's outline goes at once, not when this search ends.
    m_timeline->setSearchHighlight(nullptr, {});
    // The name as the table shows it, matched whole (not an escaped regex of a template name); when its
    // search ends, a match is brought into view if none is in it.
    m_searchBar->showName(name);
    m_revealAfterSearch = true;
    runSearch();
}

void TraceView::resetLayout() {
    if (m_splitter) panellayout::reset(m_splitter, splitterKey);
}

void TraceView::setPanelsVisible(bool visible) {
    if (m_bottomTabs) m_bottomTabs->setVisible(visible);
}

void TraceView::showSearch() {
    if (!m_searchBar) return;
    m_searchBar->show();
    m_searchBar->focusQuery();
}

void TraceView::runSearch() {
    if (!m_trace || !m_searchBar) return;
    if (m_searchCancel) *m_searchCancel = true;
    const std::uint64_t generation = ++m_searchGeneration;
    SearchQuery query{m_searchBar->text().toStdString(), m_searchBar->isRegex(),
                      m_searchBar->isCaseSensitive(), m_searchBar->isWholeName()};
    m_currentMatch = -1;
    const bool reveal = std::exchange(m_revealAfterSearch, false);
    if (query.text.empty()) {
        m_search.reset();
        m_searchRunning = false;
        m_searchBar->setStatus({});
        m_timeline->setSearchHighlight(nullptr, {});
        emit searchFinished();
        return;
    }
    m_searchRunning = true;
    m_searchBar->setStatus(tr("searching…"));
    auto cancel = std::make_shared<std::atomic<bool>>(false);
    m_searchCancel = cancel;
    auto trace = m_trace;
    QPointer<TraceView> self(this);
    // Off the UI thread: a search touches every slice. A newer query cancels this one; stale answers are
    // dropped.
    startBackground([trace, query, cancel, self, generation, reveal] {
        auto state = std::make_shared<SearchState>();
        state->result = searchSlices(*trace->store, query, cancel.get());
        state->names = std::make_shared<const std::vector<bool>>(std::move(state->result.nameMatches));
        QMetaObject::invokeMethod(
            QCoreApplication::instance(),
            [self, state, generation, reveal] {
                if (!self || generation != self->m_searchGeneration) return;
                self->m_searchRunning = false;
                if (state->result.cancelled) return;
                self->m_search = state;
                if (!state->result.error.empty()) {
                    self->m_searchBar->setStatus(QString::fromStdString(state->result.error), true);
                    self->m_timeline->setSearchHighlight(nullptr, {});
                } else {
                    self->m_timeline->setSearchHighlight(state->names, {});
                    self->m_searchBar->setStatus(state->result.matches.empty()
                                                     ? tr("no matches")
                                                     : tr("%1 matches").arg(state->result.matches.size()));
                    if (reveal) self->revealNearestMatch();
                }
                emit self->searchFinished();
            },
            Qt::QueuedConnection);
    });
}

std::size_t TraceView::matchCount() const {
    return m_search ? m_search->result.matches.size() : 0;
}

void TraceView::goToMatch(int index) {
    if (!m_search || m_search->result.matches.empty()) return;
    const int n = int(m_search->result.matches.size());
    m_currentMatch = ((index % n) + n) % n;
    const EventRef ref = m_search->result.matches[std::size_t(m_currentMatch)];
    m_timeline->setSearchHighlight(m_search->names, ref);
    m_timeline->revealEvent(ref);
    m_searchBar->setStatus(tr("%1 of %2").arg(m_currentMatch + 1).arg(n));
}

void TraceView::revealNearestMatch() {
    const auto& matches = m_search->result.matches;
    if (matches.empty()) return;
    const TimeAxis& axis = m_timeline->axis();
    const std::size_t first = firstMatchAtOrAfter(*m_trace->store, matches, axis.start);
    const auto startOf = [&](std::size_t i) {
        return m_trace->store->track(matches[i].track).starts[matches[i].index.value];
    };
    if (first < matches.size() && startOf(first) < axis.end) return; // one is already in view
    if (first > 0 &&
        m_trace->store->track(matches[first - 1].track).endOf(matches[first - 1].index.value) > axis.start)
        return; // one began before the view and reaches into it
    // Otherwise the match nearest the view: the next one after it, or the last one before it. (A table's row
    // asked for it: the table stays in view, the selection does not switch the panels to Details.)
    m_revealingFromPanel = true;
    goToMatch(int(first < matches.size() ? first : matches.size() - 1));
    m_revealingFromPanel = false;
}

void TraceView::nextMatch() {
    if (!m_search) return;
    if (m_currentMatch < 0) {
        // Start from the first match at or after the left edge of the view.
        const std::size_t first =
            firstMatchAtOrAfter(*m_trace->store, m_search->result.matches, m_timeline->axis().start);
        goToMatch(int(first));
    } else {
        goToMatch(m_currentMatch + 1);
    }
}

void TraceView::previousMatch() {
    if (!m_search) return;
    goToMatch(m_currentMatch < 0 ? -1 : m_currentMatch - 1);
}

void TraceView::updateArea() {
    const auto area = m_timeline->areaSelection();
    const std::uint64_t generation = ++m_areaGeneration;
    if (!area) {
        m_areaPanel->clear();
        return;
    }
    std::vector<TrackId> tracks = m_timeline->tracksOf(*area);
    // The store's tracks: derived lanes (GPU utilisation) have no slices to summarise.
    std::erase_if(tracks, [&](TrackId t) { return t.value >= m_trace->store->tracks().size(); });
    const AreaGrouping grouping = m_areaPanel->grouping();
    auto trace = m_trace;
    QPointer<TraceView> self(this);
    startBackground([trace, tracks, area, grouping, self, generation] {
        auto summary = std::make_shared<AreaSummary>(
            summarizeArea(*trace->store, tracks, area->range.from, area->range.to, grouping));
        QMetaObject::invokeMethod(
            QCoreApplication::instance(),
            [self, summary, generation, count = tracks.size()] {
                if (!self || generation != self->m_areaGeneration) return;
                self->m_areaPanel->showSummary(*summary, count);
                self->m_bottomTabs->setCurrentWidget(self->m_areaPanel);
                emit self->areaSummaryReady();
            },
            Qt::QueuedConnection);
    });
}

} // namespace kinetoscope
