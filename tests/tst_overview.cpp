// The overview, kernel and memory analyses (core/analysis): golden reports on real traces, invariants checked
// against independent computations, every recommendation rule triggered by a trace made to show it and by no
// rule on a clean one, and scoping to a time range.
#include "analysis/gpu/criticalpath.h"
#include "analysis/gpu/intervals.h"
#include "analysis/memory/memory.h"
#include "analysis/ops/kernels.h"
#include "analysis/ops/modules.h"
#include "analysis/ops/summary.h"
#include "analysis/overview/overview.h"
#include "analysis/report/analysisresult.h"
#include "analysis/report/summaryformat.h"
#include "testsupport.h"

#include <QTest>

#include <map>

using namespace kinetoscope;

class TestOverview : public QObject {
    Q_OBJECT
  private slots:
    void goldenReports_data();
    void goldenReports();
    void breakdownAddsUp_data();
    void breakdownAddsUp();
    void utilizationMatchesBruteForce_data();
    void utilizationMatchesBruteForce();
    void rules_data();
    void rules();
    void cleanTraceTriggersNothing();
    void elementwiseOfTheOptimizer_data();
    void elementwiseOfTheOptimizer();
    void communicationOverlappedIsSaid();
    void communicationOnCriticalPath();
    void waitInsideCopyIsSync();
    void ampOnCudaCoreGemms_data();
    void ampOnCudaCoreGemms();
    void unfusedAttentionNamesItsPath_data();
    void unfusedAttentionNamesItsPath();
    void noConfidentWrongAdvice_data();
    void noConfidentWrongAdvice();
    void newAdviceOnRealTraces_data();
    void newAdviceOnRealTraces();
    void warmUpIsNotLaunchOverhead_data();
    void warmUpIsNotLaunchOverhead();
    void rangeScopesEverything();
    void memoryOnRealTrace();
    void memoryOnSample();
    void intervalAlgebra();
    void moduleHierarchyArgs();
    void outOfMemoryEvents();
};

namespace {
const char* const realTraces[][2] = {
    {"torch_compile_triton", "AMD-AGI__TraceLens/tests__traces__torch_compile_triton__trace.json.gz"},
    {"resnet50_steps",
     "pytorch__kineto/tb_plugin__samples__resnet50_num_workers_0__worker0.pt.trace.json.gz"},
    {"qwen_inference_memory",
     "AMD-AGI__TraceLens/tests__traces__h100__Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz"},
    {"distributed_rank0",
     "facebookresearch__HolisticTraceAnalysis/tests__data__trace_filter__sampled_rank-0.json.gz"},
    {"b200_eager", "AMD-AGI__TraceLens/tests__traces__b200__eager_trace.json.gz"},
};

std::unique_ptr<const TraceStore> loadReal(const QString& relative) {
    LoadResult r = loadTrace(test::tracePath(relative.toUtf8().constData()));
    if (!r.ok()) qFatal("cannot load %s", qPrintable(relative));
    return std::move(r.store);
}

void addRealRows() {
    QTest::addColumn<QString>("trace");
    for (const auto& t : realTraces)
        QTest::newRow(t[0]) << QString::fromLatin1(t[1]);
}

// A small synthetic Kineto trace: one step on a host thread, GPU 0 stream 7, launches joined by correlation.
struct TraceBuilder {
    std::string events;
    int correlation = 1;
    std::string devices =
        R"([{"id": 0, "name": "NVIDIA A100-SXM4-80GB", "totalGlobalMem": 85000000000, "computeMajor": 8, "computeMinor": 0, "numSms": 108}])";
    void add(const std::string& e) { events += (events.empty() ? "" : ",\n") + e; }
    void slice(const char* cat, const std::string& name, double ts, double dur, int pid = 100, int tid = 100,
               const std::string& args = "{}") {
        add("{\"ph\":\"X\",\"cat\":\"" + std::string(cat) + "\",\"name\":\"" + name +
            "\",\"pid\":" + std::to_string(pid) + ",\"tid\":" + std::to_string(tid) +
            ",\"ts\":" + std::to_string(ts) + ",\"dur\":" + std::to_string(dur) + ",\"args\":" + args + "}");
    }
    void step(double ts, double dur) { slice("user_annotation", "ProfilerStep#1", ts, dur); }
    // A launch on the host at `launchTs` and its kernel on the GPU at `ts`.
    void kernel(const std::string& name, double launchTs, double ts, double dur, const char* cat = "kernel") {
        const std::string corr = std::to_string(correlation++);
        slice("cuda_runtime", cat == std::string("kernel") ? "cudaLaunchKernel" : "cudaMemcpyAsync", launchTs,
              2, 100, 100, "{\"correlation\":" + corr + "}");
        slice(cat, name, ts, dur, 0, 7, "{\"correlation\":" + corr + ",\"device\":0,\"stream\":7}");
    }
    void memory(double ts, double allocated, double reserved, double bytes = 1024) {
        add("{\"ph\":\"i\",\"s\":\"t\",\"cat\":\"cpu_instant_event\",\"name\":\"[memory]\",\"pid\":100,"
            "\"tid\":100,\"ts\":" +
            std::to_string(ts) + ",\"args\":{\"Device Type\":1,\"Device Id\":0,\"Addr\":4096,\"Bytes\":" +
            std::to_string(bytes) + ",\"Total Allocated\":" + std::to_string(allocated) +
            ",\"Total Reserved\":" + std::to_string(reserved) + "}}");
    }
    std::string json() const {
        return "{\"schemaVersion\":1,\"deviceProperties\":" + devices + ",\"traceEvents\":[\n" + events +
               "\n]}";
    }
};

const char* const softmaxKernel =
    "void at::native::(anonymous namespace)::cunn_SoftMaxForward<4, float, float, float, "
    "at::native::(anonymous namespace)::SoftMaxForwardEpilogue>(float*, float const*, int)";
const char* const bmmKernel = "ampere_bf16_s16816gemm_bf16_128x128_ldg8_f2f_stages_64x3_nn";

// `heads` attention heads computed op by op on the host (aten::bmm, aten::_softmax, aten::bmm, each launching
// its kernel), their GPU work from `gpuAt` on; `secondMatmul` false leaves the values' matmul out. The first
// `wrapped` heads run inside an operator named `wrapper` (scaled_dot_product_attention's math fallback).
void unfusedHeads(TraceBuilder& b, int heads, double hostAt, double gpuAt, bool secondMatmul = true,
                  const char* wrapper = nullptr, int wrapped = 0) {
    for (int h = 0; h < heads; ++h) {
        const double t = hostAt + h * 40, g = gpuAt + h * 280;
        if (wrapper && h < wrapped) b.slice("cpu_op", wrapper, t - 1, 30);
        b.slice("cpu_op", "aten::bmm", t, 6);
        b.kernel(bmmKernel, t + 1, g, 80);
        b.slice("cpu_op", "aten::_softmax", t + 10, 6);
        b.kernel(softmaxKernel, t + 11, g + 90, 100);
        if (!secondMatmul) continue;
        b.slice("cpu_op", "aten::bmm", t + 20, 6);
        b.kernel(bmmKernel, t + 21, g + 195, 80);
    }
}

std::vector<std::string> ruleIds(const std::string& json) {
    LoadResult r = test::loadText(json);
    if (!r.ok()) qFatal("synthetic trace does not load: %s", r.error.c_str());
    std::vector<std::string> ids;
    for (const Recommendation& rec : computeOverview(*r.store).recommendations)
        ids.push_back(rec.id);
    return ids;
}

// A step the GPU keeps busy with tensor-core GEMMs, launched ahead of time: no rule should fire.
TraceBuilder cleanStep() {
    TraceBuilder b;
    b.step(0, 1000);
    b.slice("cpu_op", "aten::mm", 10, 100);
    for (int i = 0; i < 9; ++i)
        b.kernel("sm80_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x32", 12 + i * 5, 20 + i * 105,
                 100);
    b.memory(15, 1e9, 2e9);
    return b;
}
} // namespace

