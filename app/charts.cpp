#include "charts.h"

#include <QMouseEvent>
#include <QPainter>

#include <algorithm>
#include <functional>

namespace kinetoscope {

BarChart::BarChart(QWidget* parent) : QWidget(parent) {
    setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Fixed);
}

void BarChart::setBars(QVector<Bar> bars) {
    m_bars = std::move(bars);
    updateGeometry();
    update();
}

QSize BarChart::sizeHint() const {
    return {400, 8 + 18 * int(std::max<qsizetype>(1, m_bars.size()))};
}

void BarChart::paintEvent(QPaintEvent*) {
    QPainter p(this);
    const QFontMetrics fm = p.fontMetrics();
    int labelWidth = 0;
    for (const Bar& b : m_bars)
        labelWidth = std::max(labelWidth, fm.horizontalAdvance(b.label));
    labelWidth = std::min(labelWidth + 8, width() / 3);
    double maxValue = 0;
    for (const Bar& b : m_bars)
        maxValue = std::max(maxValue, b.value);
    int textSpace = 40;
    for (const Bar& b : m_bars)
        textSpace = std::max(textSpace, fm.horizontalAdvance(b.text) + 8);
    const int barSpace = std::max(10, width() - labelWidth - textSpace - 8);
    int y = 4;
    for (const Bar& b : m_bars) {
        p.setPen(palette().color(QPalette::WindowText));
        p.drawText(QRect(4, y, labelWidth - 8, 16), Qt::AlignLeft | Qt::AlignVCenter,
                   fm.elidedText(b.label, Qt::ElideMiddle, labelWidth - 8));
        const int w = maxValue > 0 ? int(double(barSpace) * b.value / maxValue) : 0;
        p.fillRect(QRect(labelWidth, y + 2, std::max(w, 1), 12),
                   b.color.isValid() ? b.color : QColor(0x6c, 0x9b, 0xd2));
        p.drawText(QRect(labelWidth + w + 4, y, textSpace, 16), Qt::AlignLeft | Qt::AlignVCenter, b.text);
        y += 18;
    }
}

StackedColumnChart::StackedColumnChart(QWidget* parent) : QWidget(parent) {
    setMinimumHeight(150);
}

void StackedColumnChart::setData(QStringList columns, std::vector<std::vector<double>> values,
                                 QStringList series, QVector<QColor> colors) {
    m_columns = std::move(columns);
    m_values = std::move(values);
    m_series = std::move(series);
    m_colors = std::move(colors);
    update();
}

void StackedColumnChart::paintEvent(QPaintEvent*) {
    QPainter p(this);
    const QFontMetrics fm = p.fontMetrics();
    const int legendWidth = 130;
    const QRect plot(40, 8, std::max(50, width() - 40 - legendWidth - 10), std::max(40, height() - 30));
    double maxTotal = 0;
    for (const auto& col : m_values) {
        double sum = 0;
        for (double v : col)
            sum += v;
        maxTotal = std::max(maxTotal, sum);
    }
    p.setPen(palette().color(QPalette::Mid));
    p.drawLine(plot.bottomLeft(), plot.bottomRight());
    p.drawLine(plot.bottomLeft(), plot.topLeft());
    p.setPen(palette().color(QPalette::WindowText));
    p.drawText(QRect(0, plot.top() - 4, 38, 14), Qt::AlignRight,
               QString::fromStdString(formatDuration(TimeNs(maxTotal))).section(QLatin1Char(' '), 0, 0));
    if (!m_values.empty() && maxTotal > 0) {
        const double slot = double(plot.width()) / double(m_values.size());
        const double barWidth = std::max(2.0, slot * 0.7);
        for (std::size_t c = 0; c < m_values.size(); ++c) {
            double y = plot.bottom();
            const double x = plot.left() + slot * double(c) + (slot - barWidth) / 2;
            for (std::size_t s = 0; s < m_values[c].size(); ++s) {
                const double h = double(plot.height()) * m_values[c][s] / maxTotal;
                p.fillRect(QRectF(x, y - h, barWidth, h), m_colors.value(int(s), Qt::gray));
                y -= h;
            }
            if (slot > 40 && c < std::size_t(m_columns.size())) {
                p.setPen(palette().color(QPalette::WindowText));
                p.drawText(QRectF(plot.left() + slot * double(c), plot.bottom() + 2, slot, 16),
                           Qt::AlignHCenter | Qt::AlignTop,
                           fm.elidedText(m_columns[int(c)], Qt::ElideLeft, int(slot)));
            }
        }
    }
    int y = plot.top();
    for (int s = 0; s < m_series.size(); ++s) {
        p.fillRect(QRect(width() - legendWidth, y + 3, 10, 10), m_colors.value(s, Qt::gray));
        p.setPen(palette().color(QPalette::WindowText));
        p.drawText(QRect(width() - legendWidth + 14, y, legendWidth - 14, 16),
                   Qt::AlignLeft | Qt::AlignVCenter, m_series[s]);
        y += 17;
    }
}

