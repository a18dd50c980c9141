// The compact view of threads with Python frames (core/query/hostview) and its place in the lane layout, on
// real with_stack traces: every event is drawn exactly once and maps back to itself, the thread's other
// slices nest among themselves by the one rule, and the first screen holds every GPU stream.
#include "analysis/gpu/gpuseries.h"
#include "model/nesting.h"
#include "query/lanelayout.h"
#include "testsupport.h"

#include <QTest>

#include <set>

using namespace kinetoscope;

class TestHostView : public QObject {
    Q_OBJECT
  private slots:
    void partsCoverTheThread_data();
    void partsCoverTheThread();
    void layoutMapsBothWays_data();
    void layoutMapsBothWays();
    void firstScreenShowsGpuStreams_data();
    void firstScreenShowsGpuStreams();
    void threadsWithoutPython();
    void threadsOfPythonFramesAlone();
    void idleProcessesFold();
};

namespace {
void addWithStackTraces() {
    QTest::addColumn<QString>("trace");
    QTest::newRow("qwen_h100")
        << "AMD-AGI__TraceLens/tests__traces__h100__Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz";
    QTest::newRow("b200_eager") << "AMD-AGI__TraceLens/tests__traces__b200__eager_trace.json.gz";
    QTest::newRow("ddp_resnet18")
        << "AMD-AGI__TraceLens/tests__traces__mi300__ddp_resnet18_no_pool__train_resnet18.json.gz";
    QTest::newRow("sglang_decode")
        << "AMD-AGI__TraceLens/tests__traces__inference__sglang_decode__capture_traces__bs_32_rank0.json.gz";
}

LoadResult load(const QString& trace) {
    return loadTrace(test::tracePath(trace.toUtf8().constData()));
}

bool isPython(const TraceStore& s, const Track& t, std::uint32_t r) {
    return s.categories()[t.categories[r]].kind == CategoryKind::PythonFunction;
}
} // namespace

void TestHostView::partsCoverTheThread_data() {
    addWithStackTraces();
}

void TestHostView::partsCoverTheThread() {
    QFETCH(QString, trace);
    const LoadResult r = load(trace);
    QVERIFY2(r.ok(), r.error.c_str());
    const TraceStore& s = *r.store;
    const HostViews views = buildHostViews(s);
    QVERIFY(!views.views.empty());
    for (const HostView& v : views.views) {
        const Track& t = s.track(v.source);
        QCOMPARE(views.of(v.source), &v);
        // Every other slice is in the host part once; every Python frame is in the summary or under it.
        std::vector<int> seen(t.sliceCount(), 0);
        for (std::uint32_t row : v.hostRows) {
            QVERIFY(!isPython(s, t, row));
            ++seen[row];
        }
        for (std::uint32_t row : v.pythonRows) {
            QVERIFY(isPython(s, t, row));
            ++seen[row];
        }
        for (std::uint32_t row = 0; row < t.sliceCount(); ++row) {
            QCOMPARE(seen[row], isPython(s, t, row) && v.shownRowOf[row] == HostView::noRow ? 0 : 1);
            if (!isPython(s, t, row)) QVERIFY(v.shownRowOf[row] < HostView::pythonBit);
        }
        // Columns copied row for row.
        for (std::uint32_t k = 0; k < v.hostRows.size(); ++k) {
            QCOMPARE(v.host.starts[k], t.starts[v.hostRows[k]]);
            QCOMPARE(v.host.durations[k], t.durations[v.hostRows[k]]);
            QCOMPARE(v.host.names[k], t.names[v.hostRows[k]]);
            QCOMPARE(v.shownRowOf[v.hostRows[k]], k);
        }
        // Each lane of either part sorted by start, siblings apart (up to the jitter tolerance).
        for (const Track* part : {&v.host, &v.python}) {
            // (A thread of Python frames alone has an empty host part, of no lane.)
            QVERIFY(part->laneCount() >= 1 || part->sliceCount() == 0);
            QVERIFY(!part->laneBegin.empty());
            QCOMPARE(part->laneBegin.back(), std::uint32_t(part->sliceCount()));
            for (std::uint32_t d = 0; d < part->laneCount(); ++d)
                for (std::uint32_t k = part->laneBegin[d] + 1; k < part->laneBegin[d + 1]; ++k) {
                    QVERIFY(part->starts[k] >= part->starts[k - 1]);
                    QVERIFY(part->endOf(k - 1) < part->starts[k] + laneOverlapTolerance(part->nestingSlack));
                }
        }
        // A host slice below the top lane is enclosed by a host slice on the lane above it, or overlaps one.
        for (std::uint32_t d = 1; d < v.host.laneCount(); ++d)
            for (std::uint32_t k = v.host.laneBegin[d]; k < v.host.laneBegin[d + 1]; ++k) {
                const auto above = v.host.candidateOnLane(d - 1, v.host.starts[k]);
                QVERIFY(above.has_value());
                QVERIFY(v.host.endOf(*above) > v.host.starts[k]);
            }
        // The point of it: the thread's other slices take far fewer lanes than the thread.
        QVERIFY(v.host.laneCount() < t.laneCount());
        QVERIFY(v.pythonLanes >= 1);
    }
}

