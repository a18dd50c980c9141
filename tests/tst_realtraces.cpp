// Every real trace of ../shared/traces loads cleanly, and the parallel splitter changes nothing.
#include "analysis/ops/kernels.h"
#include "analysis/ops/summary.h"
#include "analysis/report/analysisresult.h"
#include "analysis/report/summaryformat.h"
#include "model/nesting.h"
#include "query/args.h"
#include "testsupport.h"

#include <QDirIterator>
#include <QTemporaryDir>
#include <QTest>

#include <fstream>

using namespace kinetoscope;

class TestRealTraces : public QObject {
    Q_OBJECT
  private slots:
    void corpus_data();
    void corpus();
    void manifestFacts_data();
    void manifestFacts();
    void storeStaysSmall();
    void launchLinksAndArgs();
    void gpuWorkOnly_data();
    void gpuWorkOnly();
    void gpuWorkOnlyKeepsEstimates();
    void gpuWorkOnlyKeepsTemplateOperands();
};

void TestRealTraces::corpus_data() {
    QTest::addColumn<QString>("path");
    QDirIterator it(QStringLiteral(KINETOSCOPE_TRACES_DIR), {"*.json", "*.json.gz"}, QDir::Files,
                    QDirIterator::Subdirectories);
    QStringList files;
    while (it.hasNext())
        files << it.next();
    files.sort();
    QVERIFY2(files.size() >= 50, "the trace corpus ../shared/traces is missing");
    for (const QString& f : files)
        QTest::newRow(qPrintable(f.section('/', -2))) << f;
}
namespace {
LoadOptions optionsFor(unsigned threads, std::size_t chunkBytes) {
    LoadOptions options;
    options.threads = threads;
    options.chunkBytes = chunkBytes;
    return options;
}
} // namespace

void TestRealTraces::corpus() {
    QFETCH(QString, path);
    const LoadResult whole = loadTrace(path.toStdString(), optionsFor(1, 8u << 20));
    QVERIFY2(whole.ok(), whole.message(path.toStdString()).c_str());
    const ImportStats& st = whole.store->stats();
    QCOMPARE(st.malformedEvents, std::uint64_t(0));
    QVERIFY(!st.truncated);
    QVERIFY(st.trailingProblem.empty());
    std::uint64_t phases = 0;
    for (const auto& [ph, n] : st.phaseCounts)
        phases += n;
    QCOMPARE(phases, st.eventsSeen);
    // Every lane is sorted by start and by end, its slices apart but for clock jitter (model/nesting.h).
    for (const Track& t : whole.store->tracks())
        for (std::uint32_t d = 0; d < t.laneCount(); ++d)
            for (std::uint32_t r = t.laneBegin[d] + 1; r < t.laneBegin[d + 1]; ++r) {
                QVERIFY(t.starts[r] >= t.starts[r - 1]);
                QVERIFY(t.endOf(r) >= t.endOf(r - 1));
                QVERIFY(t.endOf(r - 1) - t.starts[r] < laneOverlapTolerance(t.nestingSlack));
            }
    // A slice that overlaps its enclosing one sits on an overflow lane, after every regular lane; the regular
    // lanes hold none.
    std::uint64_t flagged = 0;
    for (const Track& t : whole.store->tracks()) {
        bool any = false;
        for (std::uint32_t d = 0; d < t.laneCount(); ++d)
            for (std::uint32_t r = t.laneBegin[d]; r < t.laneBegin[d + 1]; ++r) {
                if (!(t.flags[r] & SliceFlag::Overlapping)) continue;
                ++flagged;
                any = true;
                QVERIFY(t.overflowLane > 0 && d >= t.overflowLane);
            }
        QCOMPARE(t.overflowLane > 0, any);
    }
    QCOMPARE(flagged, st.overlappingSlices);

    // Split into 16 KiB pieces on two threads: the same store, the same numbers.
    const LoadResult split = loadTrace(path.toStdString(), optionsFor(2, 16u << 10));
    QVERIFY(split.ok());
    QCOMPARE(split.store->sliceCount(), whole.store->sliceCount());
    QCOMPARE(split.store->flows().size(), whole.store->flows().size());
    QCOMPARE(split.store->stats().eventsSeen, st.eventsSeen);
    QCOMPARE(summaryToJson(summarize(*split.store)), summaryToJson(summarize(*whole.store)));
}

