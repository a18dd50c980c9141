// Frequent kernel sequences (analysis/gpu/kernelsequences) against HTA's get_frequent_cuda_kernel_sequences
// (HTA 0.6.1, f4d0062c, HTA_DISABLE_NS_ROUNDING=1, min_pattern_len 3) on its ns-resolution V100 training
// trace: the same sequences, counts, GPU and CPU times, in the same order, once our window leaves out the
// last ProfilerStep as HTA's loader does (docs/DEFINITIONS.md, "Frequent kernel sequences").
#include "testsupport.h"

#include "analysis/gpu/kernelsequences.h"
#include "analysis/ops/steps.h"

#include <QTest>

using namespace kinetoscope;

class TestKernelSequences : public QObject {
    Q_OBJECT
  private slots:
    void againstHta_data();
    void againstHta();
    void everyOperator();
};

namespace {
const char* const nsTrace = test::traces::htaNsResolution;
} // namespace

void TestKernelSequences::againstHta_data() {
    QTest::addColumn<QString>("op");
    QTest::addColumn<int>("sequences");
    // HTA's first row: count, GPU kernel duration and CPU op duration (µs), its first kernel.
    QTest::addColumn<int>("count");
    QTest::addColumn<double>("gpu");
    QTest::addColumn<double>("cpu");
    QTest::addColumn<QString>("firstKernel");
    QTest::newRow("aten::cross_entropy_loss") << "aten::cross_entropy_loss" << 1 << 4 << 86.175 << 505.181
                                              << "void (anonymous namespace)::softmax_warp_forward";
    QTest::newRow("ConvolutionBackward0") << "ConvolutionBackward0" << 18 << 28 << 15921.766 << 15528.476
                                          << "void cudnn::winograd_nonfused::winogradForwardData4x4";
}

void TestKernelSequences::againstHta() {
    QFETCH(QString, op);
    QFETCH(int, sequences);
    QFETCH(int, count);
    QFETCH(double, gpu);
    QFETCH(double, cpu);
    QFETCH(QString, firstKernel);
    LoadResult r = loadTrace(test::tracePath(nsTrace));
    QVERIFY2(r.store, r.error.c_str());
    const std::vector<StepRange> steps = findSteps(*r.store);
    QCOMPARE(steps.size(), std::size_t(5));
    const auto seqs = kernelSequences(*r.store, op.toStdString(), 3, INT64_MIN, steps.back().cpuStart - 1);
    QCOMPARE(int(seqs.size()), sequences);
    QCOMPARE(int(seqs[0].count), count);
    QCOMPARE(double(seqs[0].gpuTime) / 1000, gpu);
    QCOMPARE(double(seqs[0].cpuTime) / 1000, cpu);
    QVERIFY2(QString::fromStdString(seqs[0].work[0]).startsWith(firstKernel), seqs[0].work[0].c_str());
    // In HTA's order: the most frequent first.
    for (std::size_t i = 1; i < seqs.size(); ++i)
        QVERIFY(seqs[i - 1].count >= seqs[i].count);
    for (const KernelSequence& s : seqs)
        QVERIFY(s.work.size() >= 3);
}

// Over every operator (the report's list): by GPU time; an operator that only wraps another that launches
// the same work is listed once, as the outer one; ranges that old traces write as operators (ProfilerStep#N)
// are not operators.
void TestKernelSequences::everyOperator() {
    LoadResult r = loadTrace(test::tracePath(nsTrace));
    QVERIFY2(r.store, r.error.c_str());
    const auto all = kernelSequences(*r.store);
    QVERIFY(all.size() > 20);
    for (std::size_t i = 1; i < all.size(); ++i)
        QVERIFY(all[i - 1].gpuTime >= all[i].gpuTime);
    QCOMPARE(QString::fromStdString(all[0].op),
             QString("autograd::engine::evaluate_function: ConvolutionBackward0"));
    // Its winograd sequence is there once, not again as ConvolutionBackward0 or aten::convolution_backward.
    int winograd = 0;
    for (const KernelSequence& s : all)
        winograd += s.work == all[0].work;
    QCOMPARE(winograd, 1);

    LoadResult old = loadTrace(test::tracePath(test::traces::resnet2020));
    QVERIFY2(old.store, old.error.c_str());
    const auto oldSeqs = kernelSequences(*old.store);
    QVERIFY(!oldSeqs.empty());
    for (const KernelSequence& s : oldSeqs)
        QVERIFY2(s.op.find("ProfilerStep") == std::string::npos, s.op.c_str());
}

QTEST_GUILESS_MAIN(TestKernelSequences)
#include "tst_kernelsequences.moc"
