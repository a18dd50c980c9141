#pragma once

#include <QString>

namespace kinetoscope {

class TimelineWidget;

// Saves what the timeline shows (its lanes, labels, overlays, ruler and track headers, at its current range
// and scroll; not the hint for newcomers) to `path`: SVG when the name ends in .svg (every box and label a
// vector shape, for a paper or a slide), otherwise a raster image in the format the suffix names (PNG by
// default) at the screen's pixel density. Written through a temporary file: an existing file is replaced only
// by a complete image. Returns an error naming the file, or an empty string.
QString exportTimelineImage(TimelineWidget& timeline, const QString& path, const QString& title = {});

} // namespace kinetoscope