void TestHostView::layoutMapsBothWays_data() {
    addWithStackTraces();
}

void TestHostView::layoutMapsBothWays() {
    QFETCH(QString, trace);
    const LoadResult r = load(trace);
    QVERIFY2(r.ok(), r.error.c_str());
    const TraceStore& s = *r.store;
    const HostViews views = buildHostViews(s);
    LaneLayout layout(s, nullptr, &views);
    const LaneLayout full(s);
    QVERIFY(layout.contentHeight() < full.contentHeight());
    for (const HostView& v : views.views) {
        const Track& t = s.track(v.source);
        QVERIFY(!layout.pythonExpanded(v.source));
        // Every event of the thread is drawn on a row of the thread, and what is hit there is the event.
        for (std::uint32_t row = 0; row < t.sliceCount(); ++row) {
            const EventRef ref{v.source, EventIndex(row)};
            const int ri = layout.rowOf(ref);
            QVERIFY(ri >= 0);
            const LaneRow& lane = layout.rows()[std::size_t(ri)];
            QCOMPARE(layout.sourceTrackOf(lane.track), v.source);
            const std::uint32_t shown = v.shownRowOf[row];
            if (shown != HostView::noRow && !(shown & HostView::pythonBit)) {
                QCOMPARE(lane.depth, v.host.depthOf(shown));
                QCOMPARE(layout.sourceOf({lane.track, EventIndex(shown)}), ref);
            } else {
                QVERIFY(layout.isPythonSummary(lane.track));
                QCOMPARE(ri, layout.firstRowOf(v.source));
            }
        }
        // Expanded, the thread is laid out as the store has it.
        layout.setPythonExpanded(v.source, true);
        for (std::uint32_t row = 0; row < t.sliceCount(); row += 97) {
            const int ri = layout.rowOf({v.source, EventIndex(row)});
            QCOMPARE(layout.rows()[std::size_t(ri)].track, v.source);
            QCOMPARE(layout.rows()[std::size_t(ri)].depth, t.depthOf(row));
        }
        layout.setPythonExpanded(v.source, false);
    }
    QCOMPARE(layout.contentHeight(), LaneLayout(s, nullptr, &views).contentHeight());
}

void TestHostView::firstScreenShowsGpuStreams_data() {
    addWithStackTraces();
}

void TestHostView::firstScreenShowsGpuStreams() {
    // The measure: at open, a 1920x1080 window shows every GPU stream lane. The lanes of such a
    // window get about 1080 px less the menu, tabs, status bar, ruler and the panels' quarter: 650 px to be
    // safe (tst_panellayout checks the real window; `--render --size 1920x1080` has 1038).
    QFETCH(QString, trace);
    const LoadResult r = load(trace);
    QVERIFY2(r.ok(), r.error.c_str());
    const TraceStore& s = *r.store;
    const HostViews views = buildHostViews(s);
    const DerivedTracks derived = gpuActivityTracks(s);
    const LaneLayout layout(s, &derived, &views);
    const double lanesHeight = 650;
    int streams = 0;
    for (std::uint32_t t = 0; t < s.tracks().size(); ++t) {
        if (s.tracks()[t].kind != TrackKind::GpuStream) continue;
        ++streams;
        const int row = layout.firstRowOf(TrackId(t));
        QVERIFY(row >= 0);
        const LaneRow& lane = layout.rows()[std::size_t(row)];
        QVERIFY2(lane.y + lane.height <= lanesHeight,
                 qPrintable(QStringLiteral("%1 at y %2")
                                .arg(QString::fromStdString(layout.trackTitle(TrackId(t))))
                                .arg(lane.y)));
    }
    QVERIFY(streams > 0);
}

