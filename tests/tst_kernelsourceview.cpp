// From a Triton kernel on the timeline to its generated code: Details says how it was launched and where its
// code is (looked for off the UI thread), "Show its source" opens the real kernel file of a PyTorch 2.7 Llama
// run (tests/data/inductor) with the kernel's lines marked and in view, the benchmark command offered because
// the file exists; a kernel whose file is gone says what was looked for, and a folder chosen once is
// remembered for the trace. The trace is written here on purpose for that run (no corpus trace comes with its
// code): its launch event names the run's kernel and its cache file, moved to a temporary folder.
#include "analysis/compiled/fxgraph.h"
#include "analysis/compiled/inductorcode.h"
#include "analysis/ops/hosttree.h"
#include "panels/compiledpanel.h"
#include "panels/detailspanel.h"
#include "panels/kernelsourceview.h"
#include "shell/mainwindow.h"
#include "tables/tablecells.h"
#include "testsupport.h"
#include "views/traceview.h"

#include <QFile>
#include <QLabel>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QTreeWidget>

using namespace kinetoscope;

class TestKernelSourceView : public QObject {
    Q_OBJECT
  private slots:
    void initTestCase();
    void fromKernelToSource();
    void folderIsRemembered();
    void outputCodeAttaches();
    void fromCompiledPanel();
    void eachPyTorchVersion_data();
    void eachPyTorchVersion();
    void modelLines();
    void eachLaunchItsNodes();

  private:
    TraceView* open(const QString& path);
    MainWindow* m_window = nullptr;
    QTemporaryDir m_dir;
    QString m_kernelFile, m_trace;
};

namespace {
const char* const rmsNorm8 = "triton_red_fused__to_copy_add_mean_mul_pow_rsqrt_8";

// The folder of generated code the viewer remembers for `trace`, as "Find generated code in a folder…" saves
// it.
void rememberFolder(const QString& trace, const QString& folder) {
    QSettings().setValue(QStringLiteral("inductorFolder/") +
                             QString::fromUtf8(trace.toUtf8().toBase64(QByteArray::Base64UrlEncoding)),
                         folder);
}

void writeFile(const QString& path, const std::string& text) {
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(text.data(), qint64(text.size()));
}
} // namespace

void TestKernelSourceView::initTestCase() {
    QCoreApplication::setOrganizationName(QStringLiteral("KinetoscopeTests"));
    QCoreApplication::setApplicationName(QStringLiteral("tst_kernelsourceview"));
    QSettings().clear();
    QVERIFY(m_dir.isValid());
    m_kernelFile = m_dir.filePath(QStringLiteral("cirveghol7wjrq7zwkkgu3sphruzjhq4ru5zcvmudgaexdo5niag.py"));
    writeFile(m_kernelFile, test::readText(std::string(KINETOSCOPE_SOURCE_DIR) +
                                           "/tests/data/inductor/kernel_" + rmsNorm8 + ".py.gz"));
    m_trace = m_dir.filePath(QStringLiteral("trace.json"));
    writeFile(m_trace, R"([
 {"ph": "X", "cat": "user_annotation", "name": "## Call CompiledFxGraph cl42lspc ##", "pid": 1, "tid": 1, "ts": 5,
  "dur": 100},
 {"ph": "X", "cat": "cpu_op", "name": "triton_red_fused__to_copy_add_mean_mul_pow_rsqrt_8", "pid": 1, "tid": 1,
  "ts": 10, "dur": 20, "args": {"kernel_file": ")" +
                           m_kernelFile.toStdString() + R"(", "num_warps": 8,
  "num_stages": 1, "kernel_kwargs": "XBLOCK=1,R0_BLOCK=2048"}},
 {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 15, "dur": 5,
  "args": {"correlation": 1}},
 {"ph": "X", "cat": "kernel", "name": "triton_red_fused__to_copy_add_mean_mul_pow_rsqrt_8", "pid": 0, "tid": 7,
  "ts": 40, "dur": 30, "args": {"correlation": 1, "stream": 7, "device": 0}},
 {"ph": "X", "cat": "cpu_op", "name": "triton_poi_fused_mul_silu_7", "pid": 1, "tid": 1, "ts": 50, "dur": 20,
  "args": {"kernel_file": "/nowhere/torchinductor_u/zz/czz.py"}},
 {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 55, "dur": 5,
  "args": {"correlation": 2}},
 {"ph": "X", "cat": "kernel", "name": "triton_poi_fused_mul_silu_7", "pid": 0, "tid": 7, "ts": 80, "dur": 30,
  "args": {"correlation": 2, "stream": 7, "device": 0}}
])");
    m_window = new MainWindow;
    m_window->resize(1400, 900);
    m_window->show();
}

