#include "charts/barchart.h"

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

} // namespace kinetoscope
