// The comparison tab: both traces load, the diff tables match core/analysis/diff, and the timelines stay
// aligned by their first step while either is zoomed or panned.
#include "compareview.h"
#include "mainwindow.h"
#include "tablemodels.h"
#include "testsupport.h"
#include "timelinewidget.h"

#include <QLabel>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTableWidget>
#include <QTest>

using namespace kinetoscope;

class TestCompare : public QObject {
    Q_OBJECT
  private slots:
    void comparesRealPair();
    void zoomIsSynchronised();
    void failedSideReportsError();

  private:
    CompareView* openPair(MainWindow& w);
};

namespace {
const char* control =
    "facebookresearch__HolisticTraceAnalysis/tests__data__trace_diff__control__control.json.gz";
const char* candidate = "facebookresearch__HolisticTraceAnalysis/tests__data__trace_diff__test__test.json.gz";
} // namespace

CompareView* TestCompare::openPair(MainWindow& w) {
    CompareView* view = w.openComparison(QString::fromStdString(test::tracePath(control)),
                                         QString::fromStdString(test::tracePath(candidate)));
    QSignalSpy ready(view, &CompareView::ready);
    if (!view->isReady() && !ready.wait(60000)) return nullptr;
    return view;
}

void TestCompare::comparesRealPair() {
    MainWindow w;
    w.resize(1400, 900);
    w.show();
    CompareView* view = openPair(w);
    QVERIFY(view && view->isReady());
    QCOMPARE(w.tabs()->count(), 1);
    QVERIFY(w.tabs()->tabText(0).contains(QStringLiteral("↔")));
    const TraceDiff* d = view->diff();
    QCOMPARE(view->operatorTable()->rowCount(), int(d->operators.size()));
    QCOMPARE(view->kernelTable()->rowCount(), int(d->kernels.size()));
    // Sorted by device self Δ, largest first; the known regression leads (torch.compile's backward, only in
    // B).
    QCOMPARE(view->operatorTable()->item(0, 0)->text(), QStringLiteral("CompiledFunctionBackward"));
    QCOMPARE(view->operatorTable()->item(0, 9)->text(), QStringLiteral("only in B"));
    for (int r = 1; r < view->operatorTable()->rowCount(); ++r) {
        QVERIFY(view->operatorTable()->item(r - 1, 8)->data(SortRole).toDouble() >=
                view->operatorTable()->item(r, 8)->data(SortRole).toDouble());
    }
    QVERIFY(view->summary()->text().contains(QLatin1String("Step time")));
    QVERIFY(view->summary()->text().contains(QLatin1String("6 steps")));
    QVERIFY(view->summary()->text().contains(QLatin1String("est. SM efficiency")));
    QVERIFY(view->summary()->text().contains(QLatin1String("Per-step breakdown")));
}

void TestCompare::zoomIsSynchronised() {
    MainWindow w;
    w.resize(1400, 900);
    w.show();
    CompareView* view = openPair(w);
    QVERIFY(view);
    const TimeNs offset = view->alignmentOffset();
    TimelineWidget* a = view->timelineA();
    TimelineWidget* b = view->timelineB();
    QCOMPARE(b->axis().start, a->axis().start + offset);
    a->zoomBy(0.5);
    QCOMPARE(b->axis().start, a->axis().start + offset);
    QCOMPARE(b->axis().span(), a->axis().span());
    b->panBy(0.1);
    QCOMPARE(a->axis().start, b->axis().start - offset);
    // The offset aligns the first steps.
    QCOMPARE(b->trace().steps.front().start - a->trace().steps.front().start, offset);
}

void TestCompare::failedSideReportsError() {
    MainWindow w;
    CompareView* view = w.openComparison(QString::fromStdString(test::tracePath(control)),
                                         QStringLiteral("/nonexistent/b.json"));
    QSignalSpy failed(view, &CompareView::failed);
    QVERIFY(failed.wait(30000));
    QVERIFY(view->errorMessage().startsWith(QLatin1String("/nonexistent/b.json: ")));
    QVERIFY(!view->isReady());
}

QTEST_MAIN(TestCompare)
#include "tst_compare.moc"
