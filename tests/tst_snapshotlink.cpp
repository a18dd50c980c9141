// A memory snapshot aligned with a trace by wall clock (analysis/memory/snapshotlink). One real snapshot has
// the trace of its own run (sameRunPair, made on an H200); for the corpus's, the test ALTERS a real trace on
// purpose: the Qwen H100 trace's baseTimeNanoseconds is rewritten so that its operators cover the real cs336
// forward snapshot's busiest stretch of allocations. Then the active-memory lane is the snapshot's curve on
// the trace's clock, and each allocation's operator is the one a brute-force search of every CPU slice finds.
#include "testsupport.h"

#include "analysis/memory/snapshotlink.h"
#include "snapshot/snapshotloader.h"

#include <map>

#include <QFile>
#include <QTemporaryDir>
#include <QTest>

using namespace kinetoscope;

class TestSnapshotLink : public QObject {
    Q_OBJECT
  private slots:
    void initTestCase();
    void epochOffsets();
    void disjointRunsDoNotLink();
    void activeMemoryLane();
    void operatorsAtAllocations();
    void externalAnnotations();
    void sameRunPair();

  private:
    std::shared_ptr<const MemorySnapshot> m_snapshot;
    std::unique_ptr<const TraceStore> m_shifted;
    QTemporaryDir m_dir;
};

namespace {

const char* const qwen = "AMD-AGI__TraceLens/tests__traces__h100__Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz";
const char* const cs336 =
    "snapshots/kkaitlyn111__cs336-a2-systems__cs336_systems__memory_logs__memory_ctx128_forward.pickle";

std::unique_ptr<const TraceStore> load(const std::string& path) {
    LoadResult r = loadTrace(path);
    if (!r.store) qFatal("%s", r.error.c_str());
    return std::move(r.store);
}

// The brute-force definition: per CPU thread the deepest cpu_op containing t, then the one that started last.
std::optional<EventRef> operatorByDefinition(const TraceStore& store, TimeNs t) {
    std::optional<EventRef> best;
    for (std::uint32_t ti = 0; ti < store.tracks().size(); ++ti) {
        const Track& track = store.track(TrackId(ti));
        if (track.kind != TrackKind::CpuThread) continue;
        std::optional<std::uint32_t> inner;
        for (std::uint32_t row = 0; row < track.sliceCount(); ++row) {
            if (store.categories()[track.categories[row]].kind != CategoryKind::CpuOp) continue;
            if (!(track.starts[row] <= t && t < track.endOf(row))) continue;
            if (!inner || track.depthOf(row) > track.depthOf(*inner)) inner = row;
        }
        if (inner && (!best || track.starts[*inner] > store.track(best->track).starts[best->index.value]))
            best = EventRef{TrackId(ti), EventIndex(*inner)};
    }
    return best;
}

} // namespace

// A snapshot and the trace of the same run (tests/data/gpu, an H200: three training steps with
// _record_memory_history on and torch.profiler(profile_memory=True) around them), unaltered: the two clocks
// are one, so the snapshot links without any shift, and an allocation made during the profiled steps happens
// inside an operator of the trace.
void TestSnapshotLink::sameRunPair() {
    const std::string gpu = std::string(KINETOSCOPE_SOURCE_DIR) + "/tests/data/gpu/";
    const SnapshotLoadResult s = loadSnapshot(gpu + "memory_training.pickle.gz");
    QVERIFY(s.ok());
    const auto trace = load(gpu + "memory_training.pt.trace.json.gz");
    const DeviceHistory& h = s.snapshot->devices.front();
    const auto link = linkSnapshotToTrace(h, *trace);
    QVERIFY(link);
    QVERIFY2(link->eventsInTrace > 100, qPrintable(QString::number(link->eventsInTrace)));
    int allocations = 0, inOperators = 0;
    for (std::size_t i = 0; i < h.size(); ++i) {
        if (h.actions[i] != AllocatorAction::Alloc || h.timesUs[i] == noTimeUs) continue;
        const TimeNs t = link->traceTime(h.timesUs[i]);
        if (t < trace->minTime() || t > trace->maxTime()) continue;
        ++allocations;
        inOperators += operatorByDefinition(*trace, t).has_value();
    }
    QVERIFY(allocations > 100);
    QVERIFY2(
        inOperators >= allocations * 95 / 100,
        qPrintable(QStringLiteral("%1 of %2 allocations in an operator").arg(inOperators).arg(allocations)));
}

void TestSnapshotLink::initTestCase() {
    const SnapshotLoadResult s = loadSnapshot(test::tracePath(cs336));
    QVERIFY(s.ok());
    m_snapshot = s.snapshot;
    // Shift the real trace's clock so that its operators cover the snapshot's busiest stretch of allocations
    // (the snapshot spans 40 s, the trace a fraction of one).
    const QString path = m_dir.filePath(QStringLiteral("qwen_shifted.json"));
    const std::optional<std::int64_t> base =
        test::writeTraceShiftedOntoSnapshot(test::tracePath(qwen), *m_snapshot, path);
    QVERIFY(base);
    m_shifted = load(path.toStdString());
    QCOMPARE(traceEpochOffset(*m_shifted), base);
}

