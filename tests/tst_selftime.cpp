// Self time, one definition everywhere (query/selftime.h): the Details panel, the timeline's tooltip and the
// area selection take a slice's children by the nesting rule, as the operator tables do, never by the lanes.
// Checked against the operator tables' host tree on real traces, against a brute force for every other
// slice, and on an annotation that overlaps its enclosing slice (issue 61 item 14: the B200 training run's
// `training_step` read self 13.456 of 13.842 ms in Details and 0.21 ms in the CLI's table).
#include "analysis/ops/hosttree.h"
#include "analysis/ops/summary.h"
#include "query/areasummary.h"
#include "query/selftime.h"
#include "testsupport.h"

#include <QTest>

using namespace kinetoscope;

namespace {
const char* const corpus[] = {
    test::traces::qwenH100,
    test::traces::b200Eager,
    test::traces::resnet2020,
    test::traces::htaNsResolution,
    "facebookresearch__HolisticTraceAnalysis/"
    "tests__data__with_gpu_user_annotation__step_based_trace_2543932.json.gz",
    // The legacy profiler's whole-microsecond times, where a child may end 1 µs after its parent.
    "data/legacy/transformer_stacks.json.gz",
};

std::string pathOf(const QString& name) {
    if (name.startsWith(QLatin1String("data/")))
        return std::string(KINETOSCOPE_SOURCE_DIR "/tests/") + name.toStdString();
    return test::tracePath(name.toUtf8().constData());
}

std::unique_ptr<const TraceStore> load(const std::string& path) {
    LoadResult r = loadTrace(path);
    if (!r.ok()) qFatal("cannot load %s: %s", path.c_str(), r.error.c_str());
    return std::move(r.store);
}

// A thread whose `training_step` (a user annotation) starts inside the step's range and ends 2 ms after it,
// so it and what it holds go to the overflow lanes; a Python frame sits between it and its host children.
const char* const overlappingAnnotation = R"({"traceEvents":[
{"ph":"X","cat":"user_annotation","name":"ProfilerStep#1","pid":1,"tid":1,"ts":0,"dur":10000},
{"ph":"X","cat":"user_annotation","name":"training_step","pid":1,"tid":1,"ts":1000,"dur":11000},
{"ph":"X","cat":"python_function","name":"train.py(12): step","pid":1,"tid":1,"ts":1050,"dur":10900},
{"ph":"X","cat":"user_annotation","name":"forward","pid":1,"tid":1,"ts":1100,"dur":2900},
{"ph":"X","cat":"cpu_op","name":"aten::mm","pid":1,"tid":1,"ts":1200,"dur":500},
{"ph":"X","cat":"user_annotation","name":"backward","pid":1,"tid":1,"ts":4000,"dur":5000},
{"ph":"X","cat":"user_annotation","name":"optimizer_step","pid":1,"tid":1,"ts":9500,"dur":2400}
]})";
} // namespace

class TestSelfTime : public QObject {
    Q_OBJECT
  private slots:
    void hostEventsAgreeWithTheOperatorTables_data();
    void hostEventsAgreeWithTheOperatorTables();
    void otherSlicesByBruteForce_data();
    void otherSlicesByBruteForce();
    void overlappingAnnotationKeepsItsChildren();
};

void TestSelfTime::hostEventsAgreeWithTheOperatorTables_data() {
    QTest::addColumn<QString>("trace");
    for (const char* t : corpus)
        QTest::newRow(QString::fromLatin1(t).section(QLatin1Char('/'), -1).left(60).toUtf8().constData())
            << QString::fromLatin1(t);
}

void TestSelfTime::otherSlicesByBruteForce_data() {
    QTest::addColumn<QString>("trace");
    QTest::addColumn<bool>("nested"); // whether slices other than host events hold others there
    for (const char* t : corpus)
        if (!QByteArray(t).startsWith("data/legacy")) // host events alone there
            QTest::newRow(QString::fromLatin1(t).section(QLatin1Char('/'), -1).left(60).toUtf8().constData())
                << QString::fromLatin1(t) << (t != std::string_view(test::traces::resnet2020));
}

// Every operator and annotation: the self time Details shows is the one the operator tables sum (duration
// minus the host children of key_averages()' tree).
void TestSelfTime::hostEventsAgreeWithTheOperatorTables() {
    QFETCH(QString, trace);
    const auto s = load(pathOf(trace));
    const HostRoles roles(*s);
    std::size_t checked = 0;
    for (const Track& t : s->tracks()) {
        if (t.kind == TrackKind::Counter) continue;
        const HostTree tree = hostTree(roles, t);
        const std::size_t step = 1 + tree.nodes.size() / 3000;
        for (std::size_t i = 0; i < tree.nodes.size(); i += step) {
            const HostNode& n = tree.nodes[i];
            const TimeNs expected = t.durations[n.row] - n.childSum;
            const TimeNs actual = selfTime(*s, t, n.row);
            if (actual != expected)
                QFAIL(qPrintable(
                    QStringLiteral("%1 at %2: self %3 ns, the operator table's %4 ns")
                        .arg(QString::fromStdString(std::string(s->strings().view(t.names[n.row]))))
                        .arg(t.starts[n.row])
                        .arg(actual)
                        .arg(expected)));
            QCOMPARE(directChildren(*s, t, n.row).size(), std::size_t(n.childCount));
            ++checked;
        }
    }
    QVERIFY(checked > 100);
}