// Figures that MANIFEST.md (computed by an independent script) gives for some traces.
void TestRealTraces::manifestFacts_data() {
    QTest::addColumn<QString>("file");
    QTest::addColumn<qint64>("events");
    QTest::addColumn<qint64>("flowStartsUnmatched");
    QTest::addColumn<qint64>("flowEndsUnmatched");
    QTest::newRow("xdit sd3.5")
        << "AMD-AGI__TraceLens/tests__traces__inference__xdit_sd_3.5__profile_trace_rank_0.json.gz"
        << qint64(239093) << qint64(0)
        << qint64(22389); // MANIFEST counts ids (22388); we count flow events: one id has two ends
    QTest::newRow("torch.compile triton")
        << "AMD-AGI__TraceLens/tests__traces__torch_compile_triton__trace.json.gz" << qint64(246) << qint64(1)
        << qint64(46);
    QTest::newRow("kineto docs") << "pytorch__kineto/docs__traces__after_fix_trace.json" << qint64(75)
                                 << qint64(0) << qint64(2);
    QTest::newRow("tb_plugin bare array")
        << "pytorch__kineto/tb_plugin__samples__resnet50_num_workers_0__worker0.pt.trace.json.gz"
        << qint64(82276) << qint64(0) << qint64(765);
    QTest::newRow("zoology") << "HazyResearch__zoology/trace.json" << qint64(1784) << qint64(268)
                             << qint64(2);
}
void TestRealTraces::manifestFacts() {
    QFETCH(QString, file);
    QFETCH(qint64, events);
    QFETCH(qint64, flowStartsUnmatched);
    QFETCH(qint64, flowEndsUnmatched);
    const LoadResult r = loadTrace(test::tracePath(file.toUtf8().constData()));
    QVERIFY(r.ok());
    QCOMPARE(qint64(r.store->stats().eventsSeen), events);
    QCOMPARE(qint64(r.store->stats().flowStartsUnmatched), flowStartsUnmatched);
    QCOMPARE(qint64(r.store->stats().flowEndsUnmatched), flowEndsUnmatched);
}

void TestRealTraces::storeStaysSmall() {
    const LoadResult r = loadTrace(test::tracePath(
        "AMD-AGI__TraceLens/tests__traces__inference__xdit_sd_3.5__profile_trace_rank_0.json.gz"));
    QVERIFY(r.ok());
    const double perEvent = double(r.store->bytesHeld()) / double(r.store->stats().eventsSeen);
    QVERIFY2(perEvent <= 48, qPrintable(QString("store holds %1 bytes per event").arg(perEvent)));
}

void TestRealTraces::launchLinksAndArgs() {
    const LoadResult r = loadTrace(test::tracePath("pytorch__kineto/docs__traces__after_fix_trace.json"));
    QVERIFY(r.ok());
    const TraceStore& s = *r.store;
    QCOMPARE(s.flows().size(), std::size_t(1));
    const Flow& f = s.flows()[0];
    QCOMPARE(QString::fromStdString(std::string(s.nameOf(f.source))), QString("cudaLaunchKernel"));
    QCOMPARE(s.categoryOf(f.target).kind, CategoryKind::Kernel);
    QVERIFY(s.launchOf(f.target) == f.source);
    QCOMPARE(s.gpuWorkOf(f.source).size(), std::size_t(1));
    bool hasGrid = false;
    for (const ArgField& a : decodeArgs(s, f.target))
        hasGrid |= a.key == "grid";
    QVERIFY(hasGrid);
    QCOMPARE(s.track(f.target.track).kind, TrackKind::GpuStream);
}

namespace {
// The kernel report (`summary --by kernel`, text and JSON) of a store.
std::string kernelReport(const TraceStore& store) {
    const ReportSections kernels = ReportSections().set(std::size_t(ReportSection::Kernels));
    const auto r =
        computeAnalysis(store, std::nullopt, OperatorGrouping::Name, KernelGrouping::Name, kernels);
    SummaryTextOptions text;
    text.showOperators = false;
    text.top = 1000;
    std::string error;
    return summaryToJson(r->summary, r.get()) + reportToText(*r) +
           summaryToText(r->summary, text, error).value_or(error);
}
} // namespace

// Every real trace, and the GPU runs of tests/data/gpu.
void TestRealTraces::gpuWorkOnly_data() {
    corpus_data();
    QDirIterator it(QStringLiteral(KINETOSCOPE_SOURCE_DIR "/tests/data/gpu"),
                    {"*.pt.trace.json.gz", "record_*.json.gz"}, QDir::Files);
    QStringList files;
    while (it.hasNext())
        files << it.next();
    files.sort();
    QVERIFY(files.size() >= 8);
    for (const QString& f : files)
        QTest::newRow(qPrintable("gpu/" + f.section('/', -1))) << f;
}

