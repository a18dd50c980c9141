// The split between the timeline and the panels under it (app/panels/panellayout): the bounds, refusing a
// saved layout that would hide the timeline, View > Reset Layout, and panels that keep their size and their
// tab whatever is selected in them, on a real trace.
#include "panels/analysispanels.h"
#include "panels/detailspanel.h"
#include "panels/panellayout.h"
#include "shell/mainwindow.h"
#include "testsupport.h"
#include "timeline/timelinerenderer.h"
#include "timeline/timelinewidget.h"
#include "views/traceview.h"

#include <QApplication>
#include <QHeaderView>
#include <QLabel>
#include <QSettings>
#include <QSignalSpy>
#include <QSplitter>
#include <QTabWidget>
#include <QTableView>
#include <QTest>
#include <QTreeWidget>

using namespace kinetoscope;

class TestPanelLayout : public QObject {
    Q_OBJECT
  private slots:
    void initTestCase();
    void showsTimeline_data();
    void showsTimeline();
    void savedSizesReadBack();
    void panelsNeverTakeTheWindow();
    void refusesLayoutHidingTimeline_data();
    void refusesLayoutHidingTimeline();
    void resetLayout();
    void panelJumpKeepsItsTab();
    void firstScreenShowsGpuStreams_data();
    void firstScreenShowsGpuStreams();
    void defaultSplitShowsTenRows();
    void windowFitsTheScreen_data();
    void windowFitsTheScreen();

  private:
    TraceView* openReady(MainWindow& w, const char* trace = nullptr, QSize size = QSize(1400, 1000));
};

namespace {
// A real trace with kernels, modules (with_stack) and memory: every panel has content.
const char* const qwen = "AMD-AGI__TraceLens/tests__traces__h100__Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz";

QByteArray stateWithSizes(int timeline, int panels) {
    QSplitter s(Qt::Vertical);
    s.addWidget(new QWidget(&s));
    s.addWidget(new QWidget(&s));
    s.resize(200, timeline + panels + s.handleWidth());
    s.setSizes({timeline, panels});
    return s.saveState();
}

int total(const QList<int>& sizes) {
    return sizes.value(0) + sizes.value(1);
}
} // namespace

void TestPanelLayout::initTestCase() {
    QCoreApplication::setOrganizationName(QStringLiteral("KinetoscopeTests"));
    QCoreApplication::setApplicationName(QStringLiteral("tst_panellayout"));
    QSettings().clear();
}

TraceView* TestPanelLayout::openReady(MainWindow& w, const char* trace, QSize size) {
    w.resize(size);
    w.show();
    if (!QTest::qWaitForWindowExposed(&w)) return nullptr;
    TraceView* view = w.openTrace(QString::fromStdString(test::tracePath(trace ? trace : qwen)));
    QSignalSpy analysed(view, &TraceView::analysisReady);
    if (!QTest::qWaitFor([&] { return view->state() != TraceView::State::Loading; }, 30000)) return nullptr;
    if (view->state() != TraceView::State::Ready) return nullptr;
    if (!view->analysis() && !analysed.wait(30000)) return nullptr;
    QApplication::processEvents();
    return view;
}

void TestPanelLayout::showsTimeline_data() {
    QTest::addColumn<int>("timeline");
    QTest::addColumn<int>("panels");
    QTest::addColumn<bool>("shows");
    QTest::newRow("default 3:1") << 750 << 250 << true;
    QTest::newRow("even") << 500 << 500 << true;
    QTest::newRow("share 49%: panels enlarged, not brought back") << 490 << 510 << false;
    QTest::newRow("share 40%") << 400 << 600 << false;
    // The report: the timeline about 150 px of a 1080-px window.
    QTest::newRow("cramped") << 150 << 850 << false;
    QTest::newRow("small window, share fine, too short") << 200 << 100 << false;
    QTest::newRow("panels collapsed") << 1000 << 0 << true;
}

void TestPanelLayout::showsTimeline() {
    QFETCH(int, timeline);
    QFETCH(int, panels);
    QFETCH(bool, shows);
    QCOMPARE(panellayout::showsTimeline({timeline, panels}), shows);
    QVERIFY(!panellayout::showsTimeline({}));
    QVERIFY(!panellayout::showsTimeline({0, 0}));
}