MemoryCurve::MemoryCurve(const TraceStore& store, QWidget* parent) : QWidget(parent), m_store(store) {
    setMinimumHeight(120);
    for (std::uint32_t t = 0; t < store.tracks.size(); ++t) {
        const Track& track = store.tracks[t];
        if (track.kind == TrackKind::Counter && store.strings.view(track.name).starts_with("Memory "))
            m_series.push_back(TrackId(t));
    }
    setRange(store.minTime, store.maxTime);
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
    p.drawText(QRectF(0, r.top() - 6, 66, 14), Qt::AlignRight,
               QString::number(m_max / 1048576.0, 'f', 0) + QStringLiteral(" MiB"));
    p.drawText(QRectF(0, r.bottom() - 8, 66, 14), Qt::AlignRight,
               m_min < 0 ? QString::number(m_min / 1048576.0, 'f', 0) + QStringLiteral(" MiB")
                         : QStringLiteral("0"));
    const QColor colors[] = {QColor(0x25, 0x63, 0xeb), QColor(0xdc, 0x26, 0x26), QColor(0x05, 0x96, 0x69),
                             QColor(0x93, 0x33, 0xea)};
    auto xOf = [&](TimeNs t) { return r.left() + r.width() * double(t - m_from) / double(m_to - m_from); };
    auto yOf = [&](double v) { return r.bottom() - r.height() * (v - m_min) / (m_max - m_min); };
    int legendY = int(r.top());
    for (std::size_t s = 0; s < m_series.size(); ++s) {
        const Track& t = m_store.tracks[m_series[s].value];
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
        const std::string_view name = m_store.strings.view(t.name);
        p.drawText(
            QRectF(r.right() + 22, legendY, 170, 16), Qt::AlignLeft | Qt::AlignVCenter,
            QString::fromUtf8(name.data(), qsizetype(name.size())).mid(7) +
                QStringLiteral(" · peak %1 MiB")
                    .arg(t.counterValues.empty() ? 0.0 : t.counterValues[peak] / 1048576.0, 0, 'f', 1));
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

ModuleFlame::ModuleFlame(QWidget* parent) : QWidget(parent) {
    setMinimumHeight(100);
}

void ModuleFlame::setTree(const ModuleTree* tree) {
    m_tree = tree;
    layout();
    update();
}

void ModuleFlame::resizeEvent(QResizeEvent*) {
    layout();
}

void ModuleFlame::layout() {
    m_rects.clear();
    if (!m_tree) return;
    m_rects.assign(m_tree->nodes.size(), QRectF());
    const double rowHeight = 18;
    std::function<void(const std::vector<int>&, double, double, int, TimeNs)> place =
        [&](const std::vector<int>& nodes, double x, double w, int depth, TimeNs total) {
            double cursor = x;
            for (int n : nodes) {
                const ModuleNode& node = m_tree->nodes[std::size_t(n)];
                const double nw = total > 0 ? w * double(node.hostTotal) / double(total) : 0;
                m_rects[std::size_t(n)] = QRectF(cursor, depth * rowHeight, nw, rowHeight - 1);
                TimeNs childTotal = node.hostTotal;
                place(node.children, cursor, nw, depth + 1, childTotal);
                cursor += nw;
            }
        };
    TimeNs rootTotal = 0;
    for (int r : m_tree->roots)
        rootTotal += m_tree->nodes[std::size_t(r)].hostTotal;
    place(m_tree->roots, 0, width(), 0, rootTotal);
}

int ModuleFlame::nodeAt(QPointF pos) const {
    for (std::size_t i = 0; i < m_rects.size(); ++i) {
        if (m_rects[i].contains(pos)) return int(i);
    }
    return -1;
}

QRectF ModuleFlame::rectOf(int node) const {
    return node >= 0 && std::size_t(node) < m_rects.size() ? m_rects[std::size_t(node)] : QRectF();
}

void ModuleFlame::paintEvent(QPaintEvent*) {
    QPainter p(this);
    p.fillRect(rect(), palette().color(QPalette::Base));
    if (!m_tree) return;
    for (std::size_t i = 0; i < m_rects.size(); ++i) {
        const QRectF& r = m_rects[i];
        if (r.width() < 1) continue;
        const int hue = int((std::hash<std::string>{}(m_tree->nodes[i].name) % 60) + 10);
        p.fillRect(r, QColor::fromHsl(hue, 170, 165));
        if (r.width() > 30) {
            p.setPen(QColor(0x1f, 0x29, 0x37));
            p.drawText(r.adjusted(3, 0, -2, 0), Qt::AlignLeft | Qt::AlignVCenter,
                       p.fontMetrics().elidedText(QString::fromStdString(m_tree->nodes[i].name),
                                                  Qt::ElideRight, int(r.width()) - 5));
        }
    }
}

void ModuleFlame::mousePressEvent(QMouseEvent* e) {
    const int n = nodeAt(e->position());
    if (n >= 0) emit nodeClicked(n);
}

} // namespace kinetoscope
