#include "views/distributedview.h"

#include "model/textformat.h"

#include "open/rankinput.h"
#include "panels/detailspanel.h"
#include "panels/panellayout.h"
#include "query/search.h"
#include "shell/backgroundjobs.h"
#include "tables/tablemodels.h"
#include "timeline/searchbar.h"
#include "timeline/timelinewidget.h"
#include "views/collectivecallspanel.h"
#include "views/jobfigures.h"

#include <QComboBox>
#include <QCoreApplication>
#include <QFile>
#include <QFileInfo>
#include <QHeaderView>
#include <QLabel>
#include <QPointer>
#include <QScrollArea>
#include <QSplitter>
#include <QStackedWidget>
#include <QTabWidget>
#include <QTableWidget>
#include <QThreadPool>
#include <QVBoxLayout>

#include <limits>

namespace kinetoscope {

struct DistributedView::Loaded {
    JobReport job;
    std::vector<std::shared_ptr<const LoadedTrace>>
        traces; // by the job's rank order; empty unless all are traces
    std::vector<TimeNs> clockShift, stepShift;
    QString error; // when no rank could be read
};

namespace {
QTableWidget* makeTable(QWidget* parent, const QStringList& headers) {
    QTableWidget* t = makeReadOnlyTable(parent, headers);
    t->setSortingEnabled(true);
    return t;
}
} // namespace

DistributedView::DistributedView(QStringList files, QWidget* parent)
    : QWidget(parent), m_files(std::move(files)) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    m_stack = new QStackedWidget(this);
    m_status = new QLabel(
        tr("Loading %1…").arg(QString::fromStdString(countText(std::uint64_t(m_files.size()), "rank"))),
        m_stack);
    m_status->setAlignment(Qt::AlignCenter);
    m_stack->addWidget(m_status);
    layout->addWidget(m_stack);
    const QStringList files2 = m_files;
    QPointer<DistributedView> self(this);
    startBackground([files2, self] {
        auto loaded = std::make_shared<Loaded>();
        // Rank files, summaries and traces alike, recognised by content, read in parallel; only traces bring
        // timelines, and only a small job's are kept.
        std::vector<std::string> arguments;
        for (const QString& file : files2)
            arguments.push_back(file.toStdString());
        std::vector<UnreadableFile> unreadable;
        const std::vector<std::string> paths = jobFiles(arguments, unreadable); // folders: their files
        JobInputs in = readJobInputs(paths, {.keepTraces = paths.size() <= JobFigures::smallJob});
        std::vector<RankFigures> ranks = std::move(in.ranks);
        unreadable.insert(unreadable.end(), std::make_move_iterator(in.unreadable.begin()),
                          std::make_move_iterator(in.unreadable.end()));
        std::vector<std::shared_ptr<const LoadedTrace>> traces;
        std::vector<TimeNs> clockShift, stepShift;
        for (auto& store : in.traces) {
            if (!store) break;
            auto trace = prepareLoadedTrace(std::move(store), 0);
            clockShift.push_back(trace->store->metadata().baseTimeNanoseconds.value_or(0));
            stepShift.push_back(trace->steps.empty() ? trace->store->minTime() : trace->steps.front().start);
            traces.push_back(std::move(trace));
        }
        const bool allTraces = !ranks.empty() && traces.size() == ranks.size();
        loaded->job = analyseJob(std::move(ranks), std::move(unreadable));
        if (loaded->job.ranks.empty()) {
            loaded->error = tr("No rank could be read");
            for (const UnreadableFile& u : loaded->job.unreadable)
                loaded->error += QStringLiteral("\n") + QString::fromStdString(u.error);
        }
        if (allTraces)
            for (std::size_t i : loaded->job.inputIndex) {
                loaded->traces.push_back(traces[i]);
                loaded->clockShift.push_back(clockShift[i]);
                loaded->stepShift.push_back(stepShift[i]);
            }
        QMetaObject::invokeMethod(
            QCoreApplication::instance(),
            [self, loaded] {
                if (self) self->build(loaded);
            },
            Qt::QueuedConnection);
    });
}

