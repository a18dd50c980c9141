// The analysis panels on real traces: models pass QAbstractItemModelTester, the numbers match what
// kinetoscope-cli prints, selections highlight and jump on the timeline, grouping and scoping recompute.
#include "analysis/ops/hosttree.h"
#include "analysis/report/analysisresult.h"
#include "charts/barchart.h"
#include "charts/memorycurve.h"
#include "charts/moduleflame.h"
#include "panels/analysispanels.h"
#include "panels/detailspanel.h"
#include "shell/mainwindow.h"
#include "tables/tablemodels.h"
#include "testsupport.h"
#include "timeline/searchbar.h"
#include "timeline/timelinewidget.h"
#include "views/traceview.h"

#include <QAbstractItemModelTester>
#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QFile>
#include <QHeaderView>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QLineEdit>
#include <QMouseEvent>
#include <QProcess>
#include <QScrollArea>
#include <QScrollBar>
#include <QSettings>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QSpinBox>
#include <QTabWidget>
#include <QTableView>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QTextBrowser>
#include <QTreeWidget>
#include <QWheelEvent>

using namespace kinetoscope;

class TestAnalysisPanels : public QObject {
    Q_OBJECT
  private slots:
    void initTestCase();
    void modelsPassTester();
    void cpuOnlyTraceHidesGpuTabs();
    void aRowKeepsItsTableInView();
    void panelsMatchCli();
    void overviewBreakdownAndThroughput();
    void overviewScrollsAsOnePage();
    void operatorSelectionHighlightsAndJumps();
    void selectionBringsAMatchIntoView();
    void operatorFilterAndGrouping();
    void kernelSelectionShowsOrigin();
    void kernelTableReadsWell();
    void annotationsAndPythonCallStack();
    void kernelDetailsNameTheOperatorAndDelay();
    void rangeScopesPanels();
    void memoryPanel();
    void memoryPanelOfSizesOnlyTrace();
    void modulePanel();
    void stepDoubleClickShowsStep();
    void outOfMemoryAlert();
    void snapshots();
    void viewKeysWhateverHasFocus();

  private:
    TraceView* open(const char* relative);
    QJsonObject cliJson(const char* relative);
    MainWindow* m_window = nullptr;
};

namespace {
const char* resnet = "pytorch__kineto/tb_plugin__samples__resnet50_num_workers_0__worker0.pt.trace.json.gz";
const char* qwen = "AMD-AGI__TraceLens/tests__traces__h100__Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz";

bool waitAnalysis(TraceView* view) {
    QSignalSpy spy(view, &TraceView::analysisReady);
    return spy.wait(30000);
}
} // namespace

void TestAnalysisPanels::initTestCase() {
    QCoreApplication::setOrganizationName(QStringLiteral("KinetoscopeTests"));
    QCoreApplication::setApplicationName(QStringLiteral("tst_analysispanels"));
    QSettings().clear();
    m_window = new MainWindow;
    m_window->resize(1600, 1000);
    m_window->show();
}

TraceView* TestAnalysisPanels::open(const char* relative) {
    TraceView* view = m_window->openTrace(QString::fromStdString(test::tracePath(relative)));
    QSignalSpy ready(view, &TraceView::analysisReady);
    if (!QTest::qWaitFor([&] { return view->state() != TraceView::State::Loading; }, 30000)) return nullptr;
    if (view->state() != TraceView::State::Ready) return nullptr;
    // analysisReady, not analysis(): the result arrives first and the panels are filled over the next
    // event-loop turns, so a view whose analysis() is set may still show empty tables.
    if (ready.isEmpty() && !ready.wait(30000)) return nullptr;
    return view;
}

QJsonObject TestAnalysisPanels::cliJson(const char* relative) {
    QProcess p;
    p.start(QStringLiteral(KINETOSCOPE_CLI),
            {QStringLiteral("summary"), QString::fromStdString(test::tracePath(relative)),
             QStringLiteral("--json")});
    p.waitForFinished(60000);
    return QJsonDocument::fromJson(p.readAllStandardOutput()).object();
}

void TestAnalysisPanels::modelsPassTester() {
    TraceView* view = open(resnet);
    QVERIFY(view);
    QAbstractItemModelTester opTester(view->operatorPanel()->model(),
                                      QAbstractItemModelTester::FailureReportingMode::QtTest);
    QAbstractItemModelTester opProxy(view->operatorPanel()->proxy(),
                                     QAbstractItemModelTester::FailureReportingMode::QtTest);
    QAbstractItemModelTester kTester(view->kernelPanel()->model(),
                                     QAbstractItemModelTester::FailureReportingMode::QtTest);
    QAbstractItemModelTester kProxy(view->kernelPanel()->proxy(),
                                    QAbstractItemModelTester::FailureReportingMode::QtTest);
    // Exercise resets, sorting and filtering under the testers.
    view->operatorPanel()->setGrouping(OperatorGrouping::NameAndShape);
    QVERIFY(waitAnalysis(view));
    view->operatorPanel()->filter()->setText(QStringLiteral("conv"));
    view->operatorPanel()->view()->sortByColumn(OperatorTableModel::Calls, Qt::AscendingOrder);
    view->operatorPanel()->filter()->clear();
    view->operatorPanel()->setGrouping(OperatorGrouping::Name);
    QVERIFY(waitAnalysis(view));
    view->kernelPanel()->setGrouping(KernelGrouping::NameAndLaunch);
    QVERIFY(waitAnalysis(view));
    view->kernelPanel()->view()->sortByColumn(KernelTableModel::Mean, Qt::AscendingOrder);
    view->kernelPanel()->setGrouping(KernelGrouping::Name);
    QVERIFY(waitAnalysis(view));
}

