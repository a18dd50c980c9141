// The snapshot tab on real CUDA memory snapshots: opened like a trace (MainWindow::openFile, by content), its
// active-memory timeline at several zooms (every pixel what the raster says, hover and click on real bands),
// the keys, the tables at the peak and at a clicked moment, the allocator state, the filters, and the
// out-of-memory view on a real snapshot with an appended oom event (tests/make_oom_snapshot.py).
#include "charts/memorytimelinewidget.h"
#include "charts/segmentmapwidget.h"
#include "model/textformat.h"
#include "shell/mainwindow.h"
#include "snapshot/snapshotloader.h"
#include "testsupport.h"
#include "timeline/timelinewidget.h"
#include "views/snapshotview.h"
#include "views/traceview.h"

#include <QApplication>
#include <QFile>
#include <QLabel>
#include <QProcess>
#include <QSettings>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QTextBrowser>
#include <QTreeWidget>

using namespace kinetoscope;

class TestSnapshotView : public QObject {
    Q_OBJECT
  private slots:
    void initTestCase();
    void opensAsSnapshot();
    void timelineAtZooms_data();
    void timelineAtZooms();
    void keysAndDragZoom();
    void clickSelectsBandAndMoment();
    void tablesAtPeak();
    void allocatorState();
    void filters();
    void outOfMemory();
    void badFileKeepsOtherTabs();
    void linksToTraceOfTheSameRun();
    void zoomKeysAfterATableClick();
    void withoutHistoryAndOlderLayouts();

  private:
    SnapshotView* openReady(MainWindow& w, const QString& path);
};

namespace {

const char* const training =
    "snapshots/Wedsonlin__assignment2-systems__results__medium_1024_training_memory_snapshot.pickle";

QString trainingPath() {
    return QString::fromStdString(test::tracePath(training));
}

} // namespace

void TestSnapshotView::initTestCase() {
    QCoreApplication::setOrganizationName(QStringLiteral("KinetoscopeTests"));
    QCoreApplication::setApplicationName(QStringLiteral("tst_snapshotview"));
    QSettings().clear();
}

SnapshotView* TestSnapshotView::openReady(MainWindow& w, const QString& path) {
    w.resize(1400, 900);
    w.show();
    if (!QTest::qWaitForWindowExposed(&w)) return nullptr;
    auto* view = qobject_cast<SnapshotView*>(w.openFile(path));
    if (!view) return nullptr;
    if (!QTest::qWaitFor([&] { return view->state() != SnapshotView::State::Loading; }, 30000))
        return nullptr;
    if (view->state() == SnapshotView::State::Ready && view->timeline()) view->timeline()->waitForRaster();
    return view;
}

void TestSnapshotView::opensAsSnapshot() {
    MainWindow w;
    SnapshotView* view = openReady(w, trainingPath());
    QVERIFY(view);
    QCOMPARE(view->state(), SnapshotView::State::Ready);
    QCOMPARE(w.tabs()->count(), 1);
    QVERIFY(w.tabs()->tabText(0).endsWith(QStringLiteral(".pickle")));
    // The figures of `kinetoscope-cli memory` (its golden file): 22 331 events, the peak after event 3 738.
    QVERIFY2(view->summary()->text().contains(QStringLiteral("22331 events")),
             qPrintable(view->summary()->text()));
    QVERIFY(view->summary()->text().contains(QStringLiteral("after event 3738")));
    QCOMPARE(view->moment(), view->peakMoment());
    QCOMPARE(view->peakMoment(), std::int64_t(3737));
    QVERIFY(!view->oomMoment());
    QCOMPARE(view->tabs()->indexOf(view->oomPage()), -1);
    // File > Open lists snapshots, in the filter it starts with (a trace-only first filter hid them).
    const QString first = MainWindow::fileDialogFilter().section(QStringLiteral(";;"), 0, 0);
    QVERIFY2(first.startsWith(QStringLiteral("All supported files (")), qPrintable(first));
    for (const char* pattern : {"*.json.gz", "*.pickle", "*.pickle.gz", "*.kscw.gz"})
        QVERIFY2(first.contains(QLatin1String(pattern)), pattern);
}

void TestSnapshotView::timelineAtZooms_data() {
    QTest::addColumn<double>("zoom");
    QTest::newRow("whole") << 1.0;
    QTest::newRow("x8") << 8.0;
    QTest::newRow("x300") << 300.0;
    QTest::newRow("deepest") << 1e9;
}

