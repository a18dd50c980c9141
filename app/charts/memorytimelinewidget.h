#pragma once

// Qt's headers first: moc cannot parse some of the standard library's C++20 headers when they come first.
#include <QElapsedTimer>
#include <QImage>
#include <QWidget>

#include "analysis/memory/memorytimeline.h"

#include <atomic>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

namespace kinetoscope {

// The active-memory timeline of one device of a snapshot: every allocation a band, stacked in allocation
// order (analysis/memory/memorytimeline). The raster is computed off the UI thread for the visible range and
// the widget's size; painting only draws the last raster (scaled to the new range while the next one is
// made), so a frame costs the same with a thousand bands or ten million.
//
// Keys as on the trace timeline: W/S zoom, A/D pan, 0/Home fit; the wheel zooms at the pointer, Shift+wheel
// pans; dragging pans, Shift+drag (or a drag on the axis) zooms to the range. A click picks the band under
// the pointer and the moment.
class MemoryTimelineWidget : public QWidget {
    Q_OBJECT
  public:
    explicit MemoryTimelineWidget(QWidget* parent = nullptr);
    ~MemoryTimelineWidget() override;

    // `colors` per allocation (the palette index by stack), `dimmed` those the filters leave out.
    void setTimeline(std::shared_ptr<const MemoryTimeline> timeline, std::vector<std::uint8_t> colors);
    void setDimmed(std::vector<bool> dimmed);
    // A band's colour follows its stack (one call site keeps one colour): the palette index, and the colour.
    static std::uint8_t colorIndexOfStack(std::uint32_t stack) {
        return std::uint8_t((stack * 2654435761u >> 16) % 10);
    }
    static QRgb bandColor(std::uint8_t index);
    // Where an allocation was made, for the tooltip.
    void setAllocationLabel(std::function<QString(std::int32_t)> label) { m_label = std::move(label); }
    const std::shared_ptr<const MemoryTimeline>& timeline() const { return m_timeline; }

    // The visible span [from, to) in moment units: moment m (after event m; -1 before the first) occupies
    // [m, m + 1), so the whole timeline is [-1, events).
    double viewFrom() const { return m_from; }
    double viewTo() const { return m_to; }
    void setView(double from, double to);
    void fitAll();
    void zoomBy(double factor, std::optional<double> atX = std::nullopt);
    void panBy(double fractionOfView);

    std::int32_t selectedAllocation() const { return m_selected; }
    void setSelectedAllocation(std::int32_t allocation);
    std::optional<std::int64_t> marker() const { return m_marker; }
    void setMarker(std::optional<std::int64_t> moment);

    // What the pixel at `pos` shows in the current raster (for hover, clicks and tests).
    struct Hit {
        std::int64_t moment = -1;
        std::int32_t cell = MemoryTimeline::emptyCell; // an allocation, or empty/mixed
        std::int64_t bytes = 0;                        // the byte offset under the pointer
    };
    std::optional<Hit> hitAt(QPointF pos) const;
    QRectF plotRect() const;
    // Waits (tests) until the raster for the current range and size is in; false on timeout.
    bool waitForRaster(int timeoutMs = 10000);
    const MemoryTimeline::Raster& raster() const { return m_raster; }
    // Frame times of the last paints, in ms (the frame benchmark reads them).
    const std::vector<double>& frameTimes() const { return m_frameMs; }

    static constexpr int leftAxisWidth = 72;
    static constexpr int bottomAxisHeight = 22;

  signals:
    void allocationClicked(std::int32_t allocation, std::int64_t moment);
    void momentClicked(std::int64_t moment);
    void viewChanged(double from, double to);
    void rasterReady();

  protected:
    void paintEvent(QPaintEvent*) override;
    void resizeEvent(QResizeEvent*) override;
    void wheelEvent(QWheelEvent*) override;
    void keyPressEvent(QKeyEvent*) override;
    void mousePressEvent(QMouseEvent*) override;
    void mouseMoveEvent(QMouseEvent*) override;
    void mouseReleaseEvent(QMouseEvent*) override;
    void leaveEvent(QEvent*) override;

  private:
    struct Request {
        std::int64_t first = -1, last = -1, bytesTop = 1;
        int width = 0, height = 0;
        bool operator==(const Request&) const = default;
    };
    Request currentRequest() const;
    void requestRaster();
    void recolor();
    double xOfMoment(double moment) const;
    double momentAtX(double x) const;
    QString hoverText(const Hit& hit) const;

    std::shared_ptr<const MemoryTimeline> m_timeline;
    std::vector<std::uint8_t> m_colors;
    std::vector<bool> m_dimmed;
    std::function<QString(std::int32_t)> m_label;
    double m_from = -1, m_to = 0;
    std::int32_t m_selected = -1;
    std::optional<std::int64_t> m_marker;

    MemoryTimeline::Raster m_raster;
    Request m_rasterRequest;  // what m_raster shows
    Request m_pendingRequest; // what is being computed
    bool m_pending = false;
    std::shared_ptr<std::atomic<bool>> m_cancel;
    QImage m_image;

    enum class Drag { None, Click, Pan, Zoom };
    Drag m_drag = Drag::None;
    QPointF m_pressPos;
    double m_pressFrom = 0, m_pressTo = 0;
    std::optional<QPointF> m_hover;
    std::vector<double> m_frameMs;
};

} // namespace kinetoscope