void DistributedView::build(std::shared_ptr<Loaded> loaded) {
    if (!loaded->error.isEmpty()) {
        m_error = loaded->error;
        m_status->setText(m_error);
        m_status->setStyleSheet(QStringLiteral("QLabel{color:#991b1b}"));
        emit failed(m_error);
        return;
    }
    m_job = std::move(loaded->job);
    m_traces = std::move(loaded->traces);
    m_clockShift = loaded->clockShift;
    m_stepShift = loaded->stepShift;
    auto* tabs = new QTabWidget(m_stack);
    m_tabs = tabs;

    // The job: what was read, the heat map, stragglers; the chart and rank table for small jobs.
    m_figures = new JobFigures(m_job, tabs);
    m_rankTable = m_figures->rankTable();
    m_stragglerLabel = m_figures->stragglerLabel();
    connect(m_figures, &JobFigures::rankActivated, this, &DistributedView::openBesideMedian);
    tabs->addTab(m_figures, tr("Ranks"));
    tabs->addTab(makeStepDistributionTable(m_job, tabs), tr("Steps"));
    tabs->addTab(makePerRankTable(m_job, tabs), tr("Per rank"));

    // Collectives: their spread across ranks, and for small jobs each rank's.
    auto* collectives = new QSplitter(Qt::Vertical, tabs);
    m_collectiveSpread = makeCollectiveSpreadTable(m_job, collectives);
    // A collective's calls on every rank, from a double-click; a rank's kernel of a call on its timeline.
    m_calls = new CollectiveCallsPanel(m_job, collectives);
    connect(m_collectiveSpread, &QTableWidget::cellDoubleClicked, this, [this](int row) {
        m_calls->showCollective(m_collectiveSpread->item(row, 0)->data(Qt::UserRole).toULongLong());
    });
    connect(m_calls, &CollectiveCallsPanel::kernelRequested, this,
            [this](std::size_t rank, TimeNs start, TimeNs end) { revealKernel(rank, start, end); });
    if (m_ranks.size() <= JobFigures::smallJob) {
        m_collectives =
            makeTable(collectives, {tr("Rank"), tr("Collective"), tr("Calls"), tr("Bytes"), tr("Total"),
                                    tr("Mean"), tr("Synchronisation"), tr("Data transfer")});
        m_collectives->setSortingEnabled(false);
        int rows = 0;
        for (const RankFigures& r : m_ranks)
            rows += int(r.collectives.size());
        m_collectives->setRowCount(rows);
        int row = 0;
        for (const RankFigures& r : m_ranks) {
            for (const CollectiveStats& c : r.collectives) {
                int col = 0;
                m_collectives->setItem(row, col++, new NumberItem(QString::number(r.rank), double(r.rank)));
                m_collectives->setItem(
                    row, col++,
                    new QTableWidgetItem(QString::fromStdString(collectiveLabel(c.name, c.group))));
                m_collectives->setItem(row, col++, new NumberItem(QString::number(c.calls), double(c.calls)));
                m_collectives->setItem(row, col++,
                                       new NumberItem(c.bytes > 0 ? bytesText(c.bytes) : QString(), c.bytes));
                for (TimeNs v : {c.total, c.mean(), c.synchronization, c.transfer})
                    m_collectives->setItem(row, col++, new NumberItem(durationText(v), double(v)));
                ++row;
            }
        }
        m_collectives->setSortingEnabled(true);
        m_collectives->sortByColumn(0, Qt::AscendingOrder);
        // Message sizes are in the trace only where Kineto wrote `In msg nelems` (docs/DEFINITIONS.md):
        // without any, the column would be empty on every row, so it is not shown.
        bool anyBytes = false;
        for (const RankFigures& r : m_ranks)
            for (const CollectiveStats& c : r.collectives)
                anyBytes = anyBytes || c.bytes > 0;
        m_collectives->setColumnHidden(3, !anyBytes);
        m_collectives->resizeColumnsToContents();
    }
    tabs->addTab(collectives, tr("Collectives"));

    // Timelines, one per rank, zoomed together.
    if (!m_traces.empty() && m_traces.size() <= JobFigures::smallJob) {
        auto* box = new QWidget(tabs);
        auto* bl = new QVBoxLayout(box);
        m_alignment = new QComboBox(box);
        m_alignment->addItems({tr("Align by first step"), tr("Align by clock (baseTimeNanoseconds)")});
        bl->addWidget(m_alignment);
        // Find across the ranks (Ctrl+F), hidden until asked for.
        m_searchBar = new SearchBar(box);
        m_searchBar->hide();
        bl->addWidget(m_searchBar);
        connect(m_searchBar, &SearchBar::queryChanged, this, &DistributedView::runSearch);
        connect(m_searchBar, &SearchBar::next, this, &DistributedView::nextMatch);
        connect(m_searchBar, &SearchBar::previous, this, &DistributedView::previousMatch);
        connect(m_searchBar, &SearchBar::closed, this, [this] {
            m_searchBar->setText(QString());
            m_searchBar->hide();
            runSearch();
        });
        // The ranks' panes, each as tall as what it shows (compact: GPU streams first, a lane a thread), in
        // one list that scrolls: eight fit a 1920x1080 screen, and the wheel scrolls the list wherever the
        // pointer is.
        auto* outer = new QSplitter(Qt::Vertical, box);
        auto* scroll = new QScrollArea(outer);
        scroll->setWidgetResizable(true);
        scroll->setFrameShape(QFrame::NoFrame);
        auto* split = new QWidget;
        auto* list = new QVBoxLayout(split);
        list->setContentsMargins(0, 0, 0, 0);
        list->setSpacing(2);
        for (std::size_t i = 0; i < m_traces.size(); ++i) {
            auto* w = new QWidget(split);
            auto* l = new QVBoxLayout(w);
            l->setContentsMargins(0, 0, 0, 0);
            l->setSpacing(0);
            auto* t = new TimelineWidget(m_traces[i], w);
            t->compactPane();
            // The rank's name in its ruler's corner: no title row (eight panes to a screen).
            t->setCornerTitle(tr("rank %1 · %2")
                                  .arg(m_ranks[i].rank)
                                  .arg(QFileInfo(QString::fromStdString(m_ranks[i].source)).fileName()));
            const auto fit = [t] { t->setFixedHeight(t->contentHeightPx()); };
            fit();
            connect(t, &TimelineWidget::rowsChanged, t, fit);
            l->addWidget(t);
            list->addWidget(w);
            m_timelines.push_back(t);
            connect(t, &TimelineWidget::viewChanged, this, [this, i] { syncFrom(i); });
            connect(t, &TimelineWidget::selectionChanged, this,
                    [this, i](EventRef ref) { showDetails(i, ref); });
        }
        list->addStretch(1);
        scroll->setWidget(split);
        // Below the timelines, the Details of the slice last clicked on any rank.
        auto* detailsBox = new QWidget(outer);
        auto* dl = new QVBoxLayout(detailsBox);
        dl->setContentsMargins(0, 0, 0, 0);
        dl->setSpacing(0);
        m_detailsTitle = new QLabel(tr("Details"), detailsBox);
        m_detailsTitle->setStyleSheet(
            QStringLiteral("QLabel{background:#e5e7eb;padding:2px 6px;font-weight:bold}"));
        m_detailsStack = new QStackedWidget(detailsBox);
        m_detailsStack->addWidget(
            new QLabel(tr("Click a slice on any rank for its details."), m_detailsStack));
        dl->addWidget(m_detailsTitle);
        dl->addWidget(m_detailsStack, 1);
        m_details.assign(m_timelines.size(), nullptr);
        outer->addWidget(scroll);
        outer->addWidget(detailsBox);
        outer->setChildrenCollapsible(false);
        outer->setStretchFactor(0, 3);
        outer->setStretchFactor(1, 1);
        // Sizes set, not left to the size hints: the ranks' panes would take all but the Details title.
        detailsBox->setMinimumHeight(panellayout::panelsMinimumHeight);
        outer->setSizes({8 * panellayout::panelsMinimumHeight, panellayout::panelsMinimumHeight});
        bl->addWidget(outer, 1);
        tabs->addTab(box, tr("Timelines"));
        m_timelinesPage = box;
        connect(m_alignment, &QComboBox::currentIndexChanged, this, &DistributedView::applyAlignment);
        applyAlignment();
    }
    m_stack->addWidget(tabs);
    m_stack->setCurrentWidget(tabs);
    m_ready = true;
    if (!m_pendingStep.empty()) showStep(std::exchange(m_pendingStep, {}));
    emit ready();
}

