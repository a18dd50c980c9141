#include "views/compareview.h"

#include "model/textformat.h"

#include "query/kernelshortname.h"
#include "query/search.h"

#include "panels/detailspanel.h"
#include "panels/panellayout.h"

#include "shell/backgroundjobs.h"
#include "shell/loadjob.h"
#include "tables/tablemodels.h"
#include "timeline/timelinewidget.h"

#include <QCoreApplication>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPointer>
#include <QPushButton>
#include <QSplitter>
#include <QStackedWidget>
#include <QTabWidget>
#include <QTableWidget>
#include <QThreadPool>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>
#include <optional>

namespace kinetoscope {

namespace {
QString signedDuration(TimeNs ns) {
    return (ns > 0   ? QStringLiteral("+")
            : ns < 0 ? QStringLiteral("−")
                     : QString()) +
           durationText(std::llabs(ns));
}

void fill(QTableWidget* table, const std::vector<DiffRow>& rows, bool host) {
    table->setSortingEnabled(false);
    table->setRowCount(int(rows.size()));
    for (std::size_t i = 0; i < rows.size(); ++i) {
        const DiffRow& r = rows[i];
        int c = 0;
        // Kernels by their short name, the full one in the tooltip; operators as they are.
        auto* name = new QTableWidgetItem(QString::fromStdString(host ? r.name : r.displayName));
        const QString nameA = QString::fromStdString(r.nameA);
        name->setToolTip(r.nameA.empty() ? QString::fromStdString(r.name)
                         : r.pairing == DiffPairing::Vendor
                             ? QObject::tr("%1\nin A: %2 (the same operation on the other GPU vendor)")
                                   .arg(QString::fromStdString(r.name), nameA)
                             : QObject::tr("%1\nin A: %2 (the same fused kernel, numbered apart by "
                                           "the two compiles)")
                                   .arg(QString::fromStdString(r.name), nameA));
        if (r.pairing == DiffPairing::Renumbered)
            name->setText(
                name->text() +
                QObject::tr(" (A: …%1)").arg(QString::fromStdString(r.nameA.substr(r.nameA.rfind('_')))));
        else if (r.pairing == DiffPairing::Vendor)
            name->setText(name->text() +
                          (host ? QObject::tr(" (A: %1)").arg(nameA) : QObject::tr(" (both vendors)")));
        name->setData(NameRole, QString::fromStdString(r.name));
        if (r.onlyA() || r.onlyB())
            name->setForeground(r.onlyB() ? QColor(0x04, 0x78, 0x57) : QColor(0xb9, 0x1c, 0x1c));
        table->setItem(int(i), c++, name);
        table->setItem(int(i), c++, new NumberItem(QString::number(r.countA), double(r.countA)));
        table->setItem(int(i), c++, new NumberItem(QString::number(r.countB), double(r.countB)));
        if (host) {
            table->setItem(int(i), c++, new NumberItem(durationText(r.hostA), double(r.hostA)));
            table->setItem(int(i), c++, new NumberItem(durationText(r.hostB), double(r.hostB)));
            table->setItem(int(i), c++, new NumberItem(signedDuration(r.hostDelta()), double(r.hostDelta())));
        }
        table->setItem(int(i), c++, new NumberItem(durationText(r.deviceA), double(r.deviceA)));
        table->setItem(int(i), c++, new NumberItem(durationText(r.deviceB), double(r.deviceB)));
        table->setItem(int(i), c++, new NumberItem(signedDuration(r.deviceDelta()), double(r.deviceDelta())));
        const double pct = r.percentChange();
        const QString change =
            r.onlyA()   ? QObject::tr("only in A")
            : r.onlyB() ? QObject::tr("only in B")
            : std::isnan(pct)
                ? QObject::tr("new time")
                : QStringLiteral("%1%2%").arg(pct > 0 ? QStringLiteral("+") : QString()).arg(pct, 0, 'f', 1);
        table->setItem(int(i), c++, new NumberItem(change, std::isnan(pct) ? 1e9 : pct));
        { // per call: what each run costs, whatever the amounts of work on the two sides
            table->setItem(
                int(i), c++,
                new NumberItem(r.countA ? durationText(r.perCallA()) : QString(), double(r.perCallA())));
            table->setItem(
                int(i), c++,
                new NumberItem(r.countB ? durationText(r.perCallB()) : QString(), double(r.perCallB())));
            const double perCall = r.perCallChange();
            table->setItem(int(i), c++,
                           new NumberItem(std::isnan(perCall)
                                              ? QString()
                                              : QStringLiteral("%1 (%2%3%)")
                                                    .arg(signedDuration(r.perCallDelta()))
                                                    .arg(perCall > 0 ? QStringLiteral("+") : QString())
                                                    .arg(perCall, 0, 'f', 1),
                                          std::isnan(perCall) ? 0.0 : perCall));
            // Per step, when both traces have ProfilerSteps (the columns hide otherwise).
            table->setItem(int(i), c++,
                           new NumberItem(r.hasPerStep() ? durationText(r.perStepA()) : QString(),
                                          double(r.perStepA())));
            table->setItem(int(i), c++,
                           new NumberItem(r.hasPerStep() ? durationText(r.perStepB()) : QString(),
                                          double(r.perStepB())));
        }
        if (!host) // Inductor's estimates on each side (profile_analysis --diff's columns), hidden without
                   // them
            for (const double v : {r.gbpsA, r.gbpsB, r.tflopsA, r.tflopsB})
                table->setItem(int(i), c++,
                               new NumberItem(v > 0 ? QString::number(v, 'f', 1) : QString(), v));
    }
    table->setSortingEnabled(true);
    const bool perStep =
        std::any_of(rows.begin(), rows.end(), [](const DiffRow& r) { return r.hasPerStep(); });
    const int perStepB = host ? table->columnCount() - 1 : table->columnCount() - 5;
    table->setColumnHidden(perStepB - 1, !perStep);
    table->setColumnHidden(perStepB, !perStep);
    if (!host) {
        const int first = table->columnCount() - 4;
        for (int col = first; col < table->columnCount(); ++col) {
            bool any = false;
            for (const DiffRow& r : rows)
                any = any || (col == first       ? r.gbpsA
                              : col == first + 1 ? r.gbpsB
                              : col == first + 2 ? r.tflopsA
                                                 : r.tflopsB) > 0;
            table->setColumnHidden(col, !any);
        }
    }
}

QTableWidget* makeTable(QWidget* parent, const QStringList& headers) {
    QTableWidget* t = makeReadOnlyTable(parent, headers);
    t->horizontalHeader()->setSectionResizeMode(0, QHeaderView::Interactive);
    t->horizontalHeader()->resizeSection(0, 420);
    return t;
}

TimeNs anchorOf(const LoadedTrace& t) {
    return t.steps.empty() ? t.store->minTime() : t.steps.front().start;
}
} // namespace

CompareView::CompareView(QString pathA, QString pathB, QWidget* parent) : QWidget(parent) {
    m_paths[0] = std::move(pathA);
    m_paths[1] = std::move(pathB);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    m_stack = new QStackedWidget(this);
    m_status = new QLabel(
        tr("Loading %1 and %2…").arg(QFileInfo(m_paths[0]).fileName(), QFileInfo(m_paths[1]).fileName()),
        m_stack);
    m_status->setAlignment(Qt::AlignCenter);
    m_status->setWordWrap(true);
    m_stack->addWidget(m_status);
    layout->addWidget(m_stack);
    for (int i = 0; i < 2; ++i) {
        m_jobs[i] = new LoadJob(m_paths[i], this, false); // no first screens: the comparison waits for both
        connect(m_jobs[i], &LoadJob::loaded, this,
                [this, i](std::shared_ptr<LoadedTrace> t) { onLoaded(i, std::move(t)); });
        connect(m_jobs[i], &LoadJob::failed, this,
                [this](const QString& message, bool) { onFailed(message); });
        m_jobs[i]->start();
    }
}

CompareView::~CompareView() = default;

void CompareView::onFailed(const QString& message) {
    if (!m_error.isEmpty()) return;
    m_error = message;
    m_status->setText(message);
    m_status->setStyleSheet(QStringLiteral("QLabel{color:#991b1b}"));
    emit failed(message);
}

void CompareView::onLoaded(int which, std::shared_ptr<LoadedTrace> trace) {
    m_traces[which] = std::move(trace);
    if (!m_traces[0] || !m_traces[1] || !m_error.isEmpty()) return;
    m_status->setText(tr("Comparing…"));
    auto a = m_traces[0], b = m_traces[1];
    QPointer<CompareView> self(this);
    startBackground([a, b, self] {
        auto diff = std::make_shared<const TraceDiff>(diffTraces(*a->store, *b->store));
        QMetaObject::invokeMethod(
            QCoreApplication::instance(),
            [self, diff] {
                if (!self) return;
                self->m_diff = diff;
                self->build();
                emit self->ready();
            },
            Qt::QueuedConnection);
    });
}

void CompareView::build() {
    m_offset = anchorOf(*m_traces[1]) - anchorOf(*m_traces[0]);
    auto* content = new QSplitter(Qt::Vertical, m_stack);
    auto* timelines = new QSplitter(Qt::Vertical, content);
    auto titled = [&](const QString& title, TimelineWidget* timeline) {
        auto* box = new QWidget(timelines);
        auto* l = new QVBoxLayout(box);
        l->setContentsMargins(0, 0, 0, 0);
        l->setSpacing(0);
        auto* label = new QLabel(title, box);
        label->setStyleSheet(QStringLiteral("QLabel{background:#e5e7eb;padding:2px 6px;font-weight:bold}"));
        l->addWidget(label);
        l->addWidget(timeline, 1);
        timeline->setParent(box);
        return box;
    };
    m_timelineA = new TimelineWidget(m_traces[0]);
    m_timelineB = new TimelineWidget(m_traces[1]);
    // Two timelines share the height: each thread shows its top lanes (steps, phases, top-level operators) so
    // that both GPUs' streams are on the first screen; a thread's title opens the rest.
    for (TimelineWidget* t : {m_timelineA, m_timelineB})
        t->stackedLayout();
    // How the two line up, and the way back to the first steps.
    auto* timelinesPage = new QWidget(content);
    auto* tl = new QVBoxLayout(timelinesPage);
    tl->setContentsMargins(0, 0, 0, 0);
    tl->setSpacing(0);
    auto* alignBar = new QWidget(timelinesPage);
    auto* al = new QHBoxLayout(alignBar);
    al->setContentsMargins(6, 2, 6, 2);
    m_alignment = new QLabel(alignBar);
    auto* reset = new QPushButton(tr("Align at the first step"), alignBar);
    reset->setFlat(true);
    connect(reset, &QPushButton::clicked, this, &CompareView::alignAtFirstStep);
    al->addWidget(m_alignment, 1);
    al->addWidget(reset);
    tl->addWidget(alignBar);
    tl->addWidget(timelines, 1);
    timelines->addWidget(titled(tr("A (baseline): %1").arg(QFileInfo(m_paths[0]).fileName()), m_timelineA));
    timelines->addWidget(titled(tr("B: %1").arg(QFileInfo(m_paths[1]).fileName()), m_timelineB));
    auto* tabs = new QTabWidget(content);
    m_tabs = tabs;
    m_operators = makeTable(tabs, {tr("Operator"), tr("Calls A"), tr("Calls B"), tr("Host self A"),
                                   tr("Host self B"), tr("Host self Δ"), tr("Device self A"),
                                   tr("Device self B"), tr("Device self Δ"), tr("Change"), tr("Per call A"),
                                   tr("Per call B"), tr("Per call Δ"), tr("Per step A"), tr("Per step B")});
    m_operators->horizontalHeaderItem(10)->setToolTip(
        tr("Device self time per call, or host self time for an operator that runs no GPU work"));
    m_kernels = makeTable(tabs, {tr("Kernel"), tr("Calls A"), tr("Calls B"), tr("Total A"), tr("Total B"),
                                 tr("Total Δ"), tr("Change"), tr("Per call A"), tr("Per call B"),
                                 tr("Per call Δ"), tr("Per step A"), tr("Per step B"), tr("GB/s A"),
                                 tr("GB/s B"), tr("TFLOP/s A"), tr("TFLOP/s B")});
    m_summary = new QLabel(tabs);
    m_summary->setAlignment(Qt::AlignTop | Qt::AlignLeft);
    m_summary->setContentsMargins(6, 6, 6, 6);
    m_summary->setWordWrap(true);
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    showDiff();
    // What the tables compare: the whole traces, or an area selected on either timeline (Ctrl+drag).
    auto* scopeBar = new QWidget(tabs);
    auto* sl = new QHBoxLayout(scopeBar);
    sl->setContentsMargins(4, 0, 4, 0);
    m_scopeLabel = new QLabel(tr("Scope: whole traces (Ctrl+drag on a timeline compares an area)"), scopeBar);
    auto* whole = new QPushButton(tr("Whole traces"), scopeBar);
    whole->setFlat(true);
    connect(whole, &QPushButton::clicked, this, &CompareView::compareWhole);
    sl->addWidget(m_scopeLabel);
    sl->addWidget(whole);
    tabs->setCornerWidget(scopeBar);
    connect(m_timelineA, &TimelineWidget::areaSelectionChanged, this, [this] { compareArea(0); });
    connect(m_timelineB, &TimelineWidget::areaSelectionChanged, this, [this] { compareArea(1); });
    tabs->addTab(m_summary, tr("Summary"));
    tabs->addTab(m_operators, tr("Operators Δ"));
    tabs->addTab(m_kernels, tr("Kernels Δ"));
    m_detailsStack = new QStackedWidget(tabs);
    for (int side = 0; side < 2; ++side) {
        m_details[side] = new DetailsPanel(*m_traces[side]->store, m_detailsStack);
        m_detailsStack->addWidget(m_details[side]);
        TimelineWidget* timeline = side ? m_timelineB : m_timelineA;
        connect(m_details[side], &DetailsPanel::jumpRequested, timeline, &TimelineWidget::revealEvent);
        connect(timeline, &TimelineWidget::selectionChanged, this, [this, side](EventRef ref) {
            m_details[side]->showEvent(ref);
            m_detailsStack->setCurrentIndex(side);
            // Which trace the Details show: the tab says it.
            m_tabs->setTabText(m_tabs->indexOf(m_detailsStack), side ? tr("Details (B)") : tr("Details (A)"));
            if (ref.isValid() && !m_marking) m_tabs->setCurrentWidget(m_detailsStack);
        });
    }
    tabs->addTab(m_detailsStack, tr("Details"));
    for (QTableWidget* table : {m_operators, m_kernels}) {
        connect(table, &QTableWidget::cellDoubleClicked, this, [this, table](int row, int) {
            if (const QTableWidgetItem* item = table->item(row, 0)) markName(item->data(NameRole).toString());
        });
    }
    content->addWidget(timelinesPage);
    content->addWidget(tabs);
    // The tables get room for a dozen rows; the timelines keep theirs (as in a trace's tab).
    for (int i = 0; i < timelines->count(); ++i)
        timelines->widget(i)->setMinimumHeight(panellayout::timelineMinimumHeight / 2);
    tabs->setMinimumHeight(panellayout::panelsMinimumHeight);
    content->setChildrenCollapsible(false);
    content->setStretchFactor(0, 3);
    content->setStretchFactor(1, 2);
    content->setSizes({720, 280});
    m_stack->addWidget(content);
    m_stack->setCurrentWidget(content);
    connect(m_timelineA, &TimelineWidget::viewChanged, this, [this] { syncFrom(m_timelineA); });
    connect(m_timelineB, &TimelineWidget::viewChanged, this, [this] { syncFrom(m_timelineB); });
    connect(m_timelineA, &TimelineWidget::sliceDoubleClicked, this,
            [this](EventRef ref) { alignOn(0, ref); });
    connect(m_timelineB, &TimelineWidget::sliceDoubleClicked, this,
            [this](EventRef ref) { alignOn(1, ref); });
    applyOffset(m_offset, firstStepAlignment());
    // Start with both showing A's first step (or all of A).
    m_timelineA->fitAll();
    if (!m_traces[0]->steps.empty())
        m_timelineA->setVisibleRange(m_traces[0]->steps.front().start, m_traces[0]->steps.back().end);
    syncFrom(m_timelineA);
}

void CompareView::showDiff() {
    fill(m_operators, m_diff->operators, true);
    fill(m_kernels, m_diff->kernels, false);
    m_operators->sortByColumn(8, Qt::DescendingOrder);
    m_kernels->sortByColumn(5, Qt::DescendingOrder);
    const Overview& oa = m_diff->overviewA;
    const Overview& ob = m_diff->overviewB;
    QStringList breakdown;
    for (std::size_t c = 0; c < breakdownCategoryCount; ++c) {
        const TimeNs a = oa.steps.empty() ? 0 : oa.breakdownTotal[c] / TimeNs(oa.steps.size());
        const TimeNs b = ob.steps.empty() ? 0 : ob.breakdownTotal[c] / TimeNs(ob.steps.size());
        if (a || b)
            breakdown << QStringLiteral("%1 %2").arg(
                QString::fromLatin1(breakdownCategoryName(BreakdownCategory(c)).data()),
                signedDuration(b - a));
    }
    QStringList gpus;
    // The same device index on both sides, or else the i-th GPU of each (two ranks of a job use different
    // devices).
    for (std::size_t i = 0; i < ob.gpus.size(); ++i) {
        const GpuMetrics& gb = ob.gpus[i];
        const GpuMetrics* match = nullptr;
        for (const GpuMetrics& g : oa.gpus) {
            if (g.device == gb.device) match = &g;
        }
        if (!match && i < oa.gpus.size()) match = &oa.gpus[i];
        if (!match) continue;
        const GpuMetrics& ga = *match;
        // A figure a trace cannot support (no kernel launch properties, no occupancy) is "n/a", not 0.0 %.
        const auto sm = [](const GpuMetrics& g) {
            return g.hasSmData ? QStringLiteral("%1%").arg(g.smEfficiency * 100, 0, 'f', 1)
                               : CompareView::tr("n/a");
        };
        const auto occupancy = [](const GpuMetrics& g) {
            return g.hasOccupancyData ? QStringLiteral("%1%").arg(g.achievedOccupancy, 0, 'f', 1)
                                      : CompareView::tr("n/a");
        };
        gpus << tr("<b>GPU %1 → GPU %2</b>: utilization %3% → %4% · est. SM efficiency %5 → %6 · est. "
                   "occupancy %7 → %8 · tensor cores %9% → %10%")
                    .arg(ga.device)
                    .arg(gb.device)
                    .arg(ga.utilization * 100, 0, 'f', 1)
                    .arg(gb.utilization * 100, 0, 'f', 1)
                    .arg(sm(ga), sm(gb), occupancy(ga), occupancy(gb))
                    .arg(ga.tensorCoreShare * 100, 0, 'f', 1)
                    .arg(gb.tensorCoreShare * 100, 0, 'f', 1);
    }
    // What moved most, as `diff` lists it: the operators and kernels whose time changed most.
    const auto moved = [](const std::vector<DiffRow>& rows, bool host) {
        QStringList items;
        for (const DiffRow* r : movedMost(rows, 5)) {
            const double pct = r->percentChange();
            items << QStringLiteral("%1 %2%3").arg(
                QString::fromStdString(host ? r->name : r->displayName).toHtmlEscaped(),
                signedDuration(r->measureB() - r->measureA()),
                r->onlyA()        ? tr(" (only in A)")
                : r->onlyB()      ? tr(" (only in B)")
                : std::isnan(pct) ? QString()
                                  : QStringLiteral(" (%1%2%)")
                                        .arg(pct > 0 ? QStringLiteral("+") : QString())
                                        .arg(pct, 0, 'f', 1));
        }
        return items.isEmpty() ? tr("none") : items.join(QStringLiteral(" · "));
    };
    const QString movedText =
        tr("<b>Operators that moved most</b>: %1<br/><b>Kernels that moved most</b>: %2<br/>")
            .arg(moved(m_diff->operators, true), moved(m_diff->kernels, false));
    const QString compile = QString::fromStdString(stepsWithoutCompile(*m_diff));
    const QString work = QString::fromStdString(workDifference(*m_diff)) +
                         (compile.isEmpty() ? QString() : QStringLiteral("<br/>") + compile.toHtmlEscaped());
    m_summary->setText(
        (work.isEmpty() ? QString() : QStringLiteral("<b>%1</b><br/>").arg(work.toHtmlEscaped())) +
        tr("<b>Step time</b>: A %1, mean %2 · B %3, mean %4 "
           "(<b>%5</b>)<br/><b>Per-step breakdown Δ</b>: %6<br/>%7<br/>%8"
           "Timelines zoomed together (their alignment is said above them). "
           "<span style=\"color:#b91c1c\">Red</span>: only in A; <span "
           "style=\"color:#047857\">green</span>: only in B.")
            .arg(QString::fromStdString(countText(oa.steps.size(), "step")))
            .arg(durationText(oa.stepMean))
            .arg(QString::fromStdString(countText(ob.steps.size(), "step")))
            .arg(durationText(ob.stepMean), signedDuration(ob.stepMean - oa.stepMean),
                 breakdown.join(QStringLiteral(", ")), gpus.join(QStringLiteral("<br/>")), movedText));
}

void CompareView::compareArea(int side) {
    TimelineWidget* source = side ? m_timelineB : m_timelineA;
    if (!source) return;
    const std::optional<AreaSelection> area = source->areaSelection();
    if (!area) return;
    const TimeNs from = std::min(area->range.from, area->range.to),
                 to = std::max(area->range.from, area->range.to);
    // The same time on the other side, by the alignment (B − A = m_offset).
    const TimeNs shift = side ? -m_offset : m_offset;
    DiffScope scope =
        side ? DiffScope{from + shift, to + shift, from, to} : DiffScope{from, to, from + shift, to + shift};
    rediff(scope, tr("Scope: the area selected on %1, %2, and the same time on %3 (by the alignment)")
                      .arg(side ? tr("B") : tr("A"), durationText(to - from), side ? tr("A") : tr("B")));
}

void CompareView::compareWhole() {
    if (m_scope.whole()) return;
    rediff(DiffScope{}, tr("Scope: whole traces (Ctrl+drag on a timeline compares an area)"));
}

void CompareView::rediff(DiffScope scope, const QString& said) {
    if (!m_traces[0] || !m_traces[1]) return;
    const std::uint64_t generation = ++m_diffGeneration;
    m_scopeLabel->setText(said + tr(" · comparing…"));
    auto a = m_traces[0], b = m_traces[1];
    QPointer<CompareView> self(this);
    startBackground([a, b, scope, said, self, generation] {
        auto diff = std::make_shared<const TraceDiff>(diffTraces(*a->store, *b->store, scope));
        QMetaObject::invokeMethod(
            QCoreApplication::instance(),
            [self, diff, scope, said, generation] {
                if (!self || generation != self->m_diffGeneration) return;
                self->m_diff = diff;
                self->m_scope = scope;
                self->m_scopeLabel->setText(said);
                self->showDiff();
                emit self->rescoped();
            },
            Qt::QueuedConnection);
    });
}

void CompareView::markName(const QString& name) {
    if (!m_timelineA || !m_timelineB || name.isEmpty()) return;
    const SearchQuery exact{name.toStdString(), false, true, true};
    SearchResult found[2] = {searchSlices(*m_traces[0]->store, exact),
                             searchSlices(*m_traces[1]->store, exact)};
    // The first on A (or on B, for a row only in B), and on the other side the one nearest the same point of
    // the run, so that the aligned views show both.
    const int lead = found[0].matches.empty() ? 1 : 0;
    EventRef chosen[2];
    if (!found[lead].matches.empty()) {
        chosen[lead] = found[lead].matches.front();
        const TraceStore& leadStore = *m_traces[lead]->store;
        const TimeNs at = leadStore.track(chosen[lead].track).starts[chosen[lead].index.value] +
                          (lead == 0 ? m_offset : -m_offset);
        const int other = 1 - lead;
        const std::vector<EventRef>& candidates = found[other].matches;
        if (!candidates.empty()) {
            const TraceStore& otherStore = *m_traces[other]->store;
            auto startOf = [&](EventRef r) { return otherStore.track(r.track).starts[r.index.value]; };
            std::size_t i = firstMatchAtOrAfter(otherStore, candidates, at);
            if (i == candidates.size() ||
                (i > 0 && at - startOf(candidates[i - 1]) < startOf(candidates[i]) - at))
                i = i == 0 ? 0 : i - 1;
            chosen[other] = candidates[i];
        }
    }
    m_marking = true;
    for (int side : {0, 1}) {
        TimelineWidget* timeline = side ? m_timelineB : m_timelineA;
        timeline->setSearchHighlight(
            std::make_shared<const std::vector<bool>>(std::move(found[side].nameMatches)), chosen[side]);
    }
    // The other side first: revealing the lead last moves the other view along with it (aligned).
    for (int side : {1 - lead, lead})
        if (chosen[side].isValid()) (side ? m_timelineB : m_timelineA)->revealEvent(chosen[side]);
    m_marking = false;
}

QString CompareView::firstStepAlignment() const {
    return m_traces[0]->steps.empty() || m_traces[1]->steps.empty()
               ? tr("Aligned at the traces' first events (no ProfilerStep on both sides)")
               : tr("Aligned at the first step");
}

void CompareView::applyOffset(TimeNs offset, const QString& how) {
    m_offset = offset;
    // Both keep within, and fit, the union of the two traces (in A's clock, shifted into B's), so that a zoom
    // or a fit on the longer one never clamps the other off the alignment.
    const TraceStore& a = *m_traces[0]->store;
    const TraceStore& b = *m_traces[1]->store;
    const TimeNs lo = std::min(a.minTime(), b.minTime() - m_offset);
    const TimeNs hi = std::max(a.maxTime(), b.maxTime() - m_offset);
    m_timelineA->setTimeBounds(TimeRange{lo, hi});
    m_timelineB->setTimeBounds(TimeRange{lo + m_offset, hi + m_offset});
    m_alignment->setText(
        tr("%1 (B − A = %2). Double-click a slice to align it with the same call in the other "
           "trace.")
            .arg(how, signedDuration(m_offset)));
}

void CompareView::alignAtFirstStep() {
    applyOffset(anchorOf(*m_traces[1]) - anchorOf(*m_traces[0]), firstStepAlignment());
    syncFrom(m_timelineA);
}

bool CompareView::alignOn(int side, EventRef ref) {
    if (!m_timelineA || !ref.isValid() || side < 0 || side > 1) return false;
    const TraceStore& own = *m_traces[side]->store;
    const TraceStore& other = *m_traces[1 - side]->store;
    const std::string name(own.nameOf(ref));
    const SearchQuery exact{name, false, true, true};
    const SearchResult mine = searchSlices(own, exact), theirs = searchSlices(other, exact);
    if (theirs.matches.empty()) {
        m_alignment->setText(tr("%1 is not in %2: the alignment stays (B − A = %3).")
                                 .arg(QString::fromStdString(name).toHtmlEscaped(), side ? tr("A") : tr("B"),
                                      signedDuration(m_offset)));
        return false;
    }
    const auto startOf = [](const TraceStore& s, EventRef e) {
        return s.track(e.track).starts[e.index.value];
    };
    // Its call number among the slices of its name (in start order) within its step, and the same call in the
    // same step (by position) on the other side: counted over the whole trace, a step with one call more
    // shifted every later match. Without steps on both sides, over the whole trace.
    const Overview& ownOverview = side ? m_diff->overviewB : m_diff->overviewA;
    const Overview& otherOverview = side ? m_diff->overviewA : m_diff->overviewB;
    std::optional<std::size_t> step;
    if (!ownOverview.syntheticStep && !otherOverview.syntheticStep)
        for (std::size_t i = 0; i < ownOverview.steps.size() && i < otherOverview.steps.size(); ++i)
            if (startOf(own, ref) >= ownOverview.steps[i].start &&
                startOf(own, ref) < ownOverview.steps[i].end)
                step = i;
    const auto inStep = [&](const TraceStore& s, const std::vector<EventRef>& matches, const Overview& ov) {
        if (!step) return matches;
        std::vector<EventRef> out;
        for (const EventRef m : matches)
            if (startOf(s, m) >= ov.steps[*step].start && startOf(s, m) < ov.steps[*step].end)
                out.push_back(m);
        return out;
    };
    const std::vector<EventRef> myCalls = inStep(own, mine.matches, ownOverview);
    std::vector<EventRef> theirCalls = inStep(other, theirs.matches, otherOverview);
    if (theirCalls.empty()) { // none in that step there: the whole trace's count
        step.reset();
        theirCalls = theirs.matches;
    }
    const std::vector<EventRef>& counted = step ? myCalls : mine.matches;
    const std::size_t k = std::size_t(std::find(counted.begin(), counted.end(), ref) - counted.begin());
    const EventRef counterpart = theirCalls[std::min(k, theirCalls.size() - 1)];
    const TimeNs offset = side == 0 ? startOf(other, counterpart) - startOf(own, ref)
                                    : startOf(own, ref) - startOf(other, counterpart);
    applyOffset(offset, step ? tr("Aligned at call %1 of %2 in step %3 of each")
                                   .arg(k + 1)
                                   .arg(QString::fromStdString(shortKernelName(name)).toHtmlEscaped())
                                   .arg(*step + 1)
                             : tr("Aligned at call %1 of %2")
                                   .arg(k + 1)
                                   .arg(QString::fromStdString(shortKernelName(name)).toHtmlEscaped()));
    m_syncing = true; // the selection is the counterpart's; the view follows below
    (side ? m_timelineA : m_timelineB)->setSelected(counterpart);
    m_syncing = false;
    syncFrom(side ? m_timelineB : m_timelineA);
    return true;
}

void CompareView::syncFrom(TimelineWidget* source) {
    if (m_syncing || !m_timelineA || !m_timelineB) return;
    m_syncing = true;
    const TimeAxis axis = source->axis();
    if (source == m_timelineA)
        m_timelineB->setVisibleRange(axis.start + m_offset, axis.end + m_offset, false);
    else
        m_timelineA->setVisibleRange(axis.start - m_offset, axis.end - m_offset, false);
    m_syncing = false;
}

} // namespace kinetoscope
