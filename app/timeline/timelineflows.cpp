// TimelineRenderer's flow arrows: which arrows a frame shows (a sample of a zoomed-out view's, each flow's
// ends anchored once) and how they are drawn. Apart from timelinerenderer.cpp, which keeps the lanes, labels,
// ruler and headers.
#include "timeline/timelinerenderer.h"

#include "timeline/timelinepalette.h"

#include <QPainter>
#include <QPainterPath>

#include <algorithm>
#include <array>
#include <cmath>
#include <unordered_set>

namespace kinetoscope {

// Zoomed out, every arrow is a line across most of the lanes, and their pixels, not their number, set both
// what a frame costs (~4 ns a pixel: each row of a near-upright line is another cache line; 700 such arrows
// took 3 ms of a 1 GB trace's zoomed-out frame; 310 now take 1.5) and whether the slices under them can still
// be read. So the sample may cover at most a tenth of the lanes' area; past that, an evenly spread part of it
// is kept, in time order as it came (the note says how many of how many show).
namespace {
// The pixels a line from `a` to `b` touches inside `r` without antialiasing (one a row or a column, whichever
// it has more of), after clipping it to `r` (Liang-Barsky): an arrow from a launch far left of a zoomed-in
// view counts only what shows.
double visiblePixels(QPointF a, QPointF b, const QRectF& r) {
    const double dx = b.x() - a.x(), dy = b.y() - a.y();
    double t0 = 0, t1 = 1;
    const auto clip = [&](double p, double q) { // p t <= q
        if (p == 0) return q >= 0;
        const double t = q / p;
        if (p < 0) {
            if (t > t1) return false;
            t0 = std::max(t0, t);
        } else {
            if (t < t0) return false;
            t1 = std::min(t1, t);
        }
        return true;
    };
    if (!clip(-dx, a.x() - r.left()) || !clip(dx, r.right() - a.x()) || !clip(-dy, a.y() - r.top()) ||
        !clip(dy, r.bottom() - a.y()))
        return 0;
    return (t1 - t0) * std::max(std::abs(dx), std::abs(dy));
}
} // namespace

void TimelineRenderer::keepWithinPixelBudget(std::vector<FlowArrow>& arrows, const QRectF& lanes) {
    const double budget = 0.1 * std::max(0.0, lanes.width()) * std::max(0.0, lanes.height());
    double pixels = 0;
    for (const FlowArrow& a : arrows)
        pixels += visiblePixels(a.from, a.to, lanes);
    if (arrows.empty() || pixels <= budget) return;
    const double keep = budget / pixels;
    std::size_t kept = 0;
    double credit = 0.5; // each kept arrow stands for the ones around it
    for (const FlowArrow& a : arrows) {
        credit += keep;
        if (credit >= 1) {
            credit -= 1;
            arrows[kept++] = a;
        }
    }
    if (kept == 0) arrows[kept++] = arrows[arrows.size() / 2]; // lanes too small for one: still one
    arrows.resize(kept);
}

std::vector<FlowArrow> TimelineRenderer::flowArrows(const TimelineFrame& frame, std::size_t* total) const {
    std::vector<FlowArrow> arrows;
    std::size_t count = 0;
    const TraceStore& s = store();
    const QRectF lanes = lanesRect(frame);
    auto rowMiddle = [&](EventRef ref) {
        const int ri = m_layout->rowOf(ref);
        const LaneRow& row = m_layout->rows()[std::size_t(std::max(ri, 0))];
        return float(row.y + row.height / 2);
    };
    if (m_flowEnds.size() != s.flows().size()) m_flowEnds.assign(s.flows().size(), FlowEnds{});
    if (m_flowEndsGeneration != m_layout->generation()) {
        dropFlowEnds();
        m_flowEndsGeneration = m_layout->generation();
    }
    auto anchors = [&](std::uint32_t index) {
        FlowEnds& e = m_flowEnds[index];
        if (e.epoch != m_flowEpoch) {
            const Flow& f = s.flows()[index];
            e = {FlowIndex::arrowStart(s, f), FlowIndex::arrowEnd(s, f), rowMiddle(f.source),
                 rowMiddle(f.target), m_flowEpoch};
        }
        return std::pair{QPointF(headerWidth + frame.axis.xOf(e.from), viewY(frame, e.fromY)),
                         QPointF(headerWidth + frame.axis.xOf(e.to), viewY(frame, e.toY))};
    };
    std::vector<std::uint32_t> counted; // what the sample counted, for a selected event's arrows
    std::size_t readded = 0;
    auto add = [&](std::uint32_t index, bool always, QPointF a, QPointF b) {
        const Flow& f = s.flows()[index];
        // Entirely above or below the lanes on screen: cannot cross the view.
        if ((a.y() < lanes.top() && b.y() < lanes.top()) ||
            (a.y() > lanes.bottom() && b.y() > lanes.bottom()))
            return;
        ++count;
        if (!always) counted.push_back(index);
        if (always || arrows.size() < maxArrows) arrows.push_back({a, b, f.kind, index});
    };
    if (frame.flows == FlowMode::All) {
        // Zoomed out, hundreds of thousands of arrows cross the view and share pixels. Anchoring each costs a
        // few binary searches, so past `sampleLimit` an evenly strided sample stands for the rest; then
        // arrows whose ends fall within 3 px of an arrow already taken are dropped. As many as the cap: a
        // larger sample would fill the cap from the view's left part alone (it is walked in time order) and
        // cost 2-3 ms a frame on a 1 GB trace.
        constexpr double sampleLimit = double(maxArrows);
        // The stride from the exact count (binary searches), not from the trace's mean density: flows
        // clustered in the view would otherwise be sampled several times over the cap.
        const std::size_t crossing = trace().flowIndex.countInRange(frame.axis.start, frame.axis.end);
        const std::size_t stride = std::max<std::size_t>(1, std::size_t(double(crossing) / sampleLimit));
        std::unordered_set<std::uint64_t> seen;
        const std::size_t inRange = trace().flowIndex.sampleInRange(
            frame.axis.start, frame.axis.end, stride, [&](std::uint32_t index) {
                const auto [a, b] = anchors(index);
                const std::uint64_t key = (std::uint64_t(std::clamp(int(a.x() / 3), -1, 16383)) << 50) ^
                                          (std::uint64_t(std::clamp(int(b.x() / 3), -1, 16383)) << 36) ^
                                          (std::uint64_t(std::clamp(int(a.y()), -1, 65535)) << 18) ^
                                          std::uint64_t(std::clamp(int(b.y()), -1, 65535));
                if (seen.insert(key).second) add(index, false, a, b);
            });
        // Report what crossed the view, not what the sample saw.
        if (stride > 1) count = std::max(count, inRange);
        keepWithinPixelBudget(arrows, lanes);
    }
    if (frame.selected.isValid() && frame.flows != FlowMode::None) {
        // The selected event's arrows always show, even past the cap.
        std::vector<const Flow*> own = s.flowsFrom(frame.selected);
        for (const Flow* f : s.flowsInto(frame.selected))
            own.push_back(f);
        for (const Flow* f : own) {
            const auto index = std::uint32_t(f - s.flows().data());
            const bool drawn = std::any_of(arrows.begin(), arrows.end(),
                                           [&](const FlowArrow& a) { return a.flow == index; });
            if (!drawn) {
                const auto [a, b] = anchors(index);
                const std::size_t before = count;
                add(index, true, a, b);
                // Already counted when the sample took it (and the budget dropped it).
                if (count > before && std::find(counted.begin(), counted.end(), index) != counted.end())
                    ++readded;
            }
        }
    }
    // A selected event's arrow thinned out of the sample is added again, and counted once more above.
    if (total) *total = std::max(count - std::min(count, readded), arrows.size());
    return arrows;
}

void TimelineRenderer::paintFlows(QPainter& p, const TimelineFrame& frame) {
    if (frame.flows == FlowMode::None) return;
    std::size_t total = 0;
    const std::vector<FlowArrow> arrows = flowArrows(frame, &total);
    // Antialiased Bézier paths cost ~0.1 ms each in the raster engine; thousands of arrows would take a
    // second. So every arrow is flattened into a few straight segments and each colour is drawn with one
    // drawLines call; only the selection's own arrows get smooth, thicker curves.
    const bool dense = arrows.size() > 150;
    const QRectF lanes = lanesRect(frame);
    std::array<QVector<QLineF>, 3> lines;
    std::array<QVector<QPointF>, 3> heads; // triangles, three points each
    std::vector<const FlowArrow*> emphasised;
    auto kindIndex = [](FlowKind k) {
        return k == FlowKind::Launch ? 0 : k == FlowKind::ForwardBackward ? 1 : 2;
    };
    for (const FlowArrow& a : arrows) {
        const Flow& f = store().flows()[a.flow];
        if (frame.selected.isValid() && (f.source == frame.selected || f.target == frame.selected)) {
            emphasised.push_back(&a);
            continue;
        }
        const int k = kindIndex(a.kind);
        const double dx = std::max(24.0, std::abs(a.to.x() - a.from.x()) / 2);
        const QPointF c1 = a.from + QPointF(dx, 0), c2 = a.to - QPointF(dx, 0);
        const double length = std::abs(a.to.x() - a.from.x()) + std::abs(a.to.y() - a.from.y());
        // Dense arrows are thin and faded: a few segments each draw the same picture at a third of the cost.
        const int segments =
            dense ? std::clamp(int(length / 100), 2, 4) : std::clamp(int(length / 40), 3, 12);
        QPointF prev = a.from;
        for (int i = 1; i <= segments; ++i) {
            const double t = double(i) / segments, u = 1 - t;
            const QPointF pt =
                u * u * u * a.from + 3 * u * u * t * c1 + 3 * u * t * t * c2 + t * t * t * a.to;
            lines[std::size_t(k)].append(QLineF(prev, pt));
            prev = pt;
        }
        if (!lanes.contains(a.to)) continue;
        if (dense) {
            // An open head, two strokes in the same drawLines call: hundreds of filled triangles are as many
            // polygon calls (2 ms a frame when zoomed out).
            lines[std::size_t(k)].append(QLineF(a.to, a.to + QPointF(-6, -3.5)));
            lines[std::size_t(k)].append(QLineF(a.to, a.to + QPointF(-6, 3.5)));
        } else {
            heads[std::size_t(k)] << a.to << a.to + QPointF(-6, -3.5) << a.to + QPointF(-6, 3.5);
        }
    }
    const QColor colors[3] = {TimelinePalette::launchFlow(), TimelinePalette::forwardBackwardFlow(),
                              TimelinePalette::otherFlow()};
    for (std::size_t k = 0; k < 3; ++k) {
        // Dense arrows fade so the slices under them stay readable. Faded by mixing with white rather than by
        // alpha: opaque lines are filled, not blended, which halves their cost when thousands cross the view.
        QColor c = colors[k];
        if (dense || frame.selected.isValid()) {
            const double keep = dense ? 0.35 : 0.5;
            c = QColor(int(c.red() * keep + 255 * (1 - keep)), int(c.green() * keep + 255 * (1 - keep)),
                       int(c.blue() * keep + 255 * (1 - keep)));
        }
        p.setPen(QPen(c, 0)); // cosmetic: the raster engine's fastest line path
        if (!lines[k].isEmpty()) p.drawLines(lines[k]);
        p.setPen(Qt::NoPen);
        p.setBrush(c);
        for (qsizetype i = 0; i + 2 < heads[k].size(); i += 3)
            p.drawConvexPolygon(heads[k].constData() + i, 3);
    }
    p.setRenderHint(QPainter::Antialiasing, true);
    for (const FlowArrow* a : emphasised) {
        const QColor color = colors[kindIndex(a->kind)];
        const double dx = std::max(24.0, std::abs(a->to.x() - a->from.x()) / 2);
        QPainterPath path(a->from);
        path.cubicTo(a->from + QPointF(dx, 0), a->to - QPointF(dx, 0), a->to);
        p.setPen(QPen(color, 2.0));
        p.setBrush(Qt::NoBrush);
        p.drawPath(path);
        QPolygonF head;
        head << a->to << a->to + QPointF(-8, -4.5) << a->to + QPointF(-8, 4.5);
        p.setPen(Qt::NoPen);
        p.setBrush(color);
        p.drawPolygon(head);
    }
    p.setRenderHint(QPainter::Antialiasing, false);
    p.setBrush(Qt::NoBrush);
    if (total > arrows.size()) {
        const QString note = QStringLiteral("showing %1 of %2 arrows").arg(arrows.size()).arg(total);
        const QRectF lanes = lanesRect(frame);
        const double w = m_metrics.horizontalAdvance(note) + 12;
        const QRectF r(lanes.right() - w - 6, lanes.bottom() - 22, w, 18);
        p.fillRect(r, QColor(0xff, 0xfb, 0xeb, 230));
        p.setPen(m_theme.mutedText);
        p.drawText(r, Qt::AlignCenter, note);
    }
}

} // namespace kinetoscope
