// The Query tab on a real trace (issue 62): a query runs off the UI thread into a sortable table; a result
// row that names a slice selects it on the timeline; a result with ts and dur pinned as a track draws its
// rows on a lane of their own, a click on one selecting the slice it stands for; Cancel stops a query that
// would never end and the tab runs the next; errors say where; the area's slices and a panel's numbers open
// as SQL.
#include "panels/areasummarypanel.h"
#include "panels/operatorpanel.h"
#include "panels/querypanel.h"
#include "shell/mainwindow.h"
#include "testsupport.h"
#include "timeline/timelinewidget.h"
#include "views/traceview.h"

#include <QAbstractItemModelTester>
#include <QComboBox>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QTabWidget>
#include <QTableView>
#include <QTest>

using namespace kinetoscope;

class TestQueryPanel : public QObject {
    Q_OBJECT
  private slots:
    void initTestCase();
    void rowsSelectTheirSlices();
    void pinnedAsATrack();
    void cancelAndErrors();
    void areaAndPanelsOpenAsQueries();
    void snapshot();

  private:
    bool runAndWait(QueryPanel* panel, const QString& sql, int timeoutMs = 30000);
    MainWindow* m_window = nullptr;
    TraceView* m_view = nullptr;
};

void TestQueryPanel::initTestCase() {
    QCoreApplication::setOrganizationName(QStringLiteral("KinetoscopeTests"));
    QCoreApplication::setApplicationName(QStringLiteral("tst_querypanel"));
    QSettings().clear();
    m_window = new MainWindow;
    m_window->resize(1600, 1000);
    m_window->show();
    m_view = m_window->openTrace(QString::fromStdString(test::tracePath(test::traces::qwenH100)));
    QVERIFY(QTest::qWaitFor([&] { return m_view->state() != TraceView::State::Loading; }, 30000));
    QCOMPARE(m_view->state(), TraceView::State::Ready);
    QVERIFY(m_view->queryPanel());
    m_view->bottomTabs()->setCurrentWidget(m_view->queryPanel());
}

bool TestQueryPanel::runAndWait(QueryPanel* panel, const QString& sql, int timeoutMs) {
    QSignalSpy done(panel, &QueryPanel::finished);
    panel->setSql(sql);
    panel->run();
    return done.wait(timeoutMs);
}

void TestQueryPanel::rowsSelectTheirSlices() {
    QueryPanel* panel = m_view->queryPanel();
    QAbstractItemModelTester tester(panel->proxy(), QAbstractItemModelTester::FailureReportingMode::QtTest);
    QVERIFY(runAndWait(panel, QStringLiteral("SELECT id, name, dur FROM kernel ORDER BY dur DESC LIMIT 20")));
    QVERIFY2(panel->result() && panel->result()->ok(), qPrintable(panel->status()->text()));
    QCOMPARE(panel->proxy()->rowCount(), 20);
    QVERIFY(panel->status()->text().contains(QStringLiteral("20 rows")));
    // Sorting is numeric: by dur ascending, the first row is the shortest of the twenty.
    panel->view()->sortByColumn(2, Qt::AscendingOrder);
    const qlonglong first = panel->proxy()->index(0, 2).data(Qt::EditRole).toLongLong();
    const qlonglong last = panel->proxy()->index(19, 2).data(Qt::EditRole).toLongLong();
    QVERIFY(first <= last);
    // A click on a row selects its kernel on the timeline, and the Query tab stays in front.
    const QModelIndex row = panel->proxy()->index(19, 0);
    panel->view()->setCurrentIndex(row);
    const auto ref = panel->database()->sliceOf(row.data(Qt::EditRole).toLongLong());
    QVERIFY(ref);
    QCOMPARE(m_view->timeline()->selected(), *ref);
    QCOMPARE(m_view->bottomTabs()->currentWidget(), static_cast<QWidget*>(panel));
    QCOMPARE(m_view->trace()->store->nameOf(*ref), row.siblingAtColumn(1).data().toString().toStdString());
    // The history remembers the query.
    QCOMPARE(panel->history()->itemData(0).toString(), panel->sql());
}

void TestQueryPanel::pinnedAsATrack() {
    QueryPanel* panel = m_view->queryPanel();
    TimelineWidget* timeline = m_view->timeline();
    const std::size_t before = timeline->derivedTracks().size();
    QVERIFY(
        runAndWait(panel, QStringLiteral("SELECT id, ts, dur, name FROM kernel ORDER BY dur DESC LIMIT 40")));
    QVERIFY(panel->pinButton()->isEnabled());
    panel->pinButton()->click();
    QCOMPARE(timeline->derivedTracks().size(), before + 1);
    const DerivedTrack& track = timeline->derivedTracks().back();
    QCOMPARE(track.track().sliceCount(), std::size_t(40));
    // Its rows are the kernels, lane by lane; each stands for its kernel.
    const TraceStore& s = *m_view->trace()->store;
    for (std::uint32_t r = 0; r < track.track().sliceCount(); ++r) {
        const EventRef source = track.sourceOf(r);
        QVERIFY(source.isValid());
        QCOMPARE(track.track().starts[r], s.track(source.track).starts[source.index.value]);
        QCOMPARE(track.track().names[r], s.track(source.track).names[source.index.value]);
    }
    // A result without ts and dur cannot be pinned; gaps (rows of no name the trace has) can.
    QVERIFY(runAndWait(panel, QStringLiteral("SELECT name, count(*) FROM kernel GROUP BY name")));
    QVERIFY(!panel->pinButton()->isEnabled());
    QVERIFY(runAndWait(
        panel, QStringLiteral("SELECT 'gap' AS name, ts - 1000 AS ts, 1000 AS dur FROM kernel LIMIT 5")));
    panel->pinButton()->click();
    QCOMPARE(timeline->derivedTracks().size(), before + 2);
    QCOMPARE(timeline->derivedTracks().back().track().sliceCount(), std::size_t(5));
    // Drawn without trouble (a name the trace does not have, no category).
    timeline->fitAll();
    QVERIFY(!timeline->grab().isNull());
}

