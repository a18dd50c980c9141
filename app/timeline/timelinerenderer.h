#pragma once

#include "query/lanelayout.h"
#include "query/viewport.h"
#include "shell/loadedtrace.h"
#include "timeline/timelineframe.h"
#include "timeline/timelinepalette.h"

#include <QColor>
#include <QFont>
#include <QFontMetricsF>
#include <QHash>
#include <QPalette>
#include <QPointF>
#include <QPolygonF>
#include <QRectF>
#include <QStaticText>
#include <QString>

#include <algorithm>
#include <array>
#include <memory>
#include <vector>

class QPainter;

namespace kinetoscope {

// Rectangles and labels of the lanes for one (axis, size, scroll, layout, colours, search): built apart from
// painting and cached against those, so repaints for a moving cursor or a hover only replay it.
struct TimelineGeometry {
    std::array<std::vector<QRectF>, TimelinePalette::size> rects;
    std::array<std::vector<QRectF>, TimelinePalette::size> fadedRects;
    struct Label {
        QRectF rect;
        StringId name;
        std::uint8_t color = 0;
    };
    std::vector<Label> labels;
    std::vector<QRectF> instants;
    std::vector<QRectF> groupSummaries; // busy bars in collapsed groups' header rows
    struct CounterArea {
        QPolygonF polygon; // the step line, closed along the lane's base
        // The area under it as one rectangle a run of the line holds (a pixel column's peak, then the value
        // it keeps up to the next column): Qt fills a polygon of thousands of vertical edges in tens of
        // milliseconds (the outline of a memory counter over a whole trace), the rectangles in a fraction of
        // one.
        std::vector<QRectF> fill;
        QRectF rowRect;
        double maxValue = 0;
        QString label; // "max 1.95 GiB", or a busy share's "87.4 % in view"
    };
    std::vector<CounterArea> counters;
    std::size_t boxCount = 0;
    std::size_t foldedSlices = 0;
};

struct FlowArrow {
    QPointF from;
    QPointF to;
    FlowKind kind = FlowKind::Other;
    std::uint32_t flow = 0;
};

// Background, grid and text colours: light, or dark when the system palette is dark.
struct TimelineTheme {
    bool dark = false;
    QColor laneBackground{0xff, 0xff, 0xff};
    QColor laneBackgroundAlt{0xf6, 0xf7, 0xf9};
    QColor headerBackground{0xee, 0xf0, 0xf3};
    QColor groupBackground{0xe2, 0xe6, 0xeb};
    QColor gridLine{0xe5, 0xe7, 0xeb};
    QColor text{0x1f, 0x29, 0x37};
    QColor mutedText{0x4b, 0x55, 0x63};
    QColor selection{0x11, 0x18, 0x27};
    QColor border{0xcb, 0xd2, 0xd9};
    QColor groupSummary{0x64, 0x74, 0x8b, 150}; // busy bars of a collapsed group
    static TimelineTheme forPalette(const QPalette& palette);
};

// A counter value for labels and tooltips: memory series in binary units ("1.00 GiB"), ratios in percent.
QString formatCounterValue(double value, CounterUnit unit);

class TimelineRenderer {
  public:
    // What a thread's title says folds away under a depth cap ("▸ +6 lanes", "▾ lanes" once opened; empty
    // when nothing does), drawn rightmost in its header; its width, for the click that opens or closes it.
    QString lanesFoldText(TrackId source) const;
    double lanesFoldWidth(TrackId source) const;
    static constexpr double headerWidth = 260;
    // A frame's default ruler (TimelineFrame::rulerHeight: a compact one is lower).
    static constexpr double rulerHeight = TimelineFrame::defaultRulerHeight;
    static constexpr double stepBandHeight = TimelineFrame::defaultStepBandHeight;
    static constexpr double foldPx = 1.0;
    static constexpr std::size_t maxArrows = 800;

    TimelineRenderer(std::shared_ptr<const LoadedTrace> trace, LaneLayout* layout);

    const TraceStore& store() const { return *m_trace->store; }
    const LoadedTrace& trace() const { return *m_trace; }
    LaneLayout& layout() { return *m_layout; }
    const QFont& font() const { return m_font; }
    const TimelineTheme& theme() const { return m_theme; }
    // Follows the system light/dark palette.
    void setPalette(const QPalette& palette);

    // Paints the whole timeline: lanes, overlays, ruler and header column.
    void paint(QPainter& painter, const TimelineFrame& frame);
    // Geometry of the lanes for a frame (cached); exposed for tests and the benchmark.
    const TimelineGeometry& geometry(const TimelineFrame& frame);
    // Forgets the cached geometry (after the layout or the colours change).
    // Drops what was drawn and anchored: the layout was rebuilt (its rows' generation may start over).
    void invalidate() {
        m_cacheValid = false;
        dropFlowEnds();
    }