void TestAnalysisPanels::panelsMatchCli() {
    TraceView* view = open(resnet);
    QVERIFY(view);
    const QJsonObject cli = cliJson(resnet);
    QVERIFY(!cli.isEmpty());
    // Operators: every CLI row is in the model with the same numbers (ns in the model, µs with 3 decimals in
    // the CLI).
    OperatorTableModel* ops = view->operatorPanel()->model();
    const QJsonArray cliOps = cli.value(QStringLiteral("operators")).toArray();
    QCOMPARE(ops->rowCount(), int(cliOps.size()));
    for (int r = 0; r < ops->rowCount(); ++r) {
        const OperatorRow& row = ops->row(r);
        const QJsonObject o = cliOps[r].toObject();
        QCOMPARE(o.value(QStringLiteral("name")).toString(), QString::fromStdString(row.name));
        QCOMPARE(qint64(std::llround(o.value(QStringLiteral("device_total_us")).toDouble() * 1000)),
                 qint64(row.deviceTotal));
        QCOMPARE(qint64(std::llround(o.value(QStringLiteral("host_self_us")).toDouble() * 1000)),
                 qint64(row.hostSelf));
        QCOMPARE(o.value(QStringLiteral("count")).toInteger(), qint64(row.count));
    }
    // Kernels and their categories.
    KernelTableModel* kernels = view->kernelPanel()->model();
    const QJsonArray cliKernels = cli.value(QStringLiteral("kernels")).toArray();
    QCOMPARE(kernels->rowCount(), int(cliKernels.size()));
    for (int r = 0; r < kernels->rowCount(); ++r) {
        const QJsonObject k = cliKernels[r].toObject();
        QCOMPARE(k.value(QStringLiteral("name")).toString(), QString::fromStdString(kernels->row(r).name));
        QCOMPARE(qint64(std::llround(k.value(QStringLiteral("total_us")).toDouble() * 1000)),
                 qint64(kernels->row(r).total));
        QCOMPARE(k.value(QStringLiteral("category")).toString(),
                 QString::fromLatin1(kernelCategoryName(kernels->row(r).category).data()));
    }
    const QJsonObject categories = cli.value(QStringLiteral("kernel_categories_us")).toObject();
    for (const BarChart::Bar& bar : view->kernelPanel()->categories()->bars()) {
        QCOMPARE(qint64(std::llround(categories.value(bar.label).toDouble() * 1000)), qint64(bar.value));
    }
    // Overview: the breakdown's "All steps" row and the GPU utilisation.
    const QJsonObject breakdown = cli.value(QStringLiteral("breakdown_us")).toObject();
    QTableWidget* table = view->overviewPanel()->breakdownTable();
    const int all = table->rowCount() - 1;
    QCOMPARE(table->item(all, 0)->text(), QStringLiteral("All steps"));
    for (std::size_t c = 0; c < breakdownCategoryCount; ++c) {
        const QString name = QString::fromLatin1(breakdownCategoryName(BreakdownCategory(c)).data());
        QCOMPARE(qint64(std::llround(breakdown.value(name).toDouble() * 1000)),
                 qint64(table->item(all, int(c) + 2)->data(SortRole).toDouble()));
    }
    const double utilization =
        cli.value(QStringLiteral("gpu_utilization")).toObject().value(QStringLiteral("0")).toDouble();
    QVERIFY(std::abs(view->overviewPanel()->gpuTable()->item(0, 1)->data(SortRole).toDouble() - utilization) <
            1e-6);
    const QJsonArray recs = cli.value(QStringLiteral("recommendations")).toArray();
    QVERIFY(!recs.isEmpty());
    int examples = 0;
    const QString panelText = view->overviewPanel()->recommendations()->toPlainText();
    for (const QJsonValue& r : recs) {
        QVERIFY2(panelText.contains(r.toObject().value(QStringLiteral("title")).toString()),
                 qPrintable(r.toObject().value(QStringLiteral("id")).toString()));
        // Each example says whose time its duration is, as the JSON does.
        const QJsonObject event =
            r.toObject().value(QStringLiteral("where")).toObject().value(QStringLiteral("event")).toObject();
        if (event.isEmpty() || event.value(QStringLiteral("dur_us")).toDouble() <= 0) continue;
        ++examples;
        const bool gpu = event.value(QStringLiteral("time")).toString() == QLatin1String("gpu");
        QVERIFY2(panelText.contains(gpu ? QLatin1String("of GPU time)") : QLatin1String("of CPU time)")),
                 qPrintable(panelText));
    }
    QVERIFY(examples > 0);
}

void TestAnalysisPanels::overviewBreakdownAndThroughput() {
    TraceView* view = open(resnet);
    QVERIFY(view);
    const Overview& ov = view->analysis()->overview;
    QCOMPARE(view->overviewPanel()->breakdownTable()->rowCount(), int(ov.steps.size()) + 1);
    view->overviewPanel()->batchSize()->setValue(32);
    const QString text = view->overviewPanel()->throughputText();
    QVERIFY2(text.contains(QString::number(ov.stepsPerSecond * 32, 'f', 1) + QStringLiteral(" samples/s")),
             qPrintable(text));
    // Headers explain every GPU metric.
    for (int c = 1; c < view->overviewPanel()->gpuTable()->columnCount(); ++c) {
        QVERIFY(!view->overviewPanel()->gpuTable()->horizontalHeaderItem(c)->toolTip().isEmpty());
    }
    // A recommendation's link jumps the timeline to its evidence.
    QTextBrowser* recs = view->overviewPanel()->recommendations();
    QVERIFY(recs->toHtml().contains(QLatin1String("href=")));
    // Where the GPUs wait: the figures of the CLI's summary, and the launch outliers, each a link that
    // selects its launch call on the timeline.
    QTextBrowser* waits = view->overviewPanel()->gpuWaits();
    const QString waitText = waits->toPlainText();
    const LaunchStatistics& ls = view->analysis()->launches;
    QVERIFY2(waitText.contains(QStringLiteral("Launches: %1").arg(ls.launches)), qPrintable(waitText));
    QVERIFY2(waitText.contains(QStringLiteral("Launch delays over 100 µs: %1").arg(ls.longDelays.size())),
             qPrintable(waitText));
    QVERIFY(waitText.contains(QStringLiteral("waiting for the host")));
    const QRegularExpressionMatch link =
        QRegularExpression(QStringLiteral("href=\"([^\"]+)\"")).match(waits->toHtml());
    QVERIFY(link.hasMatch());
    emit waits->anchorClicked(QUrl(link.captured(1)));
    const EventRef selected = view->timeline()->selected();
    QVERIFY(selected.isValid());
    QVERIFY(!view->trace()->store->gpuWorkOf(selected).empty()); // a launch call
}

