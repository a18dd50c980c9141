#pragma once

#include "query/lanelayout.h"
#include "shell/loadedtrace.h"
#include "timeline/timelineframe.h"
#include "timeline/timelinerenderer.h"

#include <QElapsedTimer>
#include <QWidget>

#include <cmath>
#include <memory>
#include <vector>

class QLineEdit;
class QScrollBar;

namespace kinetoscope {

// Lanes shown per CPU thread where timelines are stacked (compare, distributed): the step, its phases and
// the top-level operators; a thread's title opens the rest.
constexpr std::uint32_t stackedDepthCap = 4;

// How many zoom steps one W/S event makes after the key has been held `heldMs`: 1 at first, growing to 3
// within 0.8 s, so a long zoom takes a held key rather than a hundred presses.
double heldKeyZoomExponent(qint64 heldMs);

// The zoomable timeline of one trace. Navigation follows Perfetto and chrome://tracing: wheel scrolls lanes,
// Ctrl+wheel zooms at the cursor, W/S/A/D, drag on the ruler (or with the zoom tool) zooms to the dragged
// range, Shift+drag measures, Ctrl+drag selects an area, middle-drag or plain drag pans, F fits the
// selection, 0/Home the whole trace, Alt+Left/Right walk the view history.
class TimelineWidget : public QWidget {
    Q_OBJECT
  public:
    explicit TimelineWidget(std::shared_ptr<const LoadedTrace> trace, QWidget* parent = nullptr);
    ~TimelineWidget() override;

    const TraceStore& store() const { return *m_trace->store; }
    const LoadedTrace& trace() const { return *m_trace; }
    LaneLayout& layout() { return m_layout; }
    const LaneLayout& layout() const { return m_layout; }
    TimelineRenderer& renderer() { return m_renderer; }
    // The frame as it would be painted now (size, axis, scroll and overlays).
    const TimelineFrame& frame() const { return m_frame; }

    const TimeAxis& axis() const { return m_frame.axis; }
    void setVisibleRange(TimeNs from, TimeNs to, bool recordHistory = true);
    void fitAll();
    // The range the view keeps within (with a 5% margin) and 0/Home fits: the trace's own extent, unless a
    // view that keeps several timelines aligned (distributed, compare) sets one common range, in this trace's
    // clock, so that no timeline clamps a range another sent it and drifts off the alignment.
    void setTimeBounds(std::optional<TimeRange> bounds);
    TimeRange timeBounds() const;
    // What fitAll shows: the time bounds, ended with the events (not with Kineto's "Record Window End").
    TimeRange fitBounds() const;
    // Whether the visible range is one the user (or a caller on their behalf) chose, not the fit of the whole
    // trace the widget opens with and 0 returns to: only a chosen range is carried from a preview onward.
    bool viewChosen() const { return m_viewChosen; }
    void zoomToSelection();
    void zoomBy(double factor, std::optional<double> atX = std::nullopt);
    void panBy(double fractionOfWidth);
    bool back();
    bool forward();
    void setScrollY(double y);
    double scrollY() const { return m_frame.scrollY; }

    EventRef selected() const { return m_frame.selected; }
    void setSelected(EventRef ref);
    // Adds a counter lane computed after load (a linked memory snapshot's active memory) beside the store's
    // tracks; the lanes are laid out again (groups open, no filter).
    void addDerivedTrack(DerivedTrack track);
    const DerivedTracks& derivedTracks() const { return m_derived; }
    // Selects, expands its group if collapsed, scrolls it into view and zooms so it is visible and wide
    // enough.
    void revealEvent(EventRef ref);

    void setFlowMode(FlowMode mode);
    FlowMode flowMode() const { return m_frame.flows; }
    void setColorMode(ColorMode mode);
    ColorMode colorMode() const { return m_frame.colors; }
    void setZoomTool(bool on) { m_zoomTool = on; }
    bool zoomTool() const { return m_zoomTool; }

    // Highlights slices whose name matches (null clears) and outlines the current match.
    void setSearchHighlight(std::shared_ptr<const std::vector<bool>> names, EventRef current);
    // Outlines a step's critical path and draws its links (null clears it).
    void setCriticalPath(std::shared_ptr<const StepCriticalPath> path);
    const std::shared_ptr<const StepCriticalPath>& criticalPath() const { return m_criticalPath; }
    std::optional<AreaSelection> areaSelection() const { return m_frame.area; }
    void setAreaSelection(std::optional<AreaSelection> area);
    // Tracks under an area selection (each once, in display order).
    std::vector<TrackId> tracksOf(const AreaSelection& area) const;
    std::optional<TimeRange> measurement() const { return m_frame.measure; }