void TestSnapshotLink::epochOffsets() {
    // Kineto since 2024: relative ts after baseTimeNanoseconds.
    QCOMPARE(traceEpochOffset(*load(test::tracePath(qwen))),
             std::optional<std::int64_t>(1751410836000000000));
    // PyTorch 1.9: absolute epoch microseconds.
    const auto old = load(test::tracePath(
        "pytorch__kineto/"
        "tb_plugin__samples__resnet50_num_workers_0__worker0.1623143566756.pt.trace.json.gz"));
    QCOMPARE(traceEpochOffset(*old), std::optional<std::int64_t>(0));
    // A Chrome trace with small relative times and no base: no wall clock.
    const LoadResult plain =
        test::loadText(R"({"traceEvents":[{"ph":"X","name":"a","ts":1,"dur":2,"pid":1,"tid":1}]})");
    QVERIFY(plain.store);
    QVERIFY(!traceEpochOffset(*plain.store));
}

void TestSnapshotLink::disjointRunsDoNotLink() {
    // The unaltered trace and snapshot are runs months apart: nothing to align.
    QVERIFY(!linkSnapshotToTrace(m_snapshot->devices.front(), *load(test::tracePath(qwen))));
    QVERIFY(linkSnapshotToTrace(m_snapshot->devices.front(), *m_shifted));
}

void TestSnapshotLink::activeMemoryLane() {
    const DeviceHistory& h = m_snapshot->devices.front();
    const auto link = linkSnapshotToTrace(h, *m_shifted);
    QVERIFY(link);
    QVERIFY(link->eventsInTrace > 0);
    QVERIFY(link->eventsInTrace > 100);
    QVERIFY(link->eventsInTrace <= link->timedEvents);
    const MemoryTimeline timeline(*m_snapshot, h);
    const DerivedTrack lane = kinetoscope::activeMemoryLane(timeline, h, *link);
    QCOMPARE(lane.unit(), CounterUnit::Bytes);
    QCOMPARE(lane.gpu, h.device);
    const Track& t = lane.track();
    QVERIFY(!t.counterTimes.empty());
    QVERIFY(std::is_sorted(t.counterTimes.begin(), t.counterTimes.end()));
    // At each timed event's trace time, the lane holds the curve after the last event of that microsecond.
    for (std::size_t i = 0; i < h.size(); ++i) {
        if (h.timesUs[i] == noTimeUs) continue;
        if (i + 1 < h.size() && h.timesUs[i + 1] == h.timesUs[i]) continue;
        const TimeNs at = link->traceTime(h.timesUs[i]);
        const auto it = std::lower_bound(t.counterTimes.begin(), t.counterTimes.end(), at);
        QVERIFY(it != t.counterTimes.end() && *it == at);
        QCOMPARE(t.counterValues[std::size_t(it - t.counterTimes.begin())], double(timeline.curve()[i + 1]));
    }
}

void TestSnapshotLink::operatorsAtAllocations() {
    const DeviceHistory& h = m_snapshot->devices.front();
    const auto link = linkSnapshotToTrace(h, *m_shifted);
    QVERIFY(link);
    int named = 0, checked = 0;
    for (std::size_t i = 0; i < h.size() && checked < 400; ++i) {
        if (h.actions[i] != AllocatorAction::Alloc || h.timesUs[i] == noTimeUs) continue;
        const TimeNs t = link->traceTime(h.timesUs[i]);
        if (t < m_shifted->minTime() || t > m_shifted->maxTime()) continue;
        const auto expected = operatorByDefinition(*m_shifted, t);
        const auto got = operatorAt(*m_shifted, t);
        QCOMPARE(got.has_value(), expected.has_value());
        if (got) {
            QCOMPARE(got->track, expected->track);
            QCOMPARE(got->index, expected->index);
            ++named;
        }
        ++checked;
    }
    QVERIFY(checked > 100);
    // The shifted trace's operators cover some of the snapshot's allocations.
    QVERIFY2(named > 0, qPrintable(QString::number(checked)));
    qInfo("%d of %d allocations inside the trace ran under an operator", named, checked);
}

void TestSnapshotLink::externalAnnotations() {
    // The cs336 snapshot recorded 1 794 external annotations (TorchDynamo's dynamo_timed ranges among them).
    QCOMPARE(m_snapshot->annotations.size(), std::size_t(1794));
    const DeviceHistory& h = m_snapshot->devices.front();
    int inside = 0;
    for (std::size_t i = 0; i < h.size(); i += 97) {
        if (h.timesUs[i] == noTimeUs) continue;
        const std::int64_t t = h.timesUs[i];
        const std::vector<std::string_view> open = openAnnotations(*m_snapshot, h.device, t);
        inside += !open.empty();
        // By definition: a name is open as many times as its STARTs at or before t outnumber its ENDs.
        std::map<std::string_view, int> balance;
        for (const ExternalAnnotation& a : m_snapshot->annotations)
            if (a.device == h.device && a.timeUs != noTimeUs && a.timeUs <= t)
                balance[m_snapshot->strings.view(a.name)] +=
                    m_snapshot->strings.view(a.stage) == "START" ? 1 : -1;
        std::map<std::string_view, int> counted;
        for (std::string_view name : open)
            ++counted[name];
        for (const auto& [name, n] : balance)
            QCOMPARE(counted[name], std::max(0, n));
    }
    QVERIFY(inside > 0);
}

QTEST_GUILESS_MAIN(TestSnapshotLink)
#include "tst_snapshotlink.moc"
