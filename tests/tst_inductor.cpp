// TorchInductor's kernel breakdown (core/analysis/compiled/inductor.h): Inductor's categories from the name,
// each category's kernels by self device time, shares of the wall time, and compiled graphs over their calls,
// on the real compiled trace of the corpus and on synthetic traces for the fallbacks Inductor's report never
// sees (older markers, forward and backward graphs, several calls, copies); the summary's "inductor" block
// and its absence.
#include "analysis/compiled/inductor.h"
#include "analysis/ops/kernels.h"
#include "analysis/report/analysisresult.h"
#include "analysis/report/summaryformat.h"
#include "testsupport.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QTest>

#include <cmath>

using namespace kinetoscope;

class TestInductor : public QObject {
    Q_OBJECT
  private slots:
    void categories_data();
    void categories();
    void realCompiledTrace();
    void graphsFromMarkers();
    void summaryJson();
    void perRun();
    void compiledModuleProfile_data();
    void compiledModuleProfile();
};

namespace {
const char* const compiledTrace = "AMD-AGI__TraceLens/tests__traces__torch_compile_triton__trace.json.gz";

std::unique_ptr<const TraceStore> loadRelative(const char* relative) {
    LoadResult r = loadTrace(test::tracePath(relative));
    if (!r.ok()) qFatal("cannot load %s: %s", relative, r.error.c_str());
    return std::move(r.store);
}

TimeNs categoryTotal(const InductorBreakdown& b, InductorCategory c) {
    for (const InductorCategoryRow& row : b.categories)
        if (row.category == c) return row.total;
    return -1;
}
} // namespace

void TestInductor::categories_data() {
    QTest::addColumn<QString>("name");
    QTest::addColumn<QString>("category");
    QTest::newRow("pointwise") << "triton_poi_fused_add_mul_3"
                               << "triton_pointwise";
    QTest::newRow("reduction") << "triton_red_fused__native_batch_norm_legit_functional_16"
                               << "triton_reduction";
    QTest::newRow("persistent") << "triton_per_fused_softmax_2"
                                << "triton_persistent_reduction";
    QTest::newRow("template") << "triton_tem_fused_mm_0"
                              << "triton_unknown";
    QTest::newRow("foreach") << "triton_for_fused_0"
                             << "triton_unknown";
    QTest::newRow("library GEMM") << "Cijk_Alik_Bljk_BBS_BH_Bias_HA_S_SAV"
                                  << "unknown";
    QTest::newRow("copy") << "Memcpy HtoD (Pageable -> Device)"
                          << "unknown";
    QTest::newRow("not quite triton") << "tritonish_kernel"
                                      << "unknown";
}

void TestInductor::categories() {
    QFETCH(QString, name);
    QFETCH(QString, category);
    const std::string n = name.toStdString();
    QCOMPARE(QString::fromLatin1(inductorCategoryName(inductorCategory(n)).data()), category);
}

