// The Compiled panel: shown for a compiled model only, its tree is the report's TorchInductor breakdown (each
// category and its kernels, in core's columns), a graph's breakdown and first call one choice away, a
// kernel's longest call one double-click away; an eager trace has no such tab.
#include "analysis/report/analysisresult.h"
#include "panels/compiledpanel.h"
#include "panels/kernelpanel.h"
#include "shell/mainwindow.h"
#include "tables/tablecells.h"
#include "testsupport.h"
#include "views/traceview.h"

#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFile>
#include <QLabel>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QTreeWidget>

using namespace kinetoscope;

class TestCompiledPanel : public QObject {
    Q_OBJECT
  private slots:
    void initTestCase();
    void treeIsTheReport();
    void graphsAndJumps();
    void eachCall();
    void eagerTraceHasNoTab();

  private:
    TraceView* open(const char* relative);
    MainWindow* m_window = nullptr;
};

namespace {
const char* const compiledTrace = "AMD-AGI__TraceLens/tests__traces__torch_compile_triton__trace.json.gz";
}

void TestCompiledPanel::initTestCase() {
    QCoreApplication::setOrganizationName(QStringLiteral("KinetoscopeTests"));
    QCoreApplication::setApplicationName(QStringLiteral("tst_compiledpanel"));
    QSettings().clear();
    m_window = new MainWindow;
    m_window->resize(1400, 900);
    m_window->show();
}

TraceView* TestCompiledPanel::open(const char* relative) {
    TraceView* view = m_window->openTrace(QString::fromStdString(test::tracePath(relative)));
    QSignalSpy ready(view, &TraceView::analysisReady);
    if (!QTest::qWaitFor([&] { return view->state() != TraceView::State::Loading; }, 30000)) return nullptr;
    if (view->state() != TraceView::State::Ready) return nullptr;
    if (ready.isEmpty() && !ready.wait(30000)) return nullptr;
    return view;
}

void TestCompiledPanel::treeIsTheReport() {
    TraceView* view = open(compiledTrace);
    QVERIFY(view);
    CompiledPanel* panel = view->compiledPanel();
    QVERIFY(panel->hasContent());
    QTabWidget* tabs = view->bottomTabs();
    QVERIFY(tabs->isTabVisible(tabs->indexOf(panel)));
    // Right after Kernels, where a user of a compiled model looks.
    QCOMPARE(tabs->indexOf(panel), tabs->indexOf(view->kernelPanel()) + 1);
    tabs->setCurrentWidget(panel);
    const InductorReport& report = view->analysis()->inductor;
    QTreeWidget* tree = panel->tree();
    QCOMPARE(tree->headerItem()->text(0), QStringLiteral("Kernel"));
    QCOMPARE(tree->headerItem()->text(3), QStringLiteral("% of wall"));
    // Beside it the share of the GPU's work, which a wall of compilation cannot shrink to nothing.
    QCOMPARE(tree->headerItem()->text(4), QStringLiteral("% of GPU time"));
    QCOMPARE(tree->topLevelItemCount(), int(report.trace.categories.size()));
    for (int c = 0; c < tree->topLevelItemCount(); ++c) {
        const InductorCategoryRow& row = report.trace.categories[std::size_t(c)];
        const QTreeWidgetItem* category = tree->topLevelItem(c);
        QCOMPARE(category->text(0), QString::fromLatin1(inductorCategoryName(row.category).data()));
        QCOMPARE(category->text(2), durationText(row.total));
        QCOMPARE(category->text(3), QString::number(report.trace.percentOf(row.total), 'f', 2) + "%");
        QCOMPARE(category->text(4),
                 QString::number(100.0 * double(row.total) / double(report.trace.busy), 'f', 2) + "%");
        QCOMPARE(category->childCount(), int(row.kernels.size()));
        for (int k = 0; k < category->childCount(); ++k) {
            const InductorKernel& kernel = row.kernels[std::size_t(k)];
            QCOMPARE(category->child(k)->data(0, NameRole).toString(), QString::fromStdString(kernel.name));
            QCOMPARE(category->child(k)->text(1), QString::number(kernel.calls));
            QCOMPARE(category->child(k)->text(2), durationText(kernel.self));
        }
    }
    QCOMPARE(tree->topLevelItem(0)->child(0)->text(0),
             QStringLiteral("triton_poi_fused__unsafe_view_mul_silu_2"));
    QVERIFY(panel->summary()->text().contains(QStringLiteral("94.47%")));
    QVERIFY(panel->summary()->text().contains(durationText(report.trace.wall)));
    // A compiled_module_profile.json of 4 runs at 5 ms each: the script's table, per run.
    panel->runsField()->setValue(4);
    panel->wallField()->setValue(5.0);
    const InductorBreakdown perRun = inductorPerRun(report.trace, 4, 5'000'000);
    QVERIFY(panel->summary()->text().contains(durationText(5'000'000)));
    QCOMPARE(tree->topLevelItem(0)->child(0)->text(2), durationText(perRun.categories[0].kernels[0].self));
    QCOMPARE(tree->topLevelItem(0)->child(0)->text(3),
             QString::number(perRun.percentOf(perRun.categories[0].kernels[0].self), 'f', 2) + "%");
    panel->runsField()->setValue(1);
    panel->wallField()->setValue(0);
    QCOMPARE(tree->topLevelItem(0)->child(0)->text(2),
             durationText(report.trace.categories[0].kernels[0].self));
}