void TestHostView::threadsWithoutPython() {
    // No Python frames, no compact view: the layout is the store's own.
    const LoadResult r = loadTrace(test::tracePath(
        "pytorch__kineto/tb_plugin__samples__resnet50_num_workers_0__worker0.pt.trace.json.gz"));
    QVERIFY2(r.ok(), r.error.c_str());
    const HostViews views = buildHostViews(*r.store);
    QVERIFY(views.views.empty());
    QCOMPARE(LaneLayout(*r.store, nullptr, &views).contentHeight(), LaneLayout(*r.store).contentHeight());
}

// A thread of nothing but Python frames (SGLang's scheduler thread (251, 0): 10 frames deep; a tqdm monitor)
// folds to one row like any other thread with Python frames, and unfolds to all of them.
void TestHostView::threadsOfPythonFramesAlone() {
    const LoadResult r = loadTrace(test::tracePath(
        "AMD-AGI__TraceLens/tests__traces__inference__sglang_decode__capture_traces__bs_32_rank0.json.gz"));
    QVERIFY2(r.ok(), r.error.c_str());
    const TraceStore& s = *r.store;
    const HostViews views = buildHostViews(s);
    TrackId thread;
    for (std::uint32_t t = 0; t < s.tracks().size() && !thread.isValid(); ++t) {
        const Track& track = s.tracks()[t];
        if (track.kind != TrackKind::CpuThread || track.sliceCount() == 0) continue;
        bool pythonOnly = true;
        for (std::uint32_t i = 0; i < track.sliceCount() && pythonOnly; ++i)
            pythonOnly = s.categories()[track.categories[i]].kind == CategoryKind::PythonFunction;
        if (pythonOnly && track.laneCount() >= 5) thread = TrackId(t);
    }
    QVERIFY(thread.isValid());
    LaneLayout layout(s, nullptr, &views);
    const HostView* v = layout.hostViewOf(thread);
    QVERIFY(v);
    QCOMPARE(v->host.sliceCount(), std::size_t(0));
    QVERIFY(v->pythonLanes >= 5);
    const auto rowsOf = [&] {
        int rows = 0;
        for (const LaneRow& row : layout.rows())
            rows += row.kind != LaneRow::Kind::GroupHeader && layout.sourceTrackOf(row.track) == thread;
        return rows;
    };
    QCOMPARE(rowsOf(), 1);
    layout.setPythonExpanded(thread, true);
    QCOMPARE(rowsOf(), int(s.track(thread).laneCount()));
}

// The first screen: processes with nothing but instants, Python frames, the profiler's Trace spans and
// overhead fold to their header (Qwen: Traces, Spans, the tqdm thread's process 0); those with operators stay
// open.
void TestHostView::idleProcessesFold() {
    const LoadResult r = loadTrace(test::tracePath(test::traces::qwenH100));
    QVERIFY2(r.ok(), r.error.c_str());
    const HostViews views = buildHostViews(*r.store);
    LaneLayout layout(*r.store, nullptr, &views);
    for (const LaneGroup& g : layout.groups())
        QVERIFY(!g.collapsed); // a bare layout folds nothing
    layout.collapseIdleProcesses();
    QStringList folded, open;
    for (const LaneGroup& g : layout.groups())
        if (g.kind == LaneGroup::Kind::Process)
            (g.collapsed ? folded : open) << QString::fromStdString(g.title);
    folded.sort();
    QCOMPARE(folded, (QStringList{"python3 (0)", "python3 (Spans)", "python3 (Traces)"}));
    QCOMPARE(open, QStringList{"python3 (25286)"});
}

QTEST_GUILESS_MAIN(TestHostView)
#include "tst_hostview.moc"
