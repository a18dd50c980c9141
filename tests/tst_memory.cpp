// The memory analysis on real traces of both forms of `[memory]` events: Kineto's running totals ("Total
// Allocated", "Total Reserved", "Addr") and PyTorch 1.8-1.9's sizes only ("Bytes", no address, no totals, as
// in the TensorBoard plugin's ResNet50 sample). The older form used to show "no memory events" beside a table
// that called half of its allocations never freed. Expected figures were counted from the JSON with Python
// (the running sum of "Bytes" per device, in time order).
#include "analysis/memory/memory.h"
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
}

QTEST_GUILESS_MAIN(TestMemory)
#include "tst_memory.moc"