void DistributedView::applyAlignment() {
    const auto& base = (m_alignment && m_alignment->currentIndex() == 1) ? m_clockShift : m_stepShift;
    m_shifts.assign(base.size(), 0);
    // Kineto writes relative times with a per-file base: absolute = ts + base. By step: each rank's first
    // step at 0.
    const bool byClock = m_alignment && m_alignment->currentIndex() == 1;
    for (std::size_t i = 0; i < base.size(); ++i)
        m_shifts[i] = byClock ? -(base[i] - base[0]) : base[i] - base[0];
    if (!m_timelines.empty() && m_shifts.size() == m_timelines.size()) {
        // Every rank keeps within, and fits, the union of all ranks' traces in rank 0's clock, shifted into
        // its own: a fit or zoom on any rank (the longest, slow one included) then maps to a range every
        // other rank takes as it is, instead of clamping it to its own shorter trace and drifting by the
        // difference.
        TimeNs lo = std::numeric_limits<TimeNs>::max(), hi = std::numeric_limits<TimeNs>::min();
        for (std::size_t i = 0; i < m_timelines.size(); ++i) {
            const TraceStore& s = m_timelines[i]->store();
            lo = std::min(lo, s.minTime() - m_shifts[i]);
            hi = std::max(hi, s.maxTime() - m_shifts[i]);
        }
        for (std::size_t i = 0; i < m_timelines.size(); ++i)
            m_timelines[i]->setTimeBounds(TimeRange{lo + m_shifts[i], hi + m_shifts[i]});
        m_timelines[0]->fitAll();
        syncFrom(0);
    }
}

