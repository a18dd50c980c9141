// Advice that knows the model is compiled (core/analysis/compiled/compiledmodel.h and the overview's rules
// for compiled models): on every compiled trace of the corpus, which advice fires and with what evidence, and
// that eager traces keep their eager advice; graph breaks on a synthetic trace (no trace of the corpus has
// one), built the way Dynamo nests a resume function's region inside its caller's.
#include "analysis/compiled/compiledmodel.h"
#include "analysis/overview/overview.h"
#include "analysis/report/analysisresult.h"
#include "testsupport.h"

#include <QTest>

using namespace kinetoscope;

class TestCompiledAdvice : public QObject {
    Q_OBJECT
  private slots:
    void regionIds_data();
    void regionIds();
    void corpus_data();
    void corpus();
    void graphBreaks();
    void functionsCompiledApart();
    void eagerElementwiseBesideGraphs_data();
    void eagerElementwiseBesideGraphs();
    void eagerModelUnchanged();
};

namespace {

std::vector<std::pair<TimeNs, TimeNs>> stepsOf(const Overview& ov) {
    std::vector<std::pair<TimeNs, TimeNs>> steps;
    for (const StepRange& s : ov.steps)
        steps.emplace_back(s.start, s.end);
    return steps;
}

} // namespace

void TestCompiledAdvice::regionIds_data() {
    QTest::addColumn<QString>("name");
    QTest::addColumn<int>("frame");
    QTest::addColumn<int>("compile");
    QTest::newRow("first") << "Torch-Compiled Region: 0/0" << 0 << 0;
    QTest::newRow("recompiled") << "Torch-Compiled Region: 0/1" << 0 << 1;
    QTest::newRow("resume frame") << "Torch-Compiled Region: 12/3" << 12 << 3;
    QTest::newRow("compiled autograd") << "Torch-Compiled Region: !0/2/1" << 2 << 1;
    QTest::newRow("attempt") << "Torch-Compiled Region: 1/0_1" << 1 << 0;
    QTest::newRow("no id") << "Torch-Compiled Region: " << -1 << -1;
    QTest::newRow("garbage") << "Torch-Compiled Region: a/b" << -1 << -1;
    QTest::newRow("half") << "Torch-Compiled Region: 3" << -1 << -1;
    QTest::newRow("other") << "CompiledFunction" << -1 << -1;
}

void TestCompiledAdvice::regionIds() {
    QFETCH(QString, name);
    QFETCH(int, frame);
    QFETCH(int, compile);
    const std::string n = name.toStdString();
    QCOMPARE(compiledRegionId(n), std::make_pair(frame, compile));
}