TraceView* TestKernelSourceView::open(const QString& path) {
    TraceView* view = m_window->openTrace(path);
    QSignalSpy sources(view, &TraceView::kernelSourcesReady);
    if (!QTest::qWaitFor([&] { return view->state() != TraceView::State::Loading; }, 30000)) return nullptr;
    if (view->state() != TraceView::State::Ready) return nullptr;
    if (sources.isEmpty() && !sources.wait(30000)) return nullptr;
    return view;
}

void TestKernelSourceView::fromKernelToSource() {
    TraceView* view = open(m_trace);
    QVERIFY(view);
    const TraceStore& store = *view->trace()->store;
    // The GPU kernel selected: its launch configuration and the way to its code.
    EventRef kernel, silu;
    for (std::uint32_t ti = 0; ti < store.tracks().size(); ++ti)
        if (store.tracks()[ti].kind == TrackKind::GpuStream) {
            kernel = {TrackId(ti), EventIndex(0)};
            silu = {TrackId(ti), EventIndex(1)};
        }
    QVERIFY(kernel.isValid());
    view->details()->showEvent(kernel);
    const QString html = view->details()->toHtml();
    QVERIFY2(html.contains(QStringLiteral("8 warps")) &&
                 html.contains(QStringLiteral("XBLOCK=1,R0_BLOCK=2048")),
             qPrintable(html));
    QVERIFY(html.contains(QStringLiteral("kernel-source:") + QString::fromLatin1(rmsNorm8)));
    // The graph call it ran in, one click away.
    QVERIFY2(view->details()->toPlainText().contains(
                 QStringLiteral("In the graph call ## Call CompiledFxGraph cl42lspc ##")),
             qPrintable(view->details()->toPlainText()));
    // The other kernel's file is gone: said plainly, with where it was looked for.
    view->details()->showEvent(silu);
    QVERIFY(view->details()->toPlainText().contains(
        QStringLiteral("Its code is not on this machine (looked for /nowhere/torchinductor_u/zz/czz.py)")));

    view->showKernelSource(QString::fromLatin1(rmsNorm8), QString());
    KernelSourceView* source = view->kernelSourceView();
    QVERIFY(source && source->isVisible());
    // The whole file, the kernel's lines marked (the kernel file's are all of it from its decorator), the
    // first of them at the top of the view.
    QVERIFY(source->sourceText().startsWith(QStringLiteral("\nimport triton")) ||
            source->sourceText().startsWith(QStringLiteral("import triton")));
    const auto [first, last] = source->markedLines();
    QVERIFY(first > 1 && last > first + 10);
    QVERIFY(source->sourceText().split(QLatin1Char('\n'))[first - 1].startsWith(
        QStringLiteral("@triton_heuristics.reduction(")));
    QTest::qWait(50);
    QCOMPARE(source->firstVisibleLine(), first);
    QCOMPARE(source->benchmarkCommand(),
             QStringLiteral("python %1\nTORCHINDUCTOR_MAX_AUTOTUNE=1 python %1").arg(m_kernelFile));
    QCOMPARE(benchmarkCommandFor("/nowhere/torchinductor_u/zz/czz.py"), QString());
}