// Issue 52 item 4: the Overview is one page that scrolls; its sections are as tall as their content (the
// recommendations used to be a box three items tall scrolling inside the page).
void TestAnalysisPanels::overviewScrollsAsOnePage() {
    TraceView* view = open(resnet);
    QVERIFY(view);
    OverviewPanel* panel = view->overviewPanel();
    view->bottomTabs()->setCurrentWidget(panel);
    auto* page = panel->findChild<QScrollArea*>();
    QVERIFY(page);
    QTextBrowser* recs = panel->recommendations();
    QTRY_VERIFY(recs->isVisible());
    QVERIFY(recs->document()->size().height() > 140); // more than the old box held
    for (QTextBrowser* section : {recs, panel->gpuWaits()}) {
        QTRY_COMPARE(section->verticalScrollBar()->maximum(), 0);
        QVERIFY(section->height() >= section->document()->size().height());
    }
    QCOMPARE(panel->breakdownTable()->verticalScrollBar()->maximum(), 0);
    // The wheel over a section is left to the page (Qt passes an event a widget ignores to its parent; a
    // synthesized one is not passed on, so the test stops at "ignored"), and the page has room to scroll.
    QTRY_VERIFY(page->verticalScrollBar()->maximum() > 0);
    for (QAbstractScrollArea* section :
         std::initializer_list<QAbstractScrollArea*>{recs, panel->gpuWaits(), panel->breakdownTable()}) {
        const QPoint at = section->viewport()->rect().center();
        QWheelEvent wheel(at, section->viewport()->mapToGlobal(at), QPoint(), QPoint(0, -120), Qt::NoButton,
                          Qt::NoModifier, Qt::NoScrollPhase, false);
        QApplication::sendEvent(section->viewport(), &wheel);
        QVERIFY(!wheel.isAccepted());
    }
}

void TestAnalysisPanels::operatorSelectionHighlightsAndJumps() {
    TraceView* view = open(resnet);
    QVERIFY(view);
    OperatorPanel* panel = view->operatorPanel();
    QSignalSpy searched(view, &TraceView::searchFinished);
    const QModelIndex first = panel->proxy()->index(0, 0);
    panel->view()->setCurrentIndex(first);
    QVERIFY(searched.wait(10000));
    const QString name = first.data(NameRole).toString();
    // The name itself in the find bar, matched whole (it used to fill with an escaped regex of a template
    // name).
    QCOMPARE(view->searchBar()->text(), name);
    QVERIFY(view->searchBar()->isWholeName() && !view->searchBar()->isRegex());
    std::size_t expected = 0;
    const TraceStore& s = *view->trace()->store;
    for (const Track& t : s.tracks()) {
        for (StringId n : t.names)
            expected += s.strings().view(n) == name.toStdString();
    }
    QCOMPARE(view->matchCount(), expected);
    view->nextMatch();
    QCOMPARE(QString::fromUtf8(s.nameOf(view->timeline()->selected()).data(),
                               qsizetype(s.nameOf(view->timeline()->selected()).size())),
             name);
    // Double-click jumps to the longest call.
    emit panel->view()->doubleClicked(first);
    QCOMPARE(view->timeline()->selected(), first.data(EventRole).value<EventRef>());
    QVERIFY(!panel->chart()->bars().isEmpty());
    QVERIFY(!panel->callStack()->toPlainText().isEmpty());
}