// Each compiled trace of the corpus: the advice that must fire (with the compiled wording) and must not.
void TestCompiledAdvice::corpus_data() {
    QTest::addColumn<QString>("trace");
    QTest::addColumn<QStringList>("fires");
    QTest::addColumn<QStringList>("silent");
    QTest::addColumn<QString>("launchTitle"); // the start of launch_bound's title, when it fires
    // A Llama block compiled without CUDA graphs, one call: library GEMMs from the graph dominate.
    QTest::newRow("torch_compile_triton")
        << "AMD-AGI__TraceLens/tests__traces__torch_compile_triton__trace.json.gz"
        << QStringList{"max_autotune"} << QStringList{"graph_breaks", "recompilation", "compile_in_trace"}
        << "";
    // vLLM on a B200: frame 0 runs in its second compilation (0/1).
    QTest::newRow("b200 vllm") << "AMD-AGI__TraceLens/tests__traces__b200__eager_trace.json.gz"
                               << QStringList{"recompilation", "launch_bound"}
                               << QStringList{"graph_breaks", "compile_in_trace"}
                               << "The GPU waits for the CPU to launch the compiled model's kernels";
    // Stable Diffusion 3.5's transformer compiled without CUDA graphs, four denoising calls.
    QTest::newRow("xdit sd3.5")
        << "AMD-AGI__TraceLens/tests__traces__inference__xdit_sd_3.5__profile_trace_rank_0.json.gz"
        << QStringList{"launch_bound", "max_autotune"}
        << QStringList{"graph_breaks", "recompilation", "compile_in_trace", "tiny_kernels"}
        << "The GPU waits for the CPU to launch the compiled model's kernels";
    // Flux compiled with mode="reduce-overhead", its first call profiled: CUDA graph recording in the trace.
    QTest::newRow("xdit flux")
        << "AMD-AGI__TraceLens/"
           "tests__traces__inference__xdit_flux.1__capture_traces__capture_trace_rank_0.json.gz"
        << QStringList{"compile_in_trace", "launch_bound"} << QStringList{"graph_breaks", "recompilation"}
        << "The GPU waits for launches the CUDA graphs do not cover";
    // An older training trace: AOTAutograd's CompiledFunction ranges, CUDA graphs, DDP and an eager
    // embedding path launching thousands of tiny kernels outside the compiled graphs.
    QTest::newRow("hta compiled training")
        << "facebookresearch__HolisticTraceAnalysis/"
           "tests__data__negative_queue_length_values_check__rank0.json.gz"
        << QStringList{"tiny_kernels"} << QStringList{"graph_breaks", "recompilation", "compile_in_trace"}
        << "";
    // Our own GPU run (tests/data/gpu, an H200): a small GPT's training steps compiled, the AdamW step left
    // eager (its foreach kernels are the elementwise work outside the graphs), without and with CUDA graphs.
    QTest::newRow("h200 compiled training")
        << "gpu/compiled.pt.trace.json.gz"
        << QStringList{"launch_bound", "elementwise_fusion", "max_autotune"}
        << QStringList{"graph_breaks", "recompilation", "compile_in_trace", "tiny_kernels"}
        << "The GPU waits for the CPU to launch the compiled model's kernels";
    QTest::newRow("h200 compiled, three layers")
        << "gpu/compiled_3layers/compiled_3layers.pt.trace.json.gz"
        << QStringList{"launch_bound", "max_autotune"}
        // the eager optimizer's share falls under the threshold
        << QStringList{"graph_breaks", "recompilation", "compile_in_trace", "tiny_kernels"}
        << "The GPU waits for the CPU to launch the compiled model's kernels";
    // The same model with a graph break in its forward (a count read with .item(),
    // tests/gpu/compiled_cases.py): each step runs frame 0's region, the eager aten::item, then the resume
    // function's region 1/0.
    QTest::newRow("h200 graph break")
        << "gpu/graph_break.pt.trace.json.gz" << QStringList{"graph_breaks", "launch_bound", "max_autotune"}
        << QStringList{"recompilation", "compile_in_trace", "tiny_kernels", "amp"}
        << "The GPU waits for the CPU to launch the compiled model's kernels";
    // mode="max-autotune-no-cudagraphs": 26 GEMMs a step became Triton templates (BF16 under autocast, on
    // tensor cores), so neither max-autotune nor mixed precision is advised.
    QTest::newRow("h200 max-autotune")
        << "gpu/max_autotune.pt.trace.json.gz" << QStringList{"launch_bound"}
        << QStringList{"max_autotune",     "amp",         "graph_breaks", "recompilation",
                       "compile_in_trace", "tiny_kernels"}
        << "The GPU waits for the CPU to launch the compiled model's kernels";
    QTest::newRow("h200 reduce-overhead")
        << "gpu/reduce_overhead.pt.trace.json.gz"
        << QStringList{"launch_bound", "elementwise_fusion", "max_autotune"}
        << QStringList{"graph_breaks", "recompilation", "compile_in_trace", "tiny_kernels"}
        << "The GPU waits for launches the CUDA graphs do not cover";
}