// The corpus's compiled trace (a Llama-like block on an MI300X): two pointwise and two reduction Triton
// kernels, library GEMMs and attention in "unknown"; one graph call.
void TestInductor::realCompiledTrace() {
    const auto store = loadRelative(compiledTrace);
    const InductorReport r = inductorReport(*store);
    QVERIFY(r.hasTriton);
    QCOMPARE(r.trace.wall, store->maxTime() - store->minTime());
    // Categories in Inductor's order, only those present; each total the sum of its kernels; busy their sum.
    QCOMPARE(int(r.trace.categories.size()), 3);
    QCOMPARE(r.trace.categories[0].category, InductorCategory::Pointwise);
    QCOMPARE(r.trace.categories[1].category, InductorCategory::Reduction);
    QCOMPARE(r.trace.categories[2].category, InductorCategory::Unknown);
    TimeNs busy = 0;
    for (const InductorCategoryRow& row : r.trace.categories) {
        TimeNs sum = 0;
        for (std::size_t i = 0; i < row.kernels.size(); ++i) {
            sum += row.kernels[i].self;
            if (i) QVERIFY(row.kernels[i - 1].self >= row.kernels[i].self);
            QCOMPARE(inductorCategory(row.kernels[i].name), row.category);
        }
        QCOMPARE(row.total, sum);
        busy += sum;
    }
    QCOMPARE(r.trace.busy, busy);
    QCOMPARE(r.trace.categories[0].kernels[0].name, std::string("triton_poi_fused__unsafe_view_mul_silu_2"));
    QCOMPARE(r.trace.categories[0].kernels[0].self, TimeNs(527382));
    // Every kernel's calls and time are the kernel table's (another path over the same events).
    const KernelTable table = kernelTable(*store, KernelGrouping::Name, store->minTime(), store->maxTime());
    for (const KernelTableRow& k : table.rows) {
        bool found = false;
        for (const InductorCategoryRow& row : r.trace.categories)
            for (const InductorKernel& ik : row.kernels)
                if (ik.name == k.name) {
                    QCOMPARE(ik.calls, k.count);
                    QCOMPARE(ik.self, k.total);
                    found = true;
                }
        QVERIFY2(found, k.name.c_str());
    }
    // The one graph call: Inductor's "## Call CompiledFxGraph <hash> ##" range, its wall from its start to
    // the end of the last GPU work it launched (the trace's gpu_user_annotation of the same call ends there
    // too).
    QCOMPARE(int(r.graphs.size()), 1);
    QCOMPARE(r.graphs[0].name,
             std::string("CompiledFxGraph fal4xpiah2v6blbfmwwonu52dvevbsmlh743q5tkclrt4gcqpzea"));
    QCOMPARE(r.graphs[0].calls, std::uint64_t(1));
    QCOMPARE(r.graphs[0].breakdown.wall, TimeNs(12715144));
    QCOMPARE(categoryTotal(r.graphs[0].breakdown, InductorCategory::Pointwise), TimeNs(668230));
    QCOMPARE(r.graphs[0].breakdown.busy, r.trace.busy); // all of the trace's GPU work is this graph's
    QVERIFY(std::abs(r.graphs[0].breakdown.busyPercent() - 98.69) < 0.01);
    // An eager trace has no Triton kernel, so no report.
    QVERIFY(!inductorReport(*loadRelative("AMD-AGI__TraceLens/tests__traces__mi300__ddp_resnet18_no_pool__"
                                          "train_resnet18.json.gz"))
                 .hasTriton);
}

