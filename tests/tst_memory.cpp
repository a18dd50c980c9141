// The memory analysis on real traces of both forms of `[memory]` events: Kineto's running totals ("Total
// Allocated", "Total Reserved", "Addr") and PyTorch 1.8-1.9's sizes only ("Bytes", no address, no totals, as
// in the TensorBoard plugin's ResNet50 sample). The older form used to show "no memory events" beside a table
// that called half of its allocations never freed. Expected figures were counted from the JSON with Python
// (the running sum of "Bytes" per device, in time order).
#include "analysis/memory/memory.h"
#include "model/memoryseries.h"
#include "testsupport.h"

#include <QTest>

using namespace kinetoscope;

class TestMemory : public QObject {
    Q_OBJECT
  private slots:
    void forms_data();
    void forms();
};

void TestMemory::forms_data() {
    QTest::addColumn<QString>("trace");
    QTest::addColumn<bool>("addresses");
    QTest::addColumn<qlonglong>("allocations");
    QTest::addColumn<qlonglong>("frees");
    QTest::addColumn<double>("gpuPeak");
    QTest::addColumn<double>("cpuPeak");
    QTest::addColumn<int>("counterTracks");
    QTest::newRow("resnet50, PyTorch 1.8: sizes only")
        << "pytorch__kineto/"
           "tb_plugin__samples__resnet50_num_workers_0__worker0.1623143566756.pt.trace.json.gz"
        << false << 6420ll << 6418ll << 2791636480.0 << 57803264.0 << 2;
    QTest::newRow("qwen h100: totals and addresses")
        << "AMD-AGI__TraceLens/tests__traces__h100__Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz" << true << -1ll
        << -1ll << -1.0 << -1.0 << 4;
}

void TestMemory::forms() {
    QFETCH(QString, trace);
    QFETCH(bool, addresses);
    QFETCH(qlonglong, allocations);
    QFETCH(qlonglong, frees);
    QFETCH(double, gpuPeak);
    QFETCH(double, cpuPeak);
    QFETCH(int, counterTracks);
    LoadResult r = loadTrace(test::tracePath(trace.toUtf8().constData()));
    QVERIFY(r.ok());
    const MemoryAnalysis m = analyzeMemory(*r.store);
    QCOMPARE(m.unaddressedEvents == 0, addresses);
    if (allocations >= 0) QCOMPARE(qlonglong(m.blocks.size()), allocations);
    if (frees >= 0) QCOMPARE(qlonglong(m.frees), frees);
    if (!addresses) {
        // Nothing is called unfreed or a free without an allocation when the trace cannot tell.
        for (const MemoryBlock& b : m.blocks)
            QVERIFY(!b.paired && !b.freedAt);
        QCOMPARE(m.unmatchedFrees, std::uint64_t(0));
    } else {
        std::size_t freed = 0;
        for (const MemoryBlock& b : m.blocks)
            freed += b.freedAt.has_value();
        QVERIFY(freed > 0);
    }
    if (gpuPeak >= 0) {
        QCOMPARE(m.peaks.at(0).allocated, gpuPeak);
        QCOMPARE(m.peaks.at(0).relative, !addresses);
        QVERIFY(!m.peaks.at(0).hasReserved);
    }
    if (cpuPeak >= 0) QCOMPARE(m.peaks.at(-1).allocated, cpuPeak);
    // The memory lanes of the timeline, and the curve of the Memory panel, come from these counter tracks.
    // (made by the store build, named for their device).
    int memoryTracks = 0;
    for (const Track& t : r.store->tracks())
        memoryTracks += t.kind == TrackKind::Counter && !t.counterTimes.empty() &&
                        r.store->strings().view(t.name).starts_with("Memory ");
    QCOMPARE(memoryTracks, counterTracks);

    // The parser reads the [memory] events' args while their bytes are at hand, and the build looks them up
    // by offset: the tracks must be what reading the args text again gives, with one chunk or 300 (a 64 KiB
    // piece).
    for (const std::size_t chunkBytes : {std::size_t(0), std::size_t(64 << 10)}) {
        LoadOptions options;
        options.threads = 2;
        if (chunkBytes) options.chunkBytes = chunkBytes;
        LoadResult loaded = loadTrace(test::tracePath(trace.toUtf8().constData()), options);
        QVERIFY(loaded.ok());
        const TraceStore& store = *loaded.store;
        std::vector<const Track*> counters;
        for (const Track& t : store.tracks())
            if (t.kind == TrackKind::Counter && store.strings().view(t.name).starts_with("Memory "))
                counters.push_back(&t);
        std::size_t next = 0, samples = 0;
        for (const auto& [key, series] : allocatedSeries(store)) {
            const bool reserved =
                std::any_of(series.samples.begin(), series.samples.end(),
                            [](const AllocatedSample& x) { return x.reserved.has_value(); });
            for (int which = 0; which < (reserved ? 2 : 1); ++which) {
                QVERIFY(next < counters.size());
                const Track& t = *counters[next++];
                std::size_t i = 0;
                for (const AllocatedSample& x : series.samples) {
                    if (which == 1 && !x.reserved) continue;
                    QVERIFY(i < t.counterTimes.size());
                    QCOMPARE(t.counterTimes[i], x.t);
                    QCOMPARE(t.counterValues[i], which == 0 ? x.allocated : *x.reserved);
                    ++i;
                }
                QCOMPARE(i, t.counterTimes.size());
                samples += i;
            }
        }
        QCOMPARE(next, counters.size());
        QVERIFY(samples > 1000);
    }
}

QTEST_GUILESS_MAIN(TestMemory)
#include "tst_memory.moc"