void TestSnapshotView::timelineAtZooms() {
    QFETCH(double, zoom);
    MainWindow w;
    SnapshotView* view = openReady(w, trainingPath());
    QVERIFY(view);
    MemoryTimelineWidget* t = view->timeline();
    const double events = double(t->timeline()->eventCount());
    // Zoom around the peak.
    const double centre = double(view->peakMoment());
    const double span = std::max(4.0, (events + 1) / zoom);
    t->setView(centre - span / 2, centre + span / 2);
    QVERIFY(t->waitForRaster());
    QVERIFY(t->viewTo() - t->viewFrom() >= 4 - 1e-9);
    const MemoryTimeline::Raster& r = t->raster();
    QCOMPARE(r.height, int(t->plotRect().height()));
    // The y axis fits the visible curve's highest point.
    const auto first = std::int64_t(std::floor(t->viewFrom()));
    const auto last = std::int64_t(std::ceil(t->viewTo())) - 1;
    QVERIFY(r.bytesTop >= t->timeline()->maxActive(first, last));
    // Every pixel of the plot answers what the raster holds, and real bands answer with their allocation.
    const QRectF p = t->plotRect();
    int bands = 0;
    for (int i = 1; i < 40; ++i) {
        const QPointF pos(p.left() + p.width() * i / 40.0, p.bottom() - p.height() * 0.3);
        const auto hit = t->hitAt(pos);
        QVERIFY(hit);
        QVERIFY(hit->moment >= first && hit->moment <= last);
        if (hit->cell == MemoryTimeline::emptyCell) continue;
        const std::int32_t a = MemoryTimeline::sampleOf(hit->cell);
        // The allocation is alive at the column's moment and covers the byte under the pointer's pixel.
        QVERIFY(t->timeline()->allocations()[std::size_t(a)].aliveAfter(hit->moment));
        const auto band = t->timeline()->bandAt(hit->moment, hit->bytes);
        if (!MemoryTimeline::isMixed(hit->cell)) {
            QCOMPARE(band.allocation, a);
            ++bands;
        }
    }
    // A third of the way up, the training step's activations are bands many pixels tall at every zoom.
    QVERIFY(bands > 0);
    // The frame paints only the raster: it is measured, and a repaint after the raster is cheap.
    t->repaint();
    QVERIFY(!t->frameTimes().empty());
}

void TestSnapshotView::keysAndDragZoom() {
    MainWindow w;
    SnapshotView* view = openReady(w, trainingPath());
    QVERIFY(view);
    MemoryTimelineWidget* t = view->timeline();
    t->setFocus();
    const double whole = t->viewTo() - t->viewFrom();
    // The middle half, so that panning either way has room.
    t->setView(t->viewFrom() + whole / 4, t->viewTo() - whole / 4);
    QTest::keyClick(t, Qt::Key_W);
    QVERIFY(t->viewTo() - t->viewFrom() < whole / 2 * 0.9);
    const double from = t->viewFrom();
    QTest::keyClick(t, Qt::Key_D);
    QVERIFY(t->viewFrom() > from);
    QTest::keyClick(t, Qt::Key_A);
    QCOMPARE(t->viewFrom(), from);
    QTest::keyClick(t, Qt::Key_S);
    QTest::keyClick(t, Qt::Key_0);
    QCOMPARE(t->viewTo() - t->viewFrom(), whole);
    // Shift+drag zooms to the dragged range.
    const QRectF p = t->plotRect();
    const QPoint a(int(p.left() + p.width() * 0.25), int(p.center().y()));
    const QPoint b(int(p.left() + p.width() * 0.5), int(p.center().y()));
    QTest::mousePress(t, Qt::LeftButton, Qt::ShiftModifier, a);
    QTest::mouseMove(t, b);
    QTest::mouseRelease(t, Qt::LeftButton, Qt::ShiftModifier, b);
    QVERIFY(std::abs((t->viewTo() - t->viewFrom()) - whole / 4) < whole / 100);
    QVERIFY(t->waitForRaster());
}

