// Comparing two traces (core/analysis/jobs/diff.h and `kinetoscope-cli diff`): golden diffs of the real
// pairs, totals that add up, a trace against itself, and the CLI printing the same document.
#include "analysis/compiled/compiledmatch.h"
#include "analysis/jobs/diff.h"
#include "analysis/ops/hosttree.h"
#include "analysis/ops/kernels.h"
#include "analysis/report/diffformat.h"
#include "analysis/report/summaryformat.h"
#include "model/argscan.h"
#include "query/kernelshortname.h"
#include "testsupport.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTest>

#include <cmath>
#include <cstdio>
#include <map>

using namespace kinetoscope;

class TestDiff : public QObject {
    Q_OBJECT
  private slots:
    void goldenDiffs_data();
    void goldenDiffs();
    void deltasAddUp_data();
    void deltasAddUp();
    void selfDiffIsZero();
    void perCallWhenWorkDiffers();
    void compileWorkApart();
    void cliPrintsTheSame();
    void cliErrors_data();
    void cliErrors();
    void tritonStems_data();
    void tritonStems();
    void tritonKernelsAcrossCompiles();
    void realCompiles();
    void realRenumbering();
    void acrossVendors();
    void vendorOperatorsPair();
};

namespace {
const char* const pairs[][3] = {
    {"hta_trace_diff",
     "facebookresearch__HolisticTraceAnalysis/tests__data__trace_diff__control__control.json.gz",
     "facebookresearch__HolisticTraceAnalysis/tests__data__trace_diff__test__test.json.gz"},
    {"hta_trace_compare",
     "facebookresearch__HolisticTraceAnalysis/tests__data__trace_compare__base__base.json.gz",
     "facebookresearch__HolisticTraceAnalysis/tests__data__trace_compare__test__test.json.gz"},
    {"sampled_ranks",
     "facebookresearch__HolisticTraceAnalysis/tests__data__trace_filter__sampled_rank-0.json.gz",
     "facebookresearch__HolisticTraceAnalysis/tests__data__trace_filter__sampled_rank-1.json.gz"},
    // An H100 against an MI300 (two models: what pairs across vendors, and what cannot be compared).
    {"across_vendors", "AMD-AGI__TraceLens/tests__traces__h100__Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz",
     "AMD-AGI__TraceLens/tests__traces__mi300__gaunernst_bert-small-uncased__1016001.json.gz"},
};

std::unique_ptr<const TraceStore> load(const QString& relative) {
    LoadResult r = loadTrace(test::tracePath(relative.toUtf8().constData()));
    if (!r.ok()) qFatal("cannot load %s", qPrintable(relative));
    return std::move(r.store);
}

void addPairs() {
    QTest::addColumn<QString>("a");
    QTest::addColumn<QString>("b");
    for (const auto& p : pairs)
        QTest::newRow(p[0]) << QString::fromLatin1(p[1]) << QString::fromLatin1(p[2]);
}
} // namespace

void TestDiff::goldenDiffs_data() {
    addPairs();
}

void TestDiff::goldenDiffs() {
    QFETCH(QString, a);
    QFETCH(QString, b);
    const auto sa = load(a), sb = load(b);
    const TraceDiff diff = diffTraces(*sa, *sb);
    const QString tag = QString::fromLatin1(QTest::currentDataTag());
    const QString mismatch = test::compareGolden(tag + QStringLiteral(".diff.json"), diffToJson(diff));
    QVERIFY2(mismatch.isEmpty(), qPrintable(mismatch));
    // The text: fixed columns, as `kinetoscope-cli diff` prints them.
    const QString textMismatch = test::compareGolden(tag + QStringLiteral(".diff.txt"), diffToText(diff, 12));
    QVERIFY2(textMismatch.isEmpty(), qPrintable(textMismatch));
}

void TestDiff::deltasAddUp_data() {
    addPairs();
}

