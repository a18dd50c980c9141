// The Roofline panel on real traces: its table is the report's perf model, selecting a row marks the op's
// calls on the timeline and rings its point, clicking a point selects its row; the chart's geometry puts
// points and roofs where the numbers say; a trace without shapes says how to get them.
#include "analysis/report/analysisresult.h"
#include "charts/rooflinechart.h"
#include "panels/rooflinepanel.h"
#include "shell/mainwindow.h"
#include "tables/rooflinetablemodel.h"
#include "tables/tablecells.h"
#include "testsupport.h"
#include "timeline/searchbar.h"
#include "timeline/timelinewidget.h"
#include "views/traceview.h"

#include <QAbstractItemModelTester>
#include <QLabel>
#include <QSettings>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QTabWidget>
#include <QTableView>
#include <QTableWidget>
#include <QTest>

#include <cmath>

using namespace kinetoscope;

class TestRooflinePanel : public QObject {
    Q_OBJECT
  private slots:
    void initTestCase();
    void tableIsTheReport();
    void selectionMarksCallsAndPoint();
    void clickingAPointSelectsItsRow();
    void geometry();
    void traceWithoutShapes();
    void snapshot();

  private:
    TraceView* open(const char* relative);
    MainWindow* m_window = nullptr;
};

void TestRooflinePanel::initTestCase() {
    QCoreApplication::setOrganizationName(QStringLiteral("KinetoscopeTests"));
    QCoreApplication::setApplicationName(QStringLiteral("tst_rooflinepanel"));
    QSettings().clear();
    m_window = new MainWindow;
    m_window->resize(1600, 1000);
    m_window->show();
}

TraceView* TestRooflinePanel::open(const char* relative) {
    TraceView* view = m_window->openTrace(QString::fromStdString(test::tracePath(relative)));
    QSignalSpy ready(view, &TraceView::analysisReady);
    if (!QTest::qWaitFor([&] { return view->state() != TraceView::State::Loading; }, 30000)) return nullptr;
    if (view->state() != TraceView::State::Ready) return nullptr;
    if (ready.isEmpty() && !ready.wait(30000)) return nullptr;
    view->bottomTabs()->setCurrentWidget(view->rooflinePanel());
    return view;
}

void TestRooflinePanel::tableIsTheReport() {
    TraceView* view = open(test::traces::qwenH100);
    QVERIFY(view);
    RooflinePanel* panel = view->rooflinePanel();
    QAbstractItemModelTester tester(panel->model(), QAbstractItemModelTester::FailureReportingMode::QtTest);
    const PerfModelReport& report = view->analysis()->perfModel;
    QCOMPARE(panel->model()->rowCount(), int(report.rows.size()));
    QVERIFY(panel->header()->text().contains(QStringLiteral("H100 SXM5 80GB")));
    QVERIFY2(panel->header()->text().contains(QStringLiteral("65.3%")), qPrintable(panel->header()->text()));
    // By device time: the 8944×1024 × 1024×2816 GEMM first, 610.5 TFLOP/s, 61.7% of the BF16 peak.
    auto cell = [&](int column) { return panel->proxy()->index(0, column).data().toString(); };
    QCOMPARE(cell(RooflineTableModel::Name), QStringLiteral("aten::mm"));
    QCOMPARE(cell(RooflineTableModel::InputDims), QStringLiteral("[[8944,1024],[1024,2816]]"));
    QCOMPARE(cell(RooflineTableModel::Tflops), QStringLiteral("610.5"));
    QCOMPARE(cell(RooflineTableModel::PeakPct), QStringLiteral("61.7%"));
    QCOMPARE(cell(RooflineTableModel::Bound), QStringLiteral("compute"));
    QCOMPARE(cell(RooflineTableModel::Category), QStringLiteral("GEMM · BF16"));
    // The GPU time no modelled op launched, by launcher; double-click shows its longest GPU event.
    QCOMPARE(panel->notModelled()->rowCount(), int(report.notModelled.size()));
    QVERIFY(panel->notModelled()->rowCount() > 0);
    emit panel->notModelled()->cellDoubleClicked(0, 2);
    const EventRef longest = panel->notModelled()->item(0, 0)->data(EventRole).value<EventRef>();
    QVERIFY(longest.isValid());
    QCOMPARE(view->timeline()->selected(), longest);
    // Every row with GPU time and FLOPs is a point.
    int placeable = 0;
    for (const PerfModelRow& r : report.rows)
        placeable +=
            r.tflops() && *r.tflops() > 0 && r.intensity() && *r.intensity() > 0; // (all finite here)
    QCOMPARE(int(panel->chart()->geometryNow().points.size()), placeable);
}

