#pragma once

// The critical path drawn over the timeline: its slices outlined and the links between tracks (launch
// delays, syncs, kernel-to-kernel delays) drawn as lines. Geometry apart from painting, like the lanes'.

#include "timeline/timelineframe.h"

#include <QColor>
#include <QLineF>
#include <QPolygonF>
#include <QRectF>
#include <QVector>

#include <vector>

class QPainter;

namespace kinetoscope {

class TimelineRenderer;

struct CriticalPathGeometry {
    std::vector<QRectF> outlines; // the path's slices in view
    QVector<QLineF> links;        // launch delays and kernel-to-kernel delays
    QVector<QLineF> syncs;        // weightless waits and dependencies across tracks, dashed
    std::vector<QPolygonF> heads; // an arrowhead where a link enters a slice in view
};

inline constexpr std::size_t maxPathOutlines = 5000;
inline constexpr std::size_t maxPathLinks = 3000;

CriticalPathGeometry criticalPathGeometry(const TimelineRenderer& renderer, const TimelineFrame& frame);
void paintCriticalPath(QPainter& p, const TimelineRenderer& renderer, const TimelineFrame& frame);

// The outline and link colour.
QColor criticalPathColor();

} // namespace kinetoscope