void DistributedView::openBesideMedian(std::size_t rank, std::size_t step) {
    if (rank >= m_ranks.size() || step >= m_job.steps.size()) return;
    const std::size_t median = m_job.steps[step].medianRank;
    const QString name = QString::fromStdString(m_job.steps[step].name);
    if (median == rank) {
        m_figures->say(
            tr("%1 is the median rank of %2.").arg(QString::fromStdString(rankLabel(m_ranks[rank])), name));
        return;
    }
    // Rank files and summaries name the trace they came from: it opens when it is reachable from here.
    QStringList files, missing;
    for (std::size_t r : {rank, median}) {
        const QString source = QString::fromStdString(m_ranks[r].source);
        const QFileInfo info(source);
        if (info.isFile())
            files << info.absoluteFilePath();
        else
            missing << tr("%1's trace is expected at %2")
                           .arg(QString::fromStdString(rankLabel(m_ranks[r])), source);
    }
    if (!missing.isEmpty()) {
        m_figures->say(missing.join(QStringLiteral("; ")) +
                       tr(": not found on this machine. Copy the traces here, or open the job from them."));
        return;
    }
    m_figures->say(tr("Opened %1 beside %2, the median rank of %3.")
                       .arg(QString::fromStdString(rankLabel(m_ranks[rank])),
                            QString::fromStdString(rankLabel(m_ranks[median])), name));
    emit openRanksRequested(files, name);
}

DetailsPanel* DistributedView::details() const {
    return m_detailsStack ? qobject_cast<DetailsPanel*>(m_detailsStack->currentWidget()) : nullptr;
}