void TestRooflinePanel::selectionMarksCallsAndPoint() {
    TraceView* view = open(test::traces::qwenH100);
    QVERIFY(view);
    RooflinePanel* panel = view->rooflinePanel();
    QSignalSpy searched(view, &TraceView::searchFinished);
    const QModelIndex second = panel->proxy()->index(1, 0);
    panel->view()->setCurrentIndex(second);
    QVERIFY(searched.wait(10000));
    const QString name = second.data(NameRole).toString();
    // The name itself in the find bar, matched whole (it used to fill with an escaped regex of a template
    // name).
    QCOMPARE(view->searchBar()->text(), name);
    QVERIFY(view->searchBar()->isWholeName() && !view->searchBar()->isRegex());
    QVERIFY(view->matchCount() > 0);
    QCOMPARE(panel->chart()->selectedRow(), panel->proxy()->mapToSource(second).row());
    // Double-click jumps to the longest call of the row.
    emit panel->view()->doubleClicked(second);
    QCOMPARE(view->timeline()->selected(), second.data(EventRole).value<EventRef>());
}

void TestRooflinePanel::clickingAPointSelectsItsRow() {
    TraceView* view = open(test::traces::qwenH100);
    QVERIFY(view);
    RooflinePanel* panel = view->rooflinePanel();
    RooflineChart* chart = panel->chart();
    QVERIFY(QTest::qWaitForWindowExposed(m_window));
    const auto& points = chart->geometryNow().points;
    QVERIFY(!points.empty());
    // The smallest point is drawn on top: click it, at its centre.
    const RooflineGeometry::Point target = points.back();
    QCOMPARE(rooflinePointAt(chart->geometryNow(), target.center), target.row);
    QSignalSpy clicked(chart, &RooflineChart::rowClicked);
    QTest::mouseClick(chart, Qt::LeftButton, {}, target.center.toPoint());
    QCOMPARE(clicked.count(), 1);
    const QModelIndex current = panel->view()->currentIndex();
    QVERIFY(current.isValid());
    QCOMPARE(panel->proxy()->mapToSource(current).row(), target.row);
    QCOMPARE(chart->selectedRow(), target.row);
    // Nothing there: no selection change.
    QTest::mouseClick(chart, Qt::LeftButton, {}, QPoint(2, 2));
    QCOMPARE(clicked.count(), 1);
}

