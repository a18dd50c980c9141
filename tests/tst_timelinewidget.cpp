// The timeline widget on real traces: keyboard and mouse navigation (drag-zoom included), history, selection,
// hit testing, measuring, area selection, flow arrow geometry, collapsing, and the details panel's links.
#include "panels/detailspanel.h"
#include "query/args.h"
#include "query/flowindex.h"
#include "shell/loadedtrace.h"
#include "testsupport.h"

#include "analysis/gpu/criticalpath.h"
#include "timeline/criticalpathoverlay.h"
#include "timeline/timelinewidget.h"

#include <QApplication>
#include <QLineEdit>
#include <QMouseEvent>
#include <QPainter>
#include <QSignalSpy>
#include <QTest>

#include <QToolTip>
#include <QWheelEvent>
#include <random>
#include <set>

using namespace kinetoscope;

class TestTimelineWidget : public QObject {
    Q_OBJECT
  private slots:
    void initTestCase();
    void init();
    void cleanup();
    void keyboardNavigation_data();
    void keyboardNavigation();
    void fitAndHistory();
    void dragOnRulerZooms();
    void zoomToolDragZooms();
    void ctrlWheelZoomsAtCursor();
    void wheelScrollsLanes();
    void middleDragPans();
    void shiftDragMeasures();
    void ctrlDragSelectsArea();
    void clickSelectsAndHitTests_data();
    void clickSelectsAndHitTests();
    void launchFlowGeometry();
    void forwardBackwardFlowGeometry();
    void flowsIntoCollapsedGroup();
    void allFlowsOnScreen();
    void arrowPixelBudget_data();
    void arrowPixelBudget();
    void pixelRectsFillAsQtFills_data();
    void pixelRectsFillAsQtFills();
    void detailsPanelLinks();
    void hoverTooltip();
    void paintsSlicesInCategoryColours();
    void uncategorisedSlicesByName();
    void firstFitEndsWithTheEvents();
    void gpuUtilisationLanes();
    void counterLanesAreSteps();
    void criticalPathOverlay();
    void heldKeyAccelerates();
    void areaDragAcrossGapsAndTracks();
    void pythonFramesFoldFromTheHeader();
    void firstScreenShowsEveryGpuStream();
    void trackFilterField();

  private:
    std::shared_ptr<const LoadedTrace> load(const std::string& path);
    void drag(QWidget* w, Qt::MouseButton button, Qt::KeyboardModifiers mods, QPointF from, QPointF to);
    EventRef firstLaunchWithKernel(const TraceStore& s) const;

    std::shared_ptr<const LoadedTrace> m_sample;
    std::shared_ptr<const LoadedTrace> m_qwen;
    std::unique_ptr<TimelineWidget> m_widget;
};

std::shared_ptr<const LoadedTrace> TestTimelineWidget::load(const std::string& path) {
    LoadResult r = loadTrace(path);
    if (!r.ok()) qFatal("cannot load %s", path.c_str());
    return prepareLoadedTrace(std::move(r.store), r.seconds);
}

void TestTimelineWidget::initTestCase() {
    m_sample = load(KINETOSCOPE_SOURCE_DIR "/resources/samples/sample.pt.trace.json");
    m_qwen = load(
        test::tracePath("AMD-AGI__TraceLens/tests__traces__h100__Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz"));
}

void TestTimelineWidget::init() {
    m_widget = std::make_unique<TimelineWidget>(m_sample);
    m_widget->resize(1400, 700);
    m_widget->show();
    QVERIFY(QTest::qWaitForWindowExposed(m_widget.get()));
}

void TestTimelineWidget::cleanup() {
    m_widget.reset();
}

void TestTimelineWidget::drag(QWidget* w, Qt::MouseButton button, Qt::KeyboardModifiers mods, QPointF from,
                              QPointF to) {
    QMouseEvent press(QEvent::MouseButtonPress, from, w->mapToGlobal(from), button, button, mods);
    QApplication::sendEvent(w, &press);
    for (int i = 1; i <= 5; ++i) {
        const QPointF p = from + (to - from) * (i / 5.0);
        QMouseEvent move(QEvent::MouseMove, p, w->mapToGlobal(p), Qt::NoButton, button, mods);
        QApplication::sendEvent(w, &move);
    }
    QMouseEvent release(QEvent::MouseButtonRelease, to, w->mapToGlobal(to), button, Qt::NoButton, mods);
    QApplication::sendEvent(w, &release);
}

EventRef TestTimelineWidget::firstLaunchWithKernel(const TraceStore& s) const {
    for (std::uint32_t t = 0; t < s.tracks().size(); ++t) {
        for (std::uint32_t r = 0; r < s.tracks()[t].sliceCount(); ++r) {
            const EventRef ref{TrackId(t), EventIndex(r)};
            if (isLaunchCategory(s.categoryOf(ref).kind) && !s.gpuWorkOf(ref).empty()) return ref;
        }
    }
    return {};
}

void TestTimelineWidget::keyboardNavigation_data() {
    QTest::addColumn<int>("key");
    QTest::addColumn<double>("spanRatio");
    QTest::addColumn<double>("shiftInSpans"); // start moves by this many spans (of the old span)
    QTest::newRow("W zooms in") << int(Qt::Key_W) << 0.8 << 0.1;
    QTest::newRow("S zooms out") << int(Qt::Key_S) << 1.25 << -0.125;
    QTest::newRow("A pans left") << int(Qt::Key_A) << 1.0 << -0.15;
    QTest::newRow("D pans right") << int(Qt::Key_D) << 1.0 << 0.15;
}

void TestTimelineWidget::keyboardNavigation() {
    QFETCH(int, key);
    QFETCH(double, spanRatio);
    QFETCH(double, shiftInSpans);
    const TraceStore& s = m_widget->store();
    const TimeNs mid = s.minTime() + (s.maxTime() - s.minTime()) / 2;
    const TimeNs span = (s.maxTime() - s.minTime()) / 10;
    m_widget->setVisibleRange(mid - span / 2, mid + span / 2);
    QCursor::setPos(m_widget->mapToGlobal(QPoint(5, 5))); // over the header column: zoom keeps the centre
    const TimeAxis before = m_widget->axis();
    QTest::keyClick(m_widget.get(), Qt::Key(key));
    const TimeAxis after = m_widget->axis();
    QVERIFY(std::abs(double(after.span()) / double(before.span()) - spanRatio) < 1e-5);
    QVERIFY(std::abs(double(after.start - before.start) / double(before.span()) - shiftInSpans) < 1e-5);
}