    // Widget y of a content y, and the lanes area rectangle.
    double viewY(const TimelineFrame& frame, double contentY) const {
        return contentY - frame.scrollY + frame.rulerHeight;
    }
    QRectF lanesRect(const TimelineFrame& frame) const;
    // The slice under a widget position (with a few pixels of slack for thin slices), invalid when none.
    EventRef eventAt(const TimelineFrame& frame, QPointF pos) const;
    // The lane where a track's overflow rows begin (a dashed line and a label mark it).
    bool isFirstOverflowLane(const LaneRow& row) const;
    // The lane row under a widget y, or -1.
    int rowAtY(const TimelineFrame& frame, double y) const;
    // The row under y or, in a gap or past the ends, the nearest one (for drags across rows).
    int rowNearY(const TimelineFrame& frame, double y) const;
    // Where a slice is drawn, in widget coordinates (its group header when collapsed).
    QRectF sliceRect(const TimelineFrame& frame, EventRef ref) const;
    // The arrows drawn for a frame; `total` is set to how many crossed the view before the cap.
    std::vector<FlowArrow> flowArrows(const TimelineFrame& frame, std::size_t* total = nullptr) const;
    // Thins a zoomed-out view's sample of arrows, evenly and in order, until their lines cover at most a
    // tenth of the lanes' pixels.
    static void keepWithinPixelBudget(std::vector<FlowArrow>& arrows, const QRectF& lanes);
    // The whole pixels the raster engine fills for a rectangle without antialiasing (its edges rounded; at
    // an edge exactly on a half pixel the two may differ by one). Filled as QRect, a zoomed-out view's
    // thousands of boxes take half the time they take as QRectF.
    static QRect pixelRect(const QRectF& r) {
        const auto edge = [](double v) { return qRound(std::clamp(v, -double(1 << 24), double(1 << 24))); };
        const int x1 = edge(r.left()), y1 = edge(r.top()), x2 = edge(r.right()), y2 = edge(r.bottom());
        return QRect(x1, y1, x2 - x1, y2 - y1);
    }
    // Whether a widget position is on the group header's fold triangle or title; returns the group index or
    // -1.
    int groupHeaderAt(const TimelineFrame& frame, QPointF pos) const;

    const QString& nameText(StringId id);

  private:
    void buildGeometry(const TimelineFrame& frame);
    int colorOf(const Track& track, std::uint32_t row, ColorMode mode);
    void paintLanes(QPainter& p, const TimelineFrame& frame);
    void paintLabels(QPainter& p, const TimelineFrame& frame);
    void paintOverlays(QPainter& p, const TimelineFrame& frame);
    void paintFlows(QPainter& p, const TimelineFrame& frame);
    void paintRuler(QPainter& p, const TimelineFrame& frame);
    void paintHeaders(QPainter& p, const TimelineFrame& frame);
    double counterMax(TrackId track);

    std::shared_ptr<const LoadedTrace> m_trace;
    LaneLayout* m_layout;
    TimelineTheme m_theme;
    TimelinePalette m_palette;
    QFont m_font;
    QFont m_boldFont;
    QFontMetricsF m_metrics;
    std::vector<QString> m_nameText;          // by StringId, filled on first use
    std::vector<float> m_nameWidth;           // by StringId, -1 until measured
    std::vector<std::int16_t> m_nameColor;    // by StringId, -1 until hashed
    std::vector<double> m_counterMax;         // by TrackId, NaN until computed
    QHash<quint64, QStaticText> m_labelCache; // (name, width bucket) -> laid-out label
    std::vector<SliceBox> m_boxes;            // scratch
    std::vector<CounterColumn> m_columns;     // scratch
    std::vector<QRect> m_pixelRects;          // scratch

    TimelineGeometry m_geometry;
    bool m_cacheValid = false;
    TimeAxis m_cacheAxis;
    QSize m_cacheSize;
    double m_cacheScroll = 0;
    ColorMode m_cacheColors = ColorMode::Category;
    const std::vector<bool>* m_cacheSearch = nullptr;
    std::uint64_t m_cacheLayoutGeneration = 0;
    // Each flow's ends as the view needs them (times, and the content y of their rows' middles), filled as
    // arrows are first drawn and dropped when rows move: anchoring a flow is a few lookups in columns of
    // millions of rows, most of them cache misses, and a zoomed-out frame samples hundreds of flows.
    // An entry holds only while its epoch is the current one, so dropping them all (a fold, a pin, a
    // keystroke in the track filter) costs nothing, whatever the number of flows.
    struct FlowEnds {
        TimeNs from = 0, to = 0;
        float fromY = 0, toY = 0;
        std::uint32_t epoch = 0; // 0: never anchored
    };
    mutable std::vector<FlowEnds> m_flowEnds;
    mutable std::uint32_t m_flowEpoch = 1;
    mutable std::uint64_t m_flowEndsGeneration = ~std::uint64_t(0);
    void dropFlowEnds() const {
        if (++m_flowEpoch == 0) { // wrapped: entries of an old epoch 0 would read as current
            m_flowEnds.assign(m_flowEnds.size(), FlowEnds{});
            m_flowEpoch = 1;
        }
    }
};

} // namespace kinetoscope
