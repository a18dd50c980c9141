#include "timeline/criticalpathoverlay.h"

#include "timeline/timelinerenderer.h"

#include "analysis/gpu/criticalpath.h"

#include <QPainter>

namespace kinetoscope {

QColor criticalPathColor() {
    return QColor(0xe1, 0x1d, 0x48); // rose: apart from every category colour and the flows' blues
}

CriticalPathGeometry criticalPathGeometry(const TimelineRenderer& renderer, const TimelineFrame& frame) {
    CriticalPathGeometry g;
    const StepCriticalPath* cp = frame.criticalPath;
    if (!cp) return g;
    const QRectF lanes = renderer.lanesRect(frame);
    const TimeAxis& axis = frame.axis;
    auto inView = [&](TimeNs from, TimeNs to) { return to >= axis.start && from <= axis.end; };
    for (const PathEventRow& e : cp->events) {
        if (g.outlines.size() >= maxPathOutlines) break;
        if (!inView(e.start, e.start + e.duration)) continue;
        const QRectF r = renderer.sliceRect(frame, e.ref);
        if (r.isValid() && r.intersects(lanes)) g.outlines.push_back(r);
    }
    for (std::size_t i = 0; i < cp->path.edges.size(); ++i) {
        if (std::size_t(g.links.size() + g.syncs.size()) >= maxPathLinks) break;
        const CriticalPathEdge& e = cp->path.edges[i];
        const PathEventRow& a = cp->events[cp->edgeEvents[i].first];
        const PathEventRow& b = cp->events[cp->edgeEvents[i].second];
        // Within one thread the outlines already show the way down and up the call stack.
        if (a.ref.track == b.ref.track && e.kind != PathEdgeKind::KernelKernelDelay) continue;
        const TimeNs ta = e.fromStart ? a.start : a.start + a.duration;
        const TimeNs tb = e.toStart ? b.start : b.start + b.duration;
        if (!inView(std::min(ta, tb), std::max(ta, tb))) continue;
        const QRectF ra = renderer.sliceRect(frame, a.ref);
        const QRectF rb = renderer.sliceRect(frame, b.ref);
        if (!ra.isValid() || !rb.isValid()) continue;
        const QPointF from(TimelineRenderer::headerWidth + axis.xOf(ta), ra.center().y());
        const QPointF to(TimelineRenderer::headerWidth + axis.xOf(tb), rb.center().y());
        const bool weightless = e.kind == PathEdgeKind::Sync || e.kind == PathEdgeKind::Dependency;
        (weightless ? g.syncs : g.links).append(QLineF(from, to));
        if (lanes.contains(to) && QLineF(from, to).length() > 8) {
            // Pointing along the line, 7 px long.
            QLineF back(to, from);
            back.setLength(7);
            QLineF side = back.normalVector();
            side.setLength(3.5);
            const QPointF base = back.p2();
            const QPointF offset = side.p2() - side.p1();
            g.heads.push_back(QPolygonF({to, base + offset, base - offset}));
        }
    }
    return g;
}

void paintCriticalPath(QPainter& p, const TimelineRenderer& renderer, const TimelineFrame& frame) {
    if (!frame.criticalPath) return;
    const CriticalPathGeometry g = criticalPathGeometry(renderer, frame);
    const QColor color = criticalPathColor();
    p.save();
    p.setBrush(Qt::NoBrush);
    p.setPen(QPen(color, 2));
    for (const QRectF& r : g.outlines)
        p.drawRect(r.adjusted(0, 0, -1, -1));
    p.setRenderHint(QPainter::Antialiasing, true);
    p.setPen(QPen(color, 1.5));
    p.drawLines(g.links);
    p.setPen(QPen(color, 1.5, Qt::DashLine));
    p.drawLines(g.syncs);
    p.setPen(Qt::NoPen);
    p.setBrush(color);
    for (const QPolygonF& h : g.heads)
        p.drawPolygon(h);
    p.restore();
}

} // namespace kinetoscope