void TestSnapshotView::clickSelectsBandAndMoment() {
    MainWindow w;
    SnapshotView* view = openReady(w, trainingPath());
    QVERIFY(view);
    MemoryTimelineWidget* t = view->timeline();
    const QRectF p = t->plotRect();
    // Low in the plot, left of the peak: a parameter or an activation, a band many pixels tall.
    QPoint pos;
    std::optional<MemoryTimelineWidget::Hit> hit;
    for (double f = 0.05; f < 0.6 && !(hit && hit->cell >= 0); f += 0.01) {
        pos = QPoint(int(p.left() + p.width() * 0.1), int(p.bottom() - p.height() * f));
        hit = t->hitAt(pos);
    }
    QVERIFY(hit && hit->cell >= 0);
    QTest::mouseClick(t, Qt::LeftButton, {}, pos);
    QCOMPARE(t->selectedAllocation(), hit->cell);
    QCOMPARE(view->moment(), hit->moment);
    QCOMPARE(t->marker(), std::optional<std::int64_t>(hit->moment));
    QCOMPARE(view->tabs()->currentWidget(), static_cast<QWidget*>(view->allocationText()));
    const AllocationLifetime& a = t->timeline()->allocations()[std::size_t(hit->cell)];
    const QString text = view->allocationText()->toPlainText();
    QVERIFY2(text.contains(QString::fromStdString(formatBytes(double(a.size)))), qPrintable(text));
    QVERIFY(text.contains(QStringLiteral(".py")));
    // The selected band is drawn apart from the others.
    QApplication::processEvents();
    const QImage image = t->grab().toImage();
    // (Beside the moment's marker line.)
    QCOMPARE(image.pixelColor(pos + QPoint(4, 0)), QColor(0x11, 0x18, 0x27));
}

void TestSnapshotView::tablesAtPeak() {
    MainWindow w;
    SnapshotView* view = openReady(w, trainingPath());
    QVERIFY(view);
    // At the peak, the largest alive are the softmax outputs (256 MiB, cs336_basics/nn_utils.py:6), as
    // `kinetoscope-cli memory` lists them; 1 432 allocations hold 22.5 GiB.
    QTreeWidget* alive = view->aliveTable();
    QVERIFY(alive->topLevelItemCount() > 0);
    QCOMPARE(alive->topLevelItem(0)->text(0), QStringLiteral("256 MiB"));
    QVERIFY(alive->topLevelItem(0)->text(4).startsWith(QStringLiteral("softmax (")));
    const QString aliveTab = view->tabs()->tabText(view->tabs()->indexOf(alive));
    QVERIFY2(aliveTab.contains(QStringLiteral("22.5 GiB in 1432")), qPrintable(aliveTab));
    // Grouped by stack: the einsums, then 24 softmax outputs of 256 MiB (6 GiB).
    QTreeWidget* stacks = view->stackTable();
    QVERIFY(stacks->topLevelItemCount() >= 2);
    QVERIFY(stacks->topLevelItem(0)->text(3).startsWith(QStringLiteral("einsum")));
    QCOMPARE(stacks->topLevelItem(1)->text(0), QStringLiteral("6.00 GiB"));
    QCOMPARE(stacks->topLevelItem(1)->text(1), QStringLiteral("24"));
    // A row selects its allocation on the timeline.
    alive->setCurrentItem(alive->topLevelItem(0));
    QVERIFY(view->timeline()->selectedAllocation() >= 0);
    QCOMPARE(
        view->timeline()->timeline()->allocations()[std::size_t(view->timeline()->selectedAllocation())].size,
        std::int64_t(256) << 20);
    // Another moment: before the first event only what was allocated before the trace is alive.
    view->setMoment(-1);
    for (int i = 0; i < alive->topLevelItemCount(); ++i)
        QCOMPARE(alive->topLevelItem(i)->text(2), QStringLiteral("before the trace"));
}

void TestSnapshotView::allocatorState() {
    MainWindow w;
    SnapshotView* view = openReady(w, trainingPath());
    QVERIFY(view);
    // At the last event: the file's own 234 segments, 23.4 GiB reserved.
    view->setMoment(view->timeline()->timeline()->eventCount() - 1);
    const AllocatorState& s = view->segmentMap()->state();
    QCOMPARE(s.segments.size(), std::size_t(234));
    QVERIFY2(view->stateFigures()->text().contains(QStringLiteral("23.4 GiB reserved")),
             qPrintable(view->stateFigures()->text()));
    QVERIFY(view->stateFigures()->text().contains(QStringLiteral("fragmentation")));
    QVERIFY(view->segmentMap()->minimumHeight() >= 234 * SegmentMapWidget::rowHeight);
    // At the peak there are fewer or as many segments, all of them holding the peak's active bytes.
    view->setMoment(view->peakMoment());
    const AllocatorState& p = view->segmentMap()->state();
    QVERIFY(p.segments.size() <= 234);
    QVERIFY(p.reservedBytes >= p.activeBytes - p.unplacedBytes);
}