// A store of the GPU's work alone (what `summary --by kernel` loads) gives the kernel report of the full
// store, header included ("events" counts the complete slices it did not keep), and the same import counts,
// whole and split into 16 KiB pieces on two threads.
void TestRealTraces::gpuWorkOnly() {
    QFETCH(QString, path);
    const LoadResult full = loadTrace(path.toStdString(), optionsFor(1, 8u << 20));
    QVERIFY(full.ok());
    const std::string expected = kernelReport(*full.store);
    for (const auto& [threads, chunk] :
         {std::pair{1u, std::size_t(8u << 20)}, std::pair{2u, std::size_t(16u << 10)}}) {
        const LoadResult gpu = loadTrace(path.toStdString(), test::gpuWorkOnlyOptions(threads, chunk));
        QVERIFY(gpu.ok());
        const ImportStats &a = full.store->stats(), &b = gpu.store->stats();
        QVERIFY(!a.gpuWorkOnly);
        QCOMPARE(b.eventsSeen, a.eventsSeen);
        QCOMPARE(b.malformedEvents, a.malformedEvents);
        QVERIFY(b.phaseCounts == a.phaseCounts);
        QVERIFY(b.categoryCounts == a.categoryCounts);
        QCOMPARE(QString::fromStdString(kernelReport(*gpu.store)), QString::fromStdString(expected));
        if (!b.gpuWorkOnly) continue; // the file carries what the table reads from launches
        QVERIFY(gpu.store->sliceCount() <= full.store->sliceCount());
        for (const Track& t : gpu.store->tracks())
            for (std::uint32_t r = 0; r < t.sliceCount(); ++r) {
                const CategoryKind kind = gpu.store->categories()[t.categories[r]].kind;
                QVERIFY(isGpuWork(kind) || (t.flags[r] & SliceFlag::BeginEnd));
            }
    }
}

// Inductor's estimates sit on the operator that launched each Triton kernel
// (TORCHINDUCTOR_BENCHMARK_KERNEL=1, tests/data/gpu): that file is loaded whole, and its Triton rows keep
// their achieved GB/s; without the keys to look for, a store of the GPU's work alone would lose them.
void TestRealTraces::gpuWorkOnlyKeepsEstimates() {
    const std::string path = KINETOSCOPE_SOURCE_DIR "/tests/data/gpu/compiled.pt.trace.json.gz";
    const LoadResult kept = loadTrace(path, test::gpuWorkOnlyOptions(2, 8u << 20));
    QVERIFY(kept.ok());
    QVERIFY(!kept.store->stats().gpuWorkOnly);
    LoadOptions blind = test::gpuWorkOnlyOptions(2, 8u << 20);
    blind.gpuWorkOnlyUnlessTextHas.clear();
    const LoadResult lost = loadTrace(path, blind);
    QVERIFY(lost.ok());
    QVERIFY(lost.store->stats().gpuWorkOnly);
    auto estimated = [](const TraceStore& store) {
        int rows = 0;
        for (const KernelTableRow& row : kernelTable(store).rows)
            rows += row.achievedGbps > 0;
        return rows;
    };
    QVERIFY(estimated(*kept.store) >= 20);
    QCOMPARE(estimated(*lost.store), 0);
}

// A Triton template GEMM's tensor cores are read from the operator that launched it
// (analysis/ops/tensorcores.h): a file with template kernels is loaded whole, also when it carries none of
// Inductor's estimates (older PyTorch writes none; here they are renamed away from the H200's max-autotune
// trace), so `summary --by kernel` says what the full report says.
void TestRealTraces::gpuWorkOnlyKeepsTemplateOperands() {
    std::string text = test::readText(KINETOSCOPE_SOURCE_DIR "/tests/data/gpu/max_autotune.pt.trace.json.gz");
    for (const std::string key : {"\"kernel_flop\"", "\"kernel_num_gb\""})
        for (std::size_t at = text.find(key); at != std::string::npos; at = text.find(key, at))
            text[at + key.size() - 2] = 'X';
    QTemporaryDir dir;
    const std::string path = dir.filePath("templates.json").toStdString();
    {
        std::ofstream out(path, std::ios::binary);
        out << text;
    }
    const LoadResult full = loadTrace(path, optionsFor(1, 8u << 20));
    QVERIFY(full.ok());
    const LoadResult gpu = loadTrace(path, test::gpuWorkOnlyOptions(2, 8u << 20));
    QVERIFY(gpu.ok());
    QVERIFY(!gpu.store->stats().gpuWorkOnly);
    QCOMPARE(QString::fromStdString(kernelReport(*gpu.store)),
             QString::fromStdString(kernelReport(*full.store)));
    int templatesOnTensorCores = 0;
    for (const KernelTableRow& row : kernelTable(*gpu.store).rows)
        templatesOnTensorCores += row.name.starts_with("triton_tem_") && row.tensorCores;
    QCOMPARE(templatesOnTensorCores, 22); // 22 template kernels, 26 launches a step
}

QTEST_GUILESS_MAIN(TestRealTraces)
#include "tst_realtraces.moc"