void TestCompiledAdvice::corpus() {
    QFETCH(QString, trace);
    QFETCH(QStringList, fires);
    QFETCH(QStringList, silent);
    QFETCH(QString, launchTitle);
    // "gpu/..." is tests/data/gpu (our own GPU run), anything else the corpus.
    const std::string path = trace.startsWith("gpu/")
                                 ? std::string(KINETOSCOPE_SOURCE_DIR) + "/tests/data/" + trace.toStdString()
                                 : test::tracePath(trace.toStdString().c_str());
    LoadResult r = loadTrace(path);
    QVERIFY2(r.ok(), r.error.c_str());
    const Overview ov = computeOverview(*r.store);
    QVERIFY(ov.compiledModel);
    for (const QString& id : fires)
        QVERIFY2(test::recommendation(ov, id.toStdString()), qPrintable(id));
    for (const QString& id : silent)
        QVERIFY2(!test::recommendation(ov, id.toStdString()), qPrintable(id));
    // Nothing tells a compiled model to use torch.compile (below_peak names a mode of it for one kernel; the
    // optimizer's advice names compiling the optimizer step, which is not the model).
    for (const Recommendation& rec : ov.recommendations)
        if (rec.id != "below_peak" && !rec.title.starts_with("The optimizer step runs eagerly"))
            QVERIFY2(rec.title.find("torch.compile") == std::string::npos, rec.title.c_str());
    if (const Recommendation* launch = test::recommendation(ov, "launch_bound"))
        QVERIFY2(launch->title.starts_with(launchTitle.toStdString()), launch->title.c_str());

    const CompiledModelFacts m =
        compiledModelFacts(*r.store, stepsOf(ov), r.store->minTime(), r.store->maxTime());
    if (const Recommendation* rec = test::recommendation(ov, "recompilation")) {
        // b200: one region, 0/1; the link goes to it.
        QCOMPARE(int(m.regions.size()), 1);
        QCOMPARE(m.regions[0].frame, 0);
        QCOMPARE(m.regions[0].compile, 1);
        QCOMPARE(rec->exampleName, std::string("Torch-Compiled Region: 0/1"));
        QVERIFY(rec->evidence.starts_with("frame 0 runs as 0/1"));
    }
    if (const Recommendation* rec = test::recommendation(ov, "graph_breaks")) {
        // The H200 graph break: two frames a step, the eager code between them starts at aten::item.
        QCOMPARE(test::figure(*rec, "frames_in_a_step"), 2.0);
        QCOMPARE(rec->exampleName, std::string("aten::item"));
        QVERIFY2(rec->evidence.find("(0/0, 1/0;") != std::string::npos, rec->evidence.c_str());
        // Its resume function's region runs inside frame 0's, as Dynamo runs a graph break.
        QCOMPARE(test::figure(*rec, "regions_nested"), 1.0);
        QCOMPARE(test::figure(*rec, "regions_side_by_side"), 0.0);
        QVERIFY(test::figure(*rec, "eager_host_us") > 0);
    }
    QCOMPARE(m.tritonTemplates, trace.contains("max_autotune"));
    if (const Recommendation* rec = test::recommendation(ov, "elementwise_fusion");
        rec && trace.startsWith("gpu/")) {
        // Our H200 runs compile the model and leave AdamW's foreach step eager: the advice names the
        // optimizer.
        QVERIFY2(rec->title.starts_with("The optimizer step runs eagerly"), rec->title.c_str());
        QVERIFY(test::figure(*rec, "optimizer_share_of_elementwise") > 0.9);
        QVERIFY2(rec->exampleName.find("multi_tensor_apply_kernel") != std::string::npos,
                 rec->exampleName.c_str());
    }
    if (const Recommendation* rec = test::recommendation(ov, "compile_in_trace")) {
        // Flux: Inductor's CUDA graph tree records the graph inside the profiled step.
        QCOMPARE(rec->exampleName, std::string("CUDAGraphNode.record (dynamo_timed)"));
        QVERIFY(m.cudaGraphs);
        QVERIFY(test::figure(*rec, "compile_share") > 0.5);
    }
    if (const Recommendation* rec = test::recommendation(ov, "max_autotune")) {
        QVERIFY(!m.tritonTemplates);
        QVERIFY(!m.topTriton.empty());
        QCOMPARE(rec->exampleName, std::string(r.store->strings().view(m.topTriton.front().name)));
        QVERIFY(test::figure(*rec, "triton_share_of_kernel_time") +
                    test::figure(*rec, "compiled_gemm_share_of_kernel_time") >
                0.3);
    }
    if (const Recommendation* rec = test::recommendation(ov, "tiny_kernels")) {
        // The HTA trace: the tiny kernels come from eager code, so the advice says compile it, not CUDA
        // graphs.
        QVERIFY(
            rec->title.starts_with("Many tiny kernels, most of them launched outside the compiled graphs"));
        QVERIFY(test::figure(*rec, "tiny_outside_compiled_graphs") >
                test::figure(*rec, "tiny_in_compiled_graphs"));
        QCOMPARE(test::figure(*rec, "tiny_outside_compiled_graphs") +
                     test::figure(*rec, "tiny_in_compiled_graphs"),
                 test::figure(*rec, "tiny_kernels"));
    }
    // Every kernel of the range is counted once, inside or outside the compiled graphs.
    QVERIFY(m.kernelsInGraphs > 0 && m.kernelsInGraphs <= m.kernels);
    QVERIFY(m.kernelTimeInGraphs <= m.kernelTime);
}