// Issue 61. A snapshot dumped without allocation history (vLLM's): no time axis to draw (no wall of bands),
// the summary says so, and the tables show the snapshot's moment: what was allocated, largest first, and the
// segments. PyTorch 2.0's layout: the allocator state holds the blocks where they are (not 8 KiB at 0x0).
void TestSnapshotView::withoutHistoryAndOlderLayouts() {
    const QString data = QStringLiteral(KINETOSCOPE_SOURCE_DIR "/tests/data/snapshots/");
    MainWindow w;
    SnapshotView* view = openReady(w, data + QStringLiteral("no_history_training.pickle.gz"));
    QVERIFY(view);
    QVERIFY(view->timeline()->isHidden());
    QVERIFY2(view->summary()->text().contains(QStringLiteral("No allocation history was recorded")),
             qPrintable(view->summary()->text()));
    QVERIFY(view->aliveTable()->topLevelItemCount() > 0);
    QCOMPARE(view->segmentMap()->state().segments.size(), std::size_t(234));
    QVERIFY(view->segmentMap()->state().activeBytes > (std::int64_t(1) << 30));
    // (a pool id shows only for a private pool: these are all the default one)
    QVERIFY(SegmentMapWidget::poolText(view->segmentMap()->state().segments.front(), false).isEmpty());
    StateSegment graphPool;
    graphPool.poolId = {1, 0};
    QVERIFY(SegmentMapWidget::poolText(graphPool, false).contains(QStringLiteral("private pool (1, 0)")));

    SnapshotView* old = openReady(w, data + QStringLiteral("pt20_training.pickle.gz"));
    QVERIFY(old);
    QVERIFY(!old->timeline()->isHidden());
    old->setMoment(old->timeline()->timeline()->eventCount() - 1);
    QVERIFY(old->segmentMap()->state().activeBytes > (std::int64_t(1) << 30));
    QVERIFY(!old->stateFigures()->text().contains(QStringLiteral("8.00 KiB active")));
}

void TestSnapshotView::filters() {
    MainWindow w;
    SnapshotView* view = openReady(w, trainingPath());
    QVERIFY(view);
    // A pixel of a whole band under 256 MiB, and its colour before the filter.
    MemoryTimelineWidget* t = view->timeline();
    const QRectF p = t->plotRect();
    QPoint small;
    for (double x = 0.1; x < 0.9 && small.isNull(); x += 0.1)
        for (double f = 0.02; f < 0.9 && small.isNull(); f += 0.01) {
            const QPoint pos(int(p.left() + p.width() * x), int(p.bottom() - p.height() * f));
            const auto hit = t->hitAt(pos);
            if (hit && hit->cell >= 0 && hit->cell != t->selectedAllocation() &&
                t->timeline()->allocations()[std::size_t(hit->cell)].size < (std::int64_t(256) << 20))
                small = pos;
        }
    QVERIFY(!small.isNull());
    const QColor before = t->grab().toImage().pixelColor(small);
    view->setFilters(std::nullopt, std::int64_t(256) << 20, QString());
    QTreeWidget* alive = view->aliveTable();
    // At the peak: the allocations of 256 MiB or more, counted the slow way (the 24 softmax outputs and the
    // largest einsums).
    int expected = 0;
    for (const AllocationLifetime& a : view->timeline()->timeline()->allocations())
        expected += a.aliveAfter(view->moment()) && a.size >= (std::int64_t(256) << 20);
    QVERIFY(expected >= 24);
    QCOMPARE(alive->topLevelItemCount(), expected);
    for (int i = 0; i < alive->topLevelItemCount(); ++i)
        QVERIFY(alive->topLevelItem(i)->data(0, Qt::UserRole).toLongLong() >= (256LL << 20));
    // The timeline draws the others pale.
    const QColor after = t->grab().toImage().pixelColor(small);
    QVERIFY2(after.lightness() > before.lightness(),
             qPrintable(before.name() + QStringLiteral(" -> ") + after.name()));
    view->setFilters(std::nullopt, 0, QStringLiteral("optimizer.py"));
    QVERIFY(alive->topLevelItemCount() > 0);
    for (int i = 0; i < alive->topLevelItemCount(); ++i)
        QVERIFY(alive->topLevelItem(i)->toolTip(4).contains(QStringLiteral("optimizer.py")));
    view->setFilters(std::int64_t(12345), 0, QString());
    QCOMPARE(alive->topLevelItemCount(), 0);
    view->setFilters(std::nullopt, 0, QString());
    QVERIFY(alive->topLevelItemCount() > 24);
}