void DistributedView::showDetails(std::size_t rank, EventRef ref) {
    if (!ref.isValid() || rank >= m_details.size()) return;
    DetailsPanel*& panel = m_details[rank];
    if (!panel) {
        // Made on first use: a job of 128 ranks does not build 128 text browsers up front.
        panel = new DetailsPanel(m_timelines[rank]->store(), m_detailsStack);
        m_detailsStack->addWidget(panel);
        connect(panel, &DetailsPanel::jumpRequested, m_timelines[rank], &TimelineWidget::revealEvent);
    }
    panel->showEvent(ref);
    m_detailsStack->setCurrentWidget(panel);
    QString title =
        tr("Details · rank %1").arg(qint64(rank < m_ranks.size() ? m_ranks[rank].rank : std::int64_t(rank)));
    // A collective's kernel: its call on every rank, in the Collectives tab, and who it waited for here.
    if (const auto run = collectiveRunOfKernel(rank, ref)) {
        const auto [collective, instance] = *run;
        m_calls->showCollective(collective);
        const std::vector<CollectiveCall>& calls = m_calls->calls();
        // The call among them that holds this rank's run.
        std::size_t index = 0;
        for (std::size_t k = 0; k < calls.size(); ++k)
            for (const CollectiveCallRank& r : calls[k].ranks)
                if (r.rank == rank && r.instance == instance) index = k;
        for (int row = 0; row < m_calls->callTable()->rowCount(); ++row)
            if (m_calls->callTable()->item(row, 0)->data(Qt::UserRole).toULongLong() == index)
                m_calls->callTable()->setCurrentCell(row, 0);
        m_calls->showCall(index);
        const CollectiveCall& c = calls[index];
        TimeNs waited = 0;
        for (const CollectiveCallRank& r : c.ranks)
            if (r.rank == rank) waited = r.waited;
        const CollectiveSpread& spread = m_job.collectives[collective];
        title +=
            tr(" · call %1 of %2 in %3: last to arrive %4, this rank waited %5 (its calls on every rank: "
               "Collectives tab)")
                .arg(c.k + 1)
                .arg(QString::fromStdString(collectiveLabel(spread.name, spread.group)),
                     QString::fromStdString(m_job.steps[c.step].name),
                     c.tied ? tr("a tie") : tr("rank %1").arg(m_ranks[c.lastRank()].rank),
                     durationText(waited));
    }
    m_detailsTitle->setText(title);
}

std::optional<std::pair<std::size_t, std::uint32_t>>
DistributedView::collectiveRunOfKernel(std::size_t rank, EventRef ref) const {
    if (rank >= m_ranks.size() || !m_calls) return std::nullopt;
    const TraceStore& store = m_timelines[rank]->store();
    const Track& track = store.track(ref.track);
    if (track.kind != TrackKind::GpuStream) return std::nullopt;
    const TimeNs start = track.starts[ref.index.value], end = track.endOf(ref.index.value);
    const RankFigures& figures = m_ranks[rank];
    for (std::uint32_t i = 0; i < figures.instances.size(); ++i) {
        const CollectiveInstance& in = figures.instances[i];
        if (in.step >= figures.steps.size() || figures.steps[in.step].start + in.start != start ||
            figures.steps[in.step].start + in.end != end)
            continue;
        const CollectiveStats& mine = figures.collectives.at(in.collective);
        for (std::size_t c = 0; c < m_job.collectives.size(); ++c) {
            const CollectiveSpread& s = m_job.collectives[c];
            if (s.name == mine.name && s.messageBytes == mine.messageBytes && s.group == mine.group)
                return std::pair{c, i};
        }
    }
    return std::nullopt;
}

void DistributedView::showStep(const std::string& step) {
    if (!m_ready) {
        m_pendingStep = step;
        return;
    }
    if (!m_timelinesPage) return;
    m_tabs->setCurrentWidget(m_timelinesPage);
    // Each rank on its own range of the step (the ranks' steps need not line up under either alignment);
    // a later zoom on any rank moves the others with it again.
    m_syncing = true;
    for (std::size_t i = 0; i < m_timelines.size() && i < m_ranks.size(); ++i)
        for (const RankStep& s : m_ranks[i].steps)
            if (s.name == step) {
                const TimeNs pad = std::max<TimeNs>((s.end - s.start) / 20, 1000);
                m_timelines[i]->setVisibleRange(s.start - pad, s.end + pad);
            }
    m_syncing = false;
}

void DistributedView::syncFrom(std::size_t source) {
    if (m_syncing || m_shifts.size() != m_timelines.size()) return;
    m_syncing = true;
    const TimeAxis axis = m_timelines[source]->axis();
    for (std::size_t i = 0; i < m_timelines.size(); ++i) {
        if (i == source) continue;
        const TimeNs shift = m_shifts[i] - m_shifts[source];
        m_timelines[i]->setVisibleRange(axis.start + shift, axis.end + shift, false);
    }
    m_syncing = false;
}

void DistributedView::showSearch() {
    if (!m_searchBar || !m_timelinesPage) return;
    m_tabs->setCurrentWidget(m_timelinesPage);
    m_searchBar->show();
    m_searchBar->focusQuery();
}

std::pair<std::size_t, EventRef> DistributedView::currentMatch() const {
    if (m_currentMatch < 0 || std::size_t(m_currentMatch) >= m_matches.size()) return {0, EventRef{}};
    return m_matches[std::size_t(m_currentMatch)];
}