    void setGroupCollapsed(std::uint32_t group, bool collapsed);
    // Shows a thread's Python frames in full (every lane) or folded into one summary lane (the default).
    void setPythonExpanded(TrackId thread, bool expanded);
    // Shows at most `lanes` lanes of each CPU thread (0: all), for views that stack timelines; and opens one.
    void setDepthCap(std::uint32_t lanes);
    // The layout for a timeline that shares the height with others (compare, distributed): threads capped at
    // stackedDepthCap lanes and the GPU streams pinned at the top, so every GPU's work is on the first
    // screen.
    void stackedLayout();
    // A job's rank pane (issue 52 item 11: 3½ ranks fitted a 1920x1080 screen): a low ruler, thin lanes, the
    // GPU streams pinned first, one lane a CPU thread (its title opens the rest), and the plain wheel left to
    // the list of panes (Ctrl+wheel zooms, Shift+wheel pans, as everywhere). contentHeightPx() is the height
    // that shows all of it; rowsChanged() says when it changes.
    void compactPane();
    // The text in the ruler's corner instead of the visible span (a rank pane's name: no title row above it).
    void setCornerTitle(const QString& title);
    int contentHeightPx() const { return int(std::ceil(m_frame.rulerHeight + m_layout.contentHeight())) + 1; }
    void setThreadOpened(TrackId thread, bool opened);
    // Pins a track to the top, or back to its group.
    void setTrackPinned(TrackId track, bool pinned);
    // Shows only the tracks whose title (or group title) contains `text`; also the corner's filter field.
    void setTrackFilter(const QString& text);
    QLineEdit* trackFilterField() const { return m_trackFilter; }
    void setTrackHidden(TrackId track, bool hidden);

    // A one-line hint for newcomers at the bottom, hidden at the first zoom, pan or selection (firstUsed()).
    // The newcomer's one-line hint over the bottom of the lanes, until the first zoom, pan or selection, or
    // until `timeoutMs` pass: it must not cover a lane for good.
    void setShowHint(bool show, int timeoutMs = 12000);
    bool showsHint() const { return m_showHint; }

    QSize sizeHint() const override { return {1200, 700}; }

  signals:
    void selectionChanged(kinetoscope::EventRef ref);
    // A slice double-clicked, before the view zooms to it (the compare view aligns the other trace on it).
    void sliceDoubleClicked(kinetoscope::EventRef ref);
    void areaSelectionChanged();
    void viewChanged();
    // Rows were added, removed or moved (a thread opened, a group folded).
    void rowsChanged();
    void firstUsed();
    void measurementChanged();
    // The context menu asked for the critical path of the step at this time.
    void criticalPathRequested(kinetoscope::TimeNs at);
    // ... and asked to clear it: the view that shows its breakdown clears both
    // (TraceView::clearCriticalPath).
    void criticalPathClearRequested();

  protected:
    void paintEvent(QPaintEvent*) override;
    void resizeEvent(QResizeEvent*) override;
    void wheelEvent(QWheelEvent*) override;
    void keyPressEvent(QKeyEvent*) override;
    void keyReleaseEvent(QKeyEvent*) override;
    void mousePressEvent(QMouseEvent*) override;
    void mouseMoveEvent(QMouseEvent*) override;
    void mouseReleaseEvent(QMouseEvent*) override;
    void mouseDoubleClickEvent(QMouseEvent*) override;
    void leaveEvent(QEvent*) override;
    void contextMenuEvent(QContextMenuEvent*) override;
    bool event(QEvent*) override;

  private:
    enum class Drag { None, Pan, ZoomRange, Measure, Area, Click };
    void applyAxis(TimeAxis axis, bool recordHistory);
    void updateFrameGeometry();
    void updateScrollBar();
    // After rows moved (collapse, hide, pin, fold, filter): the scroll range, and no stale area selection.
    void rowsMoved();
    TimeNs timeAtX(double x) const;
    void pushHistory();
    QString tooltipFor(EventRef ref) const;
    void noteUsed();
    // Marks a stretch of code as handling the user's own input (so programmatic moves don't dismiss the
    // hint).
    struct UserInput {
        explicit UserInput(TimelineWidget* w) : m_w(w) { m_w->m_userInput = true; }
        ~UserInput() { m_w->m_userInput = false; }
        TimelineWidget* m_w;
    };

    std::shared_ptr<const LoadedTrace> m_trace;
    DerivedTracks m_derived; // the trace's, and lanes added since (a linked memory snapshot's)
    LaneLayout m_layout;
    TimelineRenderer m_renderer;
    TimelineFrame m_frame;
    QScrollBar* m_scrollBar = nullptr;
    std::shared_ptr<const std::vector<bool>> m_searchNames;
    std::shared_ptr<const StepCriticalPath> m_criticalPath;

    std::vector<TimeAxis> m_back;
    std::vector<TimeAxis> m_forward;
    QElapsedTimer m_sinceHistory;

    Drag m_drag = Drag::None;
    QPointF m_pressPos;
    TimeNs m_pressTime = 0;
    TimeAxis m_pressAxis;
    double m_pressScroll = 0;
    int m_pressRow = -1;
    bool m_zoomTool = false;
    bool m_showHint = false;
    QLineEdit* m_trackFilter = nullptr;
    int m_heldKey = 0;                  // W or S while held down
    QElapsedTimer m_keyHold;            // since it went down
    std::uint64_t m_hintGeneration = 0; // the latest hint's timeout is the one that counts
    bool m_userInput = false;
    std::optional<TimeRange> m_timeBounds;
    bool m_viewChosen = false;
    // Until the user changes the rows (opens a thread, folds a group, ...), each resize picks the depth cap
    // that shows every GPU stream (LaneLayout::fitGpuStreamsWithin).
    bool m_fitFirstScreen = true;
    // The rows, to be changed as the user chooses: from then on the first screen's fit (which caps threads so
    // that every GPU stream shows) leaves them as they are.
    LaneLayout& userRows() {
        m_fitFirstScreen = false;
        return m_layout;
    }
    bool m_wheelScrollsPage = false; // compactPane
    void fitFirstScreen();
};

} // namespace kinetoscope