// Issue 52 item 2: a row selected while the view holds none of its slices moves the view to one, and the
// query the user types next is a substring search again (the whole-name mode the selection set ends).
void TestAnalysisPanels::selectionBringsAMatchIntoView() {
    TraceView* view = open(resnet);
    QVERIFY(view);
    OperatorPanel* panel = view->operatorPanel();
    const QModelIndex first = panel->proxy()->index(0, 0);
    const std::string name = first.data(NameRole).toString().toStdString();
    const TraceStore& s = *view->trace()->store;
    // The widest gap between two of its slices: zoom into its middle, where none is.
    std::vector<std::pair<TimeNs, TimeNs>> spans;
    for (const Track& t : s.tracks()) {
        for (std::size_t i = 0; i < t.names.size(); ++i)
            if (s.strings().view(t.names[i]) == name)
                spans.emplace_back(t.starts[i], t.endOf(std::uint32_t(i)));
    }
    std::sort(spans.begin(), spans.end());
    QVERIFY(spans.size() > 2);
    TimeNs gapFrom = 0, gapTo = 0, reach = spans[0].second;
    for (std::size_t i = 1; i < spans.size(); ++i) {
        if (spans[i].first - reach > gapTo - gapFrom) gapFrom = reach, gapTo = spans[i].first;
        reach = std::max(reach, spans[i].second);
    }
    QVERIFY(gapTo - gapFrom > 1000);
    const TimeNs middle = gapFrom + (gapTo - gapFrom) / 2;
    view->timeline()->setVisibleRange(middle - (gapTo - gapFrom) / 4, middle + (gapTo - gapFrom) / 4);
    QSignalSpy searched(view, &TraceView::searchFinished);
    panel->view()->setCurrentIndex(first);
    QVERIFY(searched.wait(10000));
    const EventRef shown = view->timeline()->selected();
    QVERIFY(shown.isValid());
    QCOMPARE(std::string(s.nameOf(shown)), name);
    const TimeAxis& axis = view->timeline()->axis();
    QVERIFY(s.track(shown.track).starts[shown.index.value] < axis.end &&
            s.track(shown.track).endOf(shown.index.value) > axis.start);
    // Ctrl+F and a part of a name: found as a substring.
    view->showSearch();
    auto* edit = view->searchBar()->findChild<QLineEdit*>();
    QVERIFY(edit);
    QTest::keyClicks(edit, QStringLiteral("conv"));
    QVERIFY(!view->searchBar()->isWholeName());
    QVERIFY(searched.wait(10000));
    QVERIFY2(view->matchCount() > 0, qPrintable(view->searchBar()->text()));
    // A whole name the user ticked by hand stays ticked while they type.
    for (QCheckBox* box : view->searchBar()->findChildren<QCheckBox*>())
        if (box->text() == QLatin1String("Whole name")) box->click();
    QVERIFY(view->searchBar()->isWholeName());
    QTest::keyClicks(edit, QStringLiteral("x"));
    QVERIFY(view->searchBar()->isWholeName());
}

void TestAnalysisPanels::operatorFilterAndGrouping() {
    TraceView* view = open(resnet);
    QVERIFY(view);
    OperatorPanel* panel = view->operatorPanel();
    const int byName = panel->model()->rowCount();
    panel->filter()->setText(QStringLiteral("conv"));
    QVERIFY(panel->proxy()->rowCount() > 0 && panel->proxy()->rowCount() < byName);
    for (int r = 0; r < panel->proxy()->rowCount(); ++r)
        QVERIFY(panel->proxy()->index(r, 0).data().toString().contains(QLatin1String("conv"),
                                                                       Qt::CaseInsensitive));
    // A filtered table says so and totals the rows it shows; its chart shows only those rows too.
    qulonglong calls = 0;
    qlonglong deviceSelf = 0;
    for (int r = 0; r < panel->proxy()->rowCount(); ++r) {
        const OperatorRow& row =
            panel->model()->row(panel->proxy()->mapToSource(panel->proxy()->index(r, 0)).row());
        calls += row.count;
        deviceSelf += row.deviceSelf;
    }
    const QString total = panel->total()->text();
    QVERIFY2(total.startsWith(
                 QStringLiteral("Filtered: %1 of %2 rows").arg(panel->proxy()->rowCount()).arg(byName)),
             qPrintable(total));
    QVERIFY2(total.contains(QStringLiteral("%1").arg(calls)) &&
                 total.contains(durationText(TimeNs(deviceSelf))),
             qPrintable(total));
    QVERIFY(!panel->chart()->bars().isEmpty());
    for (const BarChart::Bar& b : panel->chart()->bars())
        QVERIFY2(b.label.contains(QLatin1String("conv"), Qt::CaseInsensitive), qPrintable(b.label));
    panel->filter()->clear();
    QVERIFY(panel->total()->text().startsWith(QStringLiteral("%1 rows").arg(byName)));
    panel->setGrouping(OperatorGrouping::NameAndShape);
    QVERIFY(waitAnalysis(view));
    QVERIFY(panel->model()->rowCount() > byName);
    QVERIFY(!panel->view()->isColumnHidden(OperatorTableModel::InputDims));
    panel->setGrouping(OperatorGrouping::Name);
    QVERIFY(waitAnalysis(view));
    QCOMPARE(panel->model()->rowCount(), byName);
}

void TestAnalysisPanels::kernelSelectionShowsOrigin() {
    TraceView* view = open(resnet);
    QVERIFY(view);
    KernelPanel* panel = view->kernelPanel();
    panel->view()->setCurrentIndex(panel->proxy()->index(0, 0));
    QVERIFY2(panel->origin()->text().contains(QLatin1String("Launched from")),
             qPrintable(panel->origin()->text()));
    QVERIFY(panel->origin()->text().contains(QLatin1String("cudaLaunchKernel")));
    // Under the table, the kernel sequences; a kernel's link selects its row, "show" its longest call.
    const std::vector<KernelSequence>& seqs = view->analysis()->kernelSequences;
    QVERIFY(!seqs.empty());
    QVERIFY(panel->sequences()->toPlainText().contains(QString::fromStdString(seqs[0].op)));
    emit panel->sequences()->anchorClicked(QUrl(QStringLiteral("kernel:0:1")));
    QCOMPARE(panel->view()->currentIndex().data(NameRole).toString(),
             QString::fromStdString(seqs[0].work[1]));
    QSignalSpy jumped(panel, &AnalysisPanel::jumpRequested);
    emit panel->sequences()->anchorClicked(QUrl(DetailsPanel::linkFor(seqs[0].example)));
    QCOMPARE(jumped.count(), 1);
    QCOMPARE(view->timeline()->selected(), seqs[0].example);
}