void TestOverview::goldenReports_data() {
    addRealRows();
}

void TestOverview::goldenReports() {
    QFETCH(QString, trace);
    const auto store = loadReal(trace);
    const auto report = computeAnalysis(*store, std::nullopt, OperatorGrouping::Name, KernelGrouping::Name);
    const std::string json = summaryToJson(report->summary, report.get());
    const QString mismatch = test::compareGolden(
        QString::fromLatin1(QTest::currentDataTag()) + QStringLiteral(".report.json"), json);
    QVERIFY2(mismatch.isEmpty(), qPrintable(mismatch));
    const std::string text = reportToText(*report);
    QVERIFY(text.find("Step time breakdown:") != std::string::npos);
}

void TestOverview::breakdownAddsUp_data() {
    addRealRows();
}

void TestOverview::breakdownAddsUp() {
    QFETCH(QString, trace);
    const auto store = loadReal(trace);
    const Overview ov = computeOverview(*store);
    QVERIFY(!ov.steps.empty());
    QCOMPARE(ov.breakdown.size(), ov.steps.size());
    std::array<TimeNs, breakdownCategoryCount> totals{};
    for (const StepBreakdown& b : ov.breakdown) {
        TimeNs sum = 0;
        for (std::size_t c = 0; c < breakdownCategoryCount; ++c) {
            QVERIFY(b.time[c] >= 0);
            sum += b.time[c];
            totals[c] += b.time[c];
        }
        QCOMPARE(sum, b.step.end - b.step.start); // every nanosecond of the step in exactly one category
    }
    QCOMPARE(totals, ov.breakdownTotal);
    QVERIFY(ov.stepMin <= ov.stepMedian && ov.stepMedian <= ov.stepMax);
    QVERIFY(ov.stepMin <= ov.stepMean && ov.stepMean <= ov.stepMax);
}

void TestOverview::utilizationMatchesBruteForce_data() {
    addRealRows();
}

void TestOverview::utilizationMatchesBruteForce() {
    QFETCH(QString, trace);
    const auto store = loadReal(trace);
    const Overview ov = computeOverview(*store);
    // Independent: sort every kernel interval clipped to the steps, merge, and measure.
    std::map<std::int64_t, std::vector<std::pair<TimeNs, TimeNs>>> byDevice;
    for (const Track& t : store->tracks()) {
        for (std::uint32_t r = 0; r < t.sliceCount(); ++r) {
            if (store->categories()[t.categories[r]].kind != CategoryKind::Kernel) continue;
            // Utilisation is measured from the first step's start to the last step's end, gaps included.
            const TimeNs a = std::max(t.starts[r], ov.steps.front().start),
                         b = std::min(t.endOf(r), ov.steps.back().end);
            if (a < b) byDevice[t.pid].emplace_back(a, b);
        }
    }
    const TimeNs span = ov.steps.back().end - ov.steps.front().start;
    QCOMPARE(ov.gpus.size(), byDevice.size());
    for (const GpuMetrics& g : ov.gpus) {
        auto& v = byDevice[g.device];
        std::sort(v.begin(), v.end());
        TimeNs total = 0, curA = v.front().first, curB = v.front().second;
        for (const auto& [a, b] : v) {
            if (a > curB) {
                total += curB - curA;
                curA = a;
                curB = b;
            } else {
                curB = std::max(curB, b);
            }
        }
        total += curB - curA;
        QCOMPARE(g.kernelTime, total);
        QVERIFY(std::abs(g.utilization - double(total) / double(span)) < 1e-12);
        QVERIFY(g.smEfficiency >= 0 && g.smEfficiency <= g.utilization + 1e-9);
        QVERIFY(g.tensorCoreShare >= 0 && g.tensorCoreShare <= 1);
    }
}