void TestRooflinePanel::geometry() {
    // Two GEMMs on an H100: one at 1000 FLOP/byte and 500 TFLOP/s (under the BF16 roof, right of the ridge),
    // one at 10 FLOP/byte and 20 TFLOP/s (under the bandwidth roof).
    const GpuPeaks* h100 = findGpuPeaks("NVIDIA H100 80GB HBM3");
    QVERIFY(h100);
    auto gemm = [&](double intensity, double tflops, TimeNs ns) {
        PerfModelRow r;
        r.name = "aten::mm";
        r.family = OpFamily::Gemm;
        r.compute = ComputeType::BF16;
        r.count = 1;
        r.deviceUnion = ns;
        r.flops = tflops * 1e12 * double(ns) * 1e-9;
        r.bytes = r.flops / intensity;
        r.peakTflops = h100->bf16;
        r.peakTbps = h100->memoryTBps;
        return r;
    };
    const std::vector<PerfModelRow> rows{gemm(1000, 500, 4000), gemm(10, 20, 1000)};
    const RooflineGeometry g = rooflineGeometry(rows, h100, QSizeF(600, 400));
    QCOMPARE(g.points.size(), std::size_t(2));
    QCOMPARE(g.points[0].row, 0); // the longer one first (painted under)
    QVERIFY(g.points[0].radius > g.points[1].radius);
    const QPointF a = g.points[0].center, b = g.points[1].center;
    QVERIFY(a.x() > b.x() && a.y() < b.y());
    QVERIFY(g.plot.contains(a) && g.plot.contains(b));
    // Log axes: 1000 is two decades right of 10.
    QVERIFY(std::abs((a.x() - b.x()) - 2 * g.plot.width() / (g.xMax - g.xMin)) < 1e-6);
    // The roofs: BF16's flat at 989.5 from the ridge (295.4 FLOP/byte), the bandwidth's diagonal up to it.
    QCOMPARE(g.roofs.size(), std::size_t(2));
    const auto& flat = g.roofs[0];
    const auto& diagonal = g.roofs[1];
    QVERIFY(!flat.memory && diagonal.memory);
    QCOMPARE(flat.label, QStringLiteral("BF16 989.5 TFLOP/s"));
    QCOMPARE(diagonal.label, QStringLiteral("3.35 TB/s"));
    QVERIFY(std::abs(flat.line.p1().y() - g.map(1, 989.5).y()) < 1e-6);
    QVERIFY((flat.line.p1() - diagonal.line.p2()).manhattanLength() < 1e-6);
    QVERIFY(a.y() > flat.line.p1().y()); // below the roof
    // Under the bandwidth roof: the diagonal at 10 FLOP/byte is 33.5 TFLOP/s, above the point's 20.
    QVERIFY(b.y() > g.map(10, 33.5).y());
    // No peaks: points, no roofs.
    QVERIFY(rooflineGeometry(rows, nullptr, QSizeF(600, 400)).roofs.empty());
}

void TestRooflinePanel::traceWithoutShapes() {
    TraceView* view = open(test::traces::resnet2020);
    QVERIFY(view);
    RooflinePanel* panel = view->rooflinePanel();
    QVERIFY2(panel->header()->text().contains(QStringLiteral("record_shapes=True")),
             qPrintable(panel->header()->text()));
    QCOMPARE(panel->model()->rowCount(), 0);
    QVERIFY(panel->chart()->geometryNow().points.empty());
}

void TestRooflinePanel::snapshot() {
    // KINETOSCOPE_SNAPSHOT_DIR=DIR saves the panel on two traces, to look at it.
    const QString dir = qEnvironmentVariable("KINETOSCOPE_SNAPSHOT_DIR");
    if (dir.isEmpty()) QSKIP("set KINETOSCOPE_SNAPSHOT_DIR to save panel images");
    for (const char* trace : {test::traces::qwenH100, test::traces::resnet18Mi300}) {
        TraceView* view = open(trace);
        QVERIFY(view);
        view->rooflinePanel()->view()->setCurrentIndex(view->rooflinePanel()->proxy()->index(0, 0));
        // The panels given most of the window, as a user studying the roofline drags them.
        if (auto* split = qobject_cast<QSplitter*>(view->bottomTabs()->parentWidget()))
            split->setSizes({300, 700});
        QTest::qWait(200);
        m_window->grab().save(
            QStringLiteral("%1/roofline-%2.png")
                .arg(dir, QString::fromLatin1(trace).section(QLatin1Char('/'), -1).left(24)));
    }
}

QTEST_MAIN(TestRooflinePanel)
#include "tst_rooflinepanel.moc"
