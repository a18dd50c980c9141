#pragma once

// Qt's headers first: moc cannot parse some of the standard library's C++20 headers when they come first.
#include <QWidget>

#include "analysis/memory/allocatorstate.h"

#include <functional>
#include <optional>

namespace kinetoscope {

// The allocator's segments at one moment, one bar per segment (length by size, against the largest), its
// blocks drawn where they lie: active blocks in their allocation's colour, blocks waiting to be freed
// hatched, free space pale. Hover names the block or the free gap under the pointer.
class SegmentMapWidget : public QWidget {
    Q_OBJECT
  public:
    explicit SegmentMapWidget(QWidget* parent = nullptr);
    // `colorOf` gives a block's colour from its stack.
    void setState(AllocatorState state, std::function<QColor(std::uint32_t stack)> colorOf);
    const AllocatorState& state() const { return m_state; }
    QSize sizeHint() const override;

    static constexpr int rowHeight = 16;
    static constexpr int labelWidth = 190; // "1.00 GiB mapped · s7 · pool (1, 0)"
    // What the tooltip says at `pos`: the block or free gap there and its segment (its pool when private).
    std::optional<QString> describeAt(QPointF pos) const;
    static QString poolText(const StateSegment& s, bool brief);

  protected:
    void paintEvent(QPaintEvent*) override;
    void mouseMoveEvent(QMouseEvent*) override;

  private:
    AllocatorState m_state;
    std::function<QColor(std::uint32_t)> m_colorOf;
    std::int64_t m_largest = 1;
};

} // namespace kinetoscope