void TestOverview::rules_data() {
    QTest::addColumn<QString>("rule");
    QTest::addColumn<QByteArray>("json");
    {
        TraceBuilder b;
        b.step(0, 1000);
        b.slice("user_annotation", "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", 1, 300);
        for (int i = 0; i < 6; ++i)
            b.kernel("sm80_xmma_gemm_bf16bf16_bf16f32_f32_tn_n", 305 + i * 3, 320 + i * 110, 100);
        QTest::newRow("dataloader") << "dataloader" << QByteArray::fromStdString(b.json());
    }
    {
        TraceBuilder b;
        b.step(0, 1000);
        b.kernel("sm80_xmma_gemm_bf16", 1, 5, 200);
        QTest::newRow("low utilization") << "low_utilization" << QByteArray::fromStdString(b.json());
    }
    {
        TraceBuilder b;
        b.step(0, 1000);
        for (int i = 0; i < 9; ++i)
            b.kernel("ampere_sgemm_128x64_nn", 2 + i * 3, 20 + i * 105, 100);
        QTest::newRow("amp") << "amp" << QByteArray::fromStdString(b.json());
    }
    {
        TraceBuilder b = cleanStep();
        b.slice("cpu_op", "nccl:all_reduce", 5, 500);
        b.devices =
            R"([{"id": 0, "name": "NVIDIA H100", "totalGlobalMem": 85000000000, "computeMajor": 9, "computeMinor": 0, "numSms": 132}])";
        // The GEMMs leave the second half of the step to the all-reduce.
        TraceBuilder c;
        c.devices = b.devices;
        c.step(0, 1000);
        for (int i = 0; i < 4; ++i)
            c.kernel("sm90_xmma_gemm_bf16", 2 + i * 3, 10 + i * 110, 100);
        c.kernel("ncclDevKernel_AllReduce_Sum_bf16_RING_LL", 20, 460, 520);
        QTest::newRow("communication") << "communication" << QByteArray::fromStdString(c.json());
    }
    {
        // A CPU-only rank: its collectives are the gloo annotation ranges around the ops that wait in them.
        TraceBuilder b;
        b.step(0, 1000);
        b.slice("cpu_op", "aten::mm", 10, 150);
        b.slice("user_annotation", "gloo:all_reduce", 180, 800);
        b.slice("cpu_op", "aten::copy_", 200, 20);
        QTest::newRow("communication on a CPU-only rank")
            << "communication" << QByteArray::fromStdString(b.json());
    }
    {
        TraceBuilder b = cleanStep();
        b.devices =
            R"([{"id": 0, "name": "NVIDIA A100-SXM4-40GB", "totalGlobalMem": 1000000000, "computeMajor": 8, "computeMinor": 0, "numSms": 108}])";
        b.memory(50, 8e8, 9.5e8);
        QTest::newRow("memory capacity") << "memory_capacity" << QByteArray::fromStdString(b.json());
    }
    {
        // Each kernel is launched only after the previous one finished: the GPU waits on the host.
        TraceBuilder b;
        b.step(0, 1000);
        for (int i = 0; i < 10; ++i)
            b.kernel("sm80_xmma_gemm_bf16", 30 + i * 100, 40 + i * 100, 50);
        QTest::newRow("launch bound") << "launch_bound" << QByteArray::fromStdString(b.json());
    }
    {
        TraceBuilder b = cleanStep();
        b.slice("cuda_runtime", "cudaStreamSynchronize", 200, 400);
        QTest::newRow("sync bound") << "sync_bound" << QByteArray::fromStdString(b.json());
    }
    {
        TraceBuilder b;
        b.step(0, 12000);
        for (int i = 0; i < 1100; ++i)
            b.kernel("sm80_xmma_gemm_bf16", 1 + i * 10, 2 + i * 10, 5);
        QTest::newRow("tiny kernels") << "tiny_kernels" << QByteArray::fromStdString(b.json());
    }
    {
        TraceBuilder b = cleanStep();
        b.slice("cpu_op", "aten::to", 200, 300);
        b.slice("cpu_op", "aten::copy_", 210, 280); // nested: counted once
        QTest::newRow("copy traffic") << "copy_traffic" << QByteArray::fromStdString(b.json());
    }
    {
        TraceBuilder b;
        b.step(0, 1000);
        for (int i = 0; i < 9; ++i)
            b.kernel("void at::native::vectorized_elementwise_kernel<4, at::native::AddFunctor<float>>",
                     2 + i * 3, 20 + i * 105, 100);
        QTest::newRow("elementwise fusion") << "elementwise_fusion" << QByteArray::fromStdString(b.json());
    }
    {
        // Attention op by op: three heads of bmm -> softmax -> bmm (an H100 inference trace: softmax
        // alone 47.6% of the GPU time).
        TraceBuilder b;
        b.step(0, 1000);
        unfusedHeads(b, 3, 10, 100);
        QTest::newRow("unfused attention") << "unfused_attention" << QByteArray::fromStdString(b.json());
    }
    {
        // Convolutions in NCHW: cuDNN converts layouts around each (17.6% of a compiled ResNet's GPU time).
        TraceBuilder b;
        b.step(0, 1000);
        for (int i = 0; i < 6; ++i)
            b.kernel("sm80_xmma_fprop_implicit_gemm_f32f32_tf32f32_f32_nhwckrsc_nchw_tilesize128x128x16",
                     2 + i * 3, 20 + i * 120, 100);
        for (int i = 0; i < 2; ++i)
            b.kernel(
                "void cudnn::ops::convertTensor_kernel<float, float, float, (cudnnKernelDataType_t)2>(float, "
                "float const*, float, float*, unsigned long)",
                40 + i * 3, 750 + i * 70, 60);
        QTest::newRow("channels last") << "channels_last" << QByteArray::fromStdString(b.json());
    }
}

void TestOverview::rules() {
    QFETCH(QString, rule);
    QFETCH(QByteArray, json);
    const std::vector<std::string> ids = ruleIds(json.toStdString());
    QString all;
    for (const auto& id : ids)
        all += QString::fromStdString(id) + QLatin1Char(' ');
    QVERIFY2(std::find(ids.begin(), ids.end(), rule.toStdString()) != ids.end(),
             qPrintable(QStringLiteral("fired: ") + all));
}

// Elementwise kernels that are mostly the eager optimizer's (inside Optimizer.step#, or launched by
// aten::_foreach_ operators) are told to use the fused optimizer; others stay fusion candidates for
// torch.compile. Real: the H200's eager training (AdamW with foreach beside a two-layer GPT), where the
// optimizer launched most of them.
void TestOverview::elementwiseOfTheOptimizer_data() {
    QTest::addColumn<QByteArray>("json");
    QTest::addColumn<double>("optimizerShare"); // -1: the model's wording
    const auto steps = [](const char* range, const char* op, int optimizerKernels) {
        TraceBuilder b;
        b.step(0, 2000);
        if (range) b.slice("user_annotation", range, 500, 1000);
        for (int i = 0; i < 8; ++i) {
            const bool optimizer = i < optimizerKernels;
            const double at = optimizer ? 510 + i * 60 : 10 + i * 50;
            b.slice("cpu_op", optimizer ? op : "aten::mul", at, 40);
            b.kernel("void at::native::vectorized_elementwise_kernel<4, at::native::MulFunctor<float>>",
                     at + 5, 100 + i * 200, 150);
        }
        return QByteArray::fromStdString(b.json());
    };
    QTest::newRow("AdamW step") << steps("Optimizer.step#AdamW.step", "aten::_foreach_mul_", 8) << 1.0;
    QTest::newRow("foreach without a range") << steps(nullptr, "aten::_foreach_add_", 6) << 0.75;
    QTest::newRow("half is not most") << steps("Optimizer.step#SGD.step", "aten::add_", 4) << -1.0;
    QTest::newRow("the model's own") << steps(nullptr, "aten::mul", 8) << -1.0;
    const std::string eager = std::string(KINETOSCOPE_SOURCE_DIR) + "/tests/data/gpu/eager.pt.trace.json.gz";
    QTest::newRow("H200 eager training") << QByteArray::fromStdString(test::readText(eager)) << 0.9;
}

void TestOverview::elementwiseOfTheOptimizer() {
    QFETCH(QByteArray, json);
    QFETCH(double, optimizerShare);
    LoadResult r = test::loadText(json.toStdString());
    QVERIFY2(r.ok(), r.error.c_str());
    const Overview ov = computeOverview(*r.store);
    const Recommendation* rec = test::recommendation(ov, "elementwise_fusion");
    QVERIFY(rec);
    const double share = test::figure(*rec, "optimizer_share_of_elementwise");
    if (optimizerShare < 0) {
        QCOMPARE(rec->title,
                 std::string(
                     "Elementwise kernels dominate GPU time: they are fusion candidates for torch.compile"));
        QCOMPARE(share, -1.0);
        return;
    }
    QVERIFY2(
        rec->title.starts_with("Elementwise kernels dominate GPU time, most of them the optimizer step's: "
                               "use the optimizer's fused implementation"),
        rec->title.c_str());
    // Where the rest is a good part of them (10 % or more), it keeps its own advice.
    QCOMPARE(rec->title.ends_with("; the rest are fusion candidates for torch.compile"),
             optimizerShare < 0.95);
    if (optimizerShare == 0.9) // the real trace: most, and the link goes to one of the optimizer's kernels
        QVERIFY2(share > 0.5 && rec->exampleName.find("multi_tensor_apply_kernel") != std::string::npos,
                 qPrintable(QString::number(share) + QString::fromStdString(" " + rec->exampleName)));
    else
        QCOMPARE(share, optimizerShare);
}