// Without Inductor's call ranges, the markers around compiled code stand in: forward and backward graphs
// named apart, a graph's calls summed, and copies in "unknown". A range keeps what starts in it.
void TestInductor::graphsFromMarkers() {
    const LoadResult r = test::loadText(R"json([
 {"ph": "X", "cat": "cpu_op", "name": "CompiledFunction", "pid": 1, "tid": 1, "ts": 0, "dur": 100},
 {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 10, "dur": 5,
  "args": {"correlation": 1}},
 {"ph": "X", "cat": "kernel", "name": "triton_poi_fused_add_0", "pid": 0, "tid": 7, "ts": 20, "dur": 30,
  "args": {"correlation": 1, "stream": 7, "device": 0}},
 {"ph": "X", "cat": "cpu_op", "name": "CompiledFunctionBackward", "pid": 1, "tid": 1, "ts": 200, "dur": 50},
 {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 210, "dur": 5,
  "args": {"correlation": 2}},
 {"ph": "X", "cat": "kernel", "name": "triton_tem_fused_mm_1", "pid": 0, "tid": 7, "ts": 220, "dur": 80,
  "args": {"correlation": 2, "stream": 7, "device": 0}},
 {"ph": "X", "cat": "cpu_op", "name": "CompiledFunction", "pid": 1, "tid": 1, "ts": 400, "dur": 100},
 {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 410, "dur": 5,
  "args": {"correlation": 3}},
 {"ph": "X", "cat": "kernel", "name": "triton_poi_fused_add_0", "pid": 0, "tid": 7, "ts": 420, "dur": 40,
  "args": {"correlation": 3, "stream": 7, "device": 0}},
 {"ph": "X", "cat": "cuda_runtime", "name": "cudaMemcpyAsync", "pid": 1, "tid": 1, "ts": 470, "dur": 5,
  "args": {"correlation": 4}},
 {"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy DtoH (Device -> Pinned)", "pid": 0, "tid": 7, "ts": 480,
  "dur": 60, "args": {
    "correlation" : 4, "stream" : 7, "device" : 0}}
])json");
    QVERIFY2(r.ok(), r.error.c_str());
    const InductorReport report = inductorReport(*r.store);
    QVERIFY(report.hasTriton);
    QCOMPARE(int(report.graphs.size()), 2);
    const CompiledGraph& forward = report.graphs[0];
    QCOMPARE(forward.name, std::string("CompiledFunction"));
    QCOMPARE(forward.calls, std::uint64_t(2));
    // Walls: 0..100 (its end after the kernel's) and 400..540 (the copy ends after the range).
    QCOMPARE(forward.breakdown.wall, TimeNs(100000 + 140000));
    QCOMPARE(categoryTotal(forward.breakdown, InductorCategory::Pointwise), TimeNs(70000));
    QCOMPARE(forward.breakdown.categories[0].kernels[0].calls, std::uint64_t(2));
    QCOMPARE(categoryTotal(forward.breakdown, InductorCategory::Unknown), TimeNs(60000));
    // Each call on its own too.
    QCOMPARE(int(forward.callBreakdowns.size()), 2);
    QCOMPARE(forward.callBreakdowns[0].wall, TimeNs(100000));
    QCOMPARE(forward.callBreakdowns[0].busy, TimeNs(30000));
    QCOMPARE(forward.callBreakdowns[1].wall, TimeNs(140000));
    QCOMPARE(forward.callBreakdowns[1].busy, TimeNs(100000));
    const CompiledGraph& backward = report.graphs[1];
    QCOMPARE(backward.name, std::string("CompiledFunctionBackward"));
    QCOMPARE(categoryTotal(backward.breakdown, InductorCategory::TritonUnknown), TimeNs(80000));
    QCOMPARE(backward.breakdown.wall, TimeNs(100000)); // 200 .. the template kernel's end at 300
    QCOMPARE(report.trace.busy, TimeNs(30000 + 80000 + 40000 + 60000));
    QCOMPARE(report.trace.wall, TimeNs(540000));
    // A range: only the second forward call and what starts in it.
    const InductorReport late = inductorReport(*r.store, 350000, 600000);
    QCOMPARE(int(late.graphs.size()), 1);
    QCOMPARE(late.graphs[0].calls, std::uint64_t(1));
    QCOMPARE(late.trace.busy, TimeNs(40000 + 60000));
    QCOMPARE(late.trace.wall, TimeNs(540000 - 350000));

    // Inductor's own ranges win over the markers, and the autograd range around one names its direction.
    const LoadResult named = test::loadText(R"json([
 {"ph": "X", "cat": "cpu_op", "name": "CompiledFunctionBackward", "pid": 1, "tid": 1, "ts": 0, "dur": 100},
 {"ph": "X", "cat": "user_annotation", "name": "## Call CompiledFxGraph abc ##", "pid": 1, "tid": 1, "ts": 5,
  "dur": 90},
 {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 10, "dur": 5,
  "args": {"correlation": 1}},
 {"ph": "X", "cat": "kernel", "name": "triton_red_fused_sum_0", "pid": 0, "tid": 7, "ts": 20, "dur": 30,
  "args": {"correlation": 1, "stream": 7, "device": 0}}
])json");
    QVERIFY2(named.ok(), named.error.c_str());
    const InductorReport n = inductorReport(*named.store);
    QCOMPARE(int(n.graphs.size()), 1);
    QCOMPARE(n.graphs[0].name, std::string("CompiledFxGraph abc (backward)"));
    QCOMPARE(n.graphs[0].breakdown.wall, TimeNs(90000));
}