// The kernel table as a user reads it: no stretched last column (numbers next to their headers), every header
// whole ("Est. occupancy" was clipped), the launch right after the name when grouped by it (grid, block and
// operator were off the right edge), a total of the rows shown, and a category chart that follows the filter.
void TestAnalysisPanels::kernelTableReadsWell() {
    TraceView* view = open(resnet);
    QVERIFY(view);
    KernelPanel* panel = view->kernelPanel();
    view->bottomTabs()->setCurrentWidget(panel);
    QHeaderView* header = panel->view()->horizontalHeader();
    QVERIFY(!header->stretchLastSection());
    QCOMPARE(panel->view()->textElideMode(), Qt::ElideMiddle); // names keep their distinguishing end
    for (int c = 1; c < header->count(); ++c)
        if (!panel->view()->isColumnHidden(c))
            QVERIFY2(panel->view()->columnWidth(c) >= header->sectionSizeHint(c),
                     qPrintable(panel->model()->headerData(c, Qt::Horizontal, Qt::DisplayRole).toString()));
    QCOMPARE(header->visualIndex(KernelTableModel::Launch), 1);
    // Filtered: the total and the chart are those of the rows shown.
    panel->filter()->setText(QStringLiteral("elementwise"));
    QVERIFY(panel->proxy()->rowCount() > 0 && panel->proxy()->rowCount() < panel->model()->rowCount());
    qlonglong total = 0;
    for (int r = 0; r < panel->proxy()->rowCount(); ++r)
        total += panel->model()->row(panel->proxy()->mapToSource(panel->proxy()->index(r, 0)).row()).total;
    QVERIFY2(panel->total()->text().contains(durationText(TimeNs(total))),
             qPrintable(panel->total()->text()));
    double charted = 0;
    for (const BarChart::Bar& b : panel->categories()->bars())
        charted += b.value;
    QCOMPARE(qlonglong(charted), total);
    panel->filter()->clear();
    double all = 0;
    for (const BarChart::Bar& b : panel->categories()->bars())
        all += b.value;
    QCOMPARE(qlonglong(all), qlonglong(view->analysis()->kernels.totalKernelTime));
    // Grouped by launch: the launch column shows, second.
    panel->setGrouping(KernelGrouping::NameAndLaunch);
    QVERIFY(waitAnalysis(view));
    QVERIFY(!panel->view()->isColumnHidden(KernelTableModel::Launch));
    QCOMPARE(header->visualIndex(KernelTableModel::Launch), 1);
    QVERIFY(header->sectionViewportPosition(KernelTableModel::Launch) < panel->view()->viewport()->width());
    panel->setGrouping(KernelGrouping::Name);
    QVERIFY(waitAnalysis(view));
}

// Annotations are listed apart (grouped ProfilerStep#*), and a with_stack trace's operators show the Python
// frames around their longest call as their call stack.
void TestAnalysisPanels::annotationsAndPythonCallStack() {
    TraceView* view = open(qwen);
    QVERIFY(view);
    OperatorPanel* panel = view->operatorPanel();
    for (int r = 0; r < panel->model()->rowCount(); ++r) {
        const QString name = QString::fromStdString(panel->model()->row(r).name);
        QVERIFY2(!name.startsWith(QLatin1String("ProfilerStep#")), qPrintable(name));
    }
    QComboBox* grouping = panel->findChild<QComboBox*>();
    QVERIFY(grouping && grouping->count() == 3);
    grouping->setCurrentIndex(2);
    QVERIFY(waitAnalysis(view));
    QStringList annotations;
    for (int r = 0; r < panel->model()->rowCount(); ++r)
        annotations << QString::fromStdString(panel->model()->row(r).name);
    QCOMPARE(annotations.size(), int(view->analysis()->summary.annotations.size()));
    QVERIFY2(annotations.size() > 0, "the Qwen trace has a user annotation");
    grouping->setCurrentIndex(0);
    QVERIFY(waitAnalysis(view));
    // aten::linear is called from Python in this trace.
    for (int r = 0; r < panel->proxy()->rowCount(); ++r) {
        if (panel->proxy()->index(r, 0).data().toString() != QLatin1String("aten::linear")) continue;
        panel->view()->setCurrentIndex(panel->proxy()->index(r, 0));
        break;
    }
    const QString stack = panel->callStack()->toPlainText();
    QVERIFY2(stack.contains(QLatin1String("Python frames")) && stack.contains(QLatin1String(".py(")),
             qPrintable(stack));
    QVERIFY(stack.contains(QLatin1String("nn.Module")));
    // Above the stack, the GPU work its calls launched (the kernels the Operators tab did not show): as many
    // events as the launch calls inside every aten::linear call launched, each kernel a link to its longest
    // run.
    const TraceStore& s = *view->trace()->store;
    const StringId linear = s.strings().find("aten::linear");
    std::size_t calls = 0, events = 0;
    for (std::uint32_t ti = 0; ti < s.tracks().size(); ++ti) {
        const Track& t = s.tracks()[ti];
        if (t.kind != TrackKind::CpuThread) continue;
        for (std::uint32_t r = 0; r < t.sliceCount(); ++r) {
            if (t.names[r] != linear) continue;
            ++calls;
            for (std::uint32_t k = 0; k < t.sliceCount(); ++k)
                if (t.starts[k] >= t.starts[r] && t.endOf(k) <= t.endOf(r) &&
                    isLaunchCategory(s.categoryOf({TrackId(ti), EventIndex(k)}).kind))
                    events += s.gpuWorkOf({TrackId(ti), EventIndex(k)}).size();
        }
    }
    QVERIFY(events > 0);
    QVERIFY2(stack.contains(QStringLiteral("GPU work its %1 calls launched").arg(calls)) &&
                 stack.contains(QStringLiteral("%1 events, ").arg(events)),
             qPrintable(stack));
    const QString html = panel->callStack()->toHtml();
    const qsizetype at = html.indexOf(QLatin1String("href=\"event:"));
    QVERIFY(at >= 0);
    const QString link = html.mid(at + 6, html.indexOf(QLatin1Char('"'), at + 6) - at - 6);
    emit panel->callStack()->anchorClicked(QUrl(link));
    QVERIFY(isGpuWork(s.categoryOf(view->timeline()->selected()).kind));
}