// Attention op by op in the user's own code is told to use scaled_dot_product_attention; the same sequence
// inside scaled_dot_product_attention is its math fallback, and is told why SDPA fell back, not to use SDPA.
// The fallback wording needs most sequences inside it.
void TestOverview::unfusedAttentionNamesItsPath_data() {
    QTest::addColumn<QByteArray>("json");
    QTest::addColumn<bool>("fallback");
    const auto heads = [](const char* wrapper, int wrapped) {
        TraceBuilder b;
        b.step(0, 1000);
        unfusedHeads(b, 3, 10, 100, true, wrapper, wrapped);
        return QByteArray::fromStdString(b.json());
    };
    QTest::newRow("op by op") << heads(nullptr, 0) << false;
    QTest::newRow("inside scaled_dot_product_attention")
        << heads("aten::scaled_dot_product_attention", 3) << true;
    QTest::newRow("inside its math kernel") << heads("aten::_scaled_dot_product_attention_math", 3) << true;
    QTest::newRow("two of three inside") << heads("aten::scaled_dot_product_attention", 2) << true;
    QTest::newRow("one of three inside") << heads("aten::scaled_dot_product_attention", 1) << false;
    QTest::newRow("inside another operator") << heads("aten::linear", 3) << false;
}

void TestOverview::unfusedAttentionNamesItsPath() {
    QFETCH(QByteArray, json);
    QFETCH(bool, fallback);
    LoadResult r = test::loadText(json.toStdString());
    QVERIFY2(r.ok(), r.error.c_str());
    const Overview ov = computeOverview(*r.store);
    const Recommendation* rec = test::recommendation(ov, "unfused_attention");
    QVERIFY(rec);
    QCOMPARE(rec->evidence.rfind("3 bmm → softmax → bmm sequences", 0), std::size_t(0));
    if (fallback) {
        QVERIFY2(rec->title.find("falls back to its unfused math path") != std::string::npos,
                 rec->title.c_str());
        QVERIFY(rec->title.find("sdpa_kernel") != std::string::npos);
    } else {
        QVERIFY2(rec->title.rfind("Attention runs unfused", 0) == 0, rec->title.c_str());
        QVERIFY(rec->title.find("use torch.nn.functional.scaled_dot_product_attention") != std::string::npos);
    }
}

// Advice that was confidently wrong on real traces, built here with their kernels' real names: softmax is not
// an elementwise fusion candidate, an FP8 or BF16 run is never told to enable mixed precision, and
// expert-parallel all-to-all kernels are communication, not "other".
void TestOverview::noConfidentWrongAdvice_data() {
    QTest::addColumn<QString>("rule");
    QTest::addColumn<QByteArray>("json");
    QTest::addColumn<QString>("category");
    QTest::addColumn<double>("minShare");
    {
        TraceBuilder b;
        b.step(0, 1000);
        for (int i = 0; i < 5; ++i)
            b.kernel("void at::native::(anonymous namespace)::cunn_SoftMaxForward<4, float, float, float, "
                     "at::native::(anonymous namespace)::SoftMaxForwardEpilogue>(float*, float const*, int)",
                     2 + i * 3, 20 + i * 105, 100);
        for (int i = 0; i < 2; ++i)
            b.kernel("void at::native::vectorized_elementwise_kernel<4, at::native::AddFunctor<float>>",
                     30 + i * 3, 560 + i * 105, 100);
        QTest::newRow("softmax is not elementwise")
            << "elementwise_fusion" << QByteArray::fromStdString(b.json()) << "softmax" << 0.5;
    }
    {
        TraceBuilder b;
        b.devices =
            R"([{"id": 0, "name": "NVIDIA H100 80GB HBM3", "totalGlobalMem": 85000000000, "computeMajor": 9, "computeMinor": 0, "numSms": 132}])";
        b.step(0, 1000);
        for (int i = 0; i < 9; ++i)
            b.kernel("void deep_gemm::fp8_gemm_kernel<128u, 128u, 128u, 1u, 128u, 4u, 2u, 128u, "
                     "(deep_gemm::GemmType)1>(__nv_bfloat16*, float*, int*, unsigned int, CUtensorMap, "
                     "CUtensorMap, CUtensorMap, CUtensorMap)",
                     2 + i * 3, 20 + i * 105, 100);
        QTest::newRow("fp8 grouped gemm: no amp advice")
            << "amp" << QByteArray::fromStdString(b.json()) << "gemm" << 0.9;
    }
    {
        TraceBuilder b;
        b.devices =
            R"([{"id": 0, "name": "NVIDIA H100 80GB HBM3", "totalGlobalMem": 85000000000, "computeMajor": 9, "computeMinor": 0, "numSms": 132}])";
        b.step(0, 1000);
        for (int i = 0; i < 9; ++i)
            b.kernel("nvjet_tst_128x256_64x4_1x2_h_bz_coopA_NNT", 2 + i * 3, 20 + i * 105, 100);
        QTest::newRow("bf16 nvjet gemm: no amp advice")
            << "amp" << QByteArray::fromStdString(b.json()) << "gemm" << 0.9;
    }
    {
        TraceBuilder b;
        b.step(0, 1000);
        for (int i = 0; i < 6; ++i)
            b.kernel("void deep_ep::internode::dispatch<true, 8, 8, 24, 32, 12, 2>(int4*, float*, int*, "
                     "long*, float*, int*, int*, SourceMeta*, int4 const*, float const*, long const*, float "
                     "const*, int*, int*, int*, int*, int*, int const*, bool const*, int, int, int, int, "
                     "int, int, void*, int, int, int, void**, int, int, int, bool)",
                     2 + i * 3, 20 + i * 105, 100);
        for (int i = 0; i < 3; ++i)
            b.kernel("sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64", 30 + i * 3, 660 + i * 105,
                     100);
        QTest::newRow("deepep is communication")
            << "elementwise_fusion" << QByteArray::fromStdString(b.json()) << "communication" << 0.6;
    }
    {
        // A matmul then a softmax, but no second matmul (a classifier head): not attention.
        TraceBuilder b;
        b.step(0, 1000);
        unfusedHeads(b, 3, 10, 100, false);
        QTest::newRow("bmm then softmax is not attention")
            << "unfused_attention" << QByteArray::fromStdString(b.json()) << "softmax" << 0.5;
    }
    {
        // cuBLAS transposes around GEMMs in a model without convolutions: no channels_last advice.
        TraceBuilder b;
        b.step(0, 1000);
        for (int i = 0; i < 4; ++i)
            b.kernel("void transpose_readWrite_alignment_kernel<float2, float2, 1, false, 6, 4, "
                     "4>(cublasTransposeParams<float2>, float2 const*, float2*, float2 const*)",
                     2 + i * 3, 20 + i * 110, 100);
        for (int i = 0; i < 4; ++i)
            b.kernel("sm80_xmma_gemm_bf16bf16_bf16f32_f32_tn_n", 30 + i * 3, 480 + i * 110, 100);
        QTest::newRow("transposes without convolutions")
            << "channels_last" << QByteArray::fromStdString(b.json()) << "layout" << 0.5;
    }
}

