// The comparison tab: both traces load, the diff tables match core/analysis/jobs/diff, and the timelines stay
// aligned by their first step while either is zoomed or panned.
#include "analysis/ops/summary.h"
#include "panels/detailspanel.h"
#include "query/kernelshortname.h"
#include "query/search.h"
#include "shell/mainwindow.h"
#include "tables/tablecells.h"
#include "tables/tablemodels.h"
#include "testsupport.h"
#include "timeline/timelinerenderer.h"
#include "timeline/timelinewidget.h"
#include "views/compareview.h"

#include <QApplication>
#include <QLabel>
#include <QRegularExpression>
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
    void doubleClickAlignsOnTheSameCall();
    void failedSideReportsError();
    void doubleClickMarksBothSides_data();
    void doubleClickMarksBothSides();
    void detailsFollowEitherTimeline();
    void firstScreenShowsBothGpus();
    void figuresATraceCannotGiveAreNa();
    void areaComparedOnBothSides();

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
    // Each kernel's time per call on both sides and its change per call, beside the totals.
    QCOMPARE(view->kernelTable()->horizontalHeaderItem(7)->text(), QStringLiteral("Per call A"));
    QCOMPARE(view->kernelTable()->horizontalHeaderItem(9)->text(), QStringLiteral("Per call Δ"));
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
    // Operators have the kernels' per-call and per-step columns (issue 61 item 11); the Summary names what
    // moved most.
    QCOMPARE(view->operatorTable()->horizontalHeaderItem(10)->text(), QStringLiteral("Per call A"));
    QCOMPARE(view->operatorTable()->horizontalHeaderItem(13)->text(), QStringLiteral("Per step A"));
    QVERIFY(!view->operatorTable()->isColumnHidden(13)); // six steps on each side
    const int copyRow = [&] {
        for (int r = 0; r < view->operatorTable()->rowCount(); ++r)
            if (view->operatorTable()->item(r, 0)->text() == QStringLiteral("aten::copy_")) return r;
        return -1;
    }();
    QVERIFY(copyRow >= 0);
    QVERIFY2(view->operatorTable()->item(copyRow, 12)->text().contains(QStringLiteral("-76.1%")),
             qPrintable(view->operatorTable()->item(copyRow, 12)->text()));
    QVERIFY(view->summary()->text().contains(QLatin1String("Operators that moved most")));
    QVERIFY(
        view->summary()->text().contains(QLatin1String("CompiledFunctionBackward +171.432 ms (only in B)")));
}