// summary --json: the "inductor" block as the issue lays it out, and none for an eager trace.
void TestInductor::summaryJson() {
    const auto store = loadRelative(compiledTrace);
    const auto report = computeAnalysis(*store, std::nullopt, OperatorGrouping::Name, KernelGrouping::Name);
    const QJsonObject doc =
        QJsonDocument::fromJson(QByteArray::fromStdString(summaryToJson(report->summary, report.get())))
            .object();
    const QJsonObject inductor = doc.value("inductor").toObject();
    const QJsonObject trace = inductor.value("trace").toObject();
    QCOMPARE(trace.value("wall_us").toDouble(), 13283.624);
    QCOMPARE(trace.value("device_busy_pct").toDouble(), 94.47);
    const QJsonArray categories = trace.value("categories").toArray();
    QCOMPARE(categories.size(), 3);
    const QJsonObject pointwise = categories[0].toObject();
    QCOMPARE(pointwise.value("category").toString(), QStringLiteral("triton_pointwise"));
    QCOMPARE(pointwise.value("total_us").toDouble(), 668.23);
    QCOMPARE(pointwise.value("pct").toDouble(), 5.03);
    const QJsonObject kernel = pointwise.value("kernels").toArray()[0].toObject();
    QCOMPARE(kernel.value("name").toString(), QStringLiteral("triton_poi_fused__unsafe_view_mul_silu_2"));
    QCOMPARE(kernel.value("calls").toInt(), 1);
    QCOMPARE(kernel.value("self_us").toDouble(), 527.382);
    QCOMPARE(kernel.value("pct").toDouble(), 3.97);
    const QJsonArray graphs = inductor.value("graphs").toArray();
    QCOMPARE(graphs.size(), 1);
    QCOMPARE(graphs[0].toObject().value("calls").toInt(), 1);
    QVERIFY(graphs[0].toObject().value("name").toString().startsWith("CompiledFxGraph fal4x"));
    QCOMPARE(graphs[0].toObject().value("wall_us").toDouble(), 12715.144);

    const auto eager = loadRelative("debian-torch/mlp_full.json");
    const auto eagerReport =
        computeAnalysis(*eager, std::nullopt, OperatorGrouping::Name, KernelGrouping::Name);
    QVERIFY(summaryToJson(eagerReport->summary, eagerReport.get()).find("\"inductor\"") == std::string::npos);
}

// A compiled_module_profile.json of N runs, with the wall time per run Inductor's script printed: each
// kernel's self time and calls per run, every share of that wall time.
void TestInductor::perRun() {
    const auto store = loadRelative(compiledTrace);
    const InductorReport r = inductorReport(*store);
    const InductorBreakdown b = inductorPerRun(r.trace, 4, 5'000'000);
    QCOMPARE(b.wall, TimeNs(5'000'000));
    QCOMPARE(b.categories.size(), r.trace.categories.size());
    TimeNs busy = 0;
    for (std::size_t c = 0; c < b.categories.size(); ++c) {
        TimeNs total = 0;
        for (std::size_t k = 0; k < b.categories[c].kernels.size(); ++k) {
            const InductorKernel& per = b.categories[c].kernels[k];
            const InductorKernel& all = r.trace.categories[c].kernels[k];
            QCOMPARE(per.self, (all.self + 2) / 4);
            QCOMPARE(per.calls, (all.calls + 2) / 4);
            total += per.self;
        }
        QCOMPARE(b.categories[c].total, total);
        busy += total;
    }
    QCOMPARE(b.busy, busy);
    QCOMPARE(b.percentOf(b.categories[0].kernels[0].self), 100.0 * double((527382 + 2) / 4) / 5e6);
    // Without a wall time, the trace's own, per run.
    QCOMPARE(inductorPerRun(r.trace, 2, 0).wall, (r.trace.wall + 1) / 2);
}

// What `python output_code.py -p` printed on the GPU machine (tests/data/gpu/inductor_*/profile.txt, PyTorch
// 2.11): the per-category tables of parse_profile_event_list. Given the run count and wall time it printed,
// our breakdown of the compiled_module_profile.json it wrote must print the same table.
struct PrintedKernel {
    QString category, name;
    double ms = 0, count = 0, percent = 0;
};
struct PrintedReport {
    QList<PrintedKernel> kernels;
    QMap<QString, QPair<double, double>> totals; // category -> (ms, percent)
    double busyPercent = -1, wallMs = -1;
};

PrintedReport readPrintedReport(const QString& path) {
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) qFatal("cannot read %s", qPrintable(path));
    PrintedReport report;
    QString category;
    static const QRegularExpression header(R"(^\s*== (\w+) category kernels ==)");
    static const QRegularExpression row(R"(^(.+?)\s{2,}([0-9.e-]+)\s+([0-9.]+)\s+([0-9.]+)%$)");
    static const QRegularExpression total(R"(^Total\s+([0-9.e-]+)\s+([0-9.]+)%$)");
    static const QRegularExpression busy(R"(^Percent of time when (?:CUDA|GPU) is busy: ([0-9.]+)%)");
    static const QRegularExpression wall(R"(^Total wall time ([0-9.]+) ms)");
    for (const QString& rawLine : QString::fromUtf8(file.readAll()).split('\n')) {
        const QString line = rawLine.trimmed();
        if (auto m = header.match(rawLine); m.hasMatch()) {
            category = m.captured(1);
        } else if (auto t = total.match(line); t.hasMatch() && !category.isEmpty()) {
            report.totals[category] = {t.captured(1).toDouble(), t.captured(2).toDouble()};
            category.clear();
        } else if (auto r = row.match(line); r.hasMatch() && !category.isEmpty()) {
            report.kernels.push_back({category, r.captured(1), r.captured(2).toDouble(),
                                      r.captured(3).toDouble(), r.captured(4).toDouble()});
        } else if (auto b = busy.match(line); b.hasMatch()) {
            report.busyPercent = b.captured(1).toDouble();
        } else if (auto w = wall.match(line); w.hasMatch()) {
            report.wallMs = w.captured(1).toDouble();
        }
    }
    return report;
}