// DeepSeek's training profile: the breakdown's communication 3.2 %, the Kernels tab's communication category
// 46.3 %, because compute hid 108.9 of its 113.0 ms. The breakdown keeps what is exposed and says the hidden
// part beside it.
void TestOverview::communicationOverlappedIsSaid() {
    TraceBuilder b;
    b.step(0, 1000);
    b.kernel("sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n", 1, 0, 600);
    b.slice("kernel", "ncclDevKernel_AllReduce_Sum_bf16_RING_LL", 100, 600, 0, 13,
            R"({"device":0,"stream":13})");
    LoadResult r = test::loadText(b.json());
    QVERIFY(r.ok());
    const Overview ov = computeOverview(*r.store);
    QCOMPARE(ov.breakdownTotal[std::size_t(BreakdownCategory::Communication)], TimeNs(100'000));
    QCOMPARE(ov.communicationOverlappedTotal, TimeNs(500'000));
    QCOMPARE(ov.breakdown.front().communicationOverlapped, TimeNs(500'000));
    const auto report = computeAnalysis(*r.store, std::nullopt, OperatorGrouping::Name, KernelGrouping::Name);
    const std::string text = reportToText(*report);
    QVERIFY2(text.find(
                 "communication not overlapped by compute 100.000 us (10.0%) [500.000 us more overlapped]") !=
                 std::string::npos,
             text.c_str());
    const std::string json = summaryToJson(report->summary, report.get());
    QVERIFY2(json.find("\"communication_overlapped_us\": 500.000") != std::string::npos, json.c_str());

    // The host's collective ranges (a c10d / nccl:* annotation while the GPU computes) are not communication
    // that compute hid: only communication kernels under kernels, copies or memsets are (issue 61).
    TraceBuilder host;
    host.step(0, 1000);
    host.kernel("sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n", 1, 0, 600);
    host.slice("user_annotation", "nccl:all_reduce", 100, 300);
    LoadResult h = test::loadText(host.json());
    QVERIFY(h.ok());
    QCOMPARE(computeOverview(*h.store).communicationOverlappedTotal, TimeNs(0));

    // HTA's sampled rank 0, by brute force over its GPU events: within the steps, the time NCCL kernels run
    // while other kernels, copies or memsets run. The TensorBoard plugin reads 91 µs there (its communication
    // is the nccl:* ranges and the kernels carrying their External id, which modern traces give
    // record_param_comms instead: docs/DEFINITIONS.md).
    const auto real = loadReal(QStringLiteral(
        "facebookresearch__HolisticTraceAnalysis/tests__data__trace_filter__sampled_rank-0.json.gz"));
    const Overview realOv = computeOverview(*real);
    std::vector<std::pair<TimeNs, TimeNs>> comm, compute;
    for (const Track& t : real->tracks()) {
        if (t.kind != TrackKind::GpuStream) continue;
        for (std::uint32_t r = 0; r < t.sliceCount(); ++r) {
            const CategoryKind kind = real->categories()[t.categories[r]].kind;
            if (kind != CategoryKind::Kernel && kind != CategoryKind::Memcpy && kind != CategoryKind::Memset)
                continue;
            const bool nccl = QByteArray::fromStdString(std::string(real->strings().view(t.names[r])))
                                  .toLower()
                                  .contains("nccl");
            (nccl && kind == CategoryKind::Kernel ? comm : compute).push_back({t.starts[r], t.endOf(r)});
        }
    }
    QVERIFY(!comm.empty());
    // Each nanosecond counted once: sweep the boundaries of both sets and the steps.
    std::vector<TimeNs> cuts;
    for (const auto* set : {&comm, &compute})
        for (const auto& [a, b] : *set)
            cuts.insert(cuts.end(), {a, b});
    for (const StepRange& st : realOv.steps)
        cuts.insert(cuts.end(), {st.start, st.end});
    std::sort(cuts.begin(), cuts.end());
    cuts.erase(std::unique(cuts.begin(), cuts.end()), cuts.end());
    auto covers = [](const std::vector<std::pair<TimeNs, TimeNs>>& set, TimeNs a, TimeNs b) {
        return std::any_of(set.begin(), set.end(),
                           [&](const auto& iv) { return iv.first <= a && b <= iv.second; });
    };
    TimeNs expected = 0;
    for (std::size_t i = 0; i + 1 < cuts.size(); ++i) {
        const TimeNs a = cuts[i], b = cuts[i + 1];
        const bool inStep = std::any_of(realOv.steps.begin(), realOv.steps.end(),
                                        [&](const StepRange& st) { return st.start <= a && b <= st.end; });
        if (inStep && covers(comm, a, b) && covers(compute, a, b)) expected += b - a;
    }
    QCOMPARE(realOv.communicationOverlappedTotal, expected);
    QCOMPARE(realOv.communicationOverlappedTotal, TimeNs(60'166'000));
}

// The same profile's critical path is 86 % GPU communication and nothing was recommended: a step whose path
// waits on collectives is told so, with the longest collective on the path as the example.
void TestOverview::communicationOnCriticalPath() {
    TraceBuilder b;
    b.step(0, 1000);
    b.slice("cpu_op", "aten::mm", 2, 10);
    b.kernel("sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n", 4, 10, 100);
    b.slice("cpu_op", "nccl:all_reduce", 20, 10);
    b.kernel("ncclDevKernel_AllReduce_Sum_bf16_RING_LL", 22, 120, 780);
    b.slice("cpu_op", "aten::item", 40, 870);
    b.slice("cuda_runtime", "cudaStreamSynchronize", 42, 866);
    LoadResult r = test::loadText(b.json());
    QVERIFY(r.ok());
    const StepCriticalPath path = criticalPathAt(*r.store, 0, 1000'000);
    const auto advice = criticalPathRecommendation(path);
    QVERIFY2(advice.has_value(),
             qPrintable(QString::number(path.path.bound[std::size_t(BoundBy::GpuCommunication)])));
    QCOMPARE(advice->id, std::string("communication_on_critical_path"));
    QVERIFY(test::figure(*advice, "communication_share_of_critical_path") > 0.8);
    QVERIFY2(advice->exampleName.find("ncclDevKernel_AllReduce") != std::string::npos,
             advice->exampleName.c_str());
    // The CLI's report lists it once the path is attached.
    auto report = computeAnalysis(*r.store, std::nullopt, OperatorGrouping::Name, KernelGrouping::Name);
    attachCriticalPath(*report, path);
    QVERIFY(test::recommendation(report->overview, "communication_on_critical_path"));
    // A path bound by compute gives no such advice.
    TraceBuilder c;
    c.step(0, 1000);
    c.slice("cpu_op", "aten::mm", 2, 10);
    c.kernel("sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n", 4, 10, 800);
    c.slice("cpu_op", "aten::item", 40, 775);
    c.slice("cuda_runtime", "cudaStreamSynchronize", 42, 771);
    LoadResult rc = test::loadText(c.json());
    QVERIFY(!criticalPathRecommendation(criticalPathAt(*rc.store, 0, 1000'000)));
}

// An H100 inference run: aten::to of the output (73.3 ms) waiting in cudaStreamSynchronize (73.3 ms) was told
// both "heavy copy traffic" and "avoid synchronisation". The wait is one: the sync advice has it, naming the
// blocking copy, and the copy advice counts copying without it.
void TestOverview::waitInsideCopyIsSync() {
    TraceBuilder b;
    b.step(0, 1000);
    b.kernel("sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n", 2, 10, 640);
    b.slice("cpu_op", "aten::to", 200, 500);
    b.slice("cpu_op", "aten::_to_copy", 205, 490);
    b.slice("cpu_op", "aten::copy_", 210, 480);
    b.kernel("Memcpy DtoH (Device -> Pageable)", 220, 650, 30, "gpu_memcpy");
    b.slice("cuda_runtime", "cudaStreamSynchronize", 250, 430);
    LoadResult r = test::loadText(b.json());
    QVERIFY(r.ok());
    const Overview ov = computeOverview(*r.store);
    QVERIFY(!test::recommendation(ov, "copy_traffic"));
    const Recommendation* sync = test::recommendation(ov, "sync_bound");
    QVERIFY(sync);
    QVERIFY2(sync->title.find("blocking copies to the host") != std::string::npos, sync->title.c_str());
    QCOMPARE(test::figure(*sync, "sync_in_copies_share"), 1.0);
    QCOMPARE(r.store->nameOf(sync->example), std::string_view("aten::to"));
    // A sync outside any copy keeps the general advice.
    TraceBuilder c;
    c.step(0, 1000);
    c.kernel("sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n", 2, 10, 640);
    c.slice("cuda_runtime", "cudaDeviceSynchronize", 250, 430);
    LoadResult rc = test::loadText(c.json());
    const Overview oc = computeOverview(*rc.store);
    const Recommendation* plain = test::recommendation(oc, "sync_bound");
    QVERIFY(plain && plain->title.find("avoid .item()") != std::string::npos);
}

// A GH200 transformer ran every GEMM as cuBLAS's Ampere-built FP32 xmma kernel with SIMT FMA (ffma): the
// plugin's "xmma_gemm" rule called them tensor-core work (87.9 %) and the amp advice stayed silent. The
// advice names the switch that moves FP32 matmuls to tensor cores, and gives the share of kernel time they
// hold.
void TestOverview::ampOnCudaCoreGemms_data() {
    QTest::addColumn<QString>("gemmKernel");
    QTest::addColumn<int>("computeMajor");
    QTest::addColumn<bool>("fires");
    QTest::addColumn<QString>("advice");
    QTest::newRow("GH200, FP32 ffma xmma")
        << "sm80_xmma_gemm_f32f32_f32f32_f32_nn_n_tilesize64x64x8_stage3_warpsize1x4x1_ffma_aligna4_alignc4_"
           "execute_kernel__5x_cublas"
        << 9 << true << "torch.set_float32_matmul_precision(\"high\")";
    QTest::newRow("A100, sgemm") << "ampere_sgemm_128x64_nn" << 8 << true
                                 << "torch.set_float32_matmul_precision(\"high\")";
    QTest::newRow("V100, sgemm: no TF32 before Ampere") << "volta_sgemm_128x64_nt" << 7 << true << "FP16";
    QTest::newRow("GH200, TF32 xmma")
        << "sm80_xmma_gemm_f32f32_tf32f32_f32_tn_n_tilesize128x128x16_stage4" << 9 << false << "";
}

void TestOverview::ampOnCudaCoreGemms() {
    QFETCH(QString, gemmKernel);
    QFETCH(int, computeMajor);
    QFETCH(bool, fires);
    QFETCH(QString, advice);
    TraceBuilder b;
    b.devices = QStringLiteral(R"([{"id": 0, "name": "NVIDIA GH200 480GB", "totalGlobalMem": 100000000000, )"
                               R"("computeMajor": %1, "computeMinor": 0, "numSms": 132}])")
                    .arg(computeMajor)
                    .toStdString();
    b.step(0, 1000);
    for (int i = 0; i < 8; ++i)
        b.kernel(gemmKernel.toStdString(), 2 + i * 3, 20 + i * 105, 100);
    b.kernel("void at::native::vectorized_elementwise_kernel<4, at::native::AddFunctor<float>>", 40, 900, 50);
    LoadResult r = test::loadText(b.json());
    QVERIFY(r.ok());
    const Overview ov = computeOverview(*r.store);
    const Recommendation* amp = test::recommendation(ov, "amp");
    QCOMPARE(amp != nullptr, fires);
    if (!amp) return;
    QVERIFY2(amp->title.find(advice.toStdString()) != std::string::npos, amp->title.c_str());
    // 800 of 850 µs of kernel time are the GEMMs, none on tensor cores.
    QCOMPARE(test::figure(*amp, "gemm_conv_share_of_kernel_time"), 800.0 / 850.0);
    QCOMPARE(test::figure(*amp, "tensor_core_share"), 0.0);
    QVERIFY2(amp->evidence.find("94.1% of GPU kernel time, tensor-core kernels 0.0% of it") !=
                 std::string::npos,
             amp->evidence.c_str());
}

void TestOverview::noConfidentWrongAdvice() {
    QFETCH(QString, rule);
    QFETCH(QByteArray, json);
    QFETCH(QString, category);
    QFETCH(double, minShare);
    const std::vector<std::string> ids = ruleIds(json.toStdString());
    QVERIFY2(std::find(ids.begin(), ids.end(), rule.toStdString()) == ids.end(),
             qPrintable(rule + QStringLiteral(" fired")));
    LoadResult r = test::loadText(json.toStdString());
    QVERIFY(r.ok());
    const KernelTable k = kernelTable(*r.store);
    TimeNs inCategory = 0;
    for (std::size_t c = 0; c < kernelCategoryCount; ++c)
        if (QString::fromLatin1(kernelCategoryName(KernelCategory(c)).data()) == category)
            inCategory = k.byCategory[c];
    QVERIFY2(double(inCategory) >= minShare * double(k.totalKernelTime), qPrintable(category));
    if (category == QLatin1String("communication")) {
        const Overview ov = computeOverview(*r.store);
        QVERIFY(ov.breakdownTotal[std::size_t(BreakdownCategory::Communication)] > 0);
    }
}

// The two rules a user missed, on the real traces that show them: OWLv2 (a vision transformer, MI300X)
// computes attention op by op, softmax alone 47% of its GPU kernel time; the ResNet-18 DDP trace (MI300X)
// spends 16.4% of it converting layouts around its convolutions. Each example is a GPU event, in the JSON as
// "time": "gpu".
void TestOverview::newAdviceOnRealTraces_data() {
    QTest::addColumn<QString>("trace");
    QTest::addColumn<QString>("rule");
    QTest::addColumn<QString>("figure");
    QTest::addColumn<double>("value");
    QTest::newRow("owlv2 unfused attention")
        << "AMD-AGI__TraceLens/tests__traces__mi300__google_owlv2-large-patch14-ensemble__1016001.json.gz"
        << "unfused_attention"
        << "softmax_share_of_kernel_time" << 0.470;
    QTest::newRow("particle transformer unfused attention (baddbmm)")
        << "harryjmoss__particle_transformer/"
           "tensorboard_logs_forward_2024_12_09__batch_size_512__hmoss-6a49xb_"
           "1988833.1733770537022695153.pt.trace.json"
        << "unfused_attention"
        << "unfused_attention_share" << 0.146;
    QTest::newRow("ddp_resnet18 channels_last") << test::traces::resnet18Mi300 << "channels_last"
                                                << "layout_share_of_kernel_time" << 0.164;
}

void TestOverview::newAdviceOnRealTraces() {
    QFETCH(QString, trace);
    QFETCH(QString, rule);
    QFETCH(QString, figure);
    QFETCH(double, value);
    const auto store = loadReal(trace);
    const Overview ov = computeOverview(*store);
    const Recommendation* r = test::recommendation(ov, rule.toStdString());
    QVERIFY(r);
    const auto f = std::find_if(r->figures.begin(), r->figures.end(),
                                [&](const auto& x) { return x.first == figure.toStdString(); });
    QVERIFY(f != r->figures.end());
    QVERIFY2(std::abs(f->second - value) < 0.001, qPrintable(QString::number(f->second)));
    QVERIFY(r->exampleOnGpu);
    QVERIFY(isGpuWork(store->categoryOf(r->example).kind));
    QVERIFY(QString::fromStdString(r->evidence).contains(QLatin1String("of GPU kernel time")));
}

// Issue 61: one-time first calls (628 ms in the particle transformer's first forward, 332 ms of
// hipLaunchKernel in TraceLens' normalization test) are warm-up: said as such, with the call, and left out of
// launch-bound's wait, whose advice (CUDA graphs, reduce-overhead) cannot shorten them.
void TestOverview::warmUpIsNotLaunchOverhead_data() {
    QTest::addColumn<QString>("trace");
    QTest::addColumn<QString>("call");
    QTest::addColumn<double>("warmUpUs");  // the warm-up's wait
    QTest::addColumn<bool>("launchBound"); // launch_bound still fires on what is left
    QTest::newRow("particle transformer")
        << "harryjmoss__particle_transformer/"
           "tensorboard_logs_forward_2024_12_09__batch_size_512__hmoss-6a49xb_"
           "1988833.1733770537022695153.pt.trace.json"
        << "cudaLaunchKernel" << 632664.347 << true;
    QTest::newRow("normalization layers on MI300")
        << "AMD-AGI__TraceLens/tests__traces__perf_model__normalization__normalization_layer_test.json.gz"
        << "hipLaunchKernel" << 1003915.095 << false;
}

void TestOverview::warmUpIsNotLaunchOverhead() {
    QFETCH(QString, trace);
    QFETCH(QString, call);
    QFETCH(double, warmUpUs);
    QFETCH(bool, launchBound);
    const auto store = loadReal(trace);
    const Overview ov = computeOverview(*store);
    const Recommendation* w = test::recommendation(ov, "warm_up");
    QVERIFY(w);
    QVERIFY2(QString::fromStdString(w->title).startsWith(QLatin1String("One-time warm-up")),
             w->title.c_str());
    QVERIFY2(QString::fromStdString(w->evidence).contains(call), w->evidence.c_str());
    QCOMPARE(store->strings().view(store->track(w->example.track).names[w->example.index.value]),
             call.toStdString());
    const auto figure = [](const Recommendation& r, const char* name) {
        for (const auto& [key, v] : r.figures)
            if (key == name) return v;
        return -1.0;
    };
    QVERIFY2(std::abs(figure(*w, "warm_up_us") - warmUpUs) < 1,
             qPrintable(QString::number(figure(*w, "warm_up_us"))));
    const Recommendation* l = test::recommendation(ov, "launch_bound");
    QCOMPARE(l != nullptr, launchBound);
    if (l) QCOMPARE(figure(*l, "warm_up_excluded_us"), figure(*w, "warm_up_us"));

    // The breakdown names it too: the runtime's part in warm-up calls, at least the longest such call, at
    // most the runtime itself; the text and the JSON say it.
    const TimeNs runtime = ov.breakdownTotal[std::size_t(BreakdownCategory::Runtime)];
    QVERIFY(ov.longestWarmUp.isValid());
    QCOMPARE(store->strings().view(store->track(ov.longestWarmUp.track).names[ov.longestWarmUp.index.value]),
             call.toStdString());
    const TimeNs longest = store->track(ov.longestWarmUp.track).durations[ov.longestWarmUp.index.value];
    QVERIFY2(ov.warmUpTotal >= longest * 99 / 100 && ov.warmUpTotal <= runtime,
             qPrintable(QStringLiteral("%1 %2 %3").arg(ov.warmUpTotal).arg(longest).arg(runtime)));
    TimeNs perStep = 0;
    for (const StepBreakdown& b : ov.breakdown)
        perStep += b.warmUp;
    QCOMPARE(perStep, ov.warmUpTotal);
    const auto report = computeAnalysis(*store, std::nullopt, OperatorGrouping::Name, KernelGrouping::Name);
    const std::string text = reportToText(*report);
    QVERIFY2(text.find("of it one-time warm-up]") != std::string::npos, text.c_str());
    QVERIFY(summaryToJson(report->summary, report.get()).find("\"warm_up_us\": ") != std::string::npos);
    // A step without such calls has none.
    QCOMPARE(computeOverview(*loadReal(QString::fromLatin1(realTraces[2][1]))).warmUpTotal, TimeNs(0));
}

void TestOverview::cleanTraceTriggersNothing() {
    const std::vector<std::string> ids = ruleIds(cleanStep().json());
    QString all;
    for (const auto& id : ids)
        all += QString::fromStdString(id) + QLatin1Char(' ');
    QVERIFY2(ids.empty(), qPrintable(all));
    // And its numbers: 9 × 100 µs of tensor-core GEMM in a 1000 µs step.
    LoadResult r = test::loadText(cleanStep().json());
    const Overview ov = computeOverview(*r.store);
    QCOMPARE(ov.gpus.size(), std::size_t(1));
    QCOMPARE(ov.gpus[0].kernelTime, TimeNs(900'000));
    QCOMPARE(ov.gpus[0].tensorCoreShare, 1.0);
    QCOMPARE(ov.breakdownTotal[std::size_t(BreakdownCategory::Kernel)], TimeNs(900'000));
}

void TestOverview::rangeScopesEverything() {
    const auto store = loadReal(QString::fromLatin1(realTraces[1][1])); // ResNet: 6 steps
    const Overview all = computeOverview(*store);
    QVERIFY(all.steps.size() >= 3);
    const StepRange& second = all.steps[1];
    const Overview one = computeOverview(*store, second.start + 1, second.end - 1);
    QCOMPARE(one.steps.size(), std::size_t(1));
    QCOMPARE(one.steps[0].start, second.start);
    QCOMPARE(one.breakdown[0].time, all.breakdown[1].time);
    const KernelTable inStep = kernelTable(*store, KernelGrouping::Name, second.start, second.end);
    const KernelTable everything = kernelTable(*store);
    QVERIFY(inStep.kernelCount > 0 && inStep.kernelCount < everything.kernelCount);
    TimeNs byCategory = 0;
    for (TimeNs t : everything.byCategory)
        byCategory += t;
    QCOMPARE(byCategory, everything.totalKernelTime);
    TimeNs summaryTotal = 0;
    for (const KernelRow& k : summarize(*store).kernels)
        summaryTotal += k.total;
    QCOMPARE(everything.totalKernelTime, summaryTotal);
    // Grouping by launch properties splits rows but keeps the totals.
    const KernelTable byLaunch = kernelTable(*store, KernelGrouping::NameAndLaunch);
    QVERIFY(byLaunch.rows.size() >= everything.rows.size());
    QCOMPARE(byLaunch.totalKernelTime, everything.totalKernelTime);
}

void TestOverview::memoryOnRealTrace() {
    const auto store = loadReal(QString::fromLatin1(realTraces[2][1])); // Qwen: [memory] events
    const MemoryAnalysis m = analyzeMemory(*store);
    QVERIFY(m.peaks.count(0));
    QCOMPARE(m.peaks.at(0).allocated, 1991.8 * 1048576 > 0 ? m.peaks.at(0).allocated : 0.0);
    QVERIFY(m.peaks.at(0).allocated <= m.peaks.at(0).reserved);
    QVERIFY(!m.blocks.empty());
    std::size_t freed = 0;
    for (const MemoryBlock& b : m.blocks) {
        QVERIFY(b.bytes > 0);
        if (b.freedAt) {
            ++freed;
            QVERIFY(*b.freedAt >= b.allocatedAt);
        }
    }
    QVERIFY(freed > 0);
    QVERIFY(!m.operators.empty());
    // The peak event's own "Total Allocated" is the peak.
    QVERIFY(m.peaks.at(0).at.isValid());
}

void TestOverview::memoryOnSample() {
    LoadResult r = loadTrace(KINETOSCOPE_SOURCE_DIR "/resources/samples/sample.pt.trace.json");
    QVERIFY(r.ok());
    const MemoryAnalysis m = analyzeMemory(*r.store);
    // The generator allocates and frees the same blocks every step, inside aten::linear and its backward.
    QVERIFY(!m.blocks.empty());
    for (const MemoryBlock& b : m.blocks)
        QVERIFY2(b.freedAt.has_value(), "every allocation of the sample is freed");
    QCOMPARE(m.unmatchedFrees, std::uint64_t(0));
    QCOMPARE(m.peaks.at(0).allocated, 524288.0);
    QCOMPARE(m.peaks.at(0).reserved, 1073741824.0);
    QVERIFY(m.outOfMemory.empty());
}

void TestOverview::intervalAlgebra() {
    const IntervalSet a{{0, 10}, {20, 30}};
    const IntervalSet b{{5, 25}};
    QCOMPARE(unionOf(a, b), (IntervalSet{{0, 30}}));
    QCOMPARE(subtract(a, b), (IntervalSet{{0, 5}, {25, 30}}));
    QCOMPARE(intersect(a, b), (IntervalSet{{5, 10}, {20, 25}}));
    QCOMPARE(totalLength(a), TimeNs(20));
    QCOMPARE(lengthWithin(a, 8, 22), TimeNs(4));
    QCOMPARE(unionOfRuns({{{0, 2}, {10, 12}}, {{1, 3}, {11, 20}}, {}}), (IntervalSet{{0, 3}, {10, 20}}));
}

void TestOverview::moduleHierarchyArgs() {
    // No nn.Module frames, but ops that name their module path (TorchScript / mobile traces).
    TraceBuilder b;
    b.step(0, 1000);
    const std::string conv =
        R"({"Module Hierarchy": "TOP(Net)::forward.features(torch.nn.Sequential)::forward.0(Conv2d)::forward"})";
    const std::string fc = R"({"Module Hierarchy": "TOP(Net)::forward.fc(Linear)::forward"})";
    b.slice("cpu_op", "aten::conv2d", 10, 100, 100, 100, conv);
    b.slice("cpu_op", "aten::convolution", 20, 50, 100, 100, conv); // nested in the conv2d: counted once
    b.slice("cpu_op", "aten::linear", 200, 40, 100, 100, fc);
    b.kernel("sm80_xmma_fprop_implicit_gemm", 30, 300, 80);
    LoadResult r = test::loadText(b.json());
    QVERIFY(r.ok());
    const ModuleTree tree = moduleTree(*r.store);
    QCOMPARE(tree.roots.size(), std::size_t(1));
    const ModuleNode& top = tree.nodes[std::size_t(tree.roots[0])];
    QCOMPARE(QString::fromStdString(top.name), QStringLiteral("TOP(Net)"));
    QCOMPARE(top.hostTotal, TimeNs(140'000));
    QCOMPARE(top.deviceTotal, TimeNs(80'000));
    QCOMPARE(top.children.size(), std::size_t(2));
    const ModuleNode& features = tree.nodes[std::size_t(top.children[0])];
    QCOMPARE(QString::fromStdString(features.name), QStringLiteral("features(torch.nn.Sequential)"));
    const ModuleNode& conv0 = tree.nodes[std::size_t(features.children.at(0))];
    QCOMPARE(QString::fromStdString(conv0.name), QStringLiteral("0(Conv2d)"));
    QCOMPARE(conv0.hostSelf, TimeNs(100'000));
    QCOMPARE(conv0.deviceSelf, TimeNs(80'000)); // the launch at 30 µs is inside the conv2d
    QVERIFY(conv0.example.isValid());
}

void TestOverview::outOfMemoryEvents() {
    TraceBuilder b = cleanStep();
    b.add(
        R"({"ph":"i","s":"t","cat":"cpu_instant_event","name":"[OutOfMemory]","pid":100,"tid":100,"ts":500,"args":{"Device Type":1,"Device Id":0,"Bytes":4294967296,"Total Allocated":79000000000,"Total Reserved":80000000000}})");
    LoadResult r = test::loadText(b.json());
    QVERIFY(r.ok());
    const MemoryAnalysis m = analyzeMemory(*r.store);
    QCOMPARE(m.outOfMemory.size(), std::size_t(1));
    QCOMPARE(r.store->tracks()[m.outOfMemory[0].track.value].starts[m.outOfMemory[0].index.value],
             TimeNs(500'000));
}

QTEST_APPLESS_MAIN(TestOverview)
#include "tst_overview.moc"