void DistributedView::runSearch() {
    if (!m_searchBar) return;
    const std::uint64_t generation = ++m_searchGeneration;
    const SearchQuery query{m_searchBar->text().toStdString(), m_searchBar->isRegex(),
                            m_searchBar->isCaseSensitive(), m_searchBar->isWholeName()};
    m_matches.clear();
    m_matchNames.assign(m_timelines.size(), nullptr);
    m_currentMatch = -1;
    if (query.text.empty()) {
        for (TimelineWidget* t : m_timelines)
            t->setSearchHighlight(nullptr, {});
        m_searchBar->setStatus({});
        emit searchFinished();
        return;
    }
    m_searchBar->setStatus(tr("searching…"));
    struct Found {
        std::vector<SearchResult> perRank;
    };
    auto found = std::make_shared<Found>();
    auto traces = m_traces;
    QPointer<DistributedView> self(this);
    // Off the UI thread: every rank's slices are read.
    startBackground([traces, query, found, self, generation] {
        for (const auto& trace : traces)
            found->perRank.push_back(searchSlices(*trace->store, query));
        QMetaObject::invokeMethod(
            QCoreApplication::instance(),
            [self, found, generation] {
                if (!self || generation != self->m_searchGeneration) return;
                for (std::size_t r = 0; r < found->perRank.size() && r < self->m_timelines.size(); ++r) {
                    SearchResult& result = found->perRank[r];
                    if (!result.error.empty()) {
                        self->m_searchBar->setStatus(QString::fromStdString(result.error), true);
                        emit self->searchFinished();
                        return;
                    }
                    self->m_matchNames[r] =
                        std::make_shared<const std::vector<bool>>(std::move(result.nameMatches));
                    self->m_timelines[r]->setSearchHighlight(self->m_matchNames[r], {});
                    for (const EventRef m : result.matches)
                        self->m_matches.emplace_back(r, m);
                }
                std::size_t ranks = 0;
                for (std::size_t r = 0; r < found->perRank.size(); ++r)
                    ranks += !found->perRank[r].matches.empty();
                self->m_searchBar->setStatus(self->m_matches.empty() ? tr("no matches")
                                                                     : tr("%1 matches on %2 of %3 ranks")
                                                                           .arg(self->m_matches.size())
                                                                           .arg(ranks)
                                                                           .arg(found->perRank.size()));
                emit self->searchFinished();
            },
            Qt::QueuedConnection);
    });
}

void DistributedView::goToMatch(int index) {
    if (m_matches.empty()) return;
    const int n = int(m_matches.size());
    m_currentMatch = ((index % n) + n) % n;
    const auto [rank, ref] = m_matches[std::size_t(m_currentMatch)];
    for (std::size_t r = 0; r < m_timelines.size(); ++r)
        m_timelines[r]->setSearchHighlight(m_matchNames[r], r == rank ? ref : EventRef{});
    m_timelines[rank]->revealEvent(ref);
    m_timelines[rank]->setSelected(ref);
    m_searchBar->setStatus(tr("%1 of %2 · rank %3").arg(m_currentMatch + 1).arg(n).arg(m_ranks[rank].rank));
}

bool DistributedView::revealKernel(std::size_t rank, TimeNs start, TimeNs end) {
    if (rank >= m_timelines.size() || !m_timelinesPage) return false;
    const TraceStore& store = *m_traces[rank]->store;
    for (std::uint32_t t = 0; t < store.tracks().size(); ++t) {
        const Track& track = store.tracks()[t];
        if (track.kind != TrackKind::GpuStream) continue;
        for (std::uint32_t d = 0; d < track.laneCount(); ++d) {
            const auto [r0, r1] = track.rowsInRange(d, start, start);
            for (std::uint32_t r = r0; r < r1; ++r)
                if (track.starts[r] == start && track.endOf(r) == end) {
                    m_tabs->setCurrentWidget(m_timelinesPage);
                    m_timelines[rank]->revealEvent({TrackId(t), EventIndex(r)});
                    m_timelines[rank]->setSelected({TrackId(t), EventIndex(r)});
                    return true;
                }
        }
    }
    return false;
}

} // namespace kinetoscope