// A folder searched once is searched again when the trace is opened again.
void TestKernelSourceView::folderIsRemembered() {
    QTemporaryDir cache;
    QDir().mkpath(cache.filePath(QStringLiteral("run")));
    writeFile(cache.filePath(QStringLiteral("run/module.py")),
              test::readText(std::string(KINETOSCOPE_SOURCE_DIR) +
                             "/tests/data/inductor/output_code_pt27_llama_fwd.py.gz"));
    TraceView* view = open(m_trace);
    QVERIFY(view);
    rememberFolder(m_trace, cache.path());
    TraceView* again = open(m_trace);
    QVERIFY(again);
    const TraceStore& store = *again->trace()->store;
    for (std::uint32_t ti = 0; ti < store.tracks().size(); ++ti)
        if (store.tracks()[ti].kind == TrackKind::GpuStream)
            again->details()->showEvent({TrackId(ti), EventIndex(1)});
    // The module found in the remembered folder says what the SiLU kernel fused.
    QVERIFY2(again->details()->toPlainText().contains(QStringLiteral("Fuses aten.silu, aten.mul")),
             qPrintable(again->details()->toPlainText()));
}

// output_code.py opened (File › Open, a drop, the command line) while a trace is in front attaches to it, and
// is remembered for that trace.
void TestKernelSourceView::outputCodeAttaches() {
    const QString trace = m_dir.filePath(QStringLiteral("second.json"));
    QVERIFY(QFile::copy(m_trace, trace));
    const QString module = m_dir.filePath(QStringLiteral("output_code.py"));
    writeFile(module, test::readText(std::string(KINETOSCOPE_SOURCE_DIR) +
                                     "/tests/data/inductor/output_code_pt27_llama_fwd.py.gz"));
    TraceView* view = open(trace);
    QVERIFY(view);
    QSignalSpy ready(view, &TraceView::kernelSourcesReady);
    QCOMPARE(m_window->openFile(module), static_cast<QWidget*>(view));
    QVERIFY(ready.wait(30000));
    const auto silu = [](TraceView* v) {
        const TraceStore& store = *v->trace()->store;
        for (std::uint32_t ti = 0; ti < store.tracks().size(); ++ti)
            if (store.tracks()[ti].kind == TrackKind::GpuStream)
                v->details()->showEvent({TrackId(ti), EventIndex(1)});
        return v->details()->toPlainText();
    };
    QVERIFY2(silu(view).contains(module + QStringLiteral(":")), qPrintable(silu(view)));
    // Opened again, the trace finds it again.
    TraceView* again = open(trace);
    QVERIFY(again && again != view);
    QVERIFY(silu(again).contains(QStringLiteral("Fuses aten.silu, aten.mul")));
}

// The Compiled panel's kernels lead to their code too: "Show source" for a kernel whose code was found.
void TestKernelSourceView::fromCompiledPanel() {
    TraceView* view = m_window->openTrace(m_trace);
    QSignalSpy analysis(view, &TraceView::analysisReady);
    QSignalSpy sources(view, &TraceView::kernelSourcesReady);
    QVERIFY(QTest::qWaitFor([&] { return !analysis.isEmpty() && !sources.isEmpty(); }, 30000));
    CompiledPanel* panel = view->compiledPanel();
    QVERIFY(panel->hasContent());
    QTreeWidget* tree = panel->tree();
    QTreeWidgetItem *rms = nullptr, *silu = nullptr;
    for (int c = 0; c < tree->topLevelItemCount(); ++c)
        for (int k = 0; k < tree->topLevelItem(c)->childCount(); ++k) {
            QTreeWidgetItem* item = tree->topLevelItem(c)->child(k);
            const QString name = item->data(0, NameRole).toString();
            if (name == QLatin1String(rmsNorm8)) rms = item;
            if (name == QLatin1String("triton_poi_fused_mul_silu_7")) silu = item;
        }
    QVERIFY(rms && silu);
    tree->setCurrentItem(silu);
    QVERIFY(!panel->sourceButton()->isEnabled()); // its file is gone
    tree->setCurrentItem(rms);
    QVERIFY(panel->sourceButton()->isEnabled());
    panel->sourceButton()->click();
    QVERIFY(view->kernelSourceView() && view->kernelSourceView()->isVisible());
    QVERIFY(view->kernelSourceView()->sourceText().contains(QLatin1String(rmsNorm8)));
}