// A kernel's details name the operator that launched it and its launch delay.
void TestAnalysisPanels::kernelDetailsNameTheOperatorAndDelay() {
    TraceView* view = open(resnet);
    QVERIFY(view);
    KernelPanel* panel = view->kernelPanel();
    const EventRef kernel = panel->proxy()->index(0, 0).data(EventRole).value<EventRef>();
    QVERIFY(kernel.isValid());
    view->details()->showEvent(kernel);
    const QString text = view->details()->toPlainText();
    QVERIFY2(text.contains(QLatin1String("Operator: ")) && text.contains(QLatin1String("Launch delay: ")),
             qPrintable(text));
    // The track as the timeline names it: a stream, not a "tid".
    QVERIFY2(text.contains(QStringLiteral("GPU 0 · stream 7")), qPrintable(text));
    const TraceStore& store = *view->trace()->store;
    const auto launch = store.launchOf(kernel);
    QVERIFY(launch);
    const auto op = launchingOperator(store, *launch);
    QVERIFY(op && store.categoryOf(*op).kind == CategoryKind::CpuOp);
    QVERIFY(text.contains(QString::fromUtf8(store.nameOf(*op).data(), qsizetype(store.nameOf(*op).size()))));
}

void TestAnalysisPanels::rangeScopesPanels() {
    TraceView* view = open(resnet);
    QVERIFY(view);
    const Overview whole = view->analysis()->overview;
    QVERIFY(whole.steps.size() >= 3);
    const StepRange& second = whole.steps[1];
    TimelineWidget* t = view->timeline();
    t->setAreaSelection(
        AreaSelection{TimeRange{second.start + 1, second.end - 1}, 0, int(t->layout().rows().size()) - 1});
    QVERIFY(waitAnalysis(view));
    QVERIFY(view->analysisScope().has_value());
    QCOMPARE(view->analysis()->overview.steps.size(), std::size_t(1));
    QVERIFY(view->kernelPanel()->model()->rowCount() > 0);
    std::uint64_t scopedCalls = 0, allCalls = 0;
    for (int r = 0; r < view->kernelPanel()->model()->rowCount(); ++r)
        scopedCalls += view->kernelPanel()->model()->row(r).count;
    for (const KernelRow& k : summarize(*view->trace()->store).kernels)
        allCalls += k.count;
    QVERIFY(scopedCalls < allCalls);
    view->setAnalysisScope(std::nullopt);
    QVERIFY(waitAnalysis(view));
    QCOMPARE(view->analysis()->overview.steps.size(), whole.steps.size());
}

void TestAnalysisPanels::memoryPanel() {
    TraceView* view = open(qwen);
    QVERIFY(view);
    MemoryPanel* panel = view->memoryPanel();
    QVERIFY2(panel->summary()->text().contains(QLatin1String("peak allocated")),
             qPrintable(panel->summary()->text()));
    QVERIFY(panel->blocks()->rowCount() > 0);
    QVERIFY(panel->operators()->rowCount() > 1);
    // Sorted by allocated bytes, descending, by number (not by text).
    for (int r = 1; r < panel->operators()->rowCount(); ++r) {
        QVERIFY(panel->operators()->item(r - 1, 3)->data(SortRole).toDouble() >=
                panel->operators()->item(r, 3)->data(SortRole).toDouble());
    }
    QVERIFY(panel->curve()->seriesCount() >= 2);
    // Dragging across the curve scopes the panels to that range.
    MemoryCurve* curve = panel->curve();
    curve->resize(800, 170);
    const QPointF a(200, 60), b(400, 60);
    const TimeNs expectedFrom = curve->timeAt(200);
    QMouseEvent press(QEvent::MouseButtonPress, a, curve->mapToGlobal(a), Qt::LeftButton, Qt::LeftButton,
                      Qt::NoModifier);
    QMouseEvent move(QEvent::MouseMove, b, curve->mapToGlobal(b), Qt::NoButton, Qt::LeftButton,
                     Qt::NoModifier);
    QMouseEvent release(QEvent::MouseButtonRelease, b, curve->mapToGlobal(b), Qt::LeftButton, Qt::NoButton,
                        Qt::NoModifier);
    QApplication::sendEvent(curve, &press);
    QApplication::sendEvent(curve, &move);
    QApplication::sendEvent(curve, &release);
    QVERIFY(waitAnalysis(view));
    QVERIFY(view->analysisScope().has_value());
    QCOMPARE(view->analysisScope()->first, qint64(expectedFrom));
}

// PyTorch 1.8's `[memory]` events give sizes only: the curve is drawn from their running sum, and no
// allocation is called unfreed.
void TestAnalysisPanels::memoryPanelOfSizesOnlyTrace() {
    TraceView* view = open(
        "pytorch__kineto/tb_plugin__samples__resnet50_num_workers_0__worker0.1623143566756.pt.trace.json.gz");
    QVERIFY(view);
    MemoryPanel* panel = view->memoryPanel();
    QVERIFY(panel->curve()->seriesCount() >= 2);
    const QString text = panel->summary()->text();
    QVERIFY2(text.contains(QLatin1String("no addresses")) && !text.contains(QLatin1String("never freed")),
             qPrintable(text));
    QVERIFY(panel->blocks()->rowCount() > 0);
    for (int r = 0; r < std::min(50, panel->blocks()->rowCount()); ++r)
        QCOMPARE(panel->blocks()->item(r, 3)->text(), QStringLiteral("unknown (no address)"));
}