void TestDiff::deltasAddUp() {
    QFETCH(QString, a);
    QFETCH(QString, b);
    const auto sa = load(a), sb = load(b);
    const TraceDiff d = diffTraces(*sa, *sb);
    const Summary suma = summarize(*sa), sumb = summarize(*sb);
    TimeNs kernelsA = 0, kernelsB = 0, deltas = 0;
    for (const KernelRow& k : suma.kernels)
        kernelsA += k.total;
    for (const KernelRow& k : sumb.kernels)
        kernelsB += k.total;
    for (const DiffRow& r : d.kernels) {
        deltas += r.deviceDelta();
        QVERIFY(!(r.onlyA() && r.onlyB()));
        if (r.onlyA()) QCOMPARE(r.deviceB, TimeNs(0));
    }
    QCOMPARE(deltas, kernelsB - kernelsA);
    TimeNs hostA = 0, hostB = 0, hostDeltas = 0;
    for (const OperatorRow& o : suma.operators)
        hostA += o.hostSelf;
    for (const OperatorRow& o : sumb.operators)
        hostB += o.hostSelf;
    for (const DiffRow& r : d.operators)
        hostDeltas += r.hostDelta();
    QCOMPARE(hostDeltas, hostB - hostA);
    // Sorted by the size of the change.
    for (std::size_t i = 1; i < d.kernels.size(); ++i)
        QVERIFY(std::llabs(d.kernels[i - 1].deviceDelta()) >= std::llabs(d.kernels[i].deviceDelta()));
}