void TestTimelineWidget::fitAndHistory() {
    const TraceStore& s = m_widget->store();
    QTest::keyClick(m_widget.get(), Qt::Key_0);
    const TimeAxis fitted = m_widget->axis();
    QVERIFY(fitted.start <= s.minTime() && fitted.end >= s.maxTime());
    m_widget->setVisibleRange(s.minTime() + 1000, s.minTime() + 500'000);
    const TimeAxis zoomed = m_widget->axis();
    QTest::keyClick(m_widget.get(), Qt::Key_Left, Qt::AltModifier);
    QCOMPARE(m_widget->axis(), fitted);
    QTest::keyClick(m_widget.get(), Qt::Key_Right, Qt::AltModifier);
    QCOMPARE(m_widget->axis(), zoomed);
    QTest::keyClick(m_widget.get(), Qt::Key_Home);
    QCOMPARE(m_widget->axis(), fitted);
}

void TestTimelineWidget::dragOnRulerZooms() {
    const TimeAxis before = m_widget->axis();
    const double x0 = TimelineRenderer::headerWidth + 300, x1 = TimelineRenderer::headerWidth + 700;
    const TimeNs t0 = before.timeAt(300), t1 = before.timeAt(700);
    drag(m_widget.get(), Qt::LeftButton, Qt::NoModifier, QPointF(x0, 20), QPointF(x1, 20));
    QVERIFY(std::abs(m_widget->axis().start - t0) <= before.nsPerPixel());
    QVERIFY(std::abs(m_widget->axis().end - t1) <= before.nsPerPixel());
    QVERIFY(!m_widget->frame().zoomDrag.has_value());
    // Dragged right to left zooms to the same range.
    m_widget->fitAll();
    drag(m_widget.get(), Qt::LeftButton, Qt::NoModifier, QPointF(x1, 20), QPointF(x0, 20));
    QVERIFY(std::abs(m_widget->axis().start - t0) <= before.nsPerPixel());
    // Back returns to where the drag started.
    QVERIFY(m_widget->back());
    QCOMPARE(m_widget->axis(), before);
}

void TestTimelineWidget::zoomToolDragZooms() {
    m_widget->setZoomTool(true);
    const TimeAxis before = m_widget->axis();
    const double y = TimelineRenderer::rulerHeight + 100;
    drag(m_widget.get(), Qt::LeftButton, Qt::NoModifier, QPointF(TimelineRenderer::headerWidth + 100, y),
         QPointF(TimelineRenderer::headerWidth + 200, y));
    QVERIFY(std::abs(m_widget->axis().start - before.timeAt(100)) <= before.nsPerPixel());
    QVERIFY(std::abs(m_widget->axis().end - before.timeAt(200)) <= before.nsPerPixel());
}

void TestTimelineWidget::ctrlWheelZoomsAtCursor() {
    const TimeAxis before = m_widget->axis();
    const QPointF pos(TimelineRenderer::headerWidth + 400, 200);
    const TimeNs anchor = before.timeAt(400);
    QWheelEvent wheel(pos, m_widget->mapToGlobal(pos), QPoint(), QPoint(0, 120), Qt::NoButton,
                      Qt::ControlModifier, Qt::NoScrollPhase, false);
    QApplication::sendEvent(m_widget.get(), &wheel);
    QVERIFY(m_widget->axis().span() < before.span());
    QVERIFY(std::abs(m_widget->axis().timeAt(400) - anchor) <= 2);
}

void TestTimelineWidget::wheelScrollsLanes() {
    auto w = std::make_unique<TimelineWidget>(m_qwen);
    w->resize(1200, 400); // shorter than the content
    w->show();
    QVERIFY(QTest::qWaitForWindowExposed(w.get()));
    const QPointF pos(600, 200);
    QWheelEvent wheel(pos, w->mapToGlobal(pos), QPoint(), QPoint(0, -120), Qt::NoButton, Qt::NoModifier,
                      Qt::NoScrollPhase, false);
    const TimeAxis axis = w->axis();
    QApplication::sendEvent(w.get(), &wheel);
    QVERIFY(w->scrollY() > 0);
    QCOMPARE(w->axis(), axis);
}

void TestTimelineWidget::middleDragPans() {
    const TraceStore& s = m_widget->store();
    m_widget->setVisibleRange(s.minTime() + 1'000'000, s.minTime() + 2'000'000);
    const TimeAxis before = m_widget->axis();
    drag(m_widget.get(), Qt::MiddleButton, Qt::NoModifier, QPointF(800, 200), QPointF(700, 200));
    // Content follows the mouse: dragging left by 100 px shows later times.
    QVERIFY(std::abs(double(m_widget->axis().start - before.start) - 100 * before.nsPerPixel()) <= 2);
    QCOMPARE(m_widget->axis().span(), before.span());
}

void TestTimelineWidget::shiftDragMeasures() {
    const TimeAxis axis = m_widget->axis();
    drag(m_widget.get(), Qt::LeftButton, Qt::ShiftModifier, QPointF(TimelineRenderer::headerWidth + 100, 300),
         QPointF(TimelineRenderer::headerWidth + 600, 300));
    QVERIFY(m_widget->measurement().has_value());
    QCOMPARE(m_widget->measurement()->span(), axis.timeAt(600) - axis.timeAt(100));
    QCOMPARE(m_widget->axis(), axis); // measuring does not move the view
}

void TestTimelineWidget::ctrlDragSelectsArea() {
    QSignalSpy spy(m_widget.get(), &TimelineWidget::areaSelectionChanged);
    const TimeAxis axis = m_widget->axis();
    const LaneLayout& layout = m_widget->layout();
    // From the first CPU lane down to the first GPU stream.
    const int cpuRow = layout.firstRowOf(TrackId(0));
    int gpuRow = -1;
    for (std::uint32_t t = 0; t < m_widget->store().tracks().size(); ++t) {
        if (m_widget->store().tracks()[t].kind == TrackKind::GpuStream) {
            gpuRow = layout.firstRowOf(TrackId(t));
            break;
        }
    }
    QVERIFY(cpuRow >= 0 && gpuRow > cpuRow);
    auto yOf = [&](int row) { return TimelineRenderer::rulerHeight + layout.rows()[std::size_t(row)].y + 5; };
    drag(m_widget.get(), Qt::LeftButton, Qt::ControlModifier,
         QPointF(TimelineRenderer::headerWidth + 50, yOf(cpuRow)),
         QPointF(TimelineRenderer::headerWidth + 900, yOf(gpuRow)));
    QCOMPARE(spy.count(), 1);
    const auto area = m_widget->areaSelection();
    QVERIFY(area.has_value());
    QCOMPARE(area->firstRow, cpuRow);
    QCOMPARE(area->lastRow, gpuRow);
    QCOMPARE(area->range.from, axis.timeAt(50));
    QCOMPARE(area->range.to, axis.timeAt(900));
    const std::vector<TrackId> tracks = m_widget->tracksOf(*area);
    QVERIFY(tracks.size() >= 2);
    QCOMPARE(tracks.front(), TrackId(0));
    QTest::keyClick(m_widget.get(), Qt::Key_Escape);
    QVERIFY(!m_widget->areaSelection().has_value());
}

void TestTimelineWidget::clickSelectsAndHitTests_data() {
    QTest::addColumn<QString>("which");
    QTest::newRow("sample") << QStringLiteral("sample");
    QTest::newRow("qwen h100") << QStringLiteral("qwen");
}

void TestTimelineWidget::clickSelectsAndHitTests() {
    QFETCH(QString, which);
    auto w = std::make_unique<TimelineWidget>(which == QLatin1String("qwen") ? m_qwen : m_sample);
    w->resize(1400, 800);
    w->show();
    QVERIFY(QTest::qWaitForWindowExposed(w.get()));
    const TraceStore& s = w->store();
    const EventRef launch = firstLaunchWithKernel(s);
    QVERIFY(launch.isValid());
    const EventRef kernel = s.gpuWorkOf(launch).front();
    QSignalSpy spy(w.get(), &TimelineWidget::selectionChanged);
    for (EventRef target : {kernel, launch}) {
        w->revealEvent(target); // brings it on screen, selected
        w->setSelected({});
        const QRectF r = w->renderer().sliceRect(w->frame(), target);
        QVERIFY2(QRectF(w->rect()).contains(r.center()), "revealed event is not on screen");
        QCOMPARE(w->renderer().eventAt(w->frame(), r.center()), target);
        QTest::mouseClick(w.get(), Qt::LeftButton, Qt::NoModifier, r.center().toPoint());
        QCOMPARE(w->selected(), target);
        // F zooms to it.
        QTest::keyClick(w.get(), Qt::Key_F);
        const Track& t = s.track(target.track);
        QVERIFY(w->axis().start <= t.starts[target.index.value] &&
                w->axis().end >= t.endOf(target.index.value));
        QVERIFY(w->axis().span() <=
                std::max<TimeNs>(t.durations[target.index.value], TimeAxis::minSpan) * 13 / 10 + 2);
    }
    QVERIFY(spy.count() >= 2);
    // A click on empty space clears the selection.
    w->fitAll();
    QTest::mouseClick(w.get(), Qt::LeftButton, Qt::NoModifier,
                      QPoint(int(TimelineRenderer::headerWidth) + 2, w->height() - 3));
    QVERIFY(!w->selected().isValid());
}

void TestTimelineWidget::launchFlowGeometry() {
    const TraceStore& s = m_widget->store();
    const EventRef launch = firstLaunchWithKernel(s);
    const EventRef kernel = s.gpuWorkOf(launch).front();
    m_widget->setFlowMode(FlowMode::Selected);
    m_widget->revealEvent(launch);
    const TimelineFrame& frame = m_widget->frame();
    const std::vector<FlowArrow> arrows = m_widget->renderer().flowArrows(frame);
    const QRectF from = m_widget->renderer().sliceRect(frame, launch);
    const QRectF to = m_widget->renderer().sliceRect(frame, kernel);
    auto it = std::find_if(arrows.begin(), arrows.end(), [&](const FlowArrow& a) {
        return s.flows()[a.flow].source == launch && s.flows()[a.flow].target == kernel;
    });
    QVERIFY2(it != arrows.end(), "no arrow from the launch to its kernel");
    QCOMPARE(it->kind, FlowKind::Launch);
    // From the end of the launch to the start of the kernel, at the middle of each lane.
    QVERIFY(std::abs(it->from.x() - from.right()) < 1.01);
    QVERIFY(std::abs(it->from.y() - from.center().y()) < 0.51);
    QVERIFY(std::abs(it->to.x() - to.left()) < 0.01);
    QVERIFY(std::abs(it->to.y() - to.center().y()) < 0.51);
    // With flows off, nothing; with nothing selected in "selected" mode, nothing.
    m_widget->setFlowMode(FlowMode::None);
    QVERIFY(m_widget->renderer().flowArrows(m_widget->frame()).empty());
    m_widget->setFlowMode(FlowMode::Selected);
    m_widget->setSelected({});
    QVERIFY(m_widget->renderer().flowArrows(m_widget->frame()).empty());
}

void TestTimelineWidget::forwardBackwardFlowGeometry() {
    const TraceStore& s = m_widget->store();
    const auto it = std::find_if(s.flows().begin(), s.flows().end(),
                                 [](const Flow& f) { return f.kind == FlowKind::ForwardBackward; });
    QVERIFY(it != s.flows().end());
    m_widget->revealEvent(it->target);
    const auto arrows = m_widget->renderer().flowArrows(m_widget->frame());
    const auto found = std::find_if(arrows.begin(), arrows.end(), [&](const FlowArrow& a) {
        return s.flows()[a.flow].source == it->source && s.flows()[a.flow].target == it->target;
    });
    QVERIFY(found != arrows.end());
    QCOMPARE(found->kind, FlowKind::ForwardBackward);
    // The backward op runs on the autograd thread: the arrow goes to another track's lane.
    QVERIFY(it->source.track != it->target.track);
    QVERIFY(std::abs(found->to.x() - m_widget->renderer().sliceRect(m_widget->frame(), it->target).left()) <
            0.01);
}

void TestTimelineWidget::flowsIntoCollapsedGroup() {
    const TraceStore& s = m_widget->store();
    const EventRef launch = firstLaunchWithKernel(s);
    const EventRef kernel = s.gpuWorkOf(launch).front();
    m_widget->revealEvent(launch);
    const std::uint32_t gpuGroup = m_widget->layout().groupOf(kernel.track);
    m_widget->setGroupCollapsed(gpuGroup, true);
    const auto arrows = m_widget->renderer().flowArrows(m_widget->frame());
    const auto found = std::find_if(arrows.begin(), arrows.end(),
                                    [&](const FlowArrow& a) { return s.flows()[a.flow].target == kernel; });
    QVERIFY(found != arrows.end());
    const int header = m_widget->layout().rowOf(kernel);
    const LaneRow& row = m_widget->layout().rows()[std::size_t(header)];
    QCOMPARE(row.kind, LaneRow::Kind::GroupHeader);
    QVERIFY(std::abs(found->to.y() - m_widget->renderer().viewY(m_widget->frame(), row.y + row.height / 2)) <
            0.01);
    // Scrolled so the target is off screen, the arrow still points at where it is.
    m_widget->setGroupCollapsed(gpuGroup, false);
    m_widget->setScrollY(1e9);
    const auto again = m_widget->renderer().flowArrows(m_widget->frame());
    QVERIFY(std::any_of(again.begin(), again.end(),
                        [&](const FlowArrow& a) { return s.flows()[a.flow].target == kernel; }) ||
            m_widget->layout().contentHeight() < m_widget->height());
}

void TestTimelineWidget::allFlowsOnScreen() {
    auto w = std::make_unique<TimelineWidget>(m_qwen);
    w->resize(1600, 900);
    w->show();
    QVERIFY(QTest::qWaitForWindowExposed(w.get()));
    const TraceStore& s = w->store();
    w->setFlowMode(FlowMode::All);
    std::size_t total = 0;
    const auto arrows = w->renderer().flowArrows(w->frame(), &total);
    QVERIFY(!arrows.empty());
    QVERIFY(arrows.size() <= TimelineRenderer::maxArrows);
    QVERIFY(total >= arrows.size());
    // Zoomed out, the arrows may cover a tenth of the lanes' pixels (each line one pixel a row or column).
    const QRectF lanes = w->renderer().lanesRect(w->frame());
    double pixels = 0, longest = 0;
    for (const FlowArrow& a : arrows) {
        const double top = std::max(lanes.top(), std::min(a.from.y(), a.to.y()));
        const double bottom = std::min(lanes.bottom(), std::max(a.from.y(), a.to.y()));
        const double length = std::max(std::max(0.0, bottom - top), std::abs(a.to.x() - a.from.x()));
        pixels += length;
        longest = std::max(longest, length);
    }
    QVERIFY2(pixels <= 0.1 * lanes.width() * lanes.height() + longest,
             qPrintable(QStringLiteral("%1 px of %2").arg(pixels).arg(lanes.width() * lanes.height())));
    // The whole trace: the count is every arrow that crosses the view, and the sample drawn spreads over the
    // view's launches (walked in time order, a larger sample filled the cap from their first part alone).
    std::size_t crossing = 0;
    TimeNs firstLaunch = INT64_MAX, lastLaunch = INT64_MIN;
    const FlowIndex index(s);
    index.forEachInRange(w->axis().start, w->axis().end, [&](std::uint32_t f) {
        ++crossing;
        firstLaunch = std::min(firstLaunch, FlowIndex::arrowStart(s, s.flows()[f]));
        lastLaunch = std::max(lastLaunch, FlowIndex::arrowStart(s, s.flows()[f]));
        return true;
    });
    QVERIFY(total <= crossing);
    if (crossing >= 2 * TimelineRenderer::maxArrows) {
        QCOMPARE(total, crossing);
        double left = 1e9, right = -1e9;
        for (const FlowArrow& a : arrows) {
            left = std::min(left, a.from.x());
            right = std::max(right, a.from.x());
        }
        const double spanPx = w->axis().xOf(lastLaunch) - w->axis().xOf(firstLaunch);
        QVERIFY2(right - left >= 0.9 * spanPx,
                 qPrintable(QStringLiteral("%1 of %2 px").arg(right - left).arg(spanPx)));
    }
    // Zoomed to a window, every flow whose arrow crosses it and has an end on screen is there (up to the
    // pixel dedupe).
    const TimeNs mid = s.minTime() + (s.maxTime() - s.minTime()) / 2;
    w->setVisibleRange(mid, mid + 200'000);
    const auto zoomed = w->renderer().flowArrows(w->frame(), &total);
    for (const FlowArrow& a : zoomed) {
        const TimeNs from = FlowIndex::arrowStart(s, s.flows()[a.flow]);
        const TimeNs to = FlowIndex::arrowEnd(s, s.flows()[a.flow]);
        QVERIFY(std::max(from, to) >= w->axis().start && std::min(from, to) <= w->axis().end);
    }
}

// Long arrows past a tenth of the lanes' pixels are thinned evenly, in order; short ones are all kept.
void TestTimelineWidget::arrowPixelBudget_data() {
    QTest::addColumn<int>("count");
    QTest::addColumn<double>("length");
    QTest::addColumn<int>("farArrows"); // horizontal, from far left of the view to far right of it
    QTest::addColumn<QRectF>("lanes");
    QTest::addColumn<int>("kept");
    // On lanes of 1660 x 1000 px, 166,000 px is a tenth.
    const QRectF lanes(260, 30, 1660, 1000);
    // 800 arrows of 900 px upright (launches far above their kernels, a whole-trace view): 184 of them.
    QTest::newRow("long, upright") << 800 << 900.0 << 0 << lanes << 184;
    // Clipped by the lanes: a 5,000 px arrow counts the 999 px it shows.
    QTest::newRow("clipped") << 400 << 5000.0 << 0 << lanes << 166;
    QTest::newRow("short") << 800 << 100.0 << 0 << lanes << 800;
    QTest::newRow("one") << 1 << 5000.0 << 0 << lanes << 1;
    // Zoomed in: ten arrows from launches seconds away count the 1,660 px each shows, and the view's own
    // short ones all stay.
    QTest::newRow("zoomed in, arrows from far away") << 800 << 100.0 << 10 << lanes << 810;
    // Lanes too small for one arrow still show one.
    QTest::newRow("tiny lanes") << 3 << 5000.0 << 0 << QRectF(300, 30, 4, 2) << 1;
}

void TestTimelineWidget::arrowPixelBudget() {
    QFETCH(int, count);
    QFETCH(double, length);
    QFETCH(int, farArrows);
    QFETCH(QRectF, lanes);
    QFETCH(int, kept);
    std::vector<FlowArrow> arrows;
    for (int i = 0; i < count + farArrows; ++i) {
        const double x = 300 + 1.5 * i;
        if (i >= count)
            arrows.push_back({QPointF(-1e6, 500), QPointF(1e6, 500 + i), FlowKind::Launch, std::uint32_t(i)});
        else
            arrows.push_back(
                {QPointF(x, 31), QPointF(x + 0.5, 31 + length), FlowKind::Launch, std::uint32_t(i)});
    }
    TimelineRenderer::keepWithinPixelBudget(arrows, lanes);
    QVERIFY2(std::abs(int(arrows.size()) - kept) <= 1, qPrintable(QString::number(arrows.size())));
    for (std::size_t i = 1; i < arrows.size(); ++i)
        QVERIFY(arrows[i].flow > arrows[i - 1].flow); // in order, none twice
    const int all = count + farArrows;
    if (int(arrows.size()) < all && arrows.size() > 1) {
        // Spread over the whole sample, not its first part.
        QVERIFY(arrows.front().flow < std::uint32_t(all) / 10 + 6);
        QVERIFY(arrows.back().flow >= std::uint32_t(all) - std::uint32_t(all) / 10 - 6);
    }
}

// Boxes are filled as whole-pixel QRects (twice as fast): the same pixels Qt fills for the QRectF without
// antialiasing, for boxes of every size from sub-pixel to wide (edges exactly on a half pixel left out: there
// the two may round apart by one).
void TestTimelineWidget::pixelRectsFillAsQtFills_data() {
    QTest::addColumn<double>("maxSize");
    QTest::newRow("sub-pixel") << 1.0;
    QTest::newRow("a few pixels") << 6.0;
    QTest::newRow("wide") << 400.0;
}

void TestTimelineWidget::pixelRectsFillAsQtFills() {
    QFETCH(double, maxSize);
    std::mt19937 rng(5);
    std::uniform_real_distribution<double> at(250, 1700), size(0.01, maxSize);
    QImage a(1920, 1080, QImage::Format_ARGB32_Premultiplied), b(a.size(), a.format());
    int compared = 0;
    for (int i = 0; i < 300; ++i) {
        const QRectF r(at(rng), at(rng) / 2, size(rng), size(rng) + 1);
        const auto half = [](double v) { return std::abs(v - std::floor(v) - 0.5) < 1e-9; };
        if (half(r.left()) || half(r.right()) || half(r.top()) || half(r.bottom())) continue;
        a.fill(Qt::white);
        b.fill(Qt::white);
        for (QImage* image : {&a, &b}) {
            QPainter p(image);
            p.setClipRect(QRectF(260, 30, 1660, 1050)); // as the lanes are clipped
            p.setPen(Qt::NoPen);
            p.setBrush(Qt::black);
            if (image == &a)
                p.drawRects(&r, 1);
            else {
                const QRect pixels = TimelineRenderer::pixelRect(r);
                p.drawRects(&pixels, 1);
            }
        }
        QVERIFY2(
            a == b,
            qPrintable(QStringLiteral("%1 %2 %3 %4").arg(r.x()).arg(r.y()).arg(r.width()).arg(r.height())));
        ++compared;
    }
    QVERIFY(compared > 250);
}

void TestTimelineWidget::detailsPanelLinks() {
    const TraceStore& s = m_sample->store ? *m_sample->store : m_widget->store();
    const EventRef launch = firstLaunchWithKernel(s);
    const EventRef kernel = s.gpuWorkOf(launch).front();
    DetailsPanel panel(s);
    panel.showEvent(kernel);
    const QString text = panel.toPlainText();
    QVERIFY2(text.contains(QString::fromUtf8(s.nameOf(kernel).data(), qsizetype(s.nameOf(kernel).size()))),
             qPrintable(text));
    QVERIFY(text.contains(QLatin1String("Arguments")));
    for (const ArgField& a : decodeArgs(s, kernel))
        QVERIFY2(text.contains(QString::fromStdString(a.key)), a.key.c_str());
    QVERIFY(text.contains(QStringLiteral("Launched by: ") +
                          QString::fromUtf8(s.nameOf(launch).data(), qsizetype(s.nameOf(launch).size()))));
    QVERIFY(text.contains(QLatin1String("Parents")) ||
            s.track(kernel.track).depthOf(kernel.index.value) == 0);
    QVERIFY(std::find(panel.links().begin(), panel.links().end(), launch) != panel.links().end());
    QSignalSpy spy(&panel, &DetailsPanel::jumpRequested);
    emit panel.anchorClicked(QUrl(DetailsPanel::linkFor(launch)));
    QCOMPARE(spy.count(), 1);
    QCOMPARE(spy.front().front().value<EventRef>(), launch);
    // The launch lists its kernel, and its parent op chain up to the ProfilerStep.
    panel.showEvent(launch);
    QVERIFY(std::find(panel.links().begin(), panel.links().end(), kernel) != panel.links().end());
    QVERIFY(panel.toPlainText().contains(QLatin1String("ProfilerStep#")));
    // A link jumps the timeline there.
    connect(&panel, &DetailsPanel::jumpRequested, m_widget.get(), &TimelineWidget::revealEvent);
    emit panel.anchorClicked(QUrl(DetailsPanel::linkFor(kernel)));
    QCOMPARE(m_widget->selected(), kernel);
}

void TestTimelineWidget::hoverTooltip() {
    const TraceStore& s = m_widget->store();
    const EventRef launch = firstLaunchWithKernel(s);
    m_widget->revealEvent(launch);
    const QPoint pos = m_widget->renderer().sliceRect(m_widget->frame(), launch).center().toPoint();
    QHelpEvent help(QEvent::ToolTip, pos, m_widget->mapToGlobal(pos));
    QApplication::sendEvent(m_widget.get(), &help);
    QVERIFY(QTest::qWaitFor([] { return QToolTip::isVisible(); }, 2000));
    const QString tip = QToolTip::text();
    QVERIFY2(tip.contains(QString::fromUtf8(s.nameOf(launch).data(), qsizetype(s.nameOf(launch).size()))),
             qPrintable(tip));
    for (const char* field : {"Category", "Start", "Duration", "Self time", "cuda_runtime"})
        QVERIFY2(tip.contains(QLatin1String(field)), field);
    QVERIFY(tip.contains(
        QString::fromStdString(formatDuration(s.track(launch.track).durations[launch.index.value]))));
    QToolTip::hideText();
}

void TestTimelineWidget::paintsSlicesInCategoryColours() {
    const QImage image = m_widget->grab().toImage().convertToFormat(QImage::Format_RGB32);
    QCOMPARE(image.size(), m_widget->size());
    const QRgb kernel = TimelinePalette().color(TimelinePalette::indexOf(CategoryKind::Kernel)).rgb();
    const QRgb op = TimelinePalette().color(TimelinePalette::indexOf(CategoryKind::CpuOp)).rgb();
    int kernelPixels = 0, opPixels = 0;
    for (int y = 0; y < image.height(); ++y) {
        for (int x = int(TimelineRenderer::headerWidth); x < image.width(); ++x) {
            const QRgb p = image.pixel(x, y);
            kernelPixels += (p & 0xffffff) == (kernel & 0xffffff);
            opPixels += (p & 0xffffff) == (op & 0xffffff);
        }
    }
    QVERIFY(kernelPixels > 500);
    QVERIFY(opPixels > 500);
}

// Issue 52 item 6: slices with no category (a Chrome trace without "cat") are coloured by name, not one grey.
// Issue 61: Kineto's "Record Window End" instant, far past the last event (an attached trace's window
// outlasts its work), is not what the first fit ends with; the view can still be panned to it.
void TestTimelineWidget::firstFitEndsWithTheEvents() {
    const std::string json =
        R"({"traceEvents": [{"ph": "X", "name": "a", "pid": 1, "tid": 1, "ts": 1000, "dur": 100},
        {"ph": "X", "name": "b", "pid": 1, "tid": 1, "ts": 1200, "dur": 300},
        {"ph": "i", "s": "g", "name": "Record Window End", "pid": "", "tid": "", "ts": 5001000}]})";
    LoadResult r = test::loadText(json);
    QVERIFY2(r.ok(), r.error.c_str());
    TimelineWidget w(prepareLoadedTrace(std::move(r.store), r.seconds));
    w.resize(1000, 300);
    w.fitAll();
    QVERIFY2(w.axis().end < 2'000'000, qPrintable(QString::number(w.axis().end))); // ns: ends near 1.5 ms
    QVERIFY(w.axis().end >= 1'500'000);
    QCOMPARE(w.timeBounds().to, TimeNs(5'001'000'000));
}

void TestTimelineWidget::uncategorisedSlicesByName() {
    std::string json = "{\"traceEvents\": [";
    const char* names[] = {"forward", "loss", "backward", "optimizer", "data"};
    for (int i = 0; i < 40; ++i)
        json += std::string(i ? "," : "") + "{\"ph\": \"X\", \"name\": \"" + names[i % 5] +
                "\", \"pid\": 1, \"tid\": 1, \"ts\": " + std::to_string(i * 100) + ", \"dur\": 90}";
    json += "]}";
    LoadResult r = test::loadText(json);
    QVERIFY2(r.ok(), r.error.c_str());
    m_widget = std::make_unique<TimelineWidget>(prepareLoadedTrace(std::move(r.store), r.seconds));
    m_widget->resize(1000, 300);
    m_widget->show();
    QVERIFY(QTest::qWaitForWindowExposed(m_widget.get()));
    const QImage image = m_widget->grab().toImage().convertToFormat(QImage::Format_RGB32);
    const TimelinePalette palette;
    const QRgb grey = palette.color(TimelinePalette::indexOf(CategoryKind::Other)).rgb() & 0xffffff;
    std::set<QRgb> nameColours;
    for (const char* n : names)
        nameColours.insert(palette.color(TimelinePalette::indexOfName(n)).rgb() & 0xffffff);
    QVERIFY(nameColours.size() >= 3);
    std::set<QRgb> seen;
    int greyPixels = 0;
    for (int y = 0; y < image.height(); ++y)
        for (int x = int(TimelineRenderer::headerWidth); x < image.width(); ++x) {
            const QRgb p = image.pixel(x, y) & 0xffffff;
            greyPixels += p == grey;
            if (nameColours.count(p)) seen.insert(p);
        }
    QCOMPARE(seen, nameColours);
    QCOMPARE(greyPixels, 0);
}

// The critical path of Qwen's step, where it passes from aten::mul's launch to the GPU: the path's slices
// outlined, the launch delay drawn from the CPU thread down to stream 7 with an arrowhead, and the
// kernel-to-kernel delays along the stream; nothing once it is cleared.
void TestTimelineWidget::counterLanesAreSteps() {
    // A capture of one eager training step on an H100 (tests/data/gpu): seconds of idle between bursts, so
    // the launch queue's samples are far apart and most of its pixels rise and fall again within themselves.
    // Every counter lane is a step chart, each edge level or upright: a slope from a pixel's peak to the next
    // sample drew a queue of one held for four idle seconds.
    m_widget =
        std::make_unique<TimelineWidget>(load(KINETOSCOPE_SOURCE_DIR "/tests/data/gpu/h100_eager.kscw.gz"));
    m_widget->resize(1400, 900);
    m_widget->show();
    QVERIFY(QTest::qWaitForWindowExposed(m_widget.get()));
    const LaneLayout& layout = m_widget->layout();
    const TimelineGeometry& g = m_widget->renderer().geometry(m_widget->frame());
    QVERIFY(g.counters.size() >= 3); // utilisation, SM efficiency, launch queue at least
    std::size_t queueAreas = 0;
    for (const auto& area : g.counters) {
        QVERIFY(area.polygon.size() >= 4);
        for (qsizetype i = 1; i < area.polygon.size(); ++i) {
            const QPointF a = area.polygon[i - 1], b = area.polygon[i];
            QVERIFY2(a.x() == b.x() || a.y() == b.y(), qPrintable(QStringLiteral("%1: (%2, %3) to (%4, %5)")
                                                                      .arg(area.label)
                                                                      .arg(a.x())
                                                                      .arg(a.y())
                                                                      .arg(b.x())
                                                                      .arg(b.y())));
            QVERIFY(b.x() >= a.x());
        }
        queueAreas += area.label == QLatin1String("max 2");
        // The fill is drawn as rectangles (Qt fills a polygon of thousands of upright edges in tens of ms):
        // they must cover what the closed step line would, up to the rounding of its edges to whole pixels.
        const QRect bounds = area.rowRect.toAlignedRect().adjusted(-2, -2, 2, 2);
        QImage polygon(bounds.size(), QImage::Format_RGB32), rects(bounds.size(), QImage::Format_RGB32);
        for (QImage* image : {&polygon, &rects}) {
            image->fill(Qt::white);
            QPainter p(image);
            p.translate(-bounds.topLeft());
            p.setPen(Qt::NoPen);
            p.setBrush(Qt::black);
            if (image == &polygon)
                p.drawPolygon(area.polygon);
            else
                p.drawRects(area.fill.data(), int(area.fill.size()));
        }
        qsizetype filled = 0, differ = 0;
        for (int y = 0; y < bounds.height(); ++y)
            for (int x = 0; x < bounds.width(); ++x) {
                const bool inPolygon = polygon.pixel(x, y) != QColor(Qt::white).rgb();
                filled += inPolygon;
                // Off by one pixel at most: a pixel set in one is set in the other or beside it.
                if (inPolygon != (rects.pixel(x, y) != QColor(Qt::white).rgb())) {
                    const QImage& other = inPolygon ? rects : polygon;
                    bool near = false;
                    for (int dx = -1; dx <= 1 && !near; ++dx)
                        for (int dy = -1; dy <= 1 && !near; ++dy) {
                            const int nx = x + dx, ny = y + dy;
                            near = nx >= 0 && ny >= 0 && nx < bounds.width() && ny < bounds.height() &&
                                   (other.pixel(nx, ny) != QColor(Qt::white).rgb()) == inPolygon;
                        }
                    differ += !near;
                }
            }
        QVERIFY2(differ == 0,
                 qPrintable(QStringLiteral("%1: %2 of %3 pixels").arg(area.label).arg(differ).arg(filled)));
    }
    QVERIFY(queueAreas >= 1); // the launch queue of stream 7 is on screen
    QVERIFY(layout.groups().size() >= 2);
}

void TestTimelineWidget::criticalPathOverlay() {
    m_widget = std::make_unique<TimelineWidget>(m_qwen);
    m_widget->resize(1400, 900);
    m_widget->show();
    QVERIFY(QTest::qWaitForWindowExposed(m_widget.get()));
    const StepRange step = m_qwen->steps.front();
    auto path =
        std::make_shared<const StepCriticalPath>(criticalPathAt(*m_qwen->store, step.start, step.end));
    const auto launch =
        std::find_if(path->path.edges.begin(), path->path.edges.end(), [&](const CriticalPathEdge& e) {
            return e.kind == PathEdgeKind::LaunchDelay && m_qwen->store->nameOf(e.from) == "cudaLaunchKernel";
        });
    QVERIFY(launch != path->path.edges.end());
    const TimeNs at = m_qwen->store->track(launch->to.track).starts[launch->to.index.value];
    m_widget->setVisibleRange(at - 80'000, at + 80'000);
    m_widget->revealEvent(launch->to);
    m_widget->setSelected({});
    m_widget->setCriticalPath(path);
    const CriticalPathGeometry g = criticalPathGeometry(m_widget->renderer(), m_widget->frame());
    QVERIFY(g.outlines.size() > 10);
    const QRectF kernel = m_widget->renderer().sliceRect(m_widget->frame(), launch->to);
    const QRectF call = m_widget->renderer().sliceRect(m_widget->frame(), launch->from);
    const auto line = std::find_if(g.links.begin(), g.links.end(), [&](const QLineF& l) {
        return std::abs(l.p1().y() - call.center().y()) < 1 &&
               std::abs(l.p2().y() - kernel.center().y()) < 1 && std::abs(l.p2().x() - kernel.left()) < 1;
    });
    QVERIFY(line != g.links.end());
    QVERIFY(!g.heads.empty());
    int kernelKernel = 0;
    for (const QLineF& l : g.links)
        kernelKernel += std::abs(l.p1().y() - l.p2().y()) < 0.5;
    QVERIFY(kernelKernel > 0); // along the stream
    auto rosePixels = [&] {
        const QImage image = m_widget->grab().toImage();
        int n = 0;
        for (int y = 0; y < image.height(); ++y)
            for (int x = 0; x < image.width(); ++x)
                n += image.pixelColor(x, y) == criticalPathColor();
        return n;
    };
    QVERIFY(rosePixels() > 500);
    m_widget->setCriticalPath(nullptr);
    QVERIFY(criticalPathGeometry(m_widget->renderer(), m_widget->frame()).outlines.empty());
    QCOMPARE(rosePixels(), 0);
}

void TestTimelineWidget::gpuUtilisationLanes() {
    // The H100 trace: its GPU group opens with its stream, then the lanes derived from it, drawn and hovered
    // like any counter.
    m_widget = std::make_unique<TimelineWidget>(m_qwen);
    m_widget->resize(1400, 900);
    m_widget->show();
    QVERIFY(QTest::qWaitForWindowExposed(m_widget.get()));
    const LaneLayout& layout = m_widget->layout();
    const LaneGroup* gpu = nullptr;
    for (const LaneGroup& g : layout.groups())
        if (g.kind == LaneGroup::Kind::Gpu) gpu = &g;
    QVERIFY(gpu && gpu->tracks.size() >= 6);
    QVERIFY(!layout.derived(gpu->tracks[0])); // the store's stream first
    QCOMPARE(layout.laneTitle(gpu->tracks[1]), std::string("GPU utilisation"));
    QCOMPARE(layout.laneTitle(gpu->tracks[2]), std::string("est. SM efficiency"));
    QCOMPARE(layout.laneTitle(gpu->tracks[3]), std::string("Launch queue · stream 7"));
    QVERIFY(layout.derived(gpu->tracks[3]));
    // The copy bandwidths by kind (the trace's one DtoH copy and its memsets).
    QCOMPARE(layout.laneTitle(gpu->tracks[4]), std::string("Memcpy DtoH bandwidth"));
    QCOMPARE(layout.laneTitle(gpu->tracks[5]), std::string("Memset bandwidth"));
    QVERIFY(layout.derived(gpu->tracks[5]));
    const TrackId lane = gpu->tracks[1];
    const int row = layout.firstRowOf(lane);
    QVERIFY(row >= 0);
    // Scroll the lane into view and hover the middle of the busy step.
    const StepRange step = m_qwen->steps.front();
    m_widget->setVisibleRange(step.start, step.end);
    m_widget->revealEvent({gpu->tracks[0], EventIndex(0)});
    const LaneRow& laneRow = layout.rows()[std::size_t(row)];
    const double y = m_widget->renderer().viewY(m_widget->frame(), laneRow.y) + laneRow.height / 2;
    QVERIFY(y > TimelineRenderer::rulerHeight && y < m_widget->height());
    const TimelineGeometry& g = m_widget->renderer().geometry(m_widget->frame());
    const auto area = std::find_if(g.counters.begin(), g.counters.end(), [&](const auto& a) {
        return std::abs(a.rowRect.top() - (y - laneRow.height / 2)) < 1;
    });
    QVERIFY(area != g.counters.end());
    QVERIFY2(area->label.endsWith(QLatin1String("% (mean over the view)")), qPrintable(area->label));
    QVERIFY(area->polygon.size() > 100);
    // A bandwidth lane is scaled to its columns in view (each the mean over its pixel), not to the peak of a
    // 2 µs memset, which would flatten them. (Over the whole trace: the step shown above has no memset.)
    m_widget->setVisibleRange(m_qwen->store->minTime(), m_qwen->store->maxTime());
    const int memsetRow = layout.firstRowOf(gpu->tracks[5]);
    QVERIFY(memsetRow >= 0);
    const double memsetTop =
        m_widget->renderer().viewY(m_widget->frame(), layout.rows()[std::size_t(memsetRow)].y);
    const TimelineGeometry& whole = m_widget->renderer().geometry(m_widget->frame());
    const auto memset = std::find_if(whole.counters.begin(), whole.counters.end(), [&](const auto& a) {
        return std::abs(a.rowRect.top() - memsetTop) < 1;
    });
    QVERIFY(memset != whole.counters.end());
    QVERIFY2(memset->label.startsWith(QLatin1String("max ")) &&
                 memset->label.endsWith(QLatin1String("/s in view")),
             qPrintable(memset->label));
    const std::vector<double>& rates = layout.track(gpu->tracks[5]).counterValues;
    const double peak = *std::max_element(rates.begin(), rates.end());
    QVERIFY2(memset->maxValue > 0 && memset->maxValue < peak,
             qPrintable(QStringLiteral("%1 of %2").arg(memset->maxValue).arg(peak)));
    m_widget->setVisibleRange(step.start, step.end);
    m_widget->revealEvent({gpu->tracks[0], EventIndex(0)});
    const double x = TimelineRenderer::headerWidth + m_widget->frame().axis.width / 2;
    const auto v = layout.counterValueAt(lane, m_widget->frame().axis,
                                         m_widget->frame().axis.timeAt(x - TimelineRenderer::headerWidth));
    QVERIFY(v && *v >= 0 && *v <= 1);
    const QPoint pos{int(x), int(y)};
    QHelpEvent help(QEvent::ToolTip, pos, m_widget->mapToGlobal(pos));
    QApplication::sendEvent(m_widget.get(), &help);
    QVERIFY(QTest::qWaitFor([] { return QToolTip::isVisible(); }, 2000));
    const QString tip = QToolTip::text();
    QVERIFY2(tip.contains(QLatin1String("GPU utilisation")) &&
                 tip.contains(QLatin1String("over this pixel's")),
             qPrintable(tip));
    QToolTip::hideText();
}

void TestTimelineWidget::heldKeyAccelerates() {
    QCOMPARE(heldKeyZoomExponent(0), 1.0);
    QCOMPARE(heldKeyZoomExponent(400), 2.0);
    QCOMPARE(heldKeyZoomExponent(800), 3.0);
    QCOMPARE(heldKeyZoomExponent(5000), 3.0);
    // A press zooms one step; the auto-repeat of a key held for a while zooms more per event.
    const TimeNs span0 = m_widget->axis().span();
    QKeyEvent press(QEvent::KeyPress, Qt::Key_W, Qt::NoModifier, QString(), false);
    QApplication::sendEvent(m_widget.get(), &press);
    const TimeNs span1 = m_widget->axis().span();
    QVERIFY(std::abs(double(span1) / double(span0) - 0.8) < 0.01);
    QTest::qWait(450);
    QKeyEvent repeat(QEvent::KeyPress, Qt::Key_W, Qt::NoModifier, QString(), true);
    QApplication::sendEvent(m_widget.get(), &repeat);
    const double ratio = double(m_widget->axis().span()) / double(span1);
    QVERIFY2(ratio < 0.8 * 0.8 && ratio > std::pow(0.8, 3.0) - 0.01, qPrintable(QString::number(ratio)));
    // Released and pressed again: one step again.
    QKeyEvent release(QEvent::KeyRelease, Qt::Key_W, Qt::NoModifier, QString(), false);
    QApplication::sendEvent(m_widget.get(), &release);
    const TimeNs span2 = m_widget->axis().span();
    QApplication::sendEvent(m_widget.get(), &press);
    QVERIFY(std::abs(double(m_widget->axis().span()) / double(span2) - 0.8) < 0.01);
}

void TestTimelineWidget::areaDragAcrossGapsAndTracks() {
    // Released in the spacing below a GPU stream (not on a row), the selection still reaches it, and it
    // covers every track between: the report's "on 1 tracks".
    const LaneLayout& layout = m_widget->layout();
    const int cpuRow = layout.firstRowOf(TrackId(0));
    int gpuLast = -1;
    for (std::size_t r = 0; r < layout.rows().size(); ++r) {
        const LaneRow& row = layout.rows()[r];
        if (row.kind == LaneRow::Kind::Slices &&
            m_widget->store().track(row.track).kind == TrackKind::GpuStream)
            gpuLast = int(r);
        if (gpuLast >= 0 && row.kind == LaneRow::Kind::Slices &&
            m_widget->store().track(row.track).kind != TrackKind::GpuStream)
            break;
    }
    QVERIFY(cpuRow >= 0 && gpuLast > cpuRow);
    const LaneRow& last = layout.rows()[std::size_t(gpuLast)];
    const double gapY = TimelineRenderer::rulerHeight + last.y + last.height + 1; // in the track gap
    QVERIFY(layout.rowAt(gapY - TimelineRenderer::rulerHeight) < 0);
    drag(m_widget.get(), Qt::LeftButton, Qt::ControlModifier,
         QPointF(TimelineRenderer::headerWidth + 50,
                 TimelineRenderer::rulerHeight + layout.rows()[cpuRow].y + 5),
         QPointF(TimelineRenderer::headerWidth + 900, gapY));
    const auto area = m_widget->areaSelection();
    QVERIFY(area.has_value());
    QCOMPARE(area->firstRow, cpuRow);
    QCOMPARE(area->lastRow, gpuLast);
    const std::vector<TrackId> tracks = m_widget->tracksOf(*area);
    QVERIFY(tracks.size() >= 2);
    QVERIFY(std::any_of(tracks.begin(), tracks.end(),
                        [&](TrackId t) { return m_widget->store().track(t).kind == TrackKind::GpuStream; }));
}

void TestTimelineWidget::pythonFramesFoldFromTheHeader() {
    TimelineWidget w(m_qwen);
    w.resize(1400, 700);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    const LaneLayout& layout = w.layout();
    TrackId thread;
    // The main thread (Python frames and operators; the processes without work start folded).
    for (std::uint32_t t = 0; t < w.store().tracks().size() && !thread.isValid(); ++t)
        if (const HostView* v = layout.hostViewOf(TrackId(t));
            v && v->host.sliceCount() > 0 && !layout.groups()[layout.groupOf(TrackId(t))].collapsed)
            thread = TrackId(t);
    QVERIFY(thread.isValid());
    QVERIFY(!layout.pythonExpanded(thread));
    const double folded = layout.contentHeight();
    const int row = layout.firstRowOf(thread);
    const QPointF title(40, TimelineRenderer::rulerHeight + layout.rows()[std::size_t(row)].y + 5 -
                                w.frame().scrollY);
    QTest::mouseClick(&w, Qt::LeftButton, Qt::NoModifier, title.toPoint());
    QVERIFY(layout.pythonExpanded(thread));
    QVERIFY(layout.contentHeight() > folded + 10 * layout.metrics().sliceHeight);
    QTest::mouseClick(&w, Qt::LeftButton, Qt::NoModifier, title.toPoint());
    QVERIFY(!layout.pythonExpanded(thread));
    QCOMPARE(layout.contentHeight(), folded);
    // A click on a slice of the folded thread selects the store's own event.
    const int hostRow = row + 1;
    const LaneRow& lane = layout.rows()[std::size_t(hostRow)];
    const Track& host = layout.track(lane.track);
    QVERIFY(host.sliceCount() > 0);
    const EventRef shown{lane.track, EventIndex(host.laneBegin[lane.depth])};
    const EventRef source = layout.sourceOf(shown);
    QCOMPARE(source.track, thread);
    w.revealEvent(source);
    QCOMPARE(w.selected(), source);
    QCOMPARE(layout.rowOf(source), hostRow);
}

// Issue 52 item 1: a compiled run's deep CPU stacks (compile annotations, autograd) pushed the GPU stream off
// the window's timeline. The first screen caps the threads' lanes so that every stream shows; the thread's
// "+N lanes" opens them, the rest of its title still folds its Python frames, and a capped slice revealed
// opens its thread.
void TestTimelineWidget::firstScreenShowsEveryGpuStream() {
    TimelineWidget w(load(KINETOSCOPE_SOURCE_DIR "/tests/data/gpu/compiled.pt.trace.json.gz"));
    w.resize(1400, 380); // the timeline's share of a 1400x900 window under the default split
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    const LaneLayout& layout = w.layout();
    const double page = w.height() - TimelineRenderer::rulerHeight;
    std::size_t streams = 0;
    for (const LaneRow& r : layout.rows())
        if (r.track.isValid() && r.track.value < w.store().tracks().size() &&
            w.store().track(r.track).kind == TrackKind::GpuStream) {
            ++streams;
            QVERIFY2(r.y + r.height <= page, qPrintable(QString::number(r.y + r.height)));
        }
    QVERIFY(streams > 0);
    QVERIFY(layout.depthCap() > 0);
    // The deepest compact thread folds lanes; its "+N lanes" opens them.
    TrackId thread;
    for (std::uint32_t t = 0; t < w.store().tracks().size(); ++t)
        if (layout.cappedLanes(TrackId(t)) > 0 &&
            (!thread.isValid() || layout.cappedLanes(TrackId(t)) > layout.cappedLanes(thread)))
            thread = TrackId(t);
    QVERIFY(thread.isValid());
    QVERIFY(layout.hostViewOf(thread));
    const double capped = layout.contentHeight();
    const double y =
        TimelineRenderer::rulerHeight + layout.rows()[std::size_t(layout.firstRowOf(thread))].y + 5;
    QTest::mouseClick(&w, Qt::LeftButton, Qt::NoModifier,
                      QPoint(int(TimelineRenderer::headerWidth) - 12, int(y)));
    QVERIFY(layout.isUncapped(thread));
    QVERIFY(!layout.pythonExpanded(thread));
    QVERIFY(layout.contentHeight() > capped);
    QTest::mouseClick(&w, Qt::LeftButton, Qt::NoModifier,
                      QPoint(int(TimelineRenderer::headerWidth) - 12, int(y)));
    QVERIFY(!layout.isUncapped(thread));
    QCOMPARE(layout.contentHeight(), capped);
    // The title's left part still unfolds the Python frames.
    QTest::mouseClick(&w, Qt::LeftButton, Qt::NoModifier, QPoint(40, int(y)));
    QVERIFY(layout.pythonExpanded(thread));
    QTest::mouseClick(&w, Qt::LeftButton, Qt::NoModifier, QPoint(40, int(y)));
    QVERIFY(!layout.pythonExpanded(thread));
    // A slice in a folded lane, revealed (Find, a table's row), opens its thread.
    EventRef deep;
    for (std::uint32_t r = 0; r < w.store().track(thread).sliceCount() && !deep.isValid(); ++r)
        if (layout.foldedByCap(EventRef{thread, EventIndex(r)})) deep = EventRef{thread, EventIndex(r)};
    QVERIFY(deep.isValid());
    w.revealEvent(deep);
    QVERIFY(layout.isUncapped(thread));
    QVERIFY(!layout.foldedByCap(deep));
}

void TestTimelineWidget::trackFilterField() {
    QLineEdit* field = m_widget->trackFilterField();
    QVERIFY(field && field->isVisible());
    const std::size_t all = m_widget->layout().rows().size();
    field->setText(QStringLiteral("stream"));
    QVERIFY(m_widget->layout().rows().size() < all);
    QCOMPARE(m_widget->layout().trackFilter(), std::string("stream"));
    // Revealing an event of a track the filter hides clears the filter.
    m_widget->revealEvent({TrackId(0), EventIndex(0)});
    QVERIFY(field->text().isEmpty());
    QCOMPARE(m_widget->layout().rows().size(), all);
}

QTEST_MAIN(TestTimelineWidget)
#include "tst_timelinewidget.moc"