// Python frames, GPU work and GPU annotations: every slice directly inside (enclosed, and not inside another
// enclosed one), whatever its lane.
void TestSelfTime::otherSlicesByBruteForce() {
    QFETCH(QString, trace);
    QFETCH(bool, nested);
    const auto s = load(pathOf(trace));
    std::size_t checked = 0, withChildren = 0;
    for (const Track& t : s->tracks()) {
        if (t.kind == TrackKind::Counter) continue;
        for (std::uint32_t r = 0; r < t.sliceCount(); r += 1 + std::uint32_t(t.sliceCount() / 400)) {
            if (isHostEvent(*s, t, r)) continue;
            std::vector<std::uint32_t> inside;
            for (std::uint32_t c = 0; c < t.sliceCount(); ++c)
                if (t.encloses(r, c)) inside.push_back(c);
            TimeNs children = 0;
            std::size_t count = 0;
            for (std::uint32_t c : inside) {
                bool direct = true;
                for (std::uint32_t o : inside)
                    if (t.encloses(o, c)) direct = false;
                if (direct) children += t.durations[c], ++count;
            }
            QCOMPARE(directChildren(*s, t, r).size(), count);
            QCOMPARE(selfTime(*s, t, r), t.durations[r] - children);
            ++checked;
            withChildren += count > 0;
            if (inside.size() > 2000) break; // the brute force is quadratic
        }
    }
    QVERIFY(checked > 10);
    QCOMPARE(withChildren > 0, nested);
}

void TestSelfTime::overlappingAnnotationKeepsItsChildren() {
    LoadResult r = loadTraceText(overlappingAnnotation);
    QVERIFY2(r.ok(), r.error.c_str());
    const TraceStore& s = *r.store;
    QCOMPARE(s.stats().overlappingSlices, std::uint64_t(1));
    const Track* thread = nullptr;
    for (const Track& t : s.tracks())
        if (t.sliceCount() == 7) thread = &t;
    QVERIFY(thread);
    auto rowNamed = [&](std::string_view name) {
        for (std::uint32_t row = 0; row < thread->sliceCount(); ++row)
            if (s.strings().view(thread->names[row]) == name) return row;
        qFatal("no slice %s", std::string(name).c_str());
    };
    const std::uint32_t step = rowNamed("training_step");
    QVERIFY(thread->depthOf(step) >= thread->overflowLane); // on an overflow lane
    // 11 ms minus forward, backward and optimizer_step (2.9 + 5 + 2.4 ms), past the Python frame between.
    QCOMPARE(selfTime(s, *thread, step), TimeNs(700'000));
    const std::vector<std::uint32_t> children = directChildren(s, *thread, step);
    QCOMPARE(children.size(), std::size_t(3));
    QCOMPARE(s.strings().view(thread->names[children[0]]), std::string_view("forward"));
    // The frame's own children are what runs inside it, whatever kind. The step is closed by the range that
    // overlaps its end (key_averages()' tree): what follows is that range's.
    QCOMPARE(selfTime(s, *thread, rowNamed("train.py(12): step")), TimeNs(10'900'000 - 10'300'000));
    QCOMPARE(selfTime(s, *thread, rowNamed("ProfilerStep#1")), TimeNs(10'000'000));
    QCOMPARE(selfTime(s, *thread, rowNamed("forward")), TimeNs(2'400'000));

    // The operator tables say the same.
    const Summary summary = summarize(s);
    bool found = false;
    for (const OperatorRow& row : summary.annotations)
        if (row.name == "training_step") {
            QCOMPARE(row.hostSelf, TimeNs(700'000));
            found = true;
        }
    QVERIFY(found);
    // So does an area selection over all of it, and one that clips the step's end.
    std::vector<TrackId> tracks;
    for (std::uint32_t i = 0; i < s.tracks().size(); ++i)
        tracks.push_back(TrackId(i));
    auto areaSelf = [&](TimeNs from, TimeNs to) {
        for (const AreaSummaryRow& row : summarizeArea(s, tracks, from, to).rows)
            if (s.strings().view(row.name) == "training_step") return row.self;
        return TimeNs(-1);
    };
    QCOMPARE(areaSelf(s.minTime(), s.maxTime()), TimeNs(700'000));
    // [s.minTime() + 11.95 ms, end]: the step's last 50 µs, nothing of optimizer_step (ended at 11.9 ms).
    QCOMPARE(areaSelf(s.minTime() + 11'950'000, s.maxTime()), TimeNs(50'000));
}

QTEST_GUILESS_MAIN(TestSelfTime)
#include "tst_selftime.moc"