// The source window on the real code of each PyTorch version the reader knows: the kernel's lines marked and
// the first of them at the top, what it fused when the file says.
void TestKernelSourceView::eachPyTorchVersion_data() {
    QTest::addColumn<QString>("file");
    QTest::addColumn<QString>("kernel");
    QTest::addColumn<QString>("fuses"); // empty: the file does not say
    QTest::newRow("2.0") << "output_code_pt20_sin_add.py.gz"
                         << "triton__0"
                         << "";
    QTest::newRow("2.1") << "output_code_pt21dev_conv.py.gz"
                         << "triton_poi_fused_convolution_0"
                         << "aten.convolution";
    QTest::newRow("2.3") << "output_code_pt23_mul_sum.py.gz"
                         << "triton_poi_fused_add_1"
                         << "aten.add";
    QTest::newRow("2.6") << "output_code_pt26_lenet_bn.py.gz"
                         << "triton_per_fused_addmm_5"
                         << "aten.addmm";
    QTest::newRow("2.7") << "output_code_pt27_llama_fwd.py.gz"
                         << "triton_poi_fused_mul_silu_7"
                         << "aten.silu, aten.mul";
}

void TestKernelSourceView::eachPyTorchVersion() {
    QFETCH(QString, file);
    QFETCH(QString, kernel);
    QFETCH(QString, fuses);
    const std::string text =
        test::readText(std::string(KINETOSCOPE_SOURCE_DIR) + "/tests/data/inductor/" + file.toStdString());
    const InductorCode code = parseInductorCode(text);
    const InductorKernelSource* k = code.find(kernel.toStdString());
    QVERIFY(k);
    KernelSourceView view;
    view.resize(1000, 700);
    view.show();
    view.showKernel({kernel.toStdString(), "", file.toStdString(), "compiled module", *k, {}, {}}, text,
                    TritonLaunch{});
    QTest::qWait(50);
    QCOMPARE(view.markedLines(), std::make_pair(k->firstLine, k->lastLine));
    QCOMPARE(view.firstVisibleLine(), k->firstLine);
    // The marked text is the kernel's source, line for line.
    const QStringList lines = view.sourceText().split(QLatin1Char('\n'));
    QCOMPARE(lines.mid(k->firstLine - 1, k->lastLine - k->firstLine + 1).join(QLatin1Char('\n')) +
                 QLatin1Char('\n'),
             QString::fromStdString(text.substr(k->sourceBegin, k->sourceEnd - k->sourceBegin)));
    QVERIFY(view.benchmarkCommand().isEmpty()); // no kernel file on this machine
    const QString shown =
        view.findChildren<QLabel*>().size() > 1 ? view.findChildren<QLabel*>()[1]->text() : QString();
    if (fuses.isEmpty())
        QVERIFY2(shown.contains(QStringLiteral("does not say what the kernel fused")), qPrintable(shown));
    else
        QVERIFY2(shown.contains(QStringLiteral("<b>Fuses</b> ") + fuses), qPrintable(shown));
}