void TestCompiledPanel::graphsAndJumps() {
    TraceView* view = open(compiledTrace);
    QVERIFY(view);
    CompiledPanel* panel = view->compiledPanel();
    view->bottomTabs()->setCurrentWidget(panel);
    const InductorReport& report = view->analysis()->inductor;
    QSignalSpy jumps(panel, &AnalysisPanel::jumpRequested);
    QSignalSpy highlights(panel, &AnalysisPanel::highlightRequested);
    // The whole trace first: no call to show.
    QCOMPARE(panel->breakdownChoice()->count(), 1 + int(report.graphs.size()));
    QVERIFY(!panel->callButton()->isEnabled());
    panel->breakdownChoice()->setCurrentIndex(1);
    QVERIFY(panel->breakdownChoice()->currentText().contains(QStringLiteral("CompiledFxGraph fal4x")));
    QVERIFY(panel->summary()->text().contains(durationText(report.graphs[0].breakdown.wall)));
    QVERIFY(panel->summary()->text().contains(QStringLiteral("98.69%")));
    QVERIFY(panel->callButton()->isEnabled());
    panel->callButton()->click();
    QCOMPARE(jumps.size(), 1);
    QCOMPARE(jumps.takeFirst().at(0).value<EventRef>(), report.graphs[0].callEvents.front());
    // Selecting a kernel marks its calls; double-clicking it jumps to its longest.
    QTreeWidgetItem* kernel = panel->tree()->topLevelItem(0)->child(0);
    panel->tree()->setCurrentItem(kernel);
    QCOMPARE(highlights.size(), 1);
    QCOMPARE(highlights.takeFirst().at(0).toString(), kernel->data(0, NameRole).toString());
    emit panel->tree()->itemDoubleClicked(kernel, 0);
    QCOMPARE(jumps.size(), 1);
    const EventRef longest = jumps.takeFirst().at(0).value<EventRef>();
    QVERIFY(longest.isValid());
    QCOMPARE(longest, report.graphs[0].breakdown.categories[0].kernels[0].longest);
}

// A graph called twice: its calls summed, or either one alone, and the chosen call shown on the timeline.
void TestCompiledPanel::eachCall() {
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("two_calls.json"));
    QFile file(path);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write(R"json([
 {"ph": "X", "cat": "cpu_op", "name": "CompiledFunction", "pid": 1, "tid": 1, "ts": 0, "dur": 100},
 {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 10, "dur": 5,
  "args": {"correlation": 1}},
 {"ph": "X", "cat": "kernel", "name": "triton_poi_fused_add_0", "pid": 0, "tid": 7, "ts": 20, "dur": 30,
  "args": {"correlation": 1, "stream": 7, "device": 0}},
 {"ph": "X", "cat": "cpu_op", "name": "CompiledFunction", "pid": 1, "tid": 1, "ts": 400, "dur": 100},
 {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 410, "dur": 5,
  "args": {"correlation": 3}},
 {"ph": "X", "cat": "kernel", "name": "triton_poi_fused_add_0", "pid": 0, "tid": 7, "ts": 420, "dur": 120,
  "args": {"correlation": 3, "stream": 7, "device": 0}}
])json");
    file.close();
    TraceView* view = m_window->openTrace(path);
    QSignalSpy ready(view, &TraceView::analysisReady);
    QVERIFY(QTest::qWaitFor([&] { return view->state() != TraceView::State::Loading; }, 30000));
    QVERIFY(!ready.isEmpty() || ready.wait(30000));
    CompiledPanel* panel = view->compiledPanel();
    QVERIFY(panel->hasContent());
    view->bottomTabs()->setCurrentWidget(panel);
    QSignalSpy jumps(panel, &AnalysisPanel::jumpRequested);
    QVERIFY(panel->callChoice()->isHidden()); // the whole trace: no calls to choose
    panel->breakdownChoice()->setCurrentIndex(1);
    QVERIFY(panel->callChoice()->isVisible());
    QCOMPARE(panel->callChoice()->count(), 3); // all, call 1, call 2
    QVERIFY(panel->summary()->text().contains(durationText(100000 + 140000)));
    QCOMPARE(panel->tree()->topLevelItem(0)->child(0)->text(1), QStringLiteral("2"));
    panel->callChoice()->setCurrentIndex(2);
    QVERIFY(panel->summary()->text().contains(durationText(140000)));
    QCOMPARE(panel->tree()->topLevelItem(0)->child(0)->text(1), QStringLiteral("1"));
    QCOMPARE(panel->tree()->topLevelItem(0)->child(0)->text(2), durationText(120000));
    panel->callButton()->click();
    QCOMPARE(jumps.size(), 1);
    QCOMPARE(jumps.takeFirst().at(0).value<EventRef>(), view->analysis()->inductor.graphs[0].callEvents[1]);
}

void TestCompiledPanel::eagerTraceHasNoTab() {
    TraceView* view = open(test::traces::qwenH100);
    QVERIFY(view);
    QVERIFY(!view->compiledPanel()->hasContent());
    QVERIFY(!view->bottomTabs()->isTabVisible(view->bottomTabs()->indexOf(view->compiledPanel())));
}

QTEST_MAIN(TestCompiledPanel)
#include "tst_compiledpanel.moc"