void TestAnalysisPanels::modulePanel() {
    TraceView* view = open(qwen);
    QVERIFY(view);
    ModulePanel* panel = view->modulePanel();
    QVERIFY(panel->tree()->topLevelItemCount() > 0);
    const ModuleTree& tree = view->analysis()->modules;
    TimeNs device = 0;
    for (const ModuleNode& n : tree.nodes) {
        QVERIFY(n.hostSelf <= n.hostTotal);
        QVERIFY(n.deviceSelf <= n.deviceTotal);
        device += n.deviceTotal;
    }
    QVERIFY(device > 0);
    // Clicking a module in the flame graph selects it in the tree and its frame on the timeline.
    const int root = tree.roots.front();
    panel->flame()->resize(900, 200);
    const QPointF at = panel->flame()->rectOf(root).center();
    QCOMPARE(panel->flame()->nodeAt(at), root);
    QMouseEvent press(QEvent::MouseButtonPress, at, panel->flame()->mapToGlobal(at), Qt::LeftButton,
                      Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(panel->flame(), &press);
    QCOMPARE(panel->tree()->currentItem()->data(0, Qt::UserRole).toInt(), root);
    QCOMPARE(view->timeline()->selected(), tree.nodes[std::size_t(root)].example);
}

void TestAnalysisPanels::stepDoubleClickShowsStep() {
    TraceView* view = open(resnet);
    QVERIFY(view);
    // The step the panel's own table shows: under load a newer result can be set on the view before the panel
    // has it.
    QTRY_VERIFY(view->overviewPanel()->shownResult() == view->analysis());
    const StepRange step = view->overviewPanel()->shownResult()->overview.steps[2];
    emit view->overviewPanel()->breakdownTable()->cellDoubleClicked(2, 0);
    QCOMPARE(view->timeline()->axis().start, step.start);
    QCOMPARE(view->timeline()->axis().end, step.end);
}

void TestAnalysisPanels::outOfMemoryAlert() {
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("oom.json"));
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(R"({"traceEvents": [
{"ph":"X","cat":"cpu_op","name":"aten::empty","pid":1,"tid":1,"ts":0,"dur":10},
{"ph":"i","s":"t","cat":"cpu_instant_event","name":"[memory]","pid":1,"tid":1,"ts":2,"args":{"Device Type":1,"Device Id":0,"Addr":64,"Bytes":1024,"Total Allocated":1024,"Total Reserved":2048}},
{"ph":"i","s":"t","cat":"cpu_instant_event","name":"[OutOfMemory]","pid":1,"tid":1,"ts":5,"args":{"Device Type":1,"Device Id":0,"Bytes":1099511627776,"Total Allocated":1024,"Total Reserved":2048}}
]})");
    f.close();
    TraceView* view = m_window->openTrace(path);
    QSignalSpy ready(view, &TraceView::analysisReady);
    QVERIFY(ready.wait(20000));
    const QString text = view->memoryPanel()->summary()->text();
    QVERIFY2(text.contains(QLatin1String("out-of-memory")), qPrintable(text));
    QCOMPARE(view->memoryPanel()->blocks()->rowCount(), 1);
}

// The timeline's keys did nothing until the timeline was clicked: with focus in a table of the view they
// zoom, pan and fit it; in a text field they type.
void TestAnalysisPanels::viewKeysWhateverHasFocus() {
    TraceView* view = open(resnet);
    QVERIFY(view);
    m_window->activateWindow();
    QVERIFY(QTest::qWaitForWindowActive(m_window));
    view->bottomTabs()->setCurrentWidget(view->operatorPanel());
    QTableView* table = view->operatorPanel()->view();
    table->setFocus();
    QTRY_VERIFY(table->hasFocus());
    TimelineWidget* timeline = view->timeline();
    const TimeNs span = timeline->axis().end - timeline->axis().start;
    QTest::keyClick(table, Qt::Key_W);
    QVERIFY2(timeline->axis().end - timeline->axis().start < span, "W did not zoom");
    const TimeNs start = timeline->axis().start;
    QTest::keyClick(table, Qt::Key_D);
    QVERIFY(timeline->axis().start > start);
    QTest::keyClick(table, Qt::Key_0);
    QCOMPARE(timeline->axis().end - timeline->axis().start, span);
    // In the track filter (a text field) the keys type.
    QLineEdit* filter = timeline->trackFilterField();
    filter->setFocus();
    QTRY_VERIFY(filter->hasFocus());
    QTest::keyClick(filter, Qt::Key_W);
    QCOMPARE(filter->text(), QStringLiteral("w"));
    QCOMPARE(timeline->axis().end - timeline->axis().start, span);
    filter->clear();
}

// Issue 61: a CPU-only trace (Debian's torch without a GPU) has no kernels: the Kernels and Roofline tabs are
// not offered; a GPU trace keeps them.
void TestAnalysisPanels::cpuOnlyTraceHidesGpuTabs() {
    for (const auto& [trace, gpu] :
         {std::pair{"debian-torch/mlp.1795236617046.pt.trace.json", false}, std::pair{qwen, true}}) {
        TraceView* view = open(trace);
        QVERIFY(view);
        QTabWidget* tabs = view->bottomTabs();
        for (QWidget* panel :
             {static_cast<QWidget*>(view->kernelPanel()), static_cast<QWidget*>(view->rooflinePanel())})
            QCOMPARE(tabs->isTabVisible(tabs->indexOf(panel)), gpu);
        QVERIFY(tabs->isTabVisible(tabs->indexOf(view->operatorPanel())));
    }
}

