#pragma once

#include <Qt>

#include <optional>

namespace kinetoscope {

// The keys every zoomable view shares (the trace timeline, a snapshot's memory timeline): W/S zoom in and
// out, A/D pan left and right, 0 or Home fits everything.
enum class ViewKey { ZoomIn, ZoomOut, PanLeft, PanRight, Fit };

inline std::optional<ViewKey> viewKeyOf(int key) {
    switch (key) {
    case Qt::Key_W:
        return ViewKey::ZoomIn;
    case Qt::Key_S:
        return ViewKey::ZoomOut;
    case Qt::Key_A:
        return ViewKey::PanLeft;
    case Qt::Key_D:
        return ViewKey::PanRight;
    case Qt::Key_0:
    case Qt::Key_Home:
        return ViewKey::Fit;
    default:
        return std::nullopt;
    }
}

} // namespace kinetoscope
