// The launch queue per GPU stream (analysis/gpu/gpuqueue) on four real traces against HTA 0.6.1's own series
// (its queue_length_time_series, run on the same files; docs/DEFINITIONS.md, "GPU idle time and launches"):
// launches, the longest queue and the time-weighted mean over the series' span; and the time with a full
// queue on a trace written for it (no real trace comes near 1024). The queue's recommendations: a mostly
// empty queue on B200's eager trace (CPU-bound), a full one on the written trace, none on the others.
#include "testsupport.h"

#include "analysis/gpu/gpuqueue.h"
#include "analysis/overview/overview.h"

#include <QTest>

using namespace kinetoscope;

class TestGpuQueue : public QObject {
    Q_OBJECT
  private slots:
    void againstHta_data();
    void againstHta();
    void fullQueue();
    void recommendations_data();
    void recommendations();
};

void TestGpuQueue::againstHta_data() {
    QTest::addColumn<QString>("trace");
    QTest::addColumn<qint64>("stream");
    QTest::addColumn<qint64>("launches");
    QTest::addColumn<qint64>("maxLength");
    QTest::addColumn<double>("meanLength");
    // Qwen's 509 first GPU events were launched before the trace's CPU side began: HTA drops them, so do we.
    QTest::newRow("Qwen H100") << test::traces::qwenH100 << qint64(7) << qint64(1198) << qint64(111) << 46.72;
    QTest::newRow("B200 eager") << test::traces::b200Eager << qint64(7) << qint64(929) << qint64(2) << 0.221;
    const char* alexnet = test::traces::htaAlexnet;
    QTest::newRow("HTA alexnet stream 7") << alexnet << qint64(7) << qint64(91) << qint64(18) << 0.240;
    QTest::newRow("HTA alexnet stream 20") << alexnet << qint64(20) << qint64(7) << qint64(2) << 4.3e-5;
    QTest::newRow("HTA MI250 (hip)") << test::traces::htaMi250 << qint64(0) << qint64(16) << qint64(1)
                                     << 0.758;
}

void TestGpuQueue::againstHta() {
    QFETCH(QString, trace);
    QFETCH(qint64, stream);
    QFETCH(qint64, launches);
    QFETCH(qint64, maxLength);
    QFETCH(double, meanLength);
    LoadResult r = loadTrace(test::tracePath(trace.toStdString().c_str()));
    QVERIFY(r.store);
    const std::vector<StreamQueue> queues = gpuQueues(*r.store);
    const auto q =
        std::find_if(queues.begin(), queues.end(), [&](const StreamQueue& s) { return s.stream == stream; });
    QVERIFY(q != queues.end());
    QCOMPARE(qint64(q->launches), launches);
    QCOMPARE(q->maxLength, maxLength);
    // HTA's figures as the helper printed them: three significant digits.
    QVERIFY2(std::abs(q->meanLength - meanLength) <= 0.005 * meanLength + 1e-6,
             qPrintable(QString::number(q->meanLength)));
    QCOMPARE(q->fullTime, TimeNs(0));
    // The series ends empty, never goes below 0, and its lane peaks at the longest queue.
    QCOMPARE(q->length.values.back(), 0.0);
    QVERIFY(*std::min_element(q->length.values.begin(), q->length.values.end()) >= 0);
    QCOMPARE(*std::max_element(q->length.values.begin(), q->length.values.end()), double(maxLength));
}

void TestGpuQueue::fullQueue() {
    // 1100 launches 1 us apart on one thread; the GPU starts the first at 2000 us and runs each for 1 us. The
    // queue is at 1024 or more from the 1024th launch (1023 us) until the GPU has started 77 kernels (2076
    // us).
    std::string json = R"({"traceEvents":[)";
    for (int i = 0; i < 1100; ++i) {
        json +=
            (i ? "," : "") +
            std::string(R"({"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":)") +
            std::to_string(i) + R"(,"dur":0.5,"args":{"correlation":)" + std::to_string(i + 1) + "}}";
        json += R"(,{"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":)" + std::to_string(2000 + i) +
                R"(,"dur":1,"args":{"correlation":)" + std::to_string(i + 1) + R"(,"device":0,"stream":7}})";
    }
    json += "]}";
    const LoadResult r = test::loadText(json);
    QVERIFY(r.store);
    const std::vector<StreamQueue> queues = gpuQueues(*r.store);
    QCOMPARE(queues.size(), std::size_t(1));
    QCOMPARE(queues[0].launches, std::uint64_t(1100));
    QCOMPARE(queues[0].maxLength, std::int64_t(1100));
    QCOMPARE(queues[0].fullTime, TimeNs(2076'000 - 1023'000));
    Overview ov;
    addQueueRecommendations(ov, queues);
    QCOMPARE(ov.recommendations.size(), std::size_t(1));
    QCOMPARE(ov.recommendations[0].id, std::string("queue_full"));
    QCOMPARE(ov.recommendations[0].figures[0].first, std::string("queue_full_share"));
    QVERIFY(std::abs(ov.recommendations[0].figures[0].second - 1053.0 / 3099.0) < 1e-9);
    // The lanes: the queue, and beside it the time it was full, 1 from 1023 us to 2076 us.
    const DerivedTracks lanes = gpuQueueTracks(*r.store);
    QCOMPARE(lanes.size(), std::size_t(2));
    QCOMPARE(lanes[1].title(), std::string("Launch queue full · stream 7"));
    const Track& full = lanes[1].track();
    const TimeNs origin = r.store->minTime();
    QCOMPARE(full.counterTimes, std::vector<TimeNs>({origin, origin + 1023'000, origin + 2076'000}));
    QCOMPARE(full.counterValues, std::vector<double>({0, 1, 0}));
    QCOMPARE(lanes[1].meanBetween(origin + 1000'000, origin + 2000'000), 0.977);
}

void TestGpuQueue::recommendations_data() {
    QTest::addColumn<QString>("trace");
    QTest::addColumn<QString>("id"); // empty: none
    QTest::addColumn<double>("share");
    // Empty 68,899.449 of 84,523.088 µs, 0.221 waiting on average: the host is the bottleneck.
    QTest::newRow("B200 eager") << test::traces::b200Eager << "queue_empty" << 68899.449 / 84523.088;
    // 46.7 waiting on average.
    QTest::newRow("Qwen H100") << test::traces::qwenH100 << "" << 0.0;
    // 91 launches: too few to judge.
    QTest::newRow("HTA alexnet") << test::traces::htaAlexnet << "" << 0.0;
}

void TestGpuQueue::recommendations() {
    QFETCH(QString, trace);
    QFETCH(QString, id);
    QFETCH(double, share);
    LoadResult r = loadTrace(test::tracePath(trace.toStdString().c_str()));
    QVERIFY(r.store);
    Overview ov;
    addQueueRecommendations(ov, gpuQueues(*r.store));
    if (id.isEmpty()) {
        QVERIFY(ov.recommendations.empty());
        return;
    }
    QCOMPARE(ov.recommendations.size(), std::size_t(1));
    QCOMPARE(QString::fromStdString(ov.recommendations[0].id), id);
    QVERIFY2(std::abs(ov.recommendations[0].figures[0].second - share) < 1e-6,
             qPrintable(QString::number(ov.recommendations[0].figures[0].second, 'f', 6)));
}

QTEST_GUILESS_MAIN(TestGpuQueue)
#include "tst_gpuqueue.moc"
