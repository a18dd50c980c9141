#include "timeline/timelinepalette.h"

namespace kinetoscope {

TimelinePalette::TimelinePalette(QColor background) {
    auto set = [&](CategoryKind k, QRgb rgb) { m_colors[std::size_t(indexOf(k))] = QColor::fromRgb(rgb); };
    // Hues chosen so the kinds that sit next to each other (op over runtime, kernel beside memcpy) differ
    // clearly.
    set(CategoryKind::Other, 0xa3acb9);
    set(CategoryKind::CpuOp, 0x6c9bd2);
    set(CategoryKind::UserAnnotation, 0xf2c14e);
    set(CategoryKind::GpuUserAnnotation, 0xe3a857);
    set(CategoryKind::PythonFunction, 0xa98fd8);
    set(CategoryKind::Runtime, 0xe5866a);
    set(CategoryKind::Driver, 0xd9745f);
    set(CategoryKind::Kernel, 0x5fbf8f);
    set(CategoryKind::Memcpy, 0xf0a04b);
    set(CategoryKind::Memset, 0xe58fb7);
    set(CategoryKind::Sync, 0xd05353);
    set(CategoryKind::Event, 0xb9a27a);
    set(CategoryKind::CpuInstant, 0x64748b);
    set(CategoryKind::Overhead, 0xc4b5a0);
    set(CategoryKind::Trace, 0x9aa5b1);
    set(CategoryKind::Collective, 0x3aa6a6);
    set(CategoryKind::HardwareCounters, 0x8fa3bf);
    for (int i = 0; i < nameColors; ++i) {
        // Hues spread by the golden angle so neighbours in the ring differ; two lightness levels.
        const int hue = (i * 137) % 360;
        m_colors[std::size_t(categoryColors + i)] = QColor::fromHsl(hue, 150, i % 2 ? 150 : 175);
    }
    for (std::size_t i = 0; i < m_colors.size(); ++i) {
        const QColor c = m_colors[i];
        m_faded[i] = QColor((c.red() + 3 * background.red()) / 4, (c.green() + 3 * background.green()) / 4,
                            (c.blue() + 3 * background.blue()) / 4);
        m_text[i] = c.lightness() > 110 ? QColor(0x1f, 0x29, 0x37) : QColor(Qt::white);
    }
}

int TimelinePalette::indexOfName(std::string_view name) {
    std::uint32_t h = 2166136261u; // FNV-1a: stable across runs and machines
    for (unsigned char c : name)
        h = (h ^ c) * 16777619u;
    return categoryColors + int(h % nameColors);
}

} // namespace kinetoscope
