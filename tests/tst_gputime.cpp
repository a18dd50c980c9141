// The GPU time breakdown per device (analysis/gpu/gputime) on four real traces, against Holistic Trace
// Analysis's temporal breakdown (HTA 0.6.1, f4d0062c, run on the same files with HTA_DISABLE_NS_ROUNDING=1;
// docs/DEFINITIONS.md, "GPU time by kind"). HTA's idle, compute and non-compute time are ours where both
// count the same events; where they differ the row says by how much and why: HTA counts every event with a
// `stream` argument as GPU work (cuda_sync waits, and on B200 a CPU op that carries one), and calls only
// NCCL-named kernels communication.
#include "testsupport.h"

#include "analysis/gpu/gputime.h"

#include <QTest>

using namespace kinetoscope;

class TestGpuTime : public QObject {
    Q_OBJECT
  private slots:
    void againstHta_data();
    void againstHta();
    void partsAddUp_data();
    void partsAddUp();
};

namespace {

const char* const qwen = test::traces::qwenH100;
const char* const b200 = test::traces::b200Eager;
const char* const alexnet = test::traces::htaAlexnet;
const char* const mi250 = test::traces::htaMi250;

std::vector<DeviceTime> breakdown(const QString& relative) {
    LoadResult r = loadTrace(test::tracePath(relative.toStdString().c_str()));
    if (!r.store) qFatal("%s", r.error.c_str());
    return gpuTimeBreakdown(*r.store);
}

double us(TimeNs t) {
    return double(t) / 1000;
}

} // namespace

void TestGpuTime::againstHta_data() {
    QTest::addColumn<QString>("trace");
    // HTA's kernel_time, idle_time, compute_time, non_compute_time (µs), then what we differ by on purpose.
    QTest::addColumn<double>("htaSpan");
    QTest::addColumn<double>("htaIdle");
    QTest::addColumn<double>("htaCompute");
    QTest::addColumn<double>("htaNonCompute");
    QTest::addColumn<double>("spanShift");
    QTest::addColumn<double>("idleShift");
    // Non-compute is our memory plus our communication that HTA does not call compute.
    QTest::addColumn<double>("computeShift");
    QTest::newRow("Qwen H100") << qwen << 49652.832 << 4005.532 << 45432.698 << 214.602 << 0.0 << 0.0 << 0.0;
    QTest::newRow("MI250 (ROCm)") << mi250 << 8911.887 << 8762.845 << 110.881 << 38.161 << 0.0 << 0.0 << 0.0;
    // HTA adds the cuda_sync events (41, on the streams): the last Context Sync ends 75,767 µs after the last
    // GPU work, and syncs cover 186 µs more of the non-compute time. A sync is a wait, not work.
    QTest::newRow("HTA alexnet") << alexnet << 12996011.0 << 12929684.0 << 10630.0 << 55697.0 << -75767.0
                                 << -75581.0 << 0.0;
    // HTA counts a CPU op with a `stream` argument (triton_poi_fused_..., 74.4 µs) as GPU time: 72.70 µs of
    // it outside the kernels. And it calls 73 multimem_all_reduce kernels compute (its communication is
    // NCCL names only): we call them communication.
    QTest::newRow("B200 eager") << b200 << 84487.178 << 72817.996 << 10844.384 << 824.797 << 0.0 << 72.70
                                << -2192.247;
}

void TestGpuTime::againstHta() {
    QFETCH(QString, trace);
    QFETCH(double, htaSpan);
    QFETCH(double, htaIdle);
    QFETCH(double, htaCompute);
    QFETCH(double, htaNonCompute);
    QFETCH(double, spanShift);
    QFETCH(double, idleShift);
    QFETCH(double, computeShift);
    const std::vector<DeviceTime> devices = breakdown(trace);
    QCOMPARE(devices.size(), std::size_t(1));
    const DeviceTime& d = devices[0];
    auto near = [](double ours, double expected) { return std::abs(ours - expected) <= 0.01; };
    QVERIFY2(near(us(d.span), htaSpan + spanShift), qPrintable(QString::number(us(d.span), 'f', 3)));
    QVERIFY2(near(us(d.idle), htaIdle + idleShift), qPrintable(QString::number(us(d.idle), 'f', 3)));
    QVERIFY2(near(us(d.compute), htaCompute + computeShift),
             qPrintable(QString::number(us(d.compute), 'f', 3)));
    // HTA's non-compute is what is busy and not compute (a check of the figures copied here).
    const double htaBusy = htaSpan - htaIdle;
    QVERIFY(near(htaBusy - htaCompute, htaNonCompute));
}

void TestGpuTime::partsAddUp_data() {
    QTest::addColumn<QString>("trace");
    QTest::newRow("Qwen H100") << qwen;
    QTest::newRow("B200 eager") << b200;
    QTest::newRow("HTA alexnet") << alexnet;
}

// Each kind is a union within the busy time, and busy time is the union of the kinds: compute plus the
// others, less their overlap with compute, less what the others share between them.
void TestGpuTime::partsAddUp() {
    QFETCH(QString, trace);
    for (const DeviceTime& d : breakdown(trace)) {
        QVERIFY(d.idle >= 0 && d.idle <= d.span);
        QVERIFY(d.compute <= d.busy() && d.communication <= d.busy() && d.memory <= d.busy());
        QVERIFY(d.overlap <= std::min(d.compute, d.communication + d.memory));
        const TimeNs sum = d.compute + d.communication + d.memory - d.overlap;
        QVERIFY2(sum >= d.busy(), qPrintable(QStringLiteral("%1 < %2").arg(sum).arg(d.busy())));
    }
}

QTEST_GUILESS_MAIN(TestGpuTime)
#include "tst_gputime.moc"
