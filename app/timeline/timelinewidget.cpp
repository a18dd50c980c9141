#include "timeline/timelinewidget.h"

#include "analysis/gpu/criticalpath.h"
#include "query/selftime.h"
#include "query/viewport.h"
#include "timeline/viewkeys.h"

#include <QContextMenuEvent>
#include <QGuiApplication>
#include <QHelpEvent>
#include <QKeyEvent>
#include <QLineEdit>
#include <QMenu>
#include <QMouseEvent>
#include <QPainter>
#include <QScrollBar>
#include <QTimer>
#include <QToolTip>
#include <QWheelEvent>

#include <algorithm>
#include <cmath>

namespace kinetoscope {

namespace {
constexpr double zoomStep = 0.8;    // one W press or wheel notch
constexpr double panStep = 0.15;    // one A/D press, as a fraction of the view
constexpr int historyMergeMs = 700; // continuous zooming and panning merges into one history entry
constexpr std::size_t historyLimit = 200;

QString htmlEscaped(std::string_view text) {
    return QString::fromUtf8(text.data(), qsizetype(text.size())).toHtmlEscaped();
}
} // namespace

TimelineWidget::TimelineWidget(std::shared_ptr<const LoadedTrace> trace, QWidget* parent)
    : QWidget(parent), m_trace(std::move(trace)), m_derived(m_trace->derived),
      m_layout(*m_trace->store, &m_derived, &m_trace->hostViews), m_renderer(m_trace, &m_layout) {
    // The first screen shows the steps, the operators and every GPU stream: processes without work fold.
    m_layout.collapseIdleProcesses();
    setFocusPolicy(Qt::StrongFocus);
    setMouseTracking(true);
    setAttribute(Qt::WA_OpaquePaintEvent);
    setMinimumSize(400, 200);
    m_scrollBar = new QScrollBar(Qt::Vertical, this);
    connect(m_scrollBar, &QScrollBar::valueChanged, this, [this](int v) {
        if (int(m_frame.scrollY) == v) return;
        m_frame.scrollY = v;
        update();
    });
    // Filtering tracks by name, in the corner above the track titles (as Perfetto's track filter).
    m_trackFilter = new QLineEdit(this);
    m_trackFilter->setPlaceholderText(tr("Filter tracks…"));
    m_trackFilter->setClearButtonEnabled(true);
    m_trackFilter->setFrame(false);
    m_trackFilter->setToolTip(
        tr("Show only the tracks whose name (or whose process or GPU) contains this text"));
    m_trackFilter->setGeometry(6, int(m_frame.rulerHeight / 2), int(TimelineRenderer::headerWidth) - 12,
                               int(m_frame.rulerHeight / 2) - 3);
    connect(m_trackFilter, &QLineEdit::textChanged, this, [this](const QString& text) {
        m_layout.setTrackFilter(text.toStdString());
        rowsMoved();
    });
    m_frame.axis.start = store().minTime();
    m_frame.axis.end = std::max(store().maxTime(), store().minTime() + TimeAxis::minSpan);
    m_sinceHistory.start();
    updateFrameGeometry();
    fitAll();
    m_back.clear();
}

TimelineWidget::~TimelineWidget() = default;

void TimelineWidget::updateFrameGeometry() {
    // A pane as tall as its content (compactPane) has nothing to scroll: no bar, the lanes take its width.
    const int bar = m_wheelScrollsPage ? 0 : m_scrollBar->sizeHint().width();
    m_scrollBar->setGeometry(width() - bar, int(m_frame.rulerHeight), bar,
                             std::max(0, height() - int(m_frame.rulerHeight)));
    m_frame.size = QSize(std::max(1, width() - bar), height());
    m_frame.axis.width = std::max(1.0, m_frame.size.width() - TimelineRenderer::headerWidth);
    updateScrollBar();
}

void TimelineWidget::updateScrollBar() {
    const double page = std::max(0.0, height() - m_frame.rulerHeight);
    const int maximum = std::max(0, int(std::ceil(m_layout.contentHeight() - page)));
    m_scrollBar->setRange(0, maximum);
    m_scrollBar->setPageStep(int(page));
    m_scrollBar->setSingleStep(int(m_layout.metrics().sliceHeight));
    m_frame.scrollY = std::clamp(m_frame.scrollY, 0.0, double(maximum));
    m_scrollBar->setValue(int(m_frame.scrollY));
}

void TimelineWidget::setScrollY(double y) {
    m_frame.scrollY = std::clamp(y, 0.0, double(m_scrollBar->maximum()));
    m_scrollBar->setValue(int(m_frame.scrollY));
    update();
}

TimeNs TimelineWidget::timeAtX(double x) const {
    return m_frame.axis.timeAt(x - TimelineRenderer::headerWidth);
}

void TimelineWidget::pushHistory() {
    if (!m_back.empty() && m_back.back() == m_frame.axis) return;
    m_back.push_back(m_frame.axis);
    if (m_back.size() > historyLimit) m_back.erase(m_back.begin());
    m_forward.clear();
    m_sinceHistory.restart();
}

void TimelineWidget::applyAxis(TimeAxis axis, bool recordHistory) {
    if (isVisible() && m_frame.axis.width > 1 && axis.span() != m_frame.axis.span() && m_userInput)
        noteUsed();
    // Allow a margin around the trace so its first and last slices can be seen clear of the edges.
    const TimeRange bounds = timeBounds();
    const TimeNs margin = std::max<TimeNs>((bounds.to - bounds.from) / 20, TimeAxis::minSpan);
    axis = axis.clampedTo(bounds.from - margin, bounds.to + margin);
    axis.width = m_frame.axis.width;
    if (axis == m_frame.axis) return;
    if (recordHistory) pushHistory();
    m_frame.axis = axis;
    m_viewChosen = true; // fitAll says otherwise
    update();
    emit viewChanged();
}

void TimelineWidget::setVisibleRange(TimeNs from, TimeNs to, bool recordHistory) {
    applyAxis(m_frame.axis.withRange(from, to), recordHistory);
}

void TimelineWidget::setTimeBounds(std::optional<TimeRange> bounds) {
    m_timeBounds = bounds;
}

TimeRange TimelineWidget::timeBounds() const {
    if (m_timeBounds) return *m_timeBounds;
    return {store().minTime(), store().maxTime()};
}

TimeRange TimelineWidget::fitBounds() const {
    if (m_timeBounds) return *m_timeBounds;
    // Kineto's "Record Window End" marks where it stopped recording, which can lie far past the last event
    // (an attached trace's window outlasts the work it saw): the fit ends with the events. Each lane's last
    // row ends last (a lane does not overlap itself), so this is a look at each lane's end, not at every
    // event.
    const StringId windowEnd = store().strings().find("Record Window End");
    if (!windowEnd.isValid()) return {store().minTime(), store().maxTime()};
    TimeNs last = store().minTime();
    bool any = false;
    for (const Track& t : store().tracks())
        for (std::uint32_t lane = 0; lane < t.laneCount(); ++lane)
            for (std::uint32_t r = t.laneBegin[lane + 1]; r > t.laneBegin[lane]; --r) {
                if (t.names[r - 1] == windowEnd && (t.flags[r - 1] & SliceFlag::Instant)) continue;
                last = std::max(last, t.endOf(r - 1));
                any = true;
                break;
            }
    return {store().minTime(), any ? std::min(last, store().maxTime()) : store().maxTime()};
}

void TimelineWidget::fitAll() {
    const TimeRange bounds = fitBounds();
    const TimeNs span = std::max<TimeNs>(bounds.to - bounds.from, TimeAxis::minSpan);
    const TimeNs pad = span / 100;
    setVisibleRange(bounds.from - pad, bounds.from + span + pad);
    m_viewChosen = false;
}

void TimelineWidget::zoomToSelection() {
    if (m_frame.area) {
        setVisibleRange(m_frame.area->range.from, m_frame.area->range.to);
        return;
    }
    if (m_frame.measure) {
        setVisibleRange(m_frame.measure->from, m_frame.measure->to);
        return;
    }
    if (!m_frame.selected.isValid()) return;
    const Track& t = store().track(m_frame.selected.track);
    const TimeNs s = t.starts[m_frame.selected.index.value];
    const TimeNs d = std::max<TimeNs>(t.durations[m_frame.selected.index.value], TimeAxis::minSpan);
    setVisibleRange(s - d / 10, s + d + d / 10);
}

void TimelineWidget::zoomBy(double factor, std::optional<double> atX) {
    const bool merge = m_sinceHistory.elapsed() < historyMergeMs;
    if (!merge) pushHistory();
    m_sinceHistory.restart();
    const double x = atX ? *atX - TimelineRenderer::headerWidth : m_frame.axis.width / 2;
    applyAxis(m_frame.axis.zoomedAt(std::clamp(x, 0.0, m_frame.axis.width), factor), false);
}

void TimelineWidget::panBy(double fraction) {
    if (m_sinceHistory.elapsed() >= historyMergeMs) pushHistory();
    m_sinceHistory.restart();
    applyAxis(m_frame.axis.pannedBy(fraction * m_frame.axis.width), false);
}

bool TimelineWidget::back() {
    if (m_back.empty()) return false;
    m_forward.push_back(m_frame.axis);
    TimeAxis axis = m_back.back();
    m_back.pop_back();
    applyAxis(axis, false);
    return true;
}

bool TimelineWidget::forward() {
    if (m_forward.empty()) return false;
    m_back.push_back(m_frame.axis);
    TimeAxis axis = m_forward.back();
    m_forward.pop_back();
    applyAxis(axis, false);
    return true;
}

void TimelineWidget::setSelected(EventRef ref) {
    if (m_frame.selected == ref) return;
    if (ref.isValid() && m_userInput) noteUsed();
    m_frame.selected = ref;
    update();
    emit selectionChanged(ref);
}

void TimelineWidget::revealEvent(EventRef ref) {
    // Events are the store's: a derived lane (ids after the store's tracks) has none.
    if (!ref.isValid() || ref.track.value >= store().tracks().size()) return;
    const std::uint32_t group = m_layout.groupOf(ref.track);
    if (m_layout.groups()[group].collapsed) setGroupCollapsed(group, false);
    if (m_layout.isHidden(ref.track)) setTrackHidden(ref.track, false);
    // An event of a track the filter leaves out: show every track again rather than nothing.
    if (m_layout.firstRowOf(ref.track) < 0 && !m_layout.trackFilter().empty()) setTrackFilter({});
    // A slice on a lane the depth cap folds away: open its thread.
    if (m_layout.foldedByCap(ref)) setThreadOpened(ref.track, true);
    // A Python frame folded inside the summary lane: unfold the thread's frames to show it.
    if (const HostView* v = m_layout.hostViewOf(ref.track);
        v && !m_layout.pythonExpanded(ref.track) && v->shownRowOf[ref.index.value] == HostView::noRow)
        setPythonExpanded(ref.track, true);
    setSelected(ref);
    const Track& t = store().track(ref.track);
    const TimeNs s = t.starts[ref.index.value];
    const TimeNs e = t.endOf(ref.index.value);
    const double widthPx = double(e - s) / m_frame.axis.nsPerPixel();
    if (s < m_frame.axis.start || e > m_frame.axis.end || widthPx < 4) {
        // Keep the zoom when the event fits and is visible enough; otherwise frame it with context either
        // side.
        const TimeNs d = std::max<TimeNs>(e - s, TimeAxis::minSpan);
        if (widthPx >= 4 && d < m_frame.axis.span()) {
            const TimeNs half = m_frame.axis.span() / 2;
            setVisibleRange(s + (e - s) / 2 - half, s + (e - s) / 2 + half);
        } else {
            setVisibleRange(s - d, e + d);
        }
    }
    const int row = m_layout.rowOf(ref);
    if (row >= 0) {
        const LaneRow& r = m_layout.rows()[std::size_t(row)];
        const double page = height() - m_frame.rulerHeight;
        if (r.y < m_frame.scrollY || r.y + r.height > m_frame.scrollY + page) setScrollY(r.y - page / 3);
    }
    update();
}

void TimelineWidget::setFlowMode(FlowMode mode) {
    m_frame.flows = mode;
    update();
}

void TimelineWidget::setColorMode(ColorMode mode) {
    m_frame.colors = mode;
    update();
}

void TimelineWidget::setSearchHighlight(std::shared_ptr<const std::vector<bool>> names, EventRef current) {
    m_searchNames = std::move(names);
    m_frame.searchNames = m_searchNames.get();
    m_frame.currentMatch = current;
    m_renderer.invalidate();
    update();
}

void TimelineWidget::setAreaSelection(std::optional<AreaSelection> area) {
    m_frame.area = area;
    update();
    emit areaSelectionChanged();
}

std::vector<TrackId> TimelineWidget::tracksOf(const AreaSelection& area) const {
    std::vector<TrackId> tracks;
    const auto& rows = m_layout.rows();
    for (int r = std::max(0, area.firstRow); r <= area.lastRow && r < int(rows.size()); ++r) {
        const LaneRow& row = rows[std::size_t(r)];
        if (row.kind == LaneRow::Kind::GroupHeader) {
            // A collapsed group under the selection contributes all its tracks.
            const LaneGroup& g = m_layout.groups()[row.group];
            if (g.collapsed) {
                for (TrackId id : g.tracks)
                    tracks.push_back(id);
            }
            continue;
        }
        // The store's track (a compact thread's parts are its thread).
        const TrackId source = m_layout.sourceTrackOf(row.track);
        if (tracks.empty() || tracks.back() != source) tracks.push_back(source);
    }
    std::sort(tracks.begin(), tracks.end());
    tracks.erase(std::unique(tracks.begin(), tracks.end()), tracks.end());
    return tracks;
}

void TimelineWidget::setShowHint(bool show, int timeoutMs) {
    m_showHint = show;
    if (show) {
        const std::uint64_t generation = ++m_hintGeneration;
        QTimer::singleShot(timeoutMs, this, [this, generation] {
            if (generation != m_hintGeneration || !m_showHint) return;
            m_showHint = false;
            update();
        });
    }
    update();
}

void TimelineWidget::noteUsed() {
    if (!m_showHint) return;
    m_showHint = false;
    update();
    emit firstUsed();
}

void TimelineWidget::paintEvent(QPaintEvent*) {
    QPainter p(this);
    m_renderer.paint(p, m_frame);
    if (m_showHint) {
        // One line for newcomers, until they first zoom, pan or select.
        const QString hint =
            tr("Drag on the ruler to zoom · Ctrl+wheel or W/S zoom, A/D pan · Click a slice for details · "
               "Shift+drag measures, Ctrl+drag selects an area · Ctrl+F finds · 0 fits");
        QFontMetrics fm(p.font());
        const int w = std::min(m_frame.size.width() - int(TimelineRenderer::headerWidth) - 20,
                               fm.horizontalAdvance(hint) + 24);
        const QRect r(int(TimelineRenderer::headerWidth) +
                          (m_frame.size.width() - int(TimelineRenderer::headerWidth) - w) / 2,
                      height() - 34, w, 24);
        p.setPen(Qt::NoPen);
        p.setBrush(QColor(0x11, 0x18, 0x27, 215));
        p.setRenderHint(QPainter::Antialiasing);
        p.drawRoundedRect(r, 6, 6);
        p.setPen(Qt::white);
        p.drawText(r, Qt::AlignCenter, fm.elidedText(hint, Qt::ElideRight, w - 12));
    }
    // The strip under the scroll bar's column, beside the ruler.
    p.fillRect(QRect(m_frame.size.width(), 0, width() - m_frame.size.width(), int(m_frame.rulerHeight)),
               QColor(0xee, 0xf0, 0xf3));
}

void TimelineWidget::resizeEvent(QResizeEvent*) {
    // Keep the same time range across resizes (the zoom level follows the width).
    if (m_fitFirstScreen) fitFirstScreen();
    updateFrameGeometry();
    m_renderer.invalidate();
}

void TimelineWidget::wheelEvent(QWheelEvent* e) {
    const UserInput input(this);
    const QPoint angle = e->angleDelta();
    // In a list of panes the plain wheel scrolls the list, wherever the pointer is (one wheel rule).
    if (m_wheelScrollsPage && !(e->modifiers() & (Qt::ControlModifier | Qt::ShiftModifier)) &&
        angle.x() == 0) {
        e->ignore();
        return;
    }
    const double notches = angle.y() / 120.0;
    if (e->modifiers() & Qt::ControlModifier) {
        if (notches != 0) zoomBy(std::pow(zoomStep, notches), e->position().x());
    } else if (e->modifiers() & Qt::ShiftModifier || angle.x() != 0) {
        const double dx = angle.x() != 0 ? -angle.x() / 120.0 : -notches;
        panBy(dx * 0.1);
    } else {
        setScrollY(m_frame.scrollY - notches * 3 * m_layout.metrics().sliceHeight);
    }
    e->accept();
}

double heldKeyZoomExponent(qint64 heldMs) {
    return 1 + std::min(2.0, double(std::max<qint64>(0, heldMs)) / 400.0);
}

void TimelineWidget::keyReleaseEvent(QKeyEvent* e) {
    if (!e->isAutoRepeat() && e->key() == m_heldKey) m_heldKey = 0;
    QWidget::keyReleaseEvent(e);
}

void TimelineWidget::keyPressEvent(QKeyEvent* e) {
    const UserInput input(this);
    const QPointF mouse = mapFromGlobal(QCursor::pos());
    const std::optional<double> at =
        rect().contains(mouse.toPoint()) && mouse.x() > TimelineRenderer::headerWidth
            ? std::optional<double>(mouse.x())
            : std::nullopt;
    if (e->modifiers() & Qt::AltModifier) {
        if (e->key() == Qt::Key_Left) {
            back();
            return;
        }
        if (e->key() == Qt::Key_Right) {
            forward();
            return;
        }
    }
    if (const std::optional<ViewKey> key = viewKeyOf(e->key())) {
        switch (*key) {
        case ViewKey::ZoomIn:
        case ViewKey::ZoomOut: {
            // Held down, the key zooms faster the longer it is held (the auto-repeat's steps grow).
            if (!e->isAutoRepeat() || m_heldKey != e->key()) {
                m_heldKey = e->key();
                m_keyHold.start();
            }
            const double step = std::pow(zoomStep, heldKeyZoomExponent(m_keyHold.elapsed()));
            return zoomBy(*key == ViewKey::ZoomIn ? step : 1 / step, at);
        }
        case ViewKey::PanLeft:
            return panBy(-panStep);
        case ViewKey::PanRight:
            return panBy(panStep);
        case ViewKey::Fit:
            return fitAll();
        }
    }
    switch (e->key()) {
    case Qt::Key_F:
        zoomToSelection();
        return;
    case Qt::Key_Back:
        back();
        return;
    case Qt::Key_Forward:
        forward();
        return;
    case Qt::Key_Escape:
        m_frame.measure.reset();
        if (m_frame.area)
            setAreaSelection(std::nullopt);
        else
            setSelected({});
        update();
        return;
    default:
        break;
    }
    QWidget::keyPressEvent(e);
}

void TimelineWidget::mousePressEvent(QMouseEvent* e) {
    const QPointF pos = e->position();
    m_pressPos = pos;
    m_pressTime = timeAtX(pos.x());
    m_pressAxis = m_frame.axis;
    m_pressScroll = m_frame.scrollY;
    // (Nearest, not exact: an area drag may start in the spacing between tracks.)
    m_pressRow = m_renderer.rowNearY(m_frame, pos.y());
    m_drag = Drag::None;
    if (e->button() == Qt::MiddleButton) {
        m_drag = Drag::Pan;
        setCursor(Qt::ClosedHandCursor);
        return;
    }
    if (e->button() == Qt::BackButton) {
        back();
        return;
    }
    if (e->button() == Qt::ForwardButton) {
        forward();
        return;
    }
    if (e->button() != Qt::LeftButton) return;
    if (pos.x() < TimelineRenderer::headerWidth) {
        const int group = m_renderer.groupHeaderAt(m_frame, pos);
        if (group >= 0) {
            setGroupCollapsed(std::uint32_t(group), !m_layout.groups()[std::size_t(group)].collapsed);
            return;
        }
        // The title of a thread with Python frames folds or unfolds them; under a depth cap, the title of a
        // deep thread opens or closes its lanes.
        const int row = m_renderer.rowAtY(m_frame, pos.y());
        if (row >= 0) {
            const TrackId source = m_layout.sourceTrackOf(m_layout.rows()[std::size_t(row)].track);
            if (m_layout.firstRowOf(source) == row) {
                // Its "+N lanes" (rightmost) opens or closes the capped lanes; the rest of a compact
                // thread's title folds or unfolds its Python frames.
                const double lanes = m_renderer.lanesFoldWidth(source);
                const bool onLanes = lanes > 0 && pos.x() >= TimelineRenderer::headerWidth - 6 - lanes;
                if (m_layout.hostViewOf(source) && !onLanes)
                    setPythonExpanded(source, !m_layout.pythonExpanded(source));
                else if (lanes > 0)
                    setThreadOpened(source, !m_layout.isUncapped(source));
            }
        }
        return;
    }
    if (pos.y() < m_frame.rulerHeight || m_zoomTool)
        m_drag = Drag::ZoomRange;
    else if (e->modifiers() & Qt::ShiftModifier)
        m_drag = Drag::Measure;
    else if (e->modifiers() & Qt::ControlModifier)
        m_drag = Drag::Area;
    else
        m_drag = Drag::Click;
}

void TimelineWidget::mouseMoveEvent(QMouseEvent* e) {
    const UserInput input(this);
    const QPointF pos = e->position();
    const TimeNs t = timeAtX(pos.x());
    m_frame.cursor = pos.x() >= TimelineRenderer::headerWidth ? std::optional<TimeNs>(t) : std::nullopt;
    const bool moved = (pos - m_pressPos).manhattanLength() > 3;
    switch (m_drag) {
    case Drag::Click:
        if (!moved) break;
        m_drag = Drag::Pan;
        setCursor(Qt::ClosedHandCursor);
        [[fallthrough]];
    case Drag::Pan: {
        TimeAxis axis = m_pressAxis.pannedBy(m_pressPos.x() - pos.x());
        applyAxis(axis, false);
        setScrollY(m_pressScroll + (m_pressPos.y() - pos.y()));
        break;
    }
    case Drag::ZoomRange:
        if (moved) m_frame.zoomDrag = TimeRange{m_pressTime, t};
        break;
    case Drag::Measure:
        m_frame.measure = TimeRange{m_pressTime, t};
        break;
    case Drag::Area: {
        // Near an edge the lanes scroll, so a selection can reach tracks below the fold (the GPU streams).
        constexpr double edge = 24;
        if (pos.y() > height() - edge)
            setScrollY(m_frame.scrollY + edge);
        else if (pos.y() < m_frame.rulerHeight + edge)
            setScrollY(m_frame.scrollY - edge);
        // Every row between the press and the pointer, gaps between tracks included: a pointer over the
        // spacing between two tracks selects up to the one above, not nothing.
        const int row = m_renderer.rowNearY(m_frame, std::min(pos.y(), double(height() - 1)));
        const int a = m_pressRow >= 0 ? m_pressRow : row;
        const int b = row >= 0 ? row : a;
        if (a >= 0)
            m_frame.area = AreaSelection{TimeRange{std::min(m_pressTime, t), std::max(m_pressTime, t)},
                                         std::min(a, b), std::max(a, b)};
        break;
    }
    case Drag::None: {
        const EventRef hovered = m_renderer.eventAt(m_frame, pos);
        m_frame.hovered = hovered;
        break;
    }
    }
    update();
}

void TimelineWidget::mouseReleaseEvent(QMouseEvent* e) {
    const UserInput input(this);
    const QPointF pos = e->position();
    const Drag drag = m_drag;
    m_drag = Drag::None;
    unsetCursor();
    switch (drag) {
    case Drag::Click: {
        const EventRef hit = m_renderer.eventAt(m_frame, pos);
        setSelected(hit);
        break;
    }
    case Drag::ZoomRange:
        if (m_frame.zoomDrag && std::abs(pos.x() - m_pressPos.x()) > 3) {
            const TimeRange r = *m_frame.zoomDrag;
            m_frame.zoomDrag.reset();
            setVisibleRange(std::min(r.from, r.to), std::max(r.from, r.to));
        }
        m_frame.zoomDrag.reset();
        break;
    case Drag::Area:
        if (m_frame.area && std::abs(pos.x() - m_pressPos.x()) > 3)
            emit areaSelectionChanged();
        else
            setAreaSelection(std::nullopt);
        break;
    case Drag::Pan:
        pushHistory();
        break;
    case Drag::Measure:
        if (m_frame.measure && m_frame.measure->span() > 0) emit measurementChanged();
        break;
    default:
        break;
    }
    update();
}

void TimelineWidget::mouseDoubleClickEvent(QMouseEvent* e) {
    const EventRef hit = m_renderer.eventAt(m_frame, e->position());
    if (!hit.isValid()) return;
    setSelected(hit);
    emit sliceDoubleClicked(hit);
    zoomToSelection();
}

void TimelineWidget::leaveEvent(QEvent*) {
    m_frame.cursor.reset();
    m_frame.hovered = {};
    update();
}

void TimelineWidget::setCriticalPath(std::shared_ptr<const StepCriticalPath> path) {
    m_criticalPath = std::move(path);
    m_frame.criticalPath = m_criticalPath.get();
    update();
}

void TimelineWidget::contextMenuEvent(QContextMenuEvent* e) {
    QMenu menu(this);
    if (e->pos().x() >= TimelineRenderer::headerWidth) {
        const TimeNs at = timeAtX(e->pos().x());
        menu.addAction(tr("Critical Path of This Step"), this,
                       [this, at] { emit criticalPathRequested(at); });
        if (m_criticalPath)
            menu.addAction(tr("Clear Critical Path"), this, [this] { emit criticalPathClearRequested(); });
        menu.addSeparator();
    }
    const int ri = m_renderer.rowAtY(m_frame, e->pos().y());
    if (ri >= 0) {
        const LaneRow& row = m_layout.rows()[std::size_t(ri)];
        if (row.kind != LaneRow::Kind::GroupHeader) {
            const TrackId track = m_layout.sourceTrackOf(row.track);
            const QString title = QString::fromStdString(m_layout.trackTitle(track));
            const bool pinned = m_layout.isPinned(track);
            menu.addAction(pinned ? tr("Unpin “%1”").arg(title) : tr("Pin “%1” to the Top").arg(title), this,
                           [this, track, pinned] { setTrackPinned(track, !pinned); });
            menu.addAction(tr("Hide “%1”").arg(title), this, [this, track] { setTrackHidden(track, true); });
            if (m_layout.hostViewOf(track)) {
                const bool expanded = m_layout.pythonExpanded(track);
                menu.addAction(expanded ? tr("Fold Python Frames") : tr("Show All Python Frames"), this,
                               [this, track, expanded] { setPythonExpanded(track, !expanded); });
            }
        }
    }
    menu.addAction(tr("Filter Tracks…"), this, [this] {
        m_trackFilter->setFocus();
        m_trackFilter->selectAll();
    });
    menu.addAction(tr("Show All Hidden Tracks (%1)").arg(m_layout.hiddenCount()), this, [this] {
        for (std::uint32_t t = 0; t < m_layout.trackCount(); ++t)
            m_layout.setHidden(TrackId(t), false);
        updateScrollBar();
        update();
    });
    menu.addSeparator();
    menu.addAction(tr("Collapse All Groups"), this, [this] {
        m_layout.setAllCollapsed(true);
        updateScrollBar();
        update();
    });
    menu.addAction(tr("Expand All Groups"), this, [this] {
        m_layout.setAllCollapsed(false);
        updateScrollBar();
        update();
    });
    menu.exec(e->globalPos());
}

QString TimelineWidget::tooltipFor(EventRef ref) const {
    const TraceStore& s = store();
    const Track& t = s.track(ref.track);
    const TimeNs start = t.starts[ref.index.value];
    QString html = QStringLiteral("<b>%1</b><br/>").arg(htmlEscaped(s.nameOf(ref)));
    html += QStringLiteral("<table cellspacing=0 cellpadding=1>");
    auto row = [&](const QString& k, const QString& v) {
        html += QStringLiteral("<tr><td>%1&nbsp;&nbsp;</td><td>%2</td></tr>").arg(k, v);
    };
    row(tr("Category"), htmlEscaped(s.strings().view(s.categoryOf(ref).name)));
    row(tr("Start"), QString::fromStdString(formatTimeOffset(start - s.minTime(), 1)));
    row(tr("Duration"), QString::fromStdString(formatDuration(t.durations[ref.index.value])));
    row(tr("Self time"), QString::fromStdString(formatDuration(selfTime(s, t, ref.index.value))));
    html += QStringLiteral("</table>");
    return html;
}

bool TimelineWidget::event(QEvent* e) {
    if (e->type() == QEvent::ApplicationPaletteChange || e->type() == QEvent::PaletteChange) {
        m_renderer.setPalette(QGuiApplication::palette());
        update();
    }
    if (e->type() == QEvent::ToolTip) {
        auto* help = static_cast<QHelpEvent*>(e);
        const QPointF pos = help->pos();
        const EventRef hit = m_renderer.eventAt(m_frame, pos);
        if (hit.isValid()) {
            QToolTip::showText(help->globalPos(), tooltipFor(hit), this);
        } else {
            const int ri = m_renderer.rowAtY(m_frame, pos.y());
            const LaneRow* row = ri >= 0 ? &m_layout.rows()[std::size_t(ri)] : nullptr;
            if (row && row->kind == LaneRow::Kind::Counter && pos.x() >= TimelineRenderer::headerWidth) {
                const auto v = m_layout.counterValueAt(row->track, m_frame.axis, timeAtX(pos.x()));
                const CounterUnit unit = m_layout.counterUnit(row->track);
                QString value = tr("no value yet");
                if (v) {
                    value = formatCounterValue(*v, unit);
                    if (unit == CounterUnit::Bytes) value += QStringLiteral(" (%1 bytes)").arg(*v, 0, 'f', 0);
                    const DerivedTrack* derived = m_layout.derived(row->track);
                    if (derived && derived->fold() == CounterFold::Mean)
                        value += tr(" over this pixel's %1")
                                     .arg(QString::fromStdString(
                                         formatDuration(TimeNs(std::llround(m_frame.axis.nsPerPixel())))));
                }
                QToolTip::showText(
                    help->globalPos(),
                    QStringLiteral("<b>%1</b><br/>%2")
                        .arg(QString::fromStdString(m_layout.trackTitle(row->track)).toHtmlEscaped(), value),
                    this);
            } else if (row && pos.x() < TimelineRenderer::headerWidth &&
                       row->kind != LaneRow::Kind::GroupHeader) {
                QToolTip::showText(help->globalPos(),
                                   QString::fromStdString(m_layout.trackTitle(row->track)).toHtmlEscaped(),
                                   this);
            } else {
                QToolTip::hideText();
            }
        }
        return true;
    }
    return QWidget::event(e);
}

} // namespace kinetoscope