// An H100 trace against an MI300 one: SM efficiency and occupancy, which the MI300 trace cannot give, read
// "n/a", never 0.0 %.
void TestCompare::figuresATraceCannotGiveAreNa() {
    MainWindow w;
    w.show();
    CompareView* view = w.openComparison(QString::fromStdString(test::tracePath(test::traces::qwenH100)),
                                         QString::fromStdString(test::tracePath(test::traces::bertMi300)));
    QSignalSpy ready(view, &CompareView::ready);
    QVERIFY(view->isReady() || ready.wait(60000));
    const QString text = view->summary()->text();
    QVERIFY2(text.contains(QRegularExpression(QStringLiteral("est. SM efficiency [0-9.]+% → n/a"))),
             qPrintable(text));
    QVERIFY2(text.contains(QRegularExpression(QStringLiteral("est. occupancy [0-9.]+% → n/a"))),
             qPrintable(text));
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

// Issue 52 item 9: double-clicking a kernel aligns the other timeline on the same call of it (its k-th),
// which is selected and shown, instead of the same offset from the first step (empty without ProfilerSteps);
// the first-step alignment comes back on request.
void TestCompare::doubleClickAlignsOnTheSameCall() {
    MainWindow w;
    w.resize(1400, 900);
    w.show();
    CompareView* view = openPair(w);
    QVERIFY(view);
    TimelineWidget* a = view->timelineA();
    TimelineWidget* b = view->timelineB();
    const TimeNs firstStep = view->alignmentOffset();
    // A kernel with several calls on both sides: its third call in A.
    const TraceStore& sa = a->store();
    const TraceStore& sb = b->store();
    const DiffRow* row = nullptr;
    for (const DiffRow& r : view->diff()->kernels)
        if (r.countA >= 3 && r.countB >= 3 && r.nameA.empty()) {
            row = &r;
            break;
        }
    QVERIFY(row);
    const SearchQuery exact{row->name, false, true, true};
    const SearchResult inA = searchSlices(sa, exact), inB = searchSlices(sb, exact);
    QVERIFY(inA.matches.size() >= 3 && inB.matches.size() >= 3);
    const EventRef third = inA.matches[2];
    a->revealEvent(third);
    QTest::qWait(20);
    const QPoint at = a->renderer().sliceRect(a->frame(), third).center().toPoint();
    QTest::mouseDClick(a, Qt::LeftButton, Qt::NoModifier, at);
    // B shows and selects its own third call of that kernel.
    QCOMPARE(b->selected(), inB.matches[2]);
    const TimeNs startB = sb.track(inB.matches[2].track).starts[inB.matches[2].index.value];
    const TimeNs startA = sa.track(third.track).starts[third.index.value];
    QCOMPARE(view->alignmentOffset(), startB - startA);
    QVERIFY(b->axis().start <= startB && b->axis().end > startB);
    QVERIFY2(view->alignmentLabel()->text().contains(QStringLiteral("call 3 of")),
             qPrintable(view->alignmentLabel()->text()));
    QVERIFY2(view->alignmentLabel()->text().contains(QStringLiteral("in step 1 of each")),
             qPrintable(view->alignmentLabel()->text()));

    // The k-th call is counted within its step (issue 61 item 11): A's first call of that kernel in its
    // fourth step goes to B's first call in B's fourth step, whatever the steps before held.
    const Overview& oa = view->diff()->overviewA;
    const Overview& ob = view->diff()->overviewB;
    QVERIFY(oa.steps.size() >= 4 && ob.steps.size() >= 4);
    const auto firstIn = [](const TraceStore& s, const SearchResult& r, const StepRange& step) {
        for (const EventRef m : r.matches)
            if (s.track(m.track).starts[m.index.value] >= step.start &&
                s.track(m.track).starts[m.index.value] < step.end)
                return m;
        return EventRef{};
    };
    const EventRef firstA = firstIn(sa, inA, oa.steps[3]), firstB = firstIn(sb, inB, ob.steps[3]);
    QVERIFY(firstA.isValid() && firstB.isValid());
    a->revealEvent(firstA);
    QTest::qWait(20);
    QTest::mouseDClick(a, Qt::LeftButton, Qt::NoModifier,
                       a->renderer().sliceRect(a->frame(), firstA).center().toPoint());
    QCOMPARE(b->selected(), firstB);
    QVERIFY2(view->alignmentLabel()->text().contains(QStringLiteral("call 1 of")) &&
                 view->alignmentLabel()->text().contains(QStringLiteral("in step 4 of each")),
             qPrintable(view->alignmentLabel()->text()));
    // Zooms stay together on the new alignment.
    a->zoomBy(0.5);
    QCOMPARE(b->axis().start, a->axis().start + view->alignmentOffset());
    view->alignAtFirstStep();
    QCOMPARE(view->alignmentOffset(), firstStep);
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

void TestCompare::doubleClickMarksBothSides_data() {
    QTest::addColumn<bool>("kernels");
    QTest::newRow("operator") << false;
    QTest::newRow("kernel") << true;
}

void TestCompare::doubleClickMarksBothSides() {
    QFETCH(bool, kernels);
    MainWindow w;
    w.resize(1400, 900);
    w.show();
    CompareView* view = openPair(w);
    QVERIFY(view && view->isReady());
    QTableWidget* table = kernels ? view->kernelTable() : view->operatorTable();
    view->tabs()->setCurrentWidget(table);
    // The first row present on both sides.
    int row = -1;
    for (int r = 0; r < table->rowCount() && row < 0; ++r)
        if (table->item(r, 1)->data(SortRole).toDouble() > 0 &&
            table->item(r, 2)->data(SortRole).toDouble() > 0)
            row = r;
    QVERIFY(row >= 0);
    const QString name = table->item(row, 0)->data(NameRole).toString();
    if (kernels) {
        // The cell shows the short name; the full one is in the tooltip and drives the marking.
        QCOMPARE(table->item(row, 0)->text(), QString::fromStdString(shortKernelName(name.toStdString())));
        QCOMPARE(table->item(row, 0)->toolTip(), name);
    }
    emit table->cellDoubleClicked(row, 0);
    TimeNs startOnA = 0;
    for (TimelineWidget* t : {view->timelineA(), view->timelineB()}) {
        const EventRef sel = t->selected();
        QVERIFY(sel.isValid());
        QCOMPARE(QString::fromUtf8(t->store().nameOf(sel).data(), qsizetype(t->store().nameOf(sel).size())),
                 name);
        const Track& track = t->store().track(sel.track);
        const TimeNs start = track.starts[sel.index.value];
        if (t == view->timelineA()) {
            // A's first, shown: it lies in the visible range.
            startOnA = start;
            QVERIFY(start <= t->axis().end);
            QVERIFY(track.endOf(sel.index.value) >= t->axis().start);
        } else {
            // On B the one nearest the same point of the run: no other slice of that name is nearer.
            const TimeNs at = startOnA + view->alignmentOffset();
            const TimeNs distance = std::llabs(start - at);
            const TraceStore& b = t->store();
            for (std::uint32_t ti = 0; ti < b.tracks().size(); ++ti)
                for (std::uint32_t r = 0; r < b.tracks()[ti].sliceCount(); ++r)
                    if (b.nameOf({TrackId(ti), EventIndex(r)}) == b.nameOf(sel))
                        QVERIFY(std::llabs(b.tracks()[ti].starts[r] - at) >= distance);
        }
    }
    // The views stay aligned, and the table stays in front.
    QCOMPARE(view->timelineB()->axis().start - view->timelineA()->axis().start, view->alignmentOffset());
    QCOMPARE(view->tabs()->currentWidget(), static_cast<QWidget*>(table));
}

void TestCompare::detailsFollowEitherTimeline() {
    MainWindow w;
    w.resize(1400, 900);
    w.show();
    CompareView* view = openPair(w);
    QVERIFY(view && view->isReady());
    // The tables get real room by default, not two rows.
    QVERIFY2(view->tabs()->height() >= 120, qPrintable(QString::number(view->tabs()->height())));
    for (TimelineWidget* t : {view->timelineA(), view->timelineB()}) {
        const EventRef ref{TrackId(0), EventIndex(0)};
        QVERIFY(t->store().track(ref.track).sliceCount() > 0);
        t->setSelected(ref);
        DetailsPanel* details = t == view->timelineA() ? view->detailsA() : view->detailsB();
        QCOMPARE(details->shown(), ref);
        QVERIFY(details->isVisibleTo(view));
        // The tab says which trace it shows.
        QCOMPARE(view->tabs()->tabText(view->tabs()->currentIndex()),
                 t == view->timelineA() ? QStringLiteral("Details (A)") : QStringLiteral("Details (B)"));
    }
}

void TestCompare::firstScreenShowsBothGpus() {
    // Two timelines share a 1920x1080 window: each shows every GPU stream at open (pinned on top) and its
    // threads' top lanes (capped, with the rest a click away).
    MainWindow w;
    w.resize(1920, 1080);
    w.show();
    CompareView* view = openPair(w);
    QVERIFY(view && view->isReady());
    QApplication::processEvents();
    for (TimelineWidget* t : {view->timelineA(), view->timelineB()}) {
        const double visibleBottom = t->height() - TimelineRenderer::rulerHeight;
        int streams = 0;
        for (std::uint32_t id = 0; id < t->store().tracks().size(); ++id) {
            if (t->store().tracks()[id].kind != TrackKind::GpuStream) continue;
            ++streams;
            QVERIFY(t->layout().isPinned(TrackId(id)));
            const int row = t->layout().firstRowOf(TrackId(id));
            QVERIFY(row >= 0);
            QVERIFY2(t->layout().rows()[std::size_t(row)].y < visibleBottom,
                     qPrintable(QStringLiteral("%1 of %2")
                                    .arg(t->layout().rows()[std::size_t(row)].y)
                                    .arg(visibleBottom)));
        }
        QVERIFY(streams > 0);
        QCOMPARE(t->layout().depthCap(), stackedDepthCap);
    }
}

// An area selected on A (its first step) is compared with the same time on B, by the alignment (issue 61 item
// 11): the tables and summary show that scope, said above them, until "Whole traces".
void TestCompare::areaComparedOnBothSides() {
    MainWindow w;
    w.resize(1400, 900);
    w.show();
    CompareView* view = openPair(w);
    QVERIFY(view && view->isReady());
    const std::size_t wholeSteps = view->diff()->overviewA.steps.size();
    QVERIFY(wholeSteps >= 2);
    const StepRange first = view->diff()->overviewA.steps.front();
    TimelineWidget* a = view->timelineA();
    QSignalSpy rescoped(view, &CompareView::rescoped);
    a->setAreaSelection(
        AreaSelection{TimeRange{first.start, first.end}, 0, int(a->layout().rows().size()) - 1});
    QVERIFY(rescoped.wait(30000));
    QCOMPARE(view->scope().fromA, first.start);
    QCOMPARE(view->scope().fromB, first.start + view->alignmentOffset());
    QCOMPARE(view->scope().toB - view->scope().fromB, first.end - first.start);
    QVERIFY2(view->scopeLabel()->text().contains(QStringLiteral("area selected on A")),
             qPrintable(view->scopeLabel()->text()));
    // A's side is what starts in that step: its kernel runs, as summarize counts them in the range.
    std::uint64_t inArea = 0, shown = 0;
    for (const KernelRow& k : summarize(a->store(), OperatorGrouping::Name, first.start, first.end).kernels)
        inArea += k.count;
    for (const DiffRow& r : view->diff()->kernels)
        shown += r.countA;
    QCOMPARE(shown, inArea);
    QCOMPARE(view->diff()->overviewA.steps.size(), std::size_t(1));
    std::uint64_t tableCalls = 0;
    for (int r = 0; r < view->kernelTable()->rowCount(); ++r)
        tableCalls += view->kernelTable()->item(r, 1)->data(SortRole).toULongLong();
    QCOMPARE(tableCalls, inArea);
    view->compareWhole();
    QVERIFY(rescoped.wait(30000));
    QVERIFY(view->scope().whole());
    QCOMPARE(view->diff()->overviewA.steps.size(), wholeSteps);
}

QTEST_MAIN(TestCompare)
#include "tst_compare.moc"
