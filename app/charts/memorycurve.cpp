#include "charts/memorycurve.h"

#include "tables/tablecells.h"

#include <QMouseEvent>
#include <QPainter>

#include <algorithm>
#include <functional>

namespace kinetoscope {

MemoryCurve::MemoryCurve(const TraceStore& store, QWidget* parent) : QWidget(parent), m_store(store) {
    setMinimumHeight(120);
    for (std::uint32_t t = 0; t < store.tracks().size(); ++t) {
        const Track& track = store.tracks()[t];
        if (track.kind == TrackKind::Counter && store.strings().view(track.name).starts_with("Memory "))
            m_series.push_back(TrackId(t));
    }
    setRange(store.minTime(), store.maxTime());
    setToolTip(tr("Drag across the curve to scope every panel to that time range"));
}

void MemoryCurve::setRange(TimeNs from, TimeNs to) {
    m_from = from;
    m_to = std::max(to, from + 1);
    m_max = 1;
    m_min = 0;
    // A curve that is a running sum from the trace's start (traces without totals) can go below zero.
    for (TrackId id : m_series) {
        for (double v : m_store.track(id).counterValues) {
            m_max = std::max(m_max, v);
            m_min = std::min(m_min, v);
        }
    }
    update();
}

QRectF MemoryCurve::plotRect() const {
    return QRectF(70, 8, std::max(10, width() - 200), std::max(10, height() - 28));
}

TimeNs MemoryCurve::timeAt(double x) const {
    const QRectF r = plotRect();
    const double f = std::clamp((x - r.left()) / r.width(), 0.0, 1.0);
    return m_from + TimeNs(f * double(m_to - m_from));
}

void MemoryCurve::paintEvent(QPaintEvent*) {
    QPainter p(this);
    const QRectF r = plotRect();
    p.fillRect(rect(), palette().color(QPalette::Base));
    p.setPen(palette().color(QPalette::Mid));
    p.drawRect(r);
    p.setPen(palette().color(QPalette::WindowText));
    if (m_series.empty()) {
        p.drawText(rect(), Qt::AlignCenter,
                   tr("This trace has no memory events (profile with profile_memory=True)."));
        return;
    }
    p.drawText(QRectF(0, r.top() - 6, 66, 14), Qt::AlignRight, bytesText(m_max));
    p.drawText(QRectF(0, r.bottom() - 8, 66, 14), Qt::AlignRight,
               m_min < 0 ? bytesText(m_min) : QStringLiteral("0"));
    const QColor colors[] = {QColor(0x25, 0x63, 0xeb), QColor(0xdc, 0x26, 0x26), QColor(0x05, 0x96, 0x69),
                             QColor(0x93, 0x33, 0xea)};
    auto xOf = [&](TimeNs t) { return r.left() + r.width() * double(t - m_from) / double(m_to - m_from); };
    auto yOf = [&](double v) { return r.bottom() - r.height() * (v - m_min) / (m_max - m_min); };
    int legendY = int(r.top());
    for (std::size_t s = 0; s < m_series.size(); ++s) {
        const Track& t = m_store.tracks()[m_series[s].value];
        const QColor c = colors[s % 4];
        QPolygonF line;
        double last = 0;
        std::size_t peak = 0;
        for (std::size_t i = 0; i < t.counterTimes.size(); ++i) {
            if (t.counterValues[i] > t.counterValues[peak]) peak = i;
            if (t.counterTimes[i] < m_from) {
                last = t.counterValues[i];
                continue;
            }
            if (t.counterTimes[i] > m_to) break;
            const double x = xOf(t.counterTimes[i]);
            if (line.isEmpty()) line << QPointF(r.left(), yOf(last));
            line << QPointF(x, yOf(last)) << QPointF(x, yOf(t.counterValues[i]));
            last = t.counterValues[i];
        }
        line << QPointF(r.right(), yOf(last));
        p.setPen(QPen(c, 1.5));
        p.drawPolyline(line);
        if (!t.counterTimes.empty() && t.counterTimes[peak] >= m_from && t.counterTimes[peak] <= m_to) {
            const QPointF at(xOf(t.counterTimes[peak]), yOf(t.counterValues[peak]));
            p.setBrush(c);
            p.drawEllipse(at, 3.5, 3.5);
            p.setBrush(Qt::NoBrush);
        }
        p.fillRect(QRectF(r.right() + 8, legendY + 3, 10, 10), c);
        p.setPen(palette().color(QPalette::WindowText));
        const std::string_view name = m_store.strings().view(t.name);
        p.drawText(QRectF(r.right() + 22, legendY, 170, 16), Qt::AlignLeft | Qt::AlignVCenter,
                   QString::fromUtf8(name.data(), qsizetype(name.size())).mid(7) +
                       QStringLiteral(" · peak %1")
                           .arg(bytesText(t.counterValues.empty() ? 0.0 : t.counterValues[peak])));
        legendY += 17;
    }
    if (m_dragFrom) {
        const double a = std::min(*m_dragFrom, m_dragTo), b = std::max(*m_dragFrom, m_dragTo);
        p.fillRect(QRectF(a, r.top(), b - a, r.height()), QColor(0x63, 0x66, 0xf1, 50));
    }
}

void MemoryCurve::mousePressEvent(QMouseEvent* e) {
    m_dragFrom = e->position().x();
    m_dragTo = e->position().x();
}

void MemoryCurve::mouseMoveEvent(QMouseEvent* e) {
    if (!m_dragFrom) return;
    m_dragTo = e->position().x();
    update();
}

void MemoryCurve::mouseReleaseEvent(QMouseEvent* e) {
    if (!m_dragFrom) return;
    const double a = *m_dragFrom, b = e->position().x();
    m_dragFrom.reset();
    update();
    if (std::abs(b - a) > 3) emit rangeSelected(timeAt(std::min(a, b)), timeAt(std::max(a, b)));
}

} // namespace kinetoscope