void TestPanelLayout::savedSizesReadBack() {
    QCOMPARE(panellayout::savedSizes(stateWithSizes(700, 300)), (QList<int>{700, 300}));
    QVERIFY(panellayout::savedSizes(QByteArray("not a splitter state")).isEmpty());
    QVERIFY(panellayout::savedSizes({}).isEmpty());
    // Ten table rows' height for the panels (360 px), the rest for the timeline; a quarter once that is more;
    // in a small window the timeline keeps the larger part.
    QCOMPARE(panellayout::defaultSizes(790), (QList<int>{435, 355}));
    QCOMPARE(panellayout::defaultSizes(1000), (QList<int>{640, 360}));
    QCOMPARE(panellayout::defaultSizes(2000), (QList<int>{1500, 500}));
    QCOMPARE(panellayout::defaultSizes(600), (QList<int>{330, 270}));
    QCOMPARE(panellayout::defaultSizes(200).value(1), panellayout::panelsMinimumHeight);
}

void TestPanelLayout::panelsNeverTakeTheWindow() {
    QSettings().clear();
    MainWindow w;
    TraceView* view = openReady(w);
    QVERIFY(view);
    QSplitter* split = view->splitter();
    const QList<int> before = split->sizes();
    QVERIFY2(panellayout::showsTimeline(before),
             qPrintable(QStringLiteral("%1 %2").arg(before[0]).arg(before[1])));

    // Select a kernel row (its launch chain fills the side), every module (the tree), each tab in turn.
    QTabWidget* tabs = view->bottomTabs();
    tabs->setCurrentWidget(view->kernelPanel());
    auto* kernels = view->kernelPanel()->findChild<QTableView*>();
    QVERIFY(kernels && kernels->model()->rowCount() > 0);
    for (int r = 0; r < std::min(20, kernels->model()->rowCount()); ++r)
        kernels->setCurrentIndex(kernels->model()->index(r, 0));
    tabs->setCurrentWidget(view->modulePanel());
    auto* modules = view->modulePanel()->findChild<QTreeWidget*>();
    QVERIFY(modules && modules->topLevelItemCount() > 0);
    modules->expandAll();
    modules->setCurrentItem(modules->topLevelItem(0));
    for (int i = 0; i < tabs->count(); ++i) {
        tabs->setCurrentIndex(i);
        QApplication::processEvents();
    }
    // The panels did not grow (the window's own chrome may take a few pixels from both), and the share stays.
    const QList<int> after = split->sizes();
    QVERIFY2(after[1] <= before[1], qPrintable(QStringLiteral("%1 -> %2").arg(before[1]).arg(after[1])));
    QVERIFY(std::abs(double(after[0]) / total(after) - double(before[0]) / total(before)) < 0.02);
    // Even with content that asks for more height than the panels have.
    QVERIFY(tabs->minimumSizeHint().height() > panellayout::panelsMinimumHeight);

    // The splitter still moves both ways, to the bounds and no further.
    const int all = total(after);
    split->setSizes({all - 10, 10});
    QCOMPARE(split->sizes().value(1), panellayout::panelsMinimumHeight);
    split->setSizes({10, all - 10});
    QCOMPARE(split->sizes().value(0), panellayout::timelineMinimumHeight);
    split->setSizes({all / 2, all - all / 2});
    QCOMPARE(split->sizes(), (QList<int>{all / 2, all - all / 2}));
}

void TestPanelLayout::refusesLayoutHidingTimeline_data() {
    QTest::addColumn<int>("timeline");
    QTest::addColumn<int>("panels");
    QTest::addColumn<bool>("restored");
    QTest::newRow("cramped") << 150 << 850 << false;
    QTest::newRow("kept") << 600 << 400 << true;
}

void TestPanelLayout::refusesLayoutHidingTimeline() {
    QFETCH(int, timeline);
    QFETCH(int, panels);
    QFETCH(bool, restored);
    QSettings().clear();
    QSettings().setValue(QStringLiteral("traceView/splitter"), stateWithSizes(timeline, panels));
    MainWindow w;
    TraceView* view = openReady(w);
    QVERIFY(view);
    const QList<int> sizes = view->splitter()->sizes();
    QVERIFY(panellayout::showsTimeline(sizes));
    QCOMPARE(QSettings().contains(QStringLiteral("traceView/splitter")), restored);
    const double share = double(sizes[0]) / total(sizes);
    if (restored)
        QVERIFY2(std::abs(share - 0.6) < 0.05, qPrintable(QString::number(share)));
    else // the default split: ten table rows under the panels' tabs, the timeline at least half
        QVERIFY2(share >= panellayout::timelineMinimumShare && share <= 0.76,
                 qPrintable(QString::number(share)));
}

