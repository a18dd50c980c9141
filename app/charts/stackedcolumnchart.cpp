#include "charts/stackedcolumnchart.h"

#include <QMouseEvent>
#include <QPainter>

#include <algorithm>
#include <functional>

namespace kinetoscope {

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
    double maxTotal = 0;
    for (const auto& col : m_values) {
        double sum = 0;
        for (double v : col)
            sum += v;
        maxTotal = std::max(maxTotal, sum);
    }
    // The axis and the legend take the width their text needs: a label is never clipped, and keeps its unit.
    const QString topLabel = QString::fromStdString(formatDuration(TimeNs(maxTotal)));
    const int axisWidth = fm.horizontalAdvance(topLabel) + 8;
    int legendWidth = 0;
    for (const QString& s : m_series)
        legendWidth = std::max(legendWidth, fm.horizontalAdvance(s) + 20);
    const QRect plot(axisWidth, 8, std::max(50, width() - axisWidth - legendWidth - 10),
                     std::max(40, height() - 30));
    p.setPen(palette().color(QPalette::Mid));
    p.drawLine(plot.bottomLeft(), plot.bottomRight());
    p.drawLine(plot.bottomLeft(), plot.topLeft());
    p.setPen(palette().color(QPalette::WindowText));
    p.drawText(QRect(0, plot.top() - fm.height() / 2, axisWidth - 4, fm.height()),
               Qt::AlignRight | Qt::AlignVCenter, topLabel);
    p.drawText(QRect(0, plot.bottom() - fm.height() / 2, axisWidth - 4, fm.height()),
               Qt::AlignRight | Qt::AlignVCenter, QStringLiteral("0"));
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
        p.drawText(QRect(width() - legendWidth + 14, y, legendWidth - 14, std::max(16, fm.height())),
                   Qt::AlignLeft | Qt::AlignVCenter, m_series[s]);
        y += 17;
    }
}

} // namespace kinetoscope
