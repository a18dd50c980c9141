// The GPU's activity over time (core/analysis/gpu/gpuseries), the series behind the timeline's derived lanes:
// exact on a trace made by hand, and on real traces the same figures as the overview's GPU utilisation and
// est. SM efficiency when averaged over the overview's span.
#include "analysis/gpu/gpuseries.h"
#include "analysis/overview/overview.h"
#include "testsupport.h"

#include <QTest>

using namespace kinetoscope;

class TestGpuSeries : public QObject {
    Q_OBJECT
  private slots:
    void handMade();
    void agreesWithOverview_data();
    void agreesWithOverview();
    void lanesForEachDevice();
    void bandwidthHandMade();
    void bandwidthCarriesEveryByte_data();
    void bandwidthCarriesEveryByte();
};

namespace {
// Two kernels overlapping on two streams, a gap, a third kernel; a host op spanning it all. Four SMs.
const char* const handMadeTrace = R"({
  "deviceProperties": [{"id": 0, "name": "Test GPU", "numSms": 4}],
  "traceEvents": [
    {"ph": "X", "cat": "cpu_op", "name": "op", "pid": 1, "tid": 1, "ts": 0, "dur": 50},
    {"ph": "X", "cat": "kernel", "name": "k1", "pid": 0, "tid": 7, "ts": 10, "dur": 10, "args": {"grid": [2, 1, 1]}},
    {"ph": "X", "cat": "kernel", "name": "k2", "pid": 0, "tid": 8, "ts": 15, "dur": 10, "args": {"grid": [4, 1, 1]}},
    {"ph": "X", "cat": "kernel", "name": "k3", "pid": 0, "tid": 7, "ts": 40, "dur": 5, "args": {"grid": [1, 1, 1]}},
    {"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy HtoD", "pid": 0, "tid": 7, "ts": 30, "dur": 5}
  ]})";

using Samples = std::vector<std::pair<TimeNs, double>>;
Samples samplesOf(const StepSeries& s) {
    Samples out;
    for (std::size_t i = 0; i < s.times.size(); ++i)
        out.emplace_back(s.times[i], s.values[i]);
    return out;
}

double meanOver(const StepSeries& s, TimeNs from, TimeNs to) {
    return DerivedTrack("", s, CounterUnit::Ratio, CounterFold::Mean).meanBetween(from, to);
}

// Well formed: strictly ascending times, values in [0, 1], from the trace's start to its end, idle at the
// end.
void checkShape(const StepSeries& s, const TraceStore& store) {
    QVERIFY(s.times.size() >= 2);
    QCOMPARE(s.times.size(), s.values.size());
    QCOMPARE(s.times.front(), store.minTime());
    QCOMPARE(s.times.back(), store.maxTime());
    QCOMPARE(s.values.back(), 0.0);
    for (std::size_t i = 0; i < s.times.size(); ++i) {
        QVERIFY(s.values[i] >= 0 && s.values[i] <= 1);
        if (i) QVERIFY(s.times[i] > s.times[i - 1] || i + 1 == s.times.size());
    }
}
} // namespace

void TestGpuSeries::handMade() {
    LoadResult r = test::loadText(handMadeTrace);
    QVERIFY2(r.ok(), r.error.c_str());
    const auto series = gpuActivitySeries(*r.store);
    QCOMPARE(series.size(), std::size_t(1));
    QCOMPARE(series[0].device, std::int64_t(0));
    // Busy from 10 to 25 µs (the union of k1 and k2) and 40 to 45; the memcpy is not a kernel.
    const Samples busy{{0, 0}, {10000, 1}, {25000, 0}, {40000, 1}, {45000, 0}, {50000, 0}};
    QCOMPARE(samplesOf(series[0].utilization), busy);
    // Blocks per SM: k1 2/4, k2 4/4 (together capped at 1), k3 1/4.
    const Samples sm{{0, 0}, {10000, 0.5}, {15000, 1}, {25000, 0}, {40000, 0.25}, {45000, 0}, {50000, 0}};
    QCOMPARE(samplesOf(series[0].smEfficiency), sm);
    QCOMPARE(meanOver(series[0].utilization, 0, 50000), 20.0 / 50.0);
    QCOMPARE(meanOver(series[0].smEfficiency, 10000, 20000), (5 * 0.5 + 5 * 1.0) / 10.0);
}