void TestQueryPanel::cancelAndErrors() {
    QueryPanel* panel = m_view->queryPanel();
    QSignalSpy done(panel, &QueryPanel::finished);
    panel->setSql(QStringLiteral(
        "WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n) SELECT count(*) FROM n"));
    panel->run();
    QVERIFY(panel->running());
    QVERIFY(panel->cancelButton()->isEnabled());
    QTest::qWait(300);
    QVERIFY(panel->running()); // still counting: the UI thread is free meanwhile
    panel->cancelButton()->click();
    QVERIFY(done.wait(10000));
    QVERIFY(!panel->running());
    QVERIFY2(panel->status()->text().startsWith(QStringLiteral("Cancelled")),
             qPrintable(panel->status()->text()));
    // The next query runs.
    QVERIFY(runAndWait(panel, QStringLiteral("SELECT count(*) FROM slice")));
    QCOMPARE(panel->result()->rows.at(0).at(0),
             sql::Value(std::int64_t(m_view->trace()->store->sliceCount())));
    // An error names where, and puts the cursor there; a write is refused; the last result stays.
    QVERIFY(runAndWait(panel, QStringLiteral("SELECT name,\n  nosuch FROM slice")));
    QVERIFY2(panel->status()->text().startsWith(QStringLiteral("line 2, column 3")),
             qPrintable(panel->status()->text()));
    QCOMPARE(panel->editor()->textCursor().blockNumber(), 1);
    QVERIFY(runAndWait(panel, QStringLiteral("DELETE FROM slice")));
    QVERIFY2(panel->status()->text().contains(QStringLiteral("may not be modified")),
             qPrintable(panel->status()->text()));
    QCOMPARE(panel->proxy()->rowCount(), 1);
}

void TestQueryPanel::areaAndPanelsOpenAsQueries() {
    QueryPanel* panel = m_view->queryPanel();
    // The Operators table's numbers.
    QSignalSpy done(panel, &QueryPanel::finished);
    m_view->openQuery(m_view->queryOfPanel(m_view->operatorPanel()));
    QVERIFY(done.wait(30000));
    QVERIFY2(panel->result()->ok(), qPrintable(panel->status()->text()));
    QVERIFY(panel->result()->rows.size() > 10);
    QCOMPARE(m_view->bottomTabs()->currentWidget(), static_cast<QWidget*>(panel));
    // Every stored example runs from the menu.
    QCOMPARE(panel->examples()->count(), 15);
    for (int i = 1; i < panel->examples()->count(); ++i) {
        QSignalSpy ran(panel, &QueryPanel::finished);
        panel->examples()->activated(i);
        QVERIFY(ran.wait(60000));
        QVERIFY2(panel->result() && panel->result()->ok() && !panel->status()->text().startsWith("line"),
                 qPrintable(panel->examples()->itemText(i) + ": " + panel->status()->text()));
    }
    // The area's slices: what overlaps its range on its tracks.
    TimelineWidget* timeline = m_view->timeline();
    const TraceStore& s = *m_view->trace()->store;
    const TimeNs from = s.minTime() + (s.maxTime() - s.minTime()) / 3;
    const TimeNs to = from + (s.maxTime() - s.minTime()) / 20;
    AreaSelection area{{from, to}, 0, int(timeline->layout().rows().size()) - 1};
    timeline->setAreaSelection(area);
    m_view->queryArea();
    QVERIFY(done.wait(30000));
    QVERIFY2(panel->result()->ok(), qPrintable(panel->status()->text()));
    std::size_t expected = 0;
    for (TrackId t : timeline->tracksOf(area))
        if (t.value < s.tracks().size())
            for (std::uint32_t r = 0; r < s.track(t).sliceCount(); ++r)
                expected += s.track(t).starts[r] < to && s.track(t).endOf(r) > from;
    QVERIFY(expected > 0);
    QCOMPARE(panel->result()->rows.size(), expected);
}

void TestQueryPanel::snapshot() {
    // KINETOSCOPE_SNAPSHOT_DIR=DIR saves the tab with launch gaps pinned as a track, to look at it.
    const QString dir = qEnvironmentVariable("KINETOSCOPE_SNAPSHOT_DIR");
    if (dir.isEmpty()) QSKIP("set KINETOSCOPE_SNAPSHOT_DIR to save the tab's image");
    QueryPanel* panel = m_view->queryPanel();
    m_view->timeline()->setAreaSelection(std::nullopt);
    QSignalSpy ran(panel, &QueryPanel::finished);
    panel->examples()->activated(3); // launch gaps
    QVERIFY(ran.wait(30000));
    panel->pinButton()->click();
    m_view->timeline()->fitAll();
    m_view->bottomTabs()->setCurrentWidget(panel);
    QTest::qWait(300);
    m_window->grab().save(dir + QStringLiteral("/query-tab.png"));
}

QTEST_MAIN(TestQueryPanel)
#include "tst_querypanel.moc"
