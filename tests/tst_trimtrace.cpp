// trim (core/open/trimtrace.h, issue 64): on real traces, the trimmed trace loads and holds exactly the
// slices that overlap the range (whole), the flows whose ends both stay, the counters' samples in the range,
// and the metadata; a pid filter keeps those processes only; bad input says why and leaves nothing behind.
#include "open/trimtrace.h"
#include "testsupport.h"

#include <QTemporaryDir>
#include <QTest>

#include <filesystem>
#include <map>
#include <set>
#include <tuple>

using namespace kinetoscope;

namespace {

using SliceKey =
    std::tuple<std::int64_t, std::int64_t, std::string, TimeNs, TimeNs>; // pid, tid, name, start, dur

std::multiset<SliceKey> slicesOverlapping(const TraceStore& store, TimeNs from, TimeNs to,
                                          const std::set<std::int64_t>& pids = {}) {
    std::multiset<SliceKey> out;
    for (std::uint32_t t = 0; t < store.tracks().size(); ++t) {
        const Track& track = store.tracks()[t];
        // (a pid written as text, "Traces", is no process id: a filter by number leaves it out)
        if (!pids.empty() && (!pids.contains(track.pid) ||
                              (track.pidText.isValid() && !store.strings().view(track.pidText).empty() &&
                               store.strings().view(track.pidText) != std::to_string(track.pid))))
            continue;
        for (std::uint32_t i = 0; i < track.sliceCount(); ++i) {
            const TimeNs start = track.starts[i], end = start + track.durations[i];
            if (start > to || end < from) continue;
            out.emplace(track.pid, track.tid, std::string(store.nameOf(EventRef{TrackId(t), EventIndex(i)})),
                        start, track.durations[i]);
        }
    }
    return out;
}

// A flow by its two ends' slices.
using FlowKey = std::pair<SliceKey, SliceKey>;
SliceKey keyOf(const TraceStore& store, EventRef ref) {
    const Track& track = store.track(ref.track);
    return {track.pid, track.tid, std::string(store.nameOf(ref)), track.starts[ref.index.value],
            track.durations[ref.index.value]};
}
std::multiset<FlowKey> flows(const TraceStore& store) {
    std::multiset<FlowKey> out;
    for (const Flow& f : store.flows())
        out.emplace(keyOf(store, f.source), keyOf(store, f.target));
    return out;
}

} // namespace

class TestTrimTrace : public QObject {
    Q_OBJECT

  private slots:
    void keepsWhatOverlaps_data() {
        QTest::addColumn<QString>("trace");
        QTest::addColumn<double>("fromShare"); // the range as shares of the trace's span
        QTest::addColumn<double>("toShare");
        QTest::addColumn<QString>("output");
        QTest::newRow("qwen middle") << test::traces::qwenH100 << 0.4 << 0.6 << "out.json.gz";
        QTest::newRow("qwen start") << test::traces::qwenH100 << 0.0 << 0.1 << "out.json";
        QTest::newRow("b200 middle") << test::traces::b200Eager << 0.3 << 0.5 << "out.json.gz";
        QTest::newRow("mi250 end") << test::traces::htaMi250 << 0.8 << 1.0 << "out.json";
        QTest::newRow("resnet 2020") << test::traces::resnet2020 << 0.25 << 0.5 << "out.json.gz";
    }
    void keepsWhatOverlaps() {
        QFETCH(QString, trace);
        QFETCH(double, fromShare);
        QFETCH(double, toShare);
        QFETCH(QString, output);
        const std::string path = test::tracePath(trace.toUtf8().constData());
        LoadResult original = loadTrace(path);
        QVERIFY(original.ok());
        const TraceStore& a = *original.store;
        const TimeNs span = a.maxTime() - a.minTime();
        const TimeNs from = a.minTime() + TimeNs(double(span) * fromShare);
        const TimeNs to = a.minTime() + TimeNs(double(span) * toShare);
        QTemporaryDir dir;
        const std::string out = dir.filePath(output).toStdString();
        const TrimResult r = trimTrace(path, out, {from, to, {}, nullptr});
        QVERIFY2(r.ok(), r.error.c_str());
        QVERIFY(r.eventsKept > 0 && r.eventsKept < r.eventsRead);
        LoadResult trimmed = loadTrace(out);
        QVERIFY2(trimmed.ok(), trimmed.message(out).c_str());
        const TraceStore& b = *trimmed.store;
        QCOMPARE(b.stats().gzip, output.endsWith(".gz"));

        // Exactly the slices that overlap the range, each whole.
        const auto expected = slicesOverlapping(a, from, to);
        QCOMPARE(slicesOverlapping(b, INT64_MIN, INT64_MAX), expected);
        QVERIFY(!expected.empty());
        // The flows whose ends both overlap the range, and no other.
        std::multiset<FlowKey> expectedFlows;
        for (const FlowKey& f : flows(a))
            if (expected.contains(f.first) && expected.contains(f.second)) expectedFlows.insert(f);
        const auto got = flows(b);
        QCOMPARE(got, expectedFlows);
        // The metadata as it was (device properties, distributedInfo, the base time...).
        QCOMPARE(b.metadata().topLevel, a.metadata().topLevel);
        // Its processes are the original's, named as they were (a process with nothing in the range may go).
        for (const ProcessInfo& p : b.processes()) {
            QVERIFY(a.process(p.pid));
            const std::string name(b.strings().view(p.name));
            QVERIFY2(name.empty() || std::any_of(a.processes().begin(), a.processes().end(),
                                                 [&](const ProcessInfo& q) {
                                                     return q.pid == p.pid &&
                                                            a.strings().view(q.name) == name;
                                                 }),
                     name.c_str());
        }
        // Counters: their samples in the range, and the one before it.
        std::size_t samplesInRange = 0;
        for (const Track& t : a.tracks())
            for (TimeNs time : t.counterTimes)
                samplesInRange += time >= from && time <= to;
        QVERIFY(b.counterSampleCount() >= samplesInRange);
        QVERIFY(b.counterSampleCount() <= samplesInRange + a.tracks().size());
    }