void TestInductor::compiledModuleProfile_data() {
    QTest::addColumn<QString>("folder");
    QTest::addColumn<int>("kernels"); // rows the script printed
    // The forward graph of tests/gpu/transformer.py, compiled on an H200; the script ran it 10 x 10 times.
    QTest::newRow("forward, H200") << "inductor_fwd" << 20;
}

void TestInductor::compiledModuleProfile() {
    QFETCH(QString, folder);
    QFETCH(int, kernels);
    const QString dir = QStringLiteral(KINETOSCOPE_SOURCE_DIR "/tests/data/gpu/") + folder;
    const PrintedReport printed = readPrintedReport(dir + "/profile.txt");
    QCOMPARE(int(printed.kernels.size()), kernels);
    QVERIFY(printed.wallMs > 0);
    const LoadResult loaded = loadTrace((dir + "/compiled_module_profile.json.gz").toStdString());
    QVERIFY2(loaded.ok(), loaded.error.c_str());
    // benchmark_compiled_module(times=10, repeat=10): nruns 100, the wall time per run as printed (0.001 ms).
    const InductorBreakdown ours =
        inductorPerRun(inductorReport(*loaded.store).trace, 100, TimeNs(std::llround(printed.wallMs * 1e6)));
    // Printed ms keep six significant digits; percentages two decimals of a wall time rounded to 1 µs.
    const auto nearMs = [](TimeNs ns, double ms) {
        return std::abs(double(ns) / 1e6 - ms) <= 1e-6 + 1e-5 * ms;
    };
    const auto nearPercent = [](double a, double b) { return std::abs(a - b) <= 0.006 + 0.001 * b; };
    int matched = 0;
    for (const PrintedKernel& k : printed.kernels) {
        const InductorKernel* mine = nullptr;
        for (const InductorCategoryRow& c : ours.categories)
            for (const InductorKernel& kernel : c.kernels)
                if (QString::fromStdString(kernel.name) == k.name &&
                    QLatin1String(inductorCategoryName(c.category).data()) == k.category)
                    mine = &kernel;
        QVERIFY2(mine, qPrintable(k.category + " " + k.name + " is not in our breakdown"));
        QVERIFY2(
            nearMs(mine->self, k.ms),
            qPrintable(
                QStringLiteral("%1: %2 ns per run, printed %3 ms").arg(k.name).arg(mine->self).arg(k.ms)));
        QCOMPARE(double(mine->calls), k.count);
        QVERIFY2(nearPercent(ours.percentOf(mine->self), k.percent),
                 qPrintable(QStringLiteral("%1: %2 %, printed %3 %")
                                .arg(k.name)
                                .arg(ours.percentOf(mine->self))
                                .arg(k.percent)));
        ++matched;
    }
    std::size_t ourKernels = 0;
    for (const InductorCategoryRow& c : ours.categories) {
        ourKernels += c.kernels.size();
        const QString name = QLatin1String(inductorCategoryName(c.category).data());
        QVERIFY2(printed.totals.contains(name), qPrintable(name + " was not printed"));
        QVERIFY(nearMs(c.total, printed.totals[name].first));
        QVERIFY(nearPercent(ours.percentOf(c.total), printed.totals[name].second));
    }
    QCOMPARE(int(ourKernels), matched);
    QVERIFY2(nearPercent(ours.busyPercent(), printed.busyPercent),
             qPrintable(
                 QStringLiteral("busy %1 %, printed %2 %").arg(ours.busyPercent()).arg(printed.busyPercent)));
}

QTEST_GUILESS_MAIN(TestInductor)
#include "tst_inductor.moc"