// A graph break as Dynamo runs one: frame 0's region calls its graph, runs the breaking operator eagerly,
// then calls the resume function, whose own region (1/0) nests inside 0/0; the next step runs a recompiled
// 0/1. Between them the eager aten::nonzero launches a kernel.
void TestCompiledAdvice::graphBreaks() {
    const LoadResult r = test::loadText(R"json([
 {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "pid": 1, "tid": 1, "ts": 0, "dur": 1000},
 {"ph": "X", "cat": "cpu_op", "name": "Torch-Compiled Region: 0/0", "pid": 1, "tid": 1, "ts": 10, "dur": 900},
 {"ph": "X", "cat": "cpu_op", "name": "TorchDynamo Cache Lookup", "pid": 1, "tid": 1, "ts": 11, "dur": 2},
 {"ph": "X", "cat": "user_annotation", "name": "## Call CompiledFxGraph aaa ##", "pid": 1, "tid": 1, "ts": 20,
  "dur": 100},
 {"ph": "X", "cat": "cpu_op", "name": "triton_poi_fused_add_0", "pid": 1, "tid": 1, "ts": 30, "dur": 20},
 {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 35, "dur": 5,
  "args": {"correlation": 1}},
 {"ph": "X", "cat": "cpu_op", "name": "aten::nonzero", "pid": 1, "tid": 1, "ts": 200, "dur": 150},
 {"ph": "X", "cat": "cpu_op", "name": "aten::empty", "pid": 1, "tid": 1, "ts": 210, "dur": 5},
 {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 220, "dur": 5,
  "args": {"correlation": 2}},
 {"ph": "X", "cat": "cpu_op", "name": "Torch-Compiled Region: 1/0", "pid": 1, "tid": 1, "ts": 400, "dur": 500},
 {"ph": "X", "cat": "user_annotation", "name": "## Call CompiledFxGraph bbb ##", "pid": 1, "tid": 1, "ts": 410,
  "dur": 400},
 {"ph": "X", "cat": "cpu_op", "name": "triton_red_fused_sum_1", "pid": 1, "tid": 1, "ts": 420, "dur": 20},
 {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 425, "dur": 5,
  "args": {"correlation": 3}},
 {"ph": "X", "cat": "kernel", "name": "triton_poi_fused_add_0", "pid": 0, "tid": 7, "ts": 40, "dur": 30,
  "args": {"correlation": 1, "stream": 7, "device": 0}},
 {"ph": "X", "cat": "kernel", "name": "void at::native::nonzero_kernel", "pid": 0, "tid": 7, "ts": 230,
  "dur": 40, "args": {"correlation": 2, "stream": 7, "device": 0}},
 {"ph": "X", "cat": "kernel", "name": "triton_red_fused_sum_1", "pid": 0, "tid": 7, "ts": 430, "dur": 60,
  "args": {"correlation": 3, "stream": 7, "device": 0}},
 {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#2", "pid": 1, "tid": 1, "ts": 1000, "dur": 1000},
 {"ph": "X", "cat": "cpu_op", "name": "Torch-Compiled Region: 0/1", "pid": 1, "tid": 1, "ts": 1010, "dur": 300},
 {"ph": "X", "cat": "user_annotation", "name": "_compile.compile_inner (dynamo_timed)", "pid": 1, "tid": 1,
  "ts": 1020, "dur": 250},
 {"ph": "X", "cat": "user_annotation", "name": "compile_fx_inner (dynamo_timed)", "pid": 1, "tid": 1,
  "ts": 1100, "dur": 100}
])json");
    QVERIFY2(r.ok(), r.error.c_str());
    const Overview ov = computeOverview(*r.store);
    QVERIFY(ov.compiledModel);
    QVERIFY(!ov.cudaGraphs);
    const Recommendation* breaks = test::recommendation(ov, "graph_breaks");
    QVERIFY(breaks);
    QCOMPARE(test::figure(*breaks, "frames_in_a_step"), 2.0);
    // The eager operator between the regions is aten::nonzero alone (aten::empty is inside it; the Cache
    // Lookup is Dynamo's own), 150 us on the host launching 40 us of GPU work; the link goes to it.
    QCOMPARE(test::figure(*breaks, "eager_ops_between_regions"), 1.0);
    QCOMPARE(test::figure(*breaks, "eager_host_us"), 150.0);
    QCOMPARE(test::figure(*breaks, "eager_gpu_us"), 40.0);
    QCOMPARE(breaks->exampleName, std::string("aten::nonzero"));
    QVERIFY2(breaks->evidence.find("(0/0, 1/0;") != std::string::npos, breaks->evidence.c_str());
    // 1/0 runs inside 0/0: a resume function, so a graph break, not functions compiled apart.
    QCOMPARE(test::figure(*breaks, "regions_nested"), 1.0);
    QCOMPARE(test::figure(*breaks, "regions_side_by_side"), 0.0);
    QVERIFY2(breaks->title.starts_with("Graph breaks split the compiled model"), breaks->title.c_str());
    // Step 2 runs frame 0's second compilation, and compiles inside the trace (the outermost phase only).
    const Recommendation* recompiled = test::recommendation(ov, "recompilation");
    QVERIFY(recompiled);
    QVERIFY2(recompiled->evidence.starts_with("frame 0 runs as 0/0, 0/1"), recompiled->evidence.c_str());
    QCOMPARE(recompiled->exampleName, std::string("Torch-Compiled Region: 0/1"));
    const Recommendation* compiling = test::recommendation(ov, "compile_in_trace");
    QVERIFY(compiling);
    QCOMPARE(test::figure(*compiling, "compile_us"), 250.0);
    QCOMPARE(compiling->exampleName, std::string("_compile.compile_inner (dynamo_timed)"));
    // Kernels by where they were launched: two from graph calls, the eager one outside.
    const CompiledModelFacts m =
        compiledModelFacts(*r.store, stepsOf(ov), r.store->minTime(), r.store->maxTime());
    QCOMPARE(m.kernels, std::uint64_t(3));
    QCOMPARE(m.kernelsInGraphs, std::uint64_t(2));
    QCOMPARE(m.kernelTimeInGraphs, TimeNs(90000));
    QCOMPARE(m.graphCalls, std::uint64_t(2));
    QCOMPARE(int(m.regions.size()), 3);
    // A range over step 2 alone sees one frame: no graph break there.
    const Overview late = computeOverview(*r.store, 1000000, 2000000);
    QVERIFY(!test::recommendation(late, "graph_breaks"));
    QVERIFY(test::recommendation(late, "recompilation"));
}

