#include "charts/rooflinechart.h"

#include "tables/tablecells.h"

#include <QHelpEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QPainterPath>
#include <QToolTip>

#include <algorithm>
#include <cmath>
#include <set>

namespace kinetoscope {

QPointF RooflineGeometry::map(double intensity, double tflops) const {
    const double x = (std::log10(intensity) - xMin) / (xMax - xMin);
    const double y = (std::log10(tflops) - yMin) / (yMax - yMin);
    return {plot.left() + x * plot.width(), plot.bottom() - y * plot.height()};
}

QColor rooflineColor(OpFamily family) {
    switch (family) {
    case OpFamily::Gemm:
        return QColor(0x25, 0x63, 0xeb);
    case OpFamily::Convolution:
        return QColor(0x0d, 0x94, 0x88);
    case OpFamily::Attention:
        return QColor(0x93, 0x33, 0xea);
    case OpFamily::Normalization:
        return QColor(0xd9, 0x77, 0x06);
    case OpFamily::Softmax:
        return QColor(0xdb, 0x27, 0x77);
    case OpFamily::Elementwise:
        return QColor(0x64, 0x74, 0x8b);
    case OpFamily::Reduction:
        return QColor(0x65, 0xa3, 0x0d);
    case OpFamily::Triton:
        return QColor(0xea, 0x58, 0x0c);
    }
    return Qt::gray;
}

RooflineGeometry rooflineGeometry(const std::vector<PerfModelRow>& rows, const GpuPeaks* peaks, QSizeF size) {
    RooflineGeometry g;
    // Room for the axis labels: left for TFLOP/s, bottom for FLOP/byte.
    g.plot = QRectF(58, 10, std::max(10.0, size.width() - 58 - 12), std::max(10.0, size.height() - 10 - 40));
    double xLo = INFINITY, xHi = -INFINITY, yLo = INFINITY, yHi = -INFINITY;
    TimeNs longest = 0;
    auto extend = [&](double x, double y) {
        xLo = std::min(xLo, x);
        xHi = std::max(xHi, x);
        yLo = std::min(yLo, y);
        yHi = std::max(yHi, y);
    };
    // A point needs a place on log axes: finite and positive figures.
    auto placeable = [](const PerfModelRow& r) {
        const auto t = r.tflops(), i = r.intensity();
        return t && i && std::isfinite(*t) && std::isfinite(*i) && *t > 0 && *i > 0;
    };
    for (const PerfModelRow& r : rows)
        if (placeable(r)) {
            extend(std::log10(*r.intensity()), std::log10(*r.tflops()));
            longest = std::max(longest, r.deviceUnion);
        }
    // The roofs of the compute types the ops use, and the ridge points, inside the axes.
    std::set<ComputeType> types;
    for (const PerfModelRow& r : rows)
        if (peaks && r.tflops() && peaks->tflops(r.compute)) types.insert(r.compute);
    const double bandwidth = peaks && peaks->memoryTBps ? *peaks->memoryTBps : 0;
    for (ComputeType t : types)
        if (const auto peak = peaks->tflops(t); peak && bandwidth > 0)
            extend(std::log10(*peak / bandwidth), std::log10(*peak));
    if (!std::isfinite(xLo)) return g;
    g.xMin = std::floor(xLo - 0.3);
    g.xMax = std::ceil(xHi + 0.3);
    g.yMin = std::floor(yLo - 0.3);
    g.yMax = std::ceil(yHi + 0.2);
    const double left = std::pow(10.0, g.xMin), right = std::pow(10.0, g.xMax);
    double highest = 0;
    for (ComputeType t : types) {
        const auto peak = peaks->tflops(t);
        if (!peak || bandwidth <= 0) continue;
        highest = std::max(highest, *peak);
        g.roofs.push_back({QStringLiteral("%1 %2 TFLOP/s")
                               .arg(QString::fromLatin1(computeTypeName(t)))
                               .arg(QString::number(*peak, 'g', 5)),
                           QLineF(g.map(*peak / bandwidth, *peak), g.map(right, *peak)), false});
    }
    if (bandwidth > 0 && highest > 0) {
        // The bandwidth roof, from the left edge (or the bottom) up to the highest ridge point.
        const double start = std::max(left, std::pow(10.0, g.yMin) / bandwidth);
        g.roofs.push_back({QStringLiteral("%1 TB/s").arg(QString::number(bandwidth, 'g', 4)),
                           QLineF(g.map(start, start * bandwidth), g.map(highest / bandwidth, highest)),
                           true});
    }
    for (std::size_t i = 0; i < rows.size(); ++i) {
        const PerfModelRow& r = rows[i];
        if (!placeable(r)) continue;
        const double share = longest ? double(r.deviceUnion) / double(longest) : 0;
        g.points.push_back({int(i), g.map(*r.intensity(), *r.tflops()), 3 + 13 * std::sqrt(share)});
    }
    std::stable_sort(g.points.begin(), g.points.end(),
                     [](const auto& a, const auto& b) { return a.radius > b.radius; });
    return g;
}

int rooflinePointAt(const RooflineGeometry& g, QPointF pos) {
    for (auto p = g.points.rbegin(); p != g.points.rend(); ++p) { // smallest (topmost) first
        const QPointF d = pos - p->center;
        if (d.x() * d.x() + d.y() * d.y() <= (p->radius + 2) * (p->radius + 2)) return p->row;
    }
    return -1;
}

RooflineChart::RooflineChart(QWidget* parent) : QWidget(parent) {
    setMouseTracking(true);
    setAttribute(Qt::WA_OpaquePaintEvent);
}

QSize RooflineChart::sizeHint() const {
    return {520, 360};
}
QSize RooflineChart::minimumSizeHint() const {
    return {300, 220};
}

void RooflineChart::setData(std::vector<PerfModelRow> rows, const GpuPeaks* peaks) {
    m_rows = std::move(rows);
    m_peaks = peaks;
    m_selected = -1;
    m_geometry = rooflineGeometry(m_rows, m_peaks, size());
    update();
}

void RooflineChart::setSelectedRow(int row) {
    m_selected = row;
    update();
}

void RooflineChart::resizeEvent(QResizeEvent*) {
    m_geometry = rooflineGeometry(m_rows, m_peaks, size());
}

void RooflineChart::paintEvent(QPaintEvent*) {
    QPainter p(this);
    p.fillRect(rect(), palette().base());
    p.setRenderHint(QPainter::Antialiasing);
    const RooflineGeometry& g = m_geometry;
    if (g.points.empty()) {
        p.setPen(palette().color(QPalette::PlaceholderText));
        p.drawText(
            rect(), Qt::AlignCenter | Qt::TextWordWrap,
            tr("No op with shapes, FLOPs and GPU time to place here.\nProfile with record_shapes=True."));
        return;
    }
    // Decade grid and labels.
    const QColor grid = palette().color(QPalette::Mid);
    QFont small = font();
    small.setPointSizeF(small.pointSizeF() * 0.85);
    p.setFont(small);
    auto power = [](int e) {
        return e >= 0 && e <= 4 ? QString::number(std::pow(10, e), 'f', 0) : QStringLiteral("1e%1").arg(e);
    };
    for (int e = int(g.xMin); e <= int(g.xMax); ++e) {
        const double x = g.plot.left() + (e - g.xMin) / (g.xMax - g.xMin) * g.plot.width();
        p.setPen(QPen(grid, 0, Qt::DotLine));
        p.drawLine(QPointF(x, g.plot.top()), QPointF(x, g.plot.bottom()));
        p.setPen(palette().color(QPalette::Text));
        p.drawText(QRectF(x - 30, g.plot.bottom() + 2, 60, 14), Qt::AlignHCenter | Qt::AlignTop, power(e));
    }
    for (int e = int(g.yMin); e <= int(g.yMax); ++e) {
        const double y = g.plot.bottom() - (e - g.yMin) / (g.yMax - g.yMin) * g.plot.height();
        p.setPen(QPen(grid, 0, Qt::DotLine));
        p.drawLine(QPointF(g.plot.left(), y), QPointF(g.plot.right(), y));
        p.setPen(palette().color(QPalette::Text));
        p.drawText(QRectF(0, y - 7, g.plot.left() - 4, 14), Qt::AlignRight | Qt::AlignVCenter, power(e));
    }
    p.setPen(palette().color(QPalette::Text));
    p.drawRect(g.plot);
    p.drawText(QRectF(g.plot.left(), g.plot.bottom() + 16, g.plot.width(), 16), Qt::AlignHCenter,
               tr("Arithmetic intensity (FLOP/byte)"));
    p.save();
    p.translate(12, g.plot.center().y());
    p.rotate(-90);
    p.drawText(QRectF(-80, -8, 160, 16), Qt::AlignHCenter, tr("Achieved TFLOP/s"));
    p.restore();
    // Roofs.
    p.setClipRect(g.plot.adjusted(-1, -1, 1, 1));
    for (const RooflineGeometry::Roof& r : g.roofs) {
        p.setPen(QPen(r.memory ? QColor(0xb9, 0x1c, 0x1c) : QColor(0x1e, 0x29, 0x3b), 1.6));
        p.drawLine(r.line);
        const QPointF at = r.memory ? r.line.pointAt(0.55) + QPointF(-6, -6) : r.line.p2() + QPointF(-4, -4);
        const QRectF box = p.fontMetrics().boundingRect(r.label);
        p.drawText(QPointF(at.x() - box.width(), at.y()), r.label);
    }
    // Points, largest first.
    for (const RooflineGeometry::Point& pt : g.points) {
        const PerfModelRow& row = m_rows[std::size_t(pt.row)];
        QColor c = rooflineColor(row.family);
        c.setAlpha(170);
        p.setPen(QPen(c.darker(140), 1));
        p.setBrush(c);
        p.drawEllipse(pt.center, pt.radius, pt.radius);
    }
    for (const RooflineGeometry::Point& pt : g.points)
        if (pt.row == m_selected) {
            p.setBrush(Qt::NoBrush);
            p.setPen(QPen(QColor(0xf5, 0x9e, 0x0b), 3));
            p.drawEllipse(pt.center, pt.radius + 3, pt.radius + 3);
        }
    p.setClipping(false);
    // Legend: the kinds present.
    std::set<OpFamily> families;
    for (const RooflineGeometry::Point& pt : g.points)
        families.insert(m_rows[std::size_t(pt.row)].family);
    double x = g.plot.left() + 6;
    const double y = g.plot.top() + 6;
    for (OpFamily f : families) {
        const QString label = QString::fromLatin1(opFamilyName(f));
        p.setPen(Qt::NoPen);
        p.setBrush(rooflineColor(f));
        p.drawEllipse(QPointF(x + 5, y + 6), 4, 4);
        p.setPen(palette().color(QPalette::Text));
        p.drawText(QPointF(x + 12, y + 10), label);
        x += 22 + p.fontMetrics().horizontalAdvance(label);
    }
}

void RooflineChart::mousePressEvent(QMouseEvent* e) {
    const int row = rooflinePointAt(m_geometry, e->position());
    if (row < 0) return;
    setSelectedRow(row);
    emit rowClicked(row);
}

bool RooflineChart::event(QEvent* e) {
    if (e->type() != QEvent::ToolTip) return QWidget::event(e);
    auto* help = static_cast<QHelpEvent*>(e);
    const int row = rooflinePointAt(m_geometry, help->pos());
    if (row < 0) {
        QToolTip::hideText();
        return true;
    }
    const PerfModelRow& r = m_rows[std::size_t(row)];
    QString text = QStringLiteral("<b>%1</b><br>%2 %3<br>%4 calls, %5<br>%6 TFLOP/s, %7 TB/s, %8 FLOP/byte")
                       .arg(QString::fromStdString(r.name).toHtmlEscaped(),
                            QString::fromStdString(r.inputDims).toHtmlEscaped(),
                            QString::fromStdString(r.inputTypes).toHtmlEscaped())
                       .arg(r.count)
                       .arg(durationText(r.deviceUnion))
                       .arg(*r.tflops(), 0, 'f', 2)
                       .arg(*r.tbps(), 0, 'f', 3)
                       .arg(*r.intensity(), 0, 'f', 1);
    if (const auto f = r.peakFraction())
        text += QStringLiteral("<br>%1 of the %2 peak (%3-bound)")
                    .arg(percentText(*f),
                         QString::fromLatin1(r.bound() == RooflineBound::Compute ? computeTypeName(r.compute)
                                                                                 : "bandwidth"),
                         QString::fromLatin1(boundName(r.bound())));
    QToolTip::showText(help->globalPos(), text, this);
    return true;
}

} // namespace kinetoscope