void TestGpuSeries::agreesWithOverview_data() {
    QTest::addColumn<QString>("trace");
    QTest::newRow("qwen_h100") << test::traces::qwenH100;
    QTest::newRow("resnet50_steps") << test::traces::resnet2020;
    QTest::newRow("torch_compile_triton")
        << "AMD-AGI__TraceLens/tests__traces__torch_compile_triton__trace.json.gz";
    QTest::newRow("b200_eager") << test::traces::b200Eager;
    QTest::newRow("sampled_rank0")
        << "facebookresearch__HolisticTraceAnalysis/tests__data__trace_filter__sampled_rank-0.json.gz";
}

void TestGpuSeries::agreesWithOverview() {
    QFETCH(QString, trace);
    LoadResult r = loadTrace(test::tracePath(trace.toUtf8().constData()));
    QVERIFY2(r.ok(), r.error.c_str());
    const TraceStore& store = *r.store;
    const Overview ov = computeOverview(store);
    const auto series = gpuActivitySeries(store);
    QVERIFY(!ov.gpus.empty());
    QCOMPARE(series.size(), ov.gpus.size());
    // The overview measures from the first step's start to the last step's end.
    const TimeNs from = ov.steps.front().start, to = ov.steps.back().end;
    for (std::size_t i = 0; i < series.size(); ++i) {
        const GpuMetrics& g = ov.gpus[i];
        QCOMPARE(series[i].device, g.device);
        checkShape(series[i].utilization, store);
        QVERIFY2(std::abs(meanOver(series[i].utilization, from, to) - g.utilization) < 1e-9,
                 qPrintable(QString("utilisation %1 vs %2")
                                .arg(meanOver(series[i].utilization, from, to))
                                .arg(g.utilization)));
        QCOMPARE(series[i].smEfficiency.times.empty(), !g.hasSmData);
        if (!g.hasSmData) continue;
        checkShape(series[i].smEfficiency, store);
        QVERIFY2(std::abs(meanOver(series[i].smEfficiency, from, to) - g.smEfficiency) < 1e-9,
                 qPrintable(QString("SM efficiency %1 vs %2")
                                .arg(meanOver(series[i].smEfficiency, from, to))
                                .arg(g.smEfficiency)));
    }
}

void TestGpuSeries::lanesForEachDevice() {
    LoadResult r = test::loadText(handMadeTrace);
    QVERIFY2(r.ok(), r.error.c_str());
    const DerivedTracks lanes = gpuActivityTracks(*r.store);
    QCOMPARE(lanes.size(), std::size_t(2));
    QCOMPARE(lanes[0].title(), std::string("GPU utilisation"));
    QCOMPARE(lanes[1].title(), std::string("est. SM efficiency"));
    for (const DerivedTrack& lane : lanes) {
        QCOMPARE(lane.gpu, std::int64_t(0));
        QCOMPARE(lane.unit(), CounterUnit::Ratio);
        QCOMPARE(lane.fold(), CounterFold::Mean);
        QCOMPARE(lane.fullScale, 1.0);
        QCOMPARE(lane.track().kind, TrackKind::Counter);
    }
}

