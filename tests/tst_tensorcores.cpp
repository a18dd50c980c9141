// Whether a kernel ran on tensor cores, event by event (analysis/ops/tensorcores.h): names that say it, and
// Inductor's Triton template GEMMs, whose names do not, read from the operand types of the operator that
// launched them. Real data: a max-autotune compile on an H200 (tests/data/gpu/max_autotune.pt.trace.json.gz),
// where every template GEMM ran in BF16 under autocast and "enable mixed precision" was the advice before.
#include "analysis/ops/tensorcores.h"
#include "analysis/overview/overview.h"
#include "testsupport.h"

#include <QtTest>

using namespace kinetoscope;

namespace {

// A launch inside the operator Inductor wraps around it (named after the kernel, with record_shapes' inputs),
// and its kernel.
std::string templateLaunch(const std::string& kernel, const std::string& inputTypes, bool wrapped = true) {
    std::string json = R"([{"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "pid": 1, "tid": 1,
 "ts": 0, "dur": 1000},)";
    if (wrapped)
        json += R"({"ph": "X", "cat": "cpu_op", "name": ")" + kernel +
                R"(", "pid": 1, "tid": 1, "ts": 10, "dur": 50, "args": {"Input Dims": [[1024, 256],
 [256, 1024], []], "Input type": )" +
                inputTypes + R"(, "kernel_backend": "triton"}},)";
    json += R"({"ph": "X", "cat": "cuda_driver", "name": "cuLaunchKernelEx", "pid": 1, "tid": 1, "ts": 20,
 "dur": 10, "args": {"correlation": 1}},
{"ph": "X", "cat": "kernel", "name": ")" +
            kernel + R"(", "pid": 0, "tid": 7, "ts": 40, "dur": 20, "args": {"correlation": 1, "stream": 7,
 "device": 0}}])";
    return json;
}

EventRef onlyKernel(const TraceStore& store) {
    for (std::uint32_t t = 0; t < store.tracks().size(); ++t)
        for (std::uint32_t r = 0; r < store.tracks()[t].sliceCount(); ++r)
            if (store.categoryOf({TrackId(t), EventIndex(r)}).kind == CategoryKind::Kernel)
                return {TrackId(t), EventIndex(r)};
    return {};
}

std::string gpuTrace(const char* file) {
    return std::string(KINETOSCOPE_SOURCE_DIR) + "/tests/data/gpu/" + file;
}

} // namespace

class TestTensorCores : public QObject {
    Q_OBJECT
  private slots:
    void templateOperands_data() {
        QTest::addColumn<QString>("kernel");
        QTest::addColumn<QString>("types");
        QTest::addColumn<bool>("wrapped");
        QTest::addColumn<bool>("tensorCores");
        const char* const mm = "triton_tem_fused_mm_4";
        QTest::newRow("BF16 operands")
            << mm << R"(["c10::BFloat16", "c10::BFloat16", "c10::BFloat16"])" << true << true;
        QTest::newRow("FP16 operands") << mm << R"(["c10::Half", "c10::Half", "c10::Half"])" << true << true;
        QTest::newRow("FP8 operands")
            << mm << R"(["c10::Float8_e4m3fn", "c10::Float8_e4m3fn", "float"])" << true << true;
        // An FP32 output beside BF16 operands (a template that upcasts: triton_tem_fused__to_copy_mm_t_23).
        QTest::newRow("BF16 operands, FP32 output")
            << "triton_tem_fused__to_copy_mm_t_23"
            << R"(["c10::BFloat16", "c10::BFloat16", "float"])" << true << true;
        QTest::newRow("FP32 operands") << mm << R"(["float", "float", "float"])" << true << false;
        QTest::newRow("one FP32 operand") << mm << R"(["c10::BFloat16", "float", "float"])" << true << false;
        QTest::newRow("no types") << mm << "[]" << true << false;
        QTest::newRow("not launched inside its operator")
            << mm << R"(["c10::BFloat16", "c10::BFloat16"])" << false << false;
        // A template that is no GEMM or convolution (flex attention is attention, not a matmul share).
        QTest::newRow("attention template") << "triton_tem_fused_flex_attention_0"
                                            << R"(["c10::BFloat16", "c10::BFloat16"])" << true << false;
        // Generated pointwise code never runs on tensor cores, whatever its inputs.
        QTest::newRow("pointwise") << "triton_poi_fused_mm_0"
                                   << R"(["c10::BFloat16", "c10::BFloat16"])" << true << false;
    }
    void templateOperands() {
        QFETCH(QString, kernel);
        QFETCH(QString, types);
        QFETCH(bool, wrapped);
        QFETCH(bool, tensorCores);
        const LoadResult r =
            test::loadText(templateLaunch(kernel.toStdString(), types.toStdString(), wrapped));
        QVERIFY2(r.ok(), r.error.c_str());
        const EventRef k = onlyKernel(*r.store);
        QVERIFY(k.isValid());
        QVERIFY(r.store->launchOf(k));
        QCOMPARE(kernelUsesTensorCores(*r.store, k), tensorCores);
    }

    // The H200's max-autotune compile: every template GEMM ran in BF16 (autocast), the library GEMMs said so
    // by name, and the overview no longer tells the run to enable mixed precision.
    void maxAutotuneOnH200() {
        const LoadResult r = loadTrace(gpuTrace("max_autotune.pt.trace.json.gz"));
        QVERIFY2(r.ok(), r.error.c_str());
        const TraceStore& s = *r.store;
        std::uint64_t templates = 0, templatesOnTensorCores = 0;
        for (std::uint32_t t = 0; t < s.tracks().size(); ++t)
            for (std::uint32_t i = 0; i < s.tracks()[t].sliceCount(); ++i) {
                const EventRef ref{TrackId(t), EventIndex(i)};
                if (s.categoryOf(ref).kind != CategoryKind::Kernel ||
                    !s.nameOf(ref).starts_with("triton_tem_"))
                    continue;
                ++templates;
                templatesOnTensorCores += kernelUsesTensorCores(s, ref);
            }
        QCOMPARE(templates, std::uint64_t(78)); // 26 template GEMMs a step, three steps
        QCOMPARE(templatesOnTensorCores, templates);
        const Overview ov = computeOverview(s);
        QVERIFY(!ov.gpus.empty());
        QVERIFY2(ov.gpus[0].tensorCoreShare > 0.3, qPrintable(QString::number(ov.gpus[0].tensorCoreShare)));
        for (const Recommendation& rec : ov.recommendations)
            QVERIFY2(rec.id != "amp", rec.title.c_str());
    }
};

QTEST_GUILESS_MAIN(TestTensorCores)
#include "tst_tensorcores.moc"