// Two functions compiled one after the other inside one profiled "step" (a warm-up function, then the model),
// each compiling on its first call: regions 0/0 and 1/0 side by side, each after its own compile_inner under
// its own user range. Told "graph breaks split the compiled model … 583 eager operators" before, 581 of them
// compile work, and "reduce-overhead" for an idle GPU that was compiling. Now: functions compiled apart, one
// eager operator between them, and no idle advice, since outside the compile phases the GPU is busy.
void TestCompiledAdvice::functionsCompiledApart() {
    std::string events = R"json(
 {"ph": "X", "cat": "user_annotation", "name": "warmup", "pid": 1, "tid": 1, "ts": 10, "dur": 990},
 {"ph": "X", "cat": "user_annotation", "name": "_compile.compile_inner (dynamo_timed)", "pid": 1, "tid": 1,
  "ts": 20, "dur": 680},
 {"ph": "X", "cat": "cpu_op", "name": "Torch-Compiled Region: 0/0", "pid": 1, "tid": 1, "ts": 710, "dur": 280},
 {"ph": "X", "cat": "user_annotation", "name": "## Call CompiledFxGraph aaa ##", "pid": 1, "tid": 1, "ts": 720,
  "dur": 100},
 {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 730, "dur": 5,
  "args": {"correlation": 1}},
 {"ph": "X", "cat": "kernel", "name": "triton_poi_fused_add_0", "pid": 0, "tid": 7, "ts": 740, "dur": 200,
  "args": {"correlation": 1, "stream": 7, "device": 0}},
 {"ph": "X", "cat": "cpu_op", "name": "aten::copy_", "pid": 1, "tid": 1, "ts": 1020, "dur": 30},
 {"ph": "X", "cat": "user_annotation", "name": "model", "pid": 1, "tid": 1, "ts": 1100, "dur": 7900},
 {"ph": "X", "cat": "user_annotation", "name": "_compile.compile_inner (dynamo_timed)", "pid": 1, "tid": 1,
  "ts": 1110, "dur": 6890},
 {"ph": "X", "cat": "cpu_op", "name": "Torch-Compiled Region: 1/0", "pid": 1, "tid": 1, "ts": 8010, "dur": 980},
 {"ph": "X", "cat": "user_annotation", "name": "## Call CompiledFxGraph bbb ##", "pid": 1, "tid": 1, "ts": 8020,
  "dur": 900},
 {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 8030, "dur": 5,
  "args": {"correlation": 2}},
 {"ph": "X", "cat": "kernel", "name": "triton_red_fused_sum_1", "pid": 0, "tid": 7, "ts": 8040, "dur": 1500,
  "args": {"correlation": 2, "stream": 7, "device": 0}})json";
    // Dynamo's tracing runs the model's operators while it compiles: 40 of them inside the second compile.
    for (int i = 0; i < 40; ++i)
        events += R"(,
 {"ph": "X", "cat": "cpu_op", "name": "aten::add", "pid": 1, "tid": 1, "ts": )" +
                  std::to_string(1200 + i * 100) + R"(, "dur": 50})";
    const LoadResult r = test::loadText("[" + events + "]");
    QVERIFY2(r.ok(), r.error.c_str());
    const Overview ov = computeOverview(*r.store);
    const Recommendation* apart = test::recommendation(ov, "graph_breaks");
    QVERIFY(apart);
    QVERIFY2(apart->title.starts_with("Several functions are compiled apart"), apart->title.c_str());
    QCOMPARE(test::figure(*apart, "regions_nested"), 0.0);
    QCOMPARE(test::figure(*apart, "regions_side_by_side"), 1.0);
    QCOMPARE(test::figure(*apart, "eager_ops_between_regions"),
             1.0); // aten::copy_, not the 40 inside compiling
    QCOMPARE(apart->exampleName, std::string("aten::copy_"));
    QVERIFY(test::recommendation(ov, "compile_in_trace"));
    // The activity step starts at the first operator (region 0/0, 710 µs): it holds the second compile phase
    // (6.89 ms) and 1.7 ms of kernels in the 1.94 ms outside it: neither idle nor launch-bound (over the
    // whole step, 19 % utilisation).
    QCOMPARE(ov.compilePhases.size(), std::size_t(1));
    QVERIFY(!test::recommendation(ov, "low_utilization"));
    QVERIFY(!test::recommendation(ov, "launch_bound"));
}