// Two host-to-device copies that overlap add up; a memset is its own kind; a copy without bytes is left out.
void TestGpuSeries::bandwidthHandMade() {
    const LoadResult r = test::loadText(R"json({"traceEvents": [
    {"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy HtoD (Pinned -> Device)", "pid": 0, "tid": 7, "ts": 0, "dur": 10, "args": {"bytes": 1000}},
    {"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy HtoD (Pinned -> Device)", "pid": 0, "tid": 8, "ts": 5, "dur": 10, "args": {"bytes": 2000}},
    {"ph": "X", "cat": "gpu_memset", "name": "Memset (Device)", "pid": 0, "tid": 7, "ts": 20, "dur": 4, "args": {"bytes": 400}},
    {"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy DtoH (Device -> Pinned)", "pid": 0, "tid": 7, "ts": 30, "dur": 4}
  ]})json");
    QVERIFY(r.store);
    const std::vector<GpuBandwidthSeries> series = gpuBandwidthSeries(*r.store);
    QCOMPARE(series.size(), std::size_t(2));
    QCOMPARE(series[0].kind, std::string("Memcpy HtoD"));
    QCOMPARE(samplesOf(series[0].bytesPerSecond),
             (Samples{{0, 1e8}, {5'000, 3e8}, {10'000, 2e8}, {15'000, 0}, {34'000, 0}}));
    QCOMPARE(series[0].bytes, 3000.0);
    QCOMPARE(series[1].kind, std::string("Memset"));
    QCOMPARE(samplesOf(series[1].bytesPerSecond), (Samples{{0, 0}, {20'000, 1e8}, {24'000, 0}, {34'000, 0}}));
    const DerivedTracks lanes = gpuBandwidthTracks(*r.store);
    QCOMPARE(lanes.size(), std::size_t(2));
    QCOMPARE(lanes[0].title(), std::string("Memcpy HtoD bandwidth"));
    QCOMPARE(lanes[0].unit(), CounterUnit::BytesPerSecond);
    QCOMPARE(lanes[0].fold(), CounterFold::Mean);
    // The lane's mean over the first copy's time: its 1000 bytes plus half the second's, over 10 µs.
    QCOMPARE(lanes[0].meanBetween(0, 10'000), 2e8);
}

void TestGpuSeries::bandwidthCarriesEveryByte_data() {
    QTest::addColumn<QString>("trace");
    QTest::addColumn<QString>("kind");
    QTest::addColumn<double>("bytes"); // the copies' `bytes` summed by a script over the JSON
    const char* b200 = test::traces::b200Eager;
    const char* qwen = test::traces::qwenH100;
    QTest::newRow("B200 HtoD (15 copies)") << b200 << "Memcpy HtoD" << 33109.0;
    QTest::newRow("B200 DtoD (146 copies)") << b200 << "Memcpy DtoD" << 771323904.0;
    QTest::newRow("Qwen H100 memsets (241)") << qwen << "Memset" << 964.0;
    QTest::newRow("Qwen H100 DtoH (1)") << qwen << "Memcpy DtoH" << 1.0;
}

// The integral of a kind's bandwidth over the trace is every byte its copies moved.
void TestGpuSeries::bandwidthCarriesEveryByte() {
    QFETCH(QString, trace);
    QFETCH(QString, kind);
    QFETCH(double, bytes);
    LoadResult r = loadTrace(test::tracePath(trace.toStdString().c_str()));
    QVERIFY(r.store);
    const std::vector<GpuBandwidthSeries> series = gpuBandwidthSeries(*r.store);
    const auto g = std::find_if(series.begin(), series.end(),
                                [&](const GpuBandwidthSeries& s) { return s.kind == kind.toStdString(); });
    QVERIFY(g != series.end());
    QCOMPARE(g->bytes, bytes);
    double integral = 0;
    const StepSeries& s = g->bytesPerSecond;
    for (std::size_t i = 0; i + 1 < s.times.size(); ++i)
        integral += s.values[i] * double(s.times[i + 1] - s.times[i]) * 1e-9;
    QVERIFY2(std::abs(integral - bytes) <= 1e-6 * bytes, qPrintable(QString::number(integral, 'f', 3)));
}

QTEST_MAIN(TestGpuSeries)
#include "tst_gpuseries.moc"