// A kernel of a TORCH_COMPILE_DEBUG folder (the H200 run's three-layer compile): the view names the model
// lines it computes, from the graph's fx_graph_readable.py. KINETOSCOPE_SNAPSHOT_DIR=DIR saves the view
// there.
void TestKernelSourceView::modelLines() {
    const std::string data = std::string(KINETOSCOPE_SOURCE_DIR) + "/tests/data/gpu/compiled_3layers/";
    const std::string text = test::readText(data + "model__0_forward_1.0__output_code.py.gz");
    const InductorCode code = parseInductorCode(text);
    const InductorKernelSource* k = code.find("triton_per_fused__to_copy_add_embedding_native_layer_norm_0");
    QVERIFY(k);
    const FxGraphLines graph =
        parseFxGraphReadable(test::readText(data + "model__0_forward_1.0__fx_graph_readable.py.gz"));
    KernelSource source{
        k->name,   "", "torch_compile_debug/run_1/torchinductor/model__0_forward_1.0/output_code.py",
        "content", *k, modelLinesOf(graph, *k),
        {}};
    QCOMPARE(int(source.modelLines.size()), 2);
    KernelSourceView view;
    view.resize(1100, 760);
    view.show();
    view.showKernel(source, text, TritonLaunch{});
    QTest::qWait(50);
    QString labels;
    for (const QLabel* label : view.findChildren<QLabel*>())
        labels += label->text();
    QVERIFY2(labels.contains(QStringLiteral("Model lines")) &&
                 labels.contains(
                     QStringLiteral("/work/main/tests/gpu/transformer.py:55 <code>x = self.embed(tokens) "
                                    "+ self.position</code>")) &&
                 labels.contains(QStringLiteral("transformer.py:38")),
             qPrintable(labels));
    if (const QString dir = qEnvironmentVariable("KINETOSCOPE_SNAPSHOT_DIR"); !dir.isEmpty())
        view.grab().save(dir + QStringLiteral("/kernel-source-model-lines.png"));
}

// The GPU run's three-layer compile with its debug folder (Inductor's provenance beside output_code.py):
// Details of one launch of a kernel that serves every layer names that launch's own nodes and layer.
void TestKernelSourceView::eachLaunchItsNodes() {
    QTemporaryDir debug;
    const QString trace =
        QString::fromStdString(test::writeCompiled3LayersDebugFolder(debug.path().toStdString()));
    rememberFolder(trace, debug.path());
    TraceView* view = open(trace);
    QVERIFY(view);
    const TraceStore& store = *view->trace()->store;
    // The fourth launch of the weight cast in the first forward call: the second layer's MLP down projection.
    EventRef launch;
    int seen = 0;
    for (std::uint32_t ti = 0; ti < store.tracks().size() && !launch.isValid(); ++ti) {
        const Track& t = store.tracks()[ti];
        std::vector<std::uint32_t> rows;
        for (std::uint32_t r = 0; r < t.sliceCount(); ++r)
            if (store.strings().view(t.names[r]) == "triton_poi_fused__to_copy_4") rows.push_back(r);
        std::sort(rows.begin(), rows.end(), [&](auto a, auto b) { return t.starts[a] < t.starts[b]; });
        for (std::uint32_t r : rows)
            if (++seen == 4) launch = {TrackId(ti), EventIndex(r)};
    }
    QVERIFY(launch.isValid());
    view->details()->showEvent(launch);
    const QString text = view->details()->toPlainText();
    QVERIFY2(text.contains(QStringLiteral("its launch 4 of 6 there")) &&
                 text.contains(QStringLiteral("This launch is call 31 of the graph's call: computes "
                                              "convert_element_type_43 (the model's linear_7), at "
                                              "transformer.py:42")) &&
                 !text.contains(QStringLiteral("transformer.py:41")),
             qPrintable(text));
    // Its GPU kernel says the same.
    EventRef kernel;
    for (std::uint32_t ti = 0; ti < store.tracks().size(); ++ti) {
        const Track& t = store.tracks()[ti];
        if (t.kind != TrackKind::GpuStream) continue;
        for (std::uint32_t r = 0; r < t.sliceCount() && !kernel.isValid(); ++r)
            if (const auto l = store.launchOf({TrackId(ti), EventIndex(r)}))
                if (launchingOperator(store, *l) == launch) kernel = {TrackId(ti), EventIndex(r)};
    }
    QVERIFY(kernel.isValid());
    view->details()->showEvent(kernel);
    QVERIFY(view->details()->toPlainText().contains(QStringLiteral("computes convert_element_type_43")));
    if (const QString dir = qEnvironmentVariable("KINETOSCOPE_SNAPSHOT_DIR"); !dir.isEmpty())
        view->details()->grab().save(dir + QStringLiteral("/details-provenance.png"));
}

QTEST_MAIN(TestKernelSourceView)
#include "tst_kernelsourceview.moc"