// Eager elementwise kernels beside a compiled graph: the optimizer's (inside Optimizer.step#, or launched by
// an aten::_foreach_ operator) are told to use the fused optimizer; others to compile the code that launches
// them.
void TestCompiledAdvice::eagerElementwiseBesideGraphs_data() {
    QTest::addColumn<QString>("range"); // the range around the eager operator, if any
    QTest::addColumn<QString>("op");    // the eager operator that launches the elementwise kernels
    QTest::addColumn<bool>("optimizer");
    QTest::newRow("AdamW step") << "Optimizer.step#AdamW.step"
                                << "aten::_foreach_mul_" << true;
    QTest::newRow("foreach, no range") << ""
                                       << "aten::_foreach_add_" << true;
    QTest::newRow("plain op in the step") << "Optimizer.step#SGD.step"
                                          << "aten::add_" << true;
    QTest::newRow("a module left eager") << "nn.Module: Head"
                                         << "aten::mul" << false;
    QTest::newRow("no range") << ""
                              << "aten::mul" << false;
}

void TestCompiledAdvice::eagerElementwiseBesideGraphs() {
    QFETCH(QString, range);
    QFETCH(QString, op);
    QFETCH(bool, optimizer);
    std::string json = R"([
 {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "pid": 1, "tid": 1, "ts": 0, "dur": 1000},
 {"ph": "X", "cat": "cpu_op", "name": "Torch-Compiled Region: 0/0", "pid": 1, "tid": 1, "ts": 10, "dur": 100},
 {"ph": "X", "cat": "user_annotation", "name": "## Call CompiledFxGraph aaa ##", "pid": 1, "tid": 1, "ts": 20,
  "dur": 80},
 {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 30, "dur": 5,
  "args": {"correlation": 1}},
 {"ph": "X", "cat": "kernel", "name": "triton_poi_fused_add_0", "pid": 0, "tid": 7, "ts": 40, "dur": 100,
  "args": {"correlation": 1, "stream": 7, "device": 0}},)";
    if (!range.isEmpty())
        json += R"({"ph": "X", "cat": "user_annotation", "name": ")" + range.toStdString() +
                R"(", "pid": 1, "tid": 1, "ts": 200, "dur": 300},)";
    for (int i = 0; i < 4; ++i) {
        const std::string at = std::to_string(210 + i * 60), corr = std::to_string(2 + i);
        json += R"({"ph": "X", "cat": "cpu_op", "name": ")" + op.toStdString() +
                R"(", "pid": 1, "tid": 1, "ts": )" + at + R"(, "dur": 50},
 {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": )" +
                std::to_string(215 + i * 60) + R"(, "dur": 5, "args": {"correlation": )" + corr + R"(}},
 {"ph": "X", "cat": "kernel", "name": "void at::native::vectorized_elementwise_kernel<4, at::native::MulFunctor>",
  "pid": 0, "tid": 7, "ts": )" +
                std::to_string(300 + i * 150) + R"(, "dur": 100, "args": {"correlation": )" + corr +
                R"(, "stream": 7, "device": 0}},)";
    }
    json.back() = ']';
    const LoadResult r = test::loadText(json);
    QVERIFY2(r.ok(), r.error.c_str());
    const Overview ov = computeOverview(*r.store);
    QVERIFY(ov.compiledModel);
    const Recommendation* rec = test::recommendation(ov, "elementwise_fusion");
    QVERIFY(rec);
    QCOMPARE(test::figure(*rec, "elementwise_share_of_kernel_time"), 0.8); // 400 of 500 us
    if (optimizer) {
        QVERIFY2(rec->title.starts_with("The optimizer step runs eagerly"), rec->title.c_str());
        QVERIFY(rec->title.find("fused=True") != std::string::npos);
        QCOMPARE(test::figure(*rec, "optimizer_share_of_elementwise"), 1.0);
    } else {
        QVERIFY2(rec->title.starts_with("Eager elementwise kernels outside the compiled graphs"),
                 rec->title.c_str());
        QCOMPARE(test::figure(*rec, "optimizer_share_of_elementwise"), -1.0);
    }
}

// An eager trace keeps the eager advice, word for word.
void TestCompiledAdvice::eagerModelUnchanged() {
    LoadResult r = loadTrace(test::tracePath("AMD-AGI__TraceLens/tests__traces__mi300__ddp_resnet18_no_pool__"
                                             "train_resnet18.json.gz"));
    QVERIFY2(r.ok(), r.error.c_str());
    const Overview ov = computeOverview(*r.store);
    QVERIFY(!ov.compiledModel);
    for (const char* id : {"graph_breaks", "recompilation", "compile_in_trace", "max_autotune"})
        QVERIFY(!test::recommendation(ov, id));
    const CompiledModelFacts m =
        compiledModelFacts(*r.store, stepsOf(ov), r.store->minTime(), r.store->maxTime());
    QVERIFY(!m.compiled);
    QCOMPARE(m.kernels, std::uint64_t(0)); // an eager trace is not even scanned
}

QTEST_GUILESS_MAIN(TestCompiledAdvice)
#include "tst_compiledadvice.moc"
