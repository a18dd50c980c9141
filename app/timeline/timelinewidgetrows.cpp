// TimelineWidget's rows: which lanes show (Python frames folded or not, depth caps, pinned, folded and hidden
// tracks, the track filter), the first screen's fit of every GPU stream, and the compact pane of a job's
// rank. Apart from timelinewidget.cpp, which keeps the view, the input and the painting.
#include "timeline/timelinewidget.h"

#include <QLineEdit>
#include <QScrollBar>

namespace kinetoscope {

void TimelineWidget::setPythonExpanded(TrackId thread, bool expanded) {
    userRows().setPythonExpanded(thread, expanded);
    rowsMoved();
}

void TimelineWidget::addDerivedTrack(DerivedTrack track) {
    m_derived.push_back(std::move(track));
    m_layout = LaneLayout(*m_trace->store, &m_derived, &m_trace->hostViews, m_layout.metrics());
    m_layout.collapseIdleProcesses();
    if (m_fitFirstScreen) fitFirstScreen();
    if (!m_trackFilter->text().isEmpty()) m_trackFilter->clear();
    m_renderer.invalidate();
    rowsMoved();
}

void TimelineWidget::rowsMoved() {
    // An area selection names rows by index: it would now cover others.
    m_frame.area.reset();
    updateScrollBar();
    update();
    emit rowsChanged();
}

void TimelineWidget::setCornerTitle(const QString& title) {
    m_frame.cornerTitle = title;
    update();
}

void TimelineWidget::compactPane() {
    m_fitFirstScreen = false;
    m_wheelScrollsPage = true;
    m_frame.rulerHeight = 24;
    m_frame.stepBandHeight = 11;
    m_frame.compactRuler = true;
    m_trackFilter->hide();
    m_scrollBar->hide();
    LaneMetrics thin;
    thin.headerHeight = 11;
    thin.sliceHeight = 10;
    thin.counterHeight = 20;
    thin.trackGap = 1;
    m_layout = LaneLayout(*m_trace->store, &m_derived, &m_trace->hostViews, thin);
    m_layout.collapseIdleProcesses();
    m_layout.setDepthCap(1);
    for (std::uint32_t t = 0; t < store().tracks().size(); ++t)
        if (store().tracks()[t].kind == TrackKind::GpuStream) m_layout.setPinned(TrackId(t), true);
    m_layout.setPinnedHeader(false);
    // The GPUs' derived lanes (utilisation, queues, bandwidths) and the counters fold to their headers: the
    // streams, pinned, stay.
    for (std::uint32_t g = 0; g < m_layout.groups().size(); ++g)
        if (m_layout.groups()[g].kind != LaneGroup::Kind::Process) m_layout.setCollapsed(g, true);
    setMinimumSize(400, int(m_frame.rulerHeight) + 30);
    m_renderer.invalidate();
    updateFrameGeometry();
    rowsMoved();
}

void TimelineWidget::setDepthCap(std::uint32_t lanes) {
    userRows().setDepthCap(lanes);
    updateScrollBar();
    update();
}

void TimelineWidget::stackedLayout() {
    userRows().setDepthCap(stackedDepthCap);
    for (std::uint32_t t = 0; t < store().tracks().size(); ++t)
        if (store().tracks()[t].kind == TrackKind::GpuStream) m_layout.setPinned(TrackId(t), true);
    updateScrollBar();
    update();
}

void TimelineWidget::setThreadOpened(TrackId thread, bool opened) {
    userRows().setUncapped(thread, opened);
    rowsMoved();
}

void TimelineWidget::setTrackPinned(TrackId track, bool pinned) {
    userRows().setPinned(track, pinned);
    rowsMoved();
}

void TimelineWidget::setTrackFilter(const QString& text) {
    m_trackFilter->setText(text); // textChanged applies it
}

void TimelineWidget::setGroupCollapsed(std::uint32_t group, bool collapsed) {
    userRows().setCollapsed(group, collapsed);
    rowsMoved();
}

void TimelineWidget::setTrackHidden(TrackId track, bool hidden) {
    userRows().setHidden(track, hidden);
    rowsMoved();
}

void TimelineWidget::fitFirstScreen() {
    const double page = height() - m_frame.rulerHeight;
    if (page < 3 * m_layout.metrics().sliceHeight) return; // not laid out yet
    const std::uint64_t before = m_layout.generation();
    m_layout.fitGpuStreamsWithin(page);
    if (m_layout.generation() != before) rowsMoved();
}

} // namespace kinetoscope