void TestPanelLayout::resetLayout() {
    QSettings().clear();
    MainWindow w;
    TraceView* view = openReady(w);
    QVERIFY(view);
    QSplitter* split = view->splitter();
    const int all = total(split->sizes());
    // A drag saves the split.
    split->setSizes({all / 2, all - all / 2});
    emit split->splitterMoved(all / 2, 1);
    QVERIFY(QSettings().contains(QStringLiteral("traceView/splitter")));
    // View > Reset Layout, from the menu as a user reaches it.
    QAction* reset = nullptr;
    for (QAction* a : w.findChildren<QAction*>())
        if (a->text() == QStringLiteral("&Reset Layout")) reset = a;
    QVERIFY(reset);
    reset->trigger();
    QCOMPARE(split->sizes(), panellayout::defaultSizes(all));
    QVERIFY(!QSettings().contains(QStringLiteral("traceView/splitter")));
}

void TestPanelLayout::panelJumpKeepsItsTab() {
    QSettings().clear();
    MainWindow w;
    TraceView* view = openReady(w);
    QVERIFY(view);
    const TraceStore& store = *view->trace()->store;
    EventRef kernel;
    for (std::uint32_t t = 0; t < store.tracks().size() && !kernel.isValid(); ++t)
        if (store.tracks()[t].kind == TrackKind::GpuStream && store.tracks()[t].sliceCount())
            kernel = {TrackId(t), EventIndex(0)};
    QVERIFY(kernel.isValid());
    // A click in a panel that reveals an event keeps that panel in front...
    for (AnalysisPanel* panel : std::initializer_list<AnalysisPanel*>{
             view->modulePanel(), view->kernelPanel(), view->operatorPanel()}) {
        view->bottomTabs()->setCurrentWidget(panel);
        emit panel->jumpRequested(kernel);
        QCOMPARE(view->timeline()->selected(), kernel);
        QCOMPARE(view->bottomTabs()->currentWidget(), static_cast<QWidget*>(panel));
        view->timeline()->setSelected({});
    }
    // ...while a selection made on the timeline shows its Details.
    view->timeline()->setSelected(kernel);
    QCOMPARE(view->bottomTabs()->currentWidget(), static_cast<QWidget*>(view->details()));
}

void TestPanelLayout::firstScreenShowsGpuStreams_data() {
    QTest::addColumn<QString>("trace");
    QTest::addColumn<QSize>("window");
    // with_stack traces: Python frames 28 to 60 deep used to push the GPU streams below the fold, and then
    // the profiler's own Traces and Spans rows, a tqdm thread's idle frames and the GPU's derived lanes above
    // its streams did, at the default 1400x900 and on Qwen even at 1920x1080.
    const char* const traces[][2] = {
        {"qwen_h100", qwen},
        {"b200_eager", "AMD-AGI__TraceLens/tests__traces__b200__eager_trace.json.gz"},
        {"sglang_decode",
         "AMD-AGI__TraceLens/tests__traces__inference__sglang_decode__capture_traces__bs_32_rank0.json.gz"},
        {"ddp_resnet18_mi300",
         "AMD-AGI__TraceLens/tests__traces__mi300__ddp_resnet18_no_pool__train_resnet18.json.gz"},
        {"xdit_flux", "AMD-AGI__TraceLens/"
                      "tests__traces__inference__xdit_flux.1__capture_traces__capture_trace_rank_0.json.gz"},
        {"owlv2_mi300",
         "AMD-AGI__TraceLens/tests__traces__mi300__google_owlv2-large-patch14-ensemble__1016001.json.gz"},
    };
    // Every one at the default window; the first three (the largest Python stacks) on a 1080-line screen too.
    for (std::size_t i = 0; i < std::size(traces); ++i)
        for (QSize size : {QSize(1400, 900), QSize(1920, 1080)})
            if (size.width() == 1400 || i < 3)
                QTest::newRow(qPrintable(
                    QStringLiteral("%1 %2x%3").arg(traces[i][0]).arg(size.width()).arg(size.height())))
                    << QString::fromLatin1(traces[i][1]) << size;
}