void TestSnapshotView::outOfMemory() {
    QTemporaryDir dir;
    const QString oom = dir.filePath(QStringLiteral("oom.pickle"));
    const int rc = QProcess::execute(
        QStringLiteral("/usr/bin/python3"),
        {QStringLiteral(KINETOSCOPE_SOURCE_DIR "/tests/make_oom_snapshot.py"), trainingPath(), oom});
    QCOMPARE(rc, 0);
    MainWindow w;
    SnapshotView* view = openReady(w, oom);
    QVERIFY(view);
    QCOMPARE(view->state(), SnapshotView::State::Ready);
    // The oom event is the appended one, the last of 22 332; the tables open at that moment.
    QCOMPARE(view->oomMoment(), std::optional<std::int64_t>(22331));
    QCOMPARE(view->moment(), std::int64_t(22331));
    QVERIFY(view->tabs()->indexOf(view->oomPage()) >= 0);
    const auto* text = view->oomPage()->findChild<QTextBrowser*>();
    QVERIFY(text);
    const QString html = text->toPlainText();
    QVERIFY2(html.contains(QStringLiteral("a request for 8.00 GiB failed with 512 MiB free on the device")),
             qPrintable(html));
    // Where the failed request was made: the stack of the trace's last alloc, Python frames included.
    QVERIFY(html.contains(QStringLiteral(".py")));
    // What was alive then is listed: the allocations still alive at snapshot time.
    QVERIFY(view->aliveTable()->topLevelItemCount() > 0);
}

void TestSnapshotView::badFileKeepsOtherTabs() {
    MainWindow w;
    SnapshotView* good = openReady(w, trainingPath());
    QVERIFY(good);
    QTemporaryDir dir;
    const QString bad = dir.filePath(QStringLiteral("cut.pickle"));
    {
        const std::string bytes = test::readText(trainingPath().toStdString());
        QFile f(bad);
        QVERIFY(f.open(QIODevice::WriteOnly));
        // Cut before its first segment: nothing to show (cut later, it opens with what it holds:
        // tst_snapshotpreview).
        f.write(bytes.data(), 64);
    }
    SnapshotView* view = openReady(w, bad);
    QVERIFY(view);
    QCOMPARE(view->state(), SnapshotView::State::Failed);
    QVERIFY2(view->errorMessage().startsWith(bad + QStringLiteral(": byte ")),
             qPrintable(view->errorMessage()));
    QCOMPARE(w.tabs()->count(), 2);
    QCOMPARE(good->state(), SnapshotView::State::Ready);
}