    void pidFilter() {
        const std::string path = test::tracePath(test::traces::qwenH100);
        LoadResult original = loadTrace(path);
        QVERIFY(original.ok());
        const TraceStore& a = *original.store;
        // The process that runs the model (its busiest CPU thread's): its threads stay, the GPU goes.
        const Track* busiest = nullptr;
        for (const Track& t : a.tracks())
            if (t.kind == TrackKind::CpuThread && (!busiest || t.sliceCount() > busiest->sliceCount()))
                busiest = &t;
        QVERIFY(busiest && busiest->pid != 0);
        const std::set<std::int64_t> pids = {busiest->pid};

        QTemporaryDir dir;
        const std::string out = dir.filePath("process.json").toStdString();
        const TrimResult r =
            trimTrace(path, out, {a.minTime(), a.maxTime(), {pids.begin(), pids.end()}, nullptr});
        QVERIFY2(r.ok(), r.error.c_str());
        LoadResult trimmed = loadTrace(out);
        QVERIFY(trimmed.ok());
        const auto want = slicesOverlapping(a, a.minTime(), a.maxTime(), pids);
        const auto got = slicesOverlapping(*trimmed.store, INT64_MIN, INT64_MAX);
        QCOMPARE(got, want);
        QVERIFY(!want.empty());
        // The kernels they launched were left out, and with them the arrows: no half of one stays.
        QCOMPARE(trimmed.store->flows().size(), std::size_t(0));
        QVERIFY(r.flowsDropped > 0);
        QVERIFY(trimmed.store->stats().flowStartsUnmatched <=
                a.stats().flowStartsUnmatched); // the file's own
    }

    void badInput_data() {
        QTest::addColumn<QString>("input");
        QTest::addColumn<QString>("output");
        QTest::addColumn<QString>("says");
        QTest::newRow("not JSON") << "formats/"
                                  << "out.json"
                                  << "trim reads Kineto JSON traces";
        QTest::newRow("missing") << "/nonexistent/t.json"
                                 << "out.json"
                                 << "/nonexistent/t.json";
        QTest::newRow("unwritable") << test::traces::htaMi250 << "no/such/dir/out.json"
                                    << "cannot write the trimmed trace";
    }
    void badInput() {
        QFETCH(QString, input);
        QFETCH(QString, output);
        QFETCH(QString, says);
        std::string path =
            input.startsWith('/') ? input.toStdString() : test::tracePath(input.toUtf8().constData());
        if (input == "formats/") { // a real non-JSON trace: an Nsight Systems export
            for (const auto& entry : std::filesystem::directory_iterator(path))
                if (entry.path().extension() == ".sqlite") path = entry.path().string();
        }
        QTemporaryDir dir;
        const std::string out = dir.filePath(output).toStdString();
        const TrimResult r = trimTrace(path, out, {0, INT64_MAX / 4, {}, nullptr});
        QVERIFY(!r.ok());
        QVERIFY2(QString::fromStdString(r.error).contains(says), r.error.c_str());
        QVERIFY(!std::filesystem::exists(out));
        QVERIFY(!std::filesystem::exists(out + ".partial"));
        // Nothing of ours left beside it either.
        const auto folder = std::filesystem::path(out).parent_path();
        if (std::filesystem::exists(folder))
            for (const auto& entry : std::filesystem::directory_iterator(folder))
                QVERIFY2(entry.path().filename().string().find(".partial") == std::string::npos,
                         entry.path().c_str());
    }
};

QTEST_GUILESS_MAIN(TestTrimTrace)
#include "tst_trimtrace.moc"