void TestPanelLayout::firstScreenShowsGpuStreams() {
    QFETCH(QString, trace);
    QFETCH(QSize, window);
    QSettings().clear();
    MainWindow w;
    const QByteArray path = trace.toUtf8();
    TraceView* view = openReady(w, path.constData(), window);
    QVERIFY(view);
    TimelineWidget* t = view->timeline();
    const TraceStore& s = t->store();
    const LaneLayout& layout = t->layout();
    const double visibleBottom = t->height() - TimelineRenderer::rulerHeight;
    int streams = 0;
    for (std::uint32_t id = 0; id < s.tracks().size(); ++id) {
        if (s.tracks()[id].kind != TrackKind::GpuStream) continue;
        ++streams;
        const int row = layout.firstRowOf(TrackId(id));
        QVERIFY(row >= 0);
        const LaneRow& lane = layout.rows()[std::size_t(row)];
        QVERIFY2(lane.y - t->frame().scrollY >= 0 &&
                     lane.y + lane.height - t->frame().scrollY <= visibleBottom,
                 qPrintable(QStringLiteral("stream row at %1 of %2 px").arg(lane.y).arg(visibleBottom)));
        // Each GPU's streams come first in its group, its derived lanes (utilisation, queue, bandwidth)
        // after.
        const LaneGroup& gpu = layout.groups()[layout.groupOf(TrackId(id))];
        QVERIFY(!gpu.tracks.empty() && gpu.tracks[0].value < s.tracks().size());
    }
    QVERIFY(streams > 0);
    // And the top-level operators of the main thread: its compact view's first lanes are on screen too.
    bool compactThread = false;
    for (std::uint32_t id = 0; id < s.tracks().size(); ++id) {
        const HostView* v = layout.hostViewOf(TrackId(id));
        if (!v || layout.groups()[layout.groupOf(TrackId(id))].collapsed || v->host.sliceCount() == 0)
            continue;
        compactThread = true;
        const int row = layout.firstRowOf(TrackId(id));
        QVERIFY(row >= 0 && layout.rows()[std::size_t(row) + 1].y < visibleBottom);
    }
    QVERIFY(compactThread);
    // Processes without work fold to one row: the profiler's Traces and Spans rows, Qwen's tqdm thread.
    if (trace == QLatin1String(qwen)) {
        for (const LaneGroup& g : layout.groups()) {
            if (g.kind != LaneGroup::Kind::Process) continue;
            const bool idle =
                g.title == "python3 (Traces)" || g.title == "python3 (Spans)" || g.title == "python3 (0)";
            QVERIFY2(g.collapsed == idle, g.title.c_str());
        }
    }
}

// At the default split of a 1400x900 window the Kernels tab shows ten rows (it showed three), while the
// timeline keeps its first screen (firstScreenShowsGpuStreams checks that at the same split).
void TestPanelLayout::defaultSplitShowsTenRows() {
    QSettings().clear();
    MainWindow w;
    TraceView* view = openReady(w, qwen, QSize(1400, 900));
    QVERIFY(view);
    view->bottomTabs()->setCurrentWidget(view->kernelPanel());
    QApplication::processEvents();
    QTableView* table = view->kernelPanel()->view();
    QVERIFY(table->model()->rowCount() >= 10);
    const int rows = table->viewport()->height() / table->verticalHeader()->defaultSectionSize();
    QVERIFY2(rows >= 10,
             qPrintable(QStringLiteral("%1 rows in %2 px").arg(rows).arg(table->viewport()->height())));
    TimelineWidget* t = view->timeline();
    for (std::uint32_t id = 0; id < t->store().tracks().size(); ++id) {
        if (t->store().tracks()[id].kind != TrackKind::GpuStream) continue;
        const LaneRow& lane = t->layout().rows()[std::size_t(t->layout().firstRowOf(TrackId(id)))];
        QVERIFY(lane.y + lane.height <= t->height() - TimelineRenderer::rulerHeight);
    }
}

// No window opens larger than the screen's available area, nor partly off it (a 1080-line screen with a 40 px
// panel at the bottom; a frame of 32 px title bar and 1 px borders).
void TestPanelLayout::windowFitsTheScreen_data() {
    QTest::addColumn<QRect>("want");
    QTest::addColumn<QRect>("fitted");
    QTest::newRow("fits already") << QRect(100, 100, 1400, 900) << QRect(100, 100, 1400, 900);
    QTest::newRow("too tall: the distributed window of eight ranks")
        << QRect(100, 60, 1400, 1605) << QRect(100, 32, 1400, 1007);
    QTest::newRow("too wide and tall") << QRect(0, 0, 2560, 1600) << QRect(1, 32, 1918, 1007);
    QTest::newRow("off the right and bottom edges")
        << QRect(1000, 700, 1400, 900) << QRect(519, 139, 1400, 900);
    QTest::newRow("off the top-left") << QRect(-300, -50, 800, 600) << QRect(1, 32, 800, 600);
}

void TestPanelLayout::windowFitsTheScreen() {
    QFETCH(QRect, want);
    QFETCH(QRect, fitted);
    const QRect available(0, 0, 1920, 1040);
    const QMargins frame(1, 32, 1, 1);
    const QRect got = panellayout::fittedToScreen(want, available, frame);
    QCOMPARE(got, fitted);
    QVERIFY(available.contains(got.marginsAdded(frame)));
}

QTEST_MAIN(TestPanelLayout)
#include "tst_panellayout.moc"