// A compiled run with 3 steps in A and 1 in B: the Kernels Δ read "two thirds faster" for a kernel 5 % slower
// per call. Each row has its time per call on both sides and the change per call, and the report says the two
// traces hold different amounts of work.
void TestDiff::perCallWhenWorkDiffers() {
    auto trace = [](int steps, double kernelUs) {
        std::string events;
        for (int s = 0; s < steps; ++s) {
            const double t = s * 1000.0;
            events +=
                (events.empty() ? "" : ",\n") +
                QStringLiteral(R"({"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#%1", "pid": 1,
 "tid": 1, "ts": %2, "dur": 900},
 {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": %3, "dur": 5,
  "args": {"correlation": %4}},
 {"ph": "X", "cat": "kernel", "name": "triton_poi_fused_sum_41", "pid": 0, "tid": 7, "ts": %5, "dur": %6,
  "args": {"correlation": %4, "device": 0, "stream": 7}})")
                    .arg(s)
                    .arg(t)
                    .arg(t + 10)
                    .arg(s + 1)
                    .arg(t + 20)
                    .arg(kernelUs)
                    .toStdString();
        }
        LoadResult r = test::loadText("[" + events + "]");
        if (!r.ok()) qFatal("%s", r.error.c_str());
        return std::move(r.store);
    };
    const auto a = trace(3, 100), b = trace(1, 105);
    const TraceDiff d = diffTraces(*a, *b);
    QCOMPARE(d.kernels.size(), std::size_t(1));
    const DiffRow& k = d.kernels[0];
    QCOMPARE(k.deviceDelta(), TimeNs(-195'000)); // in total "faster"
    QCOMPARE(k.perCallA(), TimeNs(100'000));
    QCOMPARE(k.perCallB(), TimeNs(105'000));
    QCOMPARE(k.perCallChange(), 5.0); // slower per call
    QCOMPARE(d.kernelsA, std::uint64_t(3));
    QCOMPARE(d.kernelsB, std::uint64_t(1));
    const std::string work = workDifference(d);
    QVERIFY2(work.find("A 3 steps and 3 kernel runs, B 1 step and 1 kernel run") != std::string::npos,
             work.c_str());
    const std::string text = diffToText(d, 10);
    QVERIFY2(text.find(work) != std::string::npos && text.find("+5.0%") != std::string::npos, text.c_str());
    const QJsonObject json = QJsonDocument::fromJson(QByteArray::fromStdString(diffToJson(d))).object();
    const QJsonObject row = json["kernels"].toArray()[0].toObject();
    QCOMPARE(row["per_call_us_a"].toDouble(), 100.0);
    QCOMPARE(row["per_call_us_b"].toDouble(), 105.0);
    QCOMPARE(row["per_call_change_pct"].toDouble(), 5.0);
    // Per step, both sides having ProfilerSteps: 100 us in each of A's steps, 105 us in B's one.
    QVERIFY(k.hasPerStep());
    QCOMPARE(k.perStepA(), TimeNs(100'000));
    QCOMPARE(k.perStepB(), TimeNs(105'000));
    QCOMPARE(row["per_step_us_a"].toDouble(), 100.0);
    QCOMPARE(row["per_step_us_b"].toDouble(), 105.0);
    QCOMPARE(json["work"].toObject()["note"].toString().toStdString(), work);
    // The same amounts of work: nothing to say.
    QVERIFY(workDifference(diffTraces(*a, *a)).empty());
}

// Issue 52 item 8: without ProfilerSteps, B's "step" is all of its activity, its compilation included, and
// the report says so; the operators run inside the compile phases (prims::* of Dynamo tracing) are one row,
// not a flood of "only in B".
void TestDiff::compileWorkApart() {
    const std::string eager = R"json([
 {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 100, "dur": 50},
 {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 110, "dur": 5,
  "args": {"correlation": 1}},
 {"ph": "X", "cat": "kernel", "name": "sm90_xmma_gemm_bf16bf16_bf16f32", "pid": 0, "tid": 7, "ts": 120,
  "dur": 40, "args": {"correlation": 1, "stream": 7, "device": 0}}
])json";
    const std::string compiled = R"json([
 {"ph": "X", "cat": "cpu_op", "name": "Torch-Compiled Region: 0/0", "pid": 1, "tid": 1, "ts": 10, "dur": 5000},
 {"ph": "X", "cat": "user_annotation", "name": "_compile.compile_inner (dynamo_timed)", "pid": 1, "tid": 1,
  "ts": 20, "dur": 4000},
 {"ph": "X", "cat": "cpu_op", "name": "prims::add", "pid": 1, "tid": 1, "ts": 100, "dur": 10},
 {"ph": "X", "cat": "cpu_op", "name": "prims::mul", "pid": 1, "tid": 1, "ts": 200, "dur": 10},
 {"ph": "X", "cat": "cpu_op", "name": "prims::mul", "pid": 1, "tid": 1, "ts": 300, "dur": 10},
 {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 4100, "dur": 50},
 {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 4110, "dur": 5,
  "args": {"correlation": 1}},
 {"ph": "X", "cat": "kernel", "name": "sm90_xmma_gemm_bf16bf16_bf16f32", "pid": 0, "tid": 7, "ts": 4120,
  "dur": 40, "args": {"correlation": 1, "stream": 7, "device": 0}}
])json";
    LoadResult a = test::loadText(eager), b = test::loadText(compiled);
    QVERIFY(a.ok() && b.ok());
    const TraceDiff d = diffTraces(*a.store, *b.store);
    QVERIFY(!d.overviewB.compilePhases.empty());
    const DiffRow* compile = nullptr;
    for (const DiffRow& r : d.operators) {
        QVERIFY2(!r.name.starts_with("prims::"), r.name.c_str());
        if (r.name == compileWorkRow) compile = &r;
        if (r.name == "aten::mm") QVERIFY(r.countA == 1 && r.countB == 1);
    }
    QVERIFY(compile);
    QCOMPARE(compile->countA, std::uint64_t(0));
    QCOMPARE(compile->countB, std::uint64_t(3));
    QCOMPARE(compile->hostB, TimeNs(30'000));
    const std::string work = workDifference(d);
    QVERIFY2(
        work.find("B has no ProfilerStep: its one step is all of its activity, 4.000 ms of torch.compile "
                  "compilation included") != std::string::npos,
        work.c_str());
    QVERIFY2(work.find("A has no ProfilerStep") != std::string::npos, work.c_str());
    // The step deltas without the compilation (issue 61 item 11): B's one step, less its 4 ms compile phase.
    QCOMPARE(compileInSteps(d.overviewA), TimeNs(0));
    QCOMPARE(compileInSteps(d.overviewB), TimeNs(4'000'000));
    QCOMPARE(stepMeanWithoutCompile(d.overviewB),
             d.overviewB.steps.front().end - d.overviewB.steps.front().start - 4'000'000);
    const std::string said = stepsWithoutCompile(d);
    QVERIFY2(said.starts_with("Without torch.compile's compilation (B: 4.000 ms in the steps): mean step A "),
             said.c_str());
    QVERIFY(diffToText(d, 5).find(said) != std::string::npos);
    const QJsonObject steps =
        QJsonDocument::fromJson(QByteArray::fromStdString(diffToJson(d))).object()["step_time"].toObject();
    QCOMPARE(steps["compile_us_b"].toDouble(), 4000.0);
    QCOMPARE(stepsWithoutCompile(diffTraces(*a.store, *a.store)), std::string());
}

void TestDiff::selfDiffIsZero() {
    const auto s = load(QString::fromLatin1(pairs[0][1]));
    const TraceDiff d = diffTraces(*s, *s);
    QVERIFY(!d.operators.empty());
    for (const DiffRow& r : d.operators) {
        QCOMPARE(r.hostDelta(), TimeNs(0));
        QCOMPARE(r.deviceDelta(), TimeNs(0));
        QVERIFY(!r.onlyA() && !r.onlyB());
    }
    for (const DiffRow& r : d.kernels)
        QCOMPARE(r.deviceDelta(), TimeNs(0));
}

void TestDiff::cliPrintsTheSame() {
    const auto sa = load(QString::fromLatin1(pairs[0][1])), sb = load(QString::fromLatin1(pairs[0][2]));
    QProcess p;
    p.start(QStringLiteral(KINETOSCOPE_CLI),
            {QStringLiteral("diff"), QString::fromStdString(test::tracePath(pairs[0][1])),
             QString::fromStdString(test::tracePath(pairs[0][2])), QStringLiteral("--json")});
    QVERIFY(p.waitForFinished(60000));
    QCOMPARE(p.exitCode(), 0);
    const QByteArray json = p.readAllStandardOutput();
    QCOMPARE(json.toStdString(), diffToJson(diffTraces(*sa, *sb)));
    QJsonParseError error;
    const QJsonDocument doc = QJsonDocument::fromJson(json, &error);
    QVERIFY2(error.error == QJsonParseError::NoError, qPrintable(error.errorString()));
    QVERIFY(doc.object().value(QStringLiteral("operators")).toArray().size() > 10);
    QProcess text;
    text.start(QStringLiteral(KINETOSCOPE_CLI),
               {QStringLiteral("diff"), QString::fromStdString(test::tracePath(pairs[0][1])),
                QString::fromStdString(test::tracePath(pairs[0][2])), QStringLiteral("--top"),
                QStringLiteral("5")});
    QVERIFY(text.waitForFinished(60000));
    const QString out = QString::fromUtf8(text.readAllStandardOutput());
    QVERIFY(out.contains(QLatin1String("Step time: A 6 steps")));
    QVERIFY(out.contains(QLatin1String("CompiledFunctionBackward")));
    QVERIFY(out.contains(QLatin1String("only B")));
}

void TestDiff::cliErrors_data() {
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<int>("code");
    QTest::addColumn<QString>("message");
    QTest::newRow("one trace") << QStringList{"diff", "a.json"} << 2 << "diff: takes two traces";
    QTest::newRow("bad top") << QStringList{"diff", "a.json", "b.json", "--top", "x"} << 2 << "--top";
    QTest::newRow("missing file") << QStringList{"diff", "/nonexistent/a.json", "/nonexistent/b.json"} << 1
                                  << "/nonexistent/a.json: ";
}

void TestDiff::cliErrors() {
    QFETCH(QStringList, args);
    QFETCH(int, code);
    QFETCH(QString, message);
    QProcess p;
    p.start(QStringLiteral(KINETOSCOPE_CLI), args);
    QVERIFY(p.waitForFinished(30000));
    QCOMPARE(p.exitCode(), code);
    QVERIFY(QString::fromUtf8(p.readAllStandardError()).contains(message));
}

void TestDiff::tritonStems_data() {
    QTest::addColumn<QString>("name");
    QTest::addColumn<QString>("stem");
    QTest::newRow("pointwise") << "triton_poi_fused_add_mul_3"
                               << "triton_poi_fused_add_mul";
    QTest::newRow("two digits") << "triton_red_fused__native_batch_norm_legit_functional_16"
                                << "triton_red_fused__native_batch_norm_legit_functional";
    QTest::newRow("no index") << "triton_poi_fused_add"
                              << "";
    QTest::newRow("not triton") << "void at::native::vectorized_elementwise_kernel_3"
                                << "";
    QTest::newRow("only digits") << "triton_12"
                                 << "triton";
    QTest::newRow("ends in underscore") << "triton_"
                                        << "";
}

void TestDiff::tritonStems() {
    QFETCH(QString, name);
    QFETCH(QString, stem);
    QCOMPARE(QString::fromStdString(tritonKernelStem(name.toStdString())), stem);
}

// Two compiles of one model number their kernels apart (Inductor indexes them within each graph): the same
// fused kernel under another index is one row, A's name beside it; an index that moved between two kernels
// of the same fused ops stays apart (nothing says which is which).
void TestDiff::tritonKernelsAcrossCompiles() {
    // Each kernel launched by Inductor's launch event (a cpu_op named after it), with kernel_num_gb when
    // given.
    struct K {
        const char* name;
        int dur;
        double gb = -1;
    };
    const auto trace = [](std::initializer_list<K> kernels) {
        std::string json = "[";
        int ts = 0, corr = 0;
        for (const K& k : kernels) {
            char gb[64] = "";
            if (k.gb >= 0) std::snprintf(gb, sizeof gb, R"("kernel_num_gb":%g)", k.gb);
            char buf[1024];
            std::snprintf(
                buf, sizeof buf,
                R"(%s{"ph":"X","cat":"cpu_op","name":"%s","pid":1,"tid":1,"ts":%d,"dur":10,"args":{%s}},)"
                R"({"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":%d,)"
                R"("dur":2,"args":{"correlation":%d}},)"
                R"({"ph":"X","cat":"kernel","name":"%s","pid":0,"tid":7,"ts":%d,"dur":%d,)"
                R"("args":{"correlation":%d,"stream":7,"device":0}})",
                corr ? "," : "", k.name, ts, gb, ts + 1, corr + 1, k.name, ts + 15, k.dur, corr + 1);
            json += buf;
            ts += 100;
            ++corr;
        }
        LoadResult r = test::loadText(json + "]");
        if (!r.ok()) qFatal("%s", r.error.c_str());
        return std::move(r.store);
    };
    const auto a = trace({{"triton_poi_fused_add_mul_3", 10, 0.001},
                          {"triton_red_fused_sum_1", 20},
                          {"triton_poi_fused_cat_0", 5},
                          {"triton_poi_fused_cat_1", 6},
                          {"triton_poi_fused_relu_2", 7}});
    const auto b = trace({{"triton_poi_fused_add_mul_5", 14, 0.001},
                          {"triton_red_fused_sum_1", 20},
                          {"triton_poi_fused_cat_4", 5},
                          {"triton_poi_fused_cat_6", 6},
                          {"triton_per_fused_softmax_0", 9}});
    // Inductor's kernel_num_gb on the launch event: 1 MB in 10 us is 100 GB/s.
    const KernelTable ka = kernelTable(*a);
    for (const KernelTableRow& k : ka.rows)
        QCOMPARE(k.achievedGbps, k.name == "triton_poi_fused_add_mul_3" ? 100.0 : 0.0);
    const TraceDiff d = diffTraces(*a, *b);
    const auto row = [&](const char* name) -> const DiffRow* {
        for (const DiffRow& r : d.kernels)
            if (r.name == name) return &r;
        return nullptr;
    };
    const DiffRow* addMul = row("triton_poi_fused_add_mul_5");
    QVERIFY(addMul);
    QCOMPARE(addMul->nameA, std::string("triton_poi_fused_add_mul_3"));
    QCOMPARE(addMul->deviceA, TimeNs(10000));
    QCOMPARE(addMul->deviceB, TimeNs(14000));
    QCOMPARE(addMul->gbpsA, 100.0);
    QVERIFY(std::abs(addMul->gbpsB - 0.001 / 14e-6) < 1e-9);
    QVERIFY(!row("triton_poi_fused_add_mul_3"));
    QVERIFY(row("triton_red_fused_sum_1") && row("triton_red_fused_sum_1")->nameA.empty());
    // Two cat kernels on each side: left unmatched.
    for (const char* cat : {"triton_poi_fused_cat_0", "triton_poi_fused_cat_1"})
        QVERIFY(row(cat) && row(cat)->onlyA());
    for (const char* cat : {"triton_poi_fused_cat_4", "triton_poi_fused_cat_6"})
        QVERIFY(row(cat) && row(cat)->onlyB());
    QVERIFY(row("triton_poi_fused_relu_2")->onlyA());
    QVERIFY(row("triton_per_fused_softmax_0")->onlyB());
    // The JSON names A's kernel beside B's.
    const QJsonArray kernels =
        QJsonDocument::fromJson(QByteArray::fromStdString(diffToJson(d))).object()["kernels"].toArray();
    bool named = false;
    for (const QJsonValue& k : kernels) {
        const QJsonObject o = k.toObject();
        if (o["name"].toString() == "triton_poi_fused_add_mul_5")
            named = o["name_a"].toString() == "triton_poi_fused_add_mul_3" &&
                    o["achieved_gbps_a"].toDouble() == 100.0;
        else
            QVERIFY(!o.contains("name_a") && !o.contains("achieved_gbps_a"));
    }
    QVERIFY(named);
}

// Two real compiles of one model (tests/data/gpu, an H200, PyTorch 2.11, TORCHINDUCTOR_BENCHMARK_KERNEL=1):
// two and three layers. Every Triton launch carries kernel_num_gb, so every Triton kernel has its achieved
// GB/s: the mean over its calls of the launch's bytes over the kernel's duration (worked out here from the
// events), and below the H200's 4.8 TB/s. The kernels of both compiles are one row each; the third layer adds
// kernels only B has.
void TestDiff::realCompiles() {
    const std::string gpu = std::string(KINETOSCOPE_SOURCE_DIR) + "/tests/data/gpu/";
    const LoadResult a = loadTrace(gpu + "compiled.pt.trace.json.gz");
    const LoadResult b = loadTrace(gpu + "compiled_3layers/compiled_3layers.pt.trace.json.gz");
    QVERIFY(a.ok() && b.ok());
    const TraceStore& store = *a.store;
    // By the definition: each kernel's launch event (the cpu_op of its name that launched it) and its bytes.
    std::map<std::string, std::pair<double, int>> byDefinition; // name -> summed GB/s, calls
    for (std::uint32_t ti = 0; ti < store.tracks().size(); ++ti) {
        const Track& t = store.tracks()[ti];
        for (std::uint32_t r = 0; r < t.sliceCount(); ++r) {
            if (store.categories()[t.categories[r]].kind != CategoryKind::Kernel) continue;
            const std::string_view name = store.strings().view(t.names[r]);
            if (!name.starts_with("triton_")) continue;
            const auto launch = store.launchOf({TrackId(ti), EventIndex(r)});
            QVERIFY(launch);
            const auto op = launchingOperator(store, *launch);
            QVERIFY(op && store.nameOf(*op) == name);
            const auto gb = argNumber(store.argsText(*op), "kernel_num_gb");
            QVERIFY2(gb && *gb > 0, std::string(name).c_str());
            auto& d = byDefinition[std::string(name)];
            d.first += *gb * 1e9 / (double(t.durations[r]) * 1e-9) / 1e9;
            ++d.second;
        }
    }
    QCOMPARE(int(byDefinition.size()), 31);
    int checked = 0;
    for (const KernelTableRow& k : kernelTable(store).rows) {
        const auto it = byDefinition.find(k.name);
        if (it == byDefinition.end()) {
            QCOMPARE(k.achievedGbps, 0.0); // library kernels: no estimate
            continue;
        }
        const double expected = it->second.first / it->second.second;
        QVERIFY2(std::abs(k.achievedGbps - expected) <= 1e-9 * expected,
                 qPrintable(QStringLiteral("%1: %2 GB/s, by definition %3")
                                .arg(QString::fromStdString(k.name))
                                .arg(k.achievedGbps)
                                .arg(expected)));
        QVERIFY2(k.achievedGbps > 0 && k.achievedGbps < 4800, qPrintable(QString::number(k.achievedGbps)));
        ++checked;
    }
    QCOMPARE(checked, 31);
    const TraceDiff d = diffTraces(store, *b.store);
    int both = 0, onlyB = 0;
    for (const DiffRow& r : d.kernels) {
        if (!r.name.starts_with("triton_")) continue;
        QVERIFY2(!r.onlyA(), r.name.c_str()); // the three-layer model runs every kernel of the two-layer one
        if (r.onlyB()) {
            ++onlyB;
            QCOMPARE(r.gbpsA, 0.0);
        } else {
            ++both;
            QVERIFY(r.gbpsA > 0 && r.gbpsB > 0);
            QVERIFY2(r.countB >= r.countA, r.name.c_str()); // a layer more runs each kernel as often or more
        }
    }
    QCOMPARE(both, 31);
    QVERIFY(onlyB > 0);
}

// A compile with one reduction more at the start of the forward graph (tests/gpu/transformer.py with
// KINETOSCOPE_CENTER=1, the H200 run): Inductor numbers every later forward kernel one higher, the layers'
// `triton_poi_fused__to_copy_N` among them, and the forward and backward graphs of each compile share names
// (`triton_poi_fused__to_copy_6` is a forward kernel of A and a backward one of both). Each graph's launches
// aligned, every kernel of A is the row of its kernel in B: as many launches on both sides (three steps of
// one model), A's forward `_6` under B's `_7` while A's backward `_6` stays B's `_6`, and A's time is all
// there.
void TestDiff::realRenumbering() {
    const std::string gpu = std::string(KINETOSCOPE_SOURCE_DIR) + "/tests/data/gpu/";
    const LoadResult a = loadTrace(gpu + "compiled.pt.trace.json.gz");
    const LoadResult b = loadTrace(gpu + "compiled_center.pt.trace.json.gz");
    QVERIFY(a.ok() && b.ok());
    const TraceDiff d = diffTraces(*a.store, *b.store);
    std::map<std::string, std::string> renamed; // B's name -> A's
    for (const DiffRow& r : d.kernels)
        if (!r.nameA.empty()) renamed[r.name] = r.nameA;
    const std::string poi = "triton_poi_fused__to_copy_";
    const std::string norm =
        "triton_per_fused__to_copy_add_native_layer_norm_native_layer_norm_backward_view_";
    const std::map<std::string, std::string> expected{
        {poi + "2", poi + "1"},
        {poi + "3", poi + "2"},
        {poi + "4", poi + "3"},
        {poi + "5", poi + "4"},
        {poi + "7", poi + "6"},
        {poi + "8", poi + "7"},
        {poi + "10", poi + "9"},
        {norm + "12", norm + "11"},
        {norm + "13", norm + "12"},
        {"triton_poi_fused_gelu_view_9", "triton_poi_fused_gelu_view_8"},
        {"triton_poi_fused__to_copy_t_14", "triton_poi_fused__to_copy_t_13"},
        {"triton_poi_fused_embedding_dense_backward_17", "triton_poi_fused_embedding_dense_backward_15"}};
    QCOMPARE(renamed, expected);
    TimeNs deviceA = 0, kernelsA = 0;
    for (const DiffRow& r : d.kernels) {
        deviceA += r.deviceA;
        if (!r.name.starts_with("triton_") || r.onlyA() || r.onlyB()) continue;
        // B's backward launches this reduction once more a call, where A has a kernel of its own for the
        // embedding's norm (`..._view_17`): 15 against 12.
        if (r.name == "triton_red_fused__to_copy_native_layer_norm_backward_view_2") {
            QCOMPARE(r.countA, 12u);
            QCOMPARE(r.countB, 15u);
            continue;
        }
        QVERIFY2(r.countA == r.countB, qPrintable(QStringLiteral("%1: %2 against %3")
                                                      .arg(QString::fromStdString(r.name))
                                                      .arg(r.countA)
                                                      .arg(r.countB)));
    }
    for (const KernelRow& k : summarize(*a.store).kernels)
        kernelsA += k.total;
    QCOMPARE(deviceA, kernelsA); // moved, never lost or counted twice
    // B's backward `_6` holds A's backward `_6` only: six launches, not A's twelve of that name.
    for (const DiffRow& r : d.kernels)
        if (r.name == poi + "6") QCOMPARE(r.countA, 6u);
    // The new reduction is B's alone; the norms whose fused ops changed (a `sub` more) stay apart.
    bool newKernel = false;
    for (const DiffRow& r : d.kernels)
        newKernel = newKernel || (r.name == "triton_red_fused_add_embedding_mean_0" && r.onlyB());
    QVERIFY(newKernel);
}

// An H100 trace against an MI300 one (issue 61 item 11): PyTorch's own kernels, built for CUDA and for HIP
// under other full names, pair by their short name; SM efficiency and occupancy, which the MI300 trace cannot
// give, are null, not a 0.0 % change.
void TestDiff::acrossVendors() {
    const auto h100 = load(QString::fromLatin1(pairs[3][1])), mi300 = load(QString::fromLatin1(pairs[3][2]));
    QCOMPARE(gpuVendorOf(*h100), GpuVendor::Nvidia);
    QCOMPARE(gpuVendorOf(*mi300), GpuVendor::Amd);
    const TraceDiff d = diffTraces(*h100, *mi300);
    std::size_t paired = 0;
    std::map<std::string, std::pair<int, int>> unpaired; // short name -> rows only in A, only in B
    for (const DiffRow& r : d.kernels) {
        if (r.pairing == DiffPairing::Vendor) {
            ++paired;
            QVERIFY(r.countA > 0 && r.countB > 0);
            QVERIFY(!r.nameA.empty() && r.nameA != r.name);
            const std::size_t comma = r.nameA.find(", void ");
            QCOMPARE(shortKernelName(r.nameA.substr(0, comma)), shortKernelName(r.name));
        }
        if (r.name.find("at::native::") != std::string::npos && (r.onlyA() || r.onlyB())) {
            auto& u = unpaired[shortKernelName(r.name)];
            (r.onlyA() ? u.first : u.second)++;
        }
    }
    QVERIFY2(paired >= 2, qPrintable(QString::number(paired)));
    for (const auto& [name, sides] : unpaired)
        QVERIFY2(sides.first == 0 || sides.second == 0, name.c_str()); // left apart though alike
    // Nothing lost: the kernel time still adds up on each side.
    TimeNs a = 0, b = 0;
    for (const DiffRow& r : d.kernels)
        a += r.deviceA, b += r.deviceB;
    TimeNs ka = 0, kb = 0;
    for (const KernelRow& k : summarize(*h100).kernels)
        ka += k.total;
    for (const KernelRow& k : summarize(*mi300).kernels)
        kb += k.total;
    QCOMPARE(a, ka);
    QCOMPARE(b, kb);
    const QJsonObject gpus = QJsonDocument::fromJson(QByteArray::fromStdString(diffToJson(d)))
                                 .object()["gpu_metrics_delta"]
                                 .toObject();
    QVERIFY(!gpus.isEmpty());
    const QJsonObject gpu = gpus.begin()->toObject();
    QVERIFY(gpu["sm_efficiency"].isNull());
    QVERIFY(gpu["achieved_occupancy_pct"].isNull());
    QVERIFY(!gpu["utilization"].isNull());
}

// aten::cudnn_convolution on an A100 and aten::miopen_convolution on an MI250 are one row, under B's name.
void TestDiff::vendorOperatorsPair() {
    const auto trace = [](const char* device, const char* conv, const char* launch) {
        return std::string(R"({"deviceProperties": [{"id": 0, "name": ")") + device + R"("}], "traceEvents": [
 {"ph": "X", "cat": "cpu_op", "name": ")" +
               conv + R"(", "pid": 1, "tid": 1, "ts": 0, "dur": 100},
 {"ph": "X", "cat": "cuda_runtime", "name": ")" +
               launch + R"(", "pid": 1, "tid": 1, "ts": 10, "dur": 5,
  "args": {"correlation": 1}},
 {"ph": "X", "cat": "cpu_op", "name": "aten::_cudnn_rnn", "pid": 1, "tid": 1, "ts": 200, "dur": 50},
 {"ph": "X", "cat": "kernel", "name": "conv_kernel", "pid": 0, "tid": 7, "ts": 20, "dur": 60,
  "args": {"correlation": 1, "device": 0, "stream": 7}}]})";
    };
    const LoadResult a =
        test::loadText(trace("NVIDIA A100-SXM4-80GB", "aten::cudnn_convolution", "cudaLaunchKernel"));
    const LoadResult b =
        test::loadText(trace("AMD Instinct MI250X", "aten::miopen_convolution", "hipLaunchKernel"));
    QVERIFY(a.ok() && b.ok());
    const TraceDiff d = diffTraces(*a.store, *b.store);
    const auto row = std::find_if(d.operators.begin(), d.operators.end(),
                                  [](const DiffRow& r) { return r.name == "aten::miopen_convolution"; });
    QVERIFY(row != d.operators.end());
    QCOMPARE(row->nameA, std::string("aten::cudnn_convolution"));
    QVERIFY(row->pairing == DiffPairing::Vendor);
    QCOMPARE(row->countA, std::uint64_t(1));
    QCOMPARE(row->countB, std::uint64_t(1));
    QCOMPARE(row->deviceA, TimeNs(60'000));
    QCOMPARE(row->perCallB(), TimeNs(60'000));
    QVERIFY(std::none_of(d.operators.begin(), d.operators.end(),
                         [](const DiffRow& r) { return r.name == "aten::cudnn_convolution"; }));
    // One vendor on both sides: nothing is paired by name.
    const TraceDiff same = diffTraces(*a.store, *a.store);
    QVERIFY(std::none_of(same.operators.begin(), same.operators.end(),
                         [](const DiffRow& r) { return r.pairing != DiffPairing::SameName; }));
    QCOMPARE(vendorCounterpart("aten::_cudnn_rnn"), std::string("aten::miopen_rnn"));
    QCOMPARE(vendorCounterpart("aten::mm"), std::string());
}

QTEST_APPLESS_MAIN(TestDiff)
#include "tst_diff.moc"
