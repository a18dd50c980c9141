#pragma once

#include "model/category.h"

#include <QColor>

#include <array>
#include <string_view>

namespace kinetoscope {

// Slice colours. Index space: one colour per category kind, then a ring of name colours (for "stable per
// name"). Every colour has a faded twin used for slices that do not match an active search.
class TimelinePalette {
  public:
    static constexpr int categoryColors = int(CategoryKind::HardwareCounters) + 1;
    static constexpr int nameColors = 24;
    static constexpr int size = categoryColors + nameColors;

    // Faded twins are mixed toward `background` (the lanes' colour).
    explicit TimelinePalette(QColor background = QColor(0xeb, 0xed, 0xf0));

    static int indexOf(CategoryKind kind) { return int(kind); }
    static int indexOfName(std::string_view name);
    const QColor& color(int index) const { return m_colors[std::size_t(index)]; }
    const QColor& faded(int index) const { return m_faded[std::size_t(index)]; }
    const QColor& text(int index) const { return m_text[std::size_t(index)]; }

    static QColor launchFlow() { return QColor(0xc2, 0x41, 0x0c); }
    static QColor forwardBackwardFlow() { return QColor(0x6d, 0x28, 0xd9); }
    static QColor otherFlow() { return QColor(0x33, 0x41, 0x55); }

  private:
    std::array<QColor, size> m_colors;
    std::array<QColor, size> m_faded;
    std::array<QColor, size> m_text;
};

} // namespace kinetoscope