void TestSnapshotView::linksToTraceOfTheSameRun() {
    // ALTERED on purpose (no real snapshot has a trace of the same run): the Qwen H100 trace's clock is
    // shifted onto the cs336 forward snapshot's busiest allocations (tests/testsupport).
    const QString snapshotPath = QString::fromStdString(test::tracePath(
        "snapshots/kkaitlyn111__cs336-a2-systems__cs336_systems__memory_logs__memory_ctx128_forward.pickle"));
    const SnapshotLoadResult loaded = loadSnapshot(snapshotPath.toStdString());
    QVERIFY(loaded.ok());
    QTemporaryDir dir;
    const QString tracePath = dir.filePath(QStringLiteral("qwen_shifted.json"));
    QVERIFY(test::writeTraceShiftedOntoSnapshot(
        test::tracePath("AMD-AGI__TraceLens/tests__traces__h100__Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz"),
        *loaded.snapshot, tracePath));
    MainWindow w;
    // The snapshot first, then the trace (as if dropped beside it): they link when the trace is ready.
    SnapshotView* view = openReady(w, snapshotPath);
    QVERIFY(view);
    QVERIFY(!view->linkedTrace());
    auto* trace = qobject_cast<TraceView*>(w.openFile(tracePath));
    QVERIFY(trace);
    QVERIFY(QTest::qWaitFor([&] { return trace->state() != TraceView::State::Loading; }, 30000));
    QCOMPARE(trace->state(), TraceView::State::Ready);
    QCOMPARE(view->linkedTrace(), trace);
    QVERIFY(view->link());
    QVERIFY(view->linkLabel()->isVisible() || !view->isVisible());
    QVERIFY(view->linkLabel()->text().contains(QStringLiteral("qwen_shifted.json")));
    // The trace's timeline has the active-memory lane beside its store: a derived track, the store untouched.
    const DerivedTracks& derived = trace->timeline()->derivedTracks();
    QCOMPARE(derived.size(), trace->trace()->derived.size() + 1);
    QVERIFY(
        QString::fromStdString(derived.back().title()).startsWith(QStringLiteral("Active memory (snapshot")));
    QVERIFY(!derived.back().track().counterTimes.empty());
    // An allocation made inside the trace names its operator, and "Show in trace" selects it there.
    const MemoryTimeline& t = *view->timeline()->timeline();
    const DeviceHistory& h = view->snapshot()->devices.front();
    std::int32_t chosen = -1;
    std::optional<EventRef> op;
    for (std::size_t a = 0; a < t.allocations().size() && chosen < 0; ++a) {
        const AllocationLifetime& life = t.allocations()[a];
        if (life.begin < 0 || h.timesUs[std::size_t(life.begin)] == noTimeUs) continue;
        op = operatorAt(*trace->trace()->store, view->link()->traceTime(h.timesUs[std::size_t(life.begin)]));
        if (op) chosen = std::int32_t(a);
    }
    QVERIFY(chosen >= 0);
    QSignalSpy shown(view, &SnapshotView::showInTrace);
    view->selectAllocation(chosen);
    const TraceStore& store = *trace->trace()->store;
    const QString opName = QString::fromStdString(
        std::string(store.strings().view(store.track(op->track).names[op->index.value])));
    QVERIFY2(view->allocationText()->toPlainText().contains(
                 QStringLiteral("Operator running in the trace: ") + opName),
             qPrintable(view->allocationText()->toPlainText()));
    emit view->allocationText()->anchorClicked(
        QUrl(QStringLiteral("trace:%1:%2").arg(op->track.value).arg(op->index.value)));
    QCOMPARE(shown.count(), 1);
    QCOMPARE(w.tabs()->currentWidget(), static_cast<QWidget*>(trace));
    QCOMPARE(trace->timeline()->selected(), *op);
    // The external annotations open when an allocation was made are listed with it (the cs336 snapshot
    // recorded 1 794: TorchDynamo's dynamo_timed ranges among them).
    for (std::size_t a = 0; a < t.allocations().size(); ++a) {
        const AllocationLifetime& life = t.allocations()[a];
        if (life.begin < 0 || h.timesUs[std::size_t(life.begin)] == noTimeUs) continue;
        const auto open = openAnnotations(*view->snapshot(), h.device, h.timesUs[std::size_t(life.begin)]);
        if (open.empty()) continue;
        view->selectAllocation(std::int32_t(a));
        const QString plain = view->allocationText()->toPlainText();
        QVERIFY2(plain.contains(QStringLiteral("Inside the annotations: ") +
                                QString::fromUtf8(open.front().data(), qsizetype(open.front().size()))),
                 qPrintable(plain));
        return;
    }
    QFAIL("no allocation made inside an annotation");
}

// After a click on the Alive table, W zoomed the table's selection instead of the timeline: the view keys go
// to the timeline whatever has focus in the view, except a text field, where they type.
void TestSnapshotView::zoomKeysAfterATableClick() {
    MainWindow w;
    SnapshotView* view = openReady(w, trainingPath());
    QVERIFY(view);
    w.activateWindow();
    QVERIFY(QTest::qWaitForWindowActive(&w));
    QTreeWidget* table = view->aliveTable();
    for (int i = 0; i < view->tabs()->count(); ++i)
        if (view->tabs()->widget(i) == table || view->tabs()->widget(i)->isAncestorOf(table))
            view->tabs()->setCurrentIndex(i);
    table->setFocus();
    QTRY_VERIFY(table->hasFocus());
    const double span = view->timeline()->viewTo() - view->timeline()->viewFrom();
    QTest::keyClick(table, Qt::Key_W);
    const double zoomed = view->timeline()->viewTo() - view->timeline()->viewFrom();
    QVERIFY2(zoomed < span, qPrintable(QStringLiteral("%1 -> %2").arg(span).arg(zoomed)));
    QTest::keyClick(table, Qt::Key_0);
    QCOMPARE(view->timeline()->viewTo() - view->timeline()->viewFrom(), span);
}

QTEST_MAIN(TestSnapshotView)
#include "tst_snapshotview.moc"
