#pragma once

#include <QSize>
#include <QString>

#include "timeline/timelineframe.h"

#include <optional>

namespace kinetoscope {

struct RenderRequest {
    QString tracePath;
    QString outputPath;
    QSize size{1600, 900};
    std::optional<TimeRange> rangeFromStart; // offsets from the trace start, ns
    FlowMode flows = FlowMode::None;         // every arrow is a band that hides the lanes under it
    ColorMode colors = ColorMode::Category;
    bool criticalPath = false; // outline the critical path of the step most in view
};

// Parses "1920x1080" and "START_US:END_US" (microseconds from the trace start, decimals allowed).
std::optional<QSize> parseSize(const QString& text);
std::optional<TimeRange> parseRange(const QString& text);

// Loads the trace and renders the timeline widget, exactly as the window shows it, into a PNG.
// Returns an empty string on success, else the one-line error.
QString renderTimeline(const RenderRequest& request);

} // namespace kinetoscope