// Issue 61: clicking an Operators row whose calls are all off screen brings one into view and selects it, and
// the Operators table stays in view (it switched to Details); the previous row's outline goes at once.
void TestAnalysisPanels::aRowKeepsItsTableInView() {
    TraceView* view = open(qwen);
    QVERIFY(view);
    QTabWidget* tabs = view->bottomTabs();
    tabs->setCurrentWidget(view->operatorPanel());
    TimelineWidget* timeline = view->timeline();
    // A 1 µs view at the trace's very start: no call of aten::mm in it.
    timeline->setVisibleRange(timeline->timeBounds().from, timeline->timeBounds().from + 1000);
    QSignalSpy selected(timeline, &TimelineWidget::selectionChanged);
    emit view->operatorPanel()->highlightRequested(QStringLiteral("aten::mm"));
    QVERIFY(QTest::qWaitFor([&] { return !selected.isEmpty(); }, 20000));
    QCOMPARE(tabs->currentWidget(), static_cast<QWidget*>(view->operatorPanel()));
    const EventRef ref = selected.last().first().value<EventRef>();
    QVERIFY(ref.isValid());
    QCOMPARE(
        view->trace()->store->strings().view(view->trace()->store->track(ref.track).names[ref.index.value]),
        std::string_view("aten::mm"));
}

void TestAnalysisPanels::snapshots() {
    // KINETOSCOPE_SNAPSHOT_DIR=DIR saves each panel as a PNG, to look at them.
    const QString dir = qEnvironmentVariable("KINETOSCOPE_SNAPSHOT_DIR");
    if (dir.isEmpty()) QSKIP("set KINETOSCOPE_SNAPSHOT_DIR to save panel images");
    for (const char* trace : {resnet, qwen}) {
        TraceView* view = open(trace);
        QVERIFY(view);
        for (int i = 0; i < view->bottomTabs()->count(); ++i) {
            view->bottomTabs()->setCurrentIndex(i);
            QTest::qWait(50);
            m_window->grab().save(
                QStringLiteral("%1/%2-%3.png")
                    .arg(dir, QString::fromLatin1(trace).section(QLatin1Char('/'), -1).left(20))
                    .arg(i));
        }
    }
    // Where the GPUs wait (Overview, at the bottom), on the H100 trace.
    {
        TraceView* q = open(qwen);
        QVERIFY(q);
        q->bottomTabs()->setCurrentWidget(q->overviewPanel());
        QTest::qWait(50);
        q->overviewPanel()->gpuWaits()->grab().save(dir + QStringLiteral("/gpu-waits.png"));
    }
    // The views the trust issue fixed: Details > Parents of an operator late in a with_stack trace, an
    // operator's Python call stack, the annotations, a kernel's launching operator and delay, a sizes-only
    // memory trace.
    TraceView* view = open(qwen);
    QVERIFY(view);
    const TraceStore& store = *view->trace()->store;
    EventRef late;
    for (std::uint32_t ti = 0; ti < store.tracks().size() && !late.isValid(); ++ti) {
        const Track& t = store.tracks()[ti];
        if (t.kind != TrackKind::CpuThread) continue;
        for (std::uint32_t r = 0; r < t.sliceCount(); ++r) {
            if (store.categoryOf({TrackId(ti), EventIndex(r)}).kind == CategoryKind::CpuOp &&
                t.starts[r] - store.minTime() > (store.maxTime() - store.minTime()) / 2 && t.parentOf(r)) {
                late = {TrackId(ti), EventIndex(r)};
                break;
            }
        }
    }
    QVERIFY(late.isValid());
    view->timeline()->setSelected(late);
    view->details()->showEvent(late);
    view->bottomTabs()->setCurrentWidget(view->details());
    QTest::qWait(50);
    m_window->grab().save(dir + QStringLiteral("/trust-details-parents.png"));
    OperatorPanel* ops = view->operatorPanel();
    view->bottomTabs()->setCurrentWidget(ops);
    for (int r = 0; r < ops->proxy()->rowCount(); ++r)
        if (ops->proxy()->index(r, 0).data().toString() == QLatin1String("aten::linear"))
            ops->view()->setCurrentIndex(ops->proxy()->index(r, 0));
    QTest::qWait(50);
    m_window->grab().save(dir + QStringLiteral("/trust-operator-python-stack.png"));
    ops->findChild<QComboBox*>()->setCurrentIndex(2);
    QVERIFY(waitAnalysis(view));
    QTest::qWait(50);
    m_window->grab().save(dir + QStringLiteral("/trust-annotations.png"));
    ops->findChild<QComboBox*>()->setCurrentIndex(0);
    QVERIFY(waitAnalysis(view));
    const EventRef kernel = view->kernelPanel()->proxy()->index(0, 0).data(EventRole).value<EventRef>();
    view->timeline()->setSelected(kernel);
    view->details()->showEvent(kernel);
    view->bottomTabs()->setCurrentWidget(view->details());
    QTest::qWait(50);
    m_window->grab().save(dir + QStringLiteral("/trust-kernel-details.png"));
    view->bottomTabs()->setCurrentWidget(view->kernelPanel());
    QTest::qWait(50);
    m_window->grab().save(dir + QStringLiteral("/trust-kernels.png"));
    TraceView* old = open(
        "pytorch__kineto/tb_plugin__samples__resnet50_num_workers_0__worker0.1623143566756.pt.trace.json.gz");
    QVERIFY(old);
    old->bottomTabs()->setCurrentWidget(old->memoryPanel());
    QTest::qWait(50);
    m_window->grab().save(dir + QStringLiteral("/trust-memory-sizes-only.png"));
}

QTEST_MAIN(TestAnalysisPanels)
#include "tst_analysispanels.moc"
