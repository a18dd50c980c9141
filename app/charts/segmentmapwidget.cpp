#include "charts/segmentmapwidget.h"

#include "model/textformat.h"

#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>

#include <algorithm>

namespace kinetoscope {

namespace {

QString bytesText(std::int64_t b) {
    return QString::fromStdString(formatBytes(double(b)));
}

QString addrText(std::uint64_t a) {
    return QStringLiteral("0x") + QString::number(a, 16);
}

} // namespace

SegmentMapWidget::SegmentMapWidget(QWidget* parent) : QWidget(parent) {
    setMouseTracking(true);
}

void SegmentMapWidget::setState(AllocatorState state, std::function<QColor(std::uint32_t)> colorOf) {
    m_state = std::move(state);
    m_colorOf = std::move(colorOf);
    m_largest = 1;
    for (const StateSegment& s : m_state.segments)
        m_largest = std::max(m_largest, s.size);
    updateGeometry();
    setMinimumHeight(int(m_state.segments.size()) * rowHeight + 4);
    update();
}

QSize SegmentMapWidget::sizeHint() const {
    return {800, int(m_state.segments.size()) * rowHeight + 4};
}

void SegmentMapWidget::paintEvent(QPaintEvent* e) {
    QPainter painter(this);
    painter.fillRect(rect(), Qt::white);
    const double barWidth = std::max(10, width() - labelWidth - 8);
    const int firstRow = std::max(0, e->rect().top() / rowHeight);
    const int lastRow = std::min(int(m_state.segments.size()) - 1, e->rect().bottom() / rowHeight);
    const QBrush pending(QColor(0xf5, 0x9e, 0x0b), Qt::BDiagPattern);
    for (int row = firstRow; row <= lastRow; ++row) {
        const StateSegment& s = m_state.segments[std::size_t(row)];
        const double y = row * rowHeight + 2;
        const double w = std::max(2.0, barWidth * double(s.size) / double(m_largest));
        painter.setPen(QColor(0x37, 0x41, 0x51));
        painter.drawText(QRectF(4, y, labelWidth - 8, rowHeight - 2), Qt::AlignLeft | Qt::AlignVCenter,
                         bytesText(s.size) + (s.expandable ? tr(" mapped") : QString()) +
                             tr(" · s%1").arg(s.stream) + poolText(s, true));
        const QRectF bar(labelWidth, y, w, rowHeight - 4);
        painter.fillRect(bar, QColor(0xe5, 0xe7, 0xeb));
        for (const StateBlock& b : s.blocks) {
            const double x0 = bar.left() + w * double(b.address - s.address) / double(s.size);
            const double bw = std::max(1.0, w * double(b.size) / double(s.size));
            const QRectF block(x0, bar.top(), std::min(bw, bar.right() - x0), bar.height());
            painter.fillRect(block, m_colorOf ? m_colorOf(b.stack) : QColor(0x4e, 0x79, 0xa7));
            if (b.pendingFree) painter.fillRect(block, pending);
        }
        painter.setPen(QColor(0x9c, 0xa3, 0xaf));
        painter.drawRect(bar);
    }
}

// A private memory pool (a CUDA graph's capture, a MemPool): memory the default pool cannot reuse.
QString SegmentMapWidget::poolText(const StateSegment& s, bool brief) {
    if (s.poolId.first == 0 && s.poolId.second == 0) return {};
    return brief ? tr(" · pool (%1, %2)").arg(s.poolId.first).arg(s.poolId.second)
                 : tr(", in private pool (%1, %2) (a CUDA graph's or a MemPool's)")
                       .arg(s.poolId.first)
                       .arg(s.poolId.second);
}

std::optional<QString> SegmentMapWidget::describeAt(QPointF pos) const {
    const int row = int(pos.y()) / rowHeight;
    if (row < 0 || row >= int(m_state.segments.size()) || pos.x() < labelWidth) return std::nullopt;
    const StateSegment& s = m_state.segments[std::size_t(row)];
    const double barWidth = std::max(10, width() - labelWidth - 8);
    const double w = std::max(2.0, barWidth * double(s.size) / double(m_largest));
    const double f = (pos.x() - labelWidth) / w;
    if (f < 0 || f > 1) return std::nullopt;
    const auto addr = s.address + std::uint64_t(f * double(s.size));
    const QString segment = tr("Segment %1, %2 on stream %3%4: %5 active, largest free block %6")
                                .arg(addrText(s.address), bytesText(s.size))
                                .arg(s.stream)
                                .arg(poolText(s, false), bytesText(s.activeBytes), bytesText(s.largestFree));
    for (const StateBlock& b : s.blocks)
        if (addr >= b.address && addr < b.address + std::uint64_t(b.size))
            return tr("%1 block at %2%3\n%4")
                .arg(bytesText(b.size), addrText(b.address),
                     b.pendingFree ? tr(", freed, waiting for its stream") : QString(), segment);
    return tr("free space\n%1").arg(segment);
}

void SegmentMapWidget::mouseMoveEvent(QMouseEvent* e) {
    if (const auto text = describeAt(e->position()))
        QToolTip::showText(e->globalPosition().toPoint(), *text, this);
    else
        QToolTip::hideText();
}

} // namespace kinetoscope
