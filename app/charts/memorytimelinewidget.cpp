#include "charts/memorytimelinewidget.h"

#include "model/textformat.h"
#include "shell/backgroundjobs.h"
#include "timeline/viewkeys.h"

#include <QCoreApplication>
#include <QKeyEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QPointer>
#include <QToolTip>
#include <QWheelEvent>

#include <algorithm>
#include <cmath>

namespace kinetoscope {

namespace {

constexpr double zoomStep = 1.25;
constexpr double panStep = 0.2;
// Room above the highest point of the visible curve.
constexpr double headroom = 1.05;

// Tableau-like colours for bands (a band's colour follows its stack, so one call site keeps one colour).
const QRgb bandColors[] = {0xff4e79a7, 0xfff28e2b, 0xffe15759, 0xff76b7b2, 0xff59a14f,
                           0xffedc948, 0xffb07aa1, 0xffff9da7, 0xff9c755f, 0xff86bcb6};
constexpr QRgb mixedColor = 0xff9ca3af;
constexpr QRgb emptyColor = 0xffffffff;
constexpr QRgb selectedColor = 0xff111827;

QRgb blendedWithMixed(QRgb c) {
    return qRgb((qRed(c) * 3 + qRed(mixedColor)) / 4, (qGreen(c) * 3 + qGreen(mixedColor)) / 4,
                (qBlue(c) * 3 + qBlue(mixedColor)) / 4);
}

QRgb faded(QRgb c) {
    return qRgb((qRed(c) + 3 * 235) / 4, (qGreen(c) + 3 * 237) / 4, (qBlue(c) + 3 * 240) / 4);
}

} // namespace

QRgb MemoryTimelineWidget::bandColor(std::uint8_t index) {
    return bandColors[index % std::size(bandColors)];
}

MemoryTimelineWidget::MemoryTimelineWidget(QWidget* parent) : QWidget(parent) {
    setFocusPolicy(Qt::StrongFocus);
    setMouseTracking(true);
    setMinimumHeight(160);
}

MemoryTimelineWidget::~MemoryTimelineWidget() {
    if (m_cancel) m_cancel->store(true);
}

void MemoryTimelineWidget::setTimeline(std::shared_ptr<const MemoryTimeline> timeline,
                                       std::vector<std::uint8_t> colors) {
    m_timeline = std::move(timeline);
    m_colors = std::move(colors);
    // A raster being made is of the last timeline: dropped, even where its request would equal the next.
    if (m_cancel) m_cancel->store(true);
    m_pending = false;
    m_dimmed.clear();
    m_selected = -1;
    m_marker.reset();
    m_raster = {};
    m_rasterRequest = {};
    m_image = {};
    fitAll();
}

void MemoryTimelineWidget::setDimmed(std::vector<bool> dimmed) {
    m_dimmed = std::move(dimmed);
    recolor();
}

void MemoryTimelineWidget::setSelectedAllocation(std::int32_t allocation) {
    if (allocation == m_selected) return;
    m_selected = allocation;
    recolor();
}

void MemoryTimelineWidget::setMarker(std::optional<std::int64_t> moment) {
    m_marker = moment;
    update();
}

QRectF MemoryTimelineWidget::plotRect() const {
    return QRectF(leftAxisWidth, 6, std::max(1, width() - leftAxisWidth - 8),
                  std::max(1, height() - bottomAxisHeight - 6));
}

double MemoryTimelineWidget::xOfMoment(double moment) const {
    const QRectF p = plotRect();
    return p.left() + (moment - m_from) / std::max(1e-9, m_to - m_from) * p.width();
}

double MemoryTimelineWidget::momentAtX(double x) const {
    const QRectF p = plotRect();
    return m_from + (x - p.left()) / p.width() * (m_to - m_from);
}

void MemoryTimelineWidget::setView(double from, double to) {
    if (!m_timeline) return;
    const double lo = -1, hi = double(m_timeline->eventCount());
    // At least 4 moments on screen: deeper, a band would only grow wider.
    const double minSpan = std::min(4.0, hi - lo);
    double span = std::clamp(to - from, minSpan, hi - lo);
    from = std::clamp(from, lo, hi - span);
    m_from = from;
    m_to = from + span;
    requestRaster();
    update();
    emit viewChanged(m_from, m_to);
}

void MemoryTimelineWidget::fitAll() {
    if (!m_timeline) return;
    setView(-1, double(m_timeline->eventCount()));
}

void MemoryTimelineWidget::zoomBy(double factor, std::optional<double> atX) {
    const double anchor = atX ? momentAtX(*atX) : (m_from + m_to) / 2;
    setView(anchor - (anchor - m_from) / factor, anchor + (m_to - anchor) / factor);
}

void MemoryTimelineWidget::panBy(double fractionOfView) {
    const double d = (m_to - m_from) * fractionOfView;
    setView(m_from + d, m_to + d);
}

MemoryTimelineWidget::Request MemoryTimelineWidget::currentRequest() const {
    Request r;
    if (!m_timeline) return r;
    const std::int64_t last = std::max<std::int64_t>(-1, m_timeline->eventCount() - 1);
    r.first = std::clamp<std::int64_t>(std::int64_t(std::floor(m_from)), -1, last);
    r.last = std::clamp<std::int64_t>(std::int64_t(std::ceil(m_to)) - 1, r.first, last);
    // (Sizes are at most 1 TiB each, so the curve stays far from int64's end; the headroom cannot overflow.)
    r.bytesTop =
        std::max<std::int64_t>(1, std::int64_t(double(m_timeline->maxActive(r.first, r.last)) * headroom));
    const QRectF p = plotRect();
    // The raster covers the whole moments the view touches, so it may reach a little past the plot's edges.
    const double pxPerMoment = p.width() / std::max(1e-9, m_to - m_from);
    r.width =
        std::clamp(int(std::ceil(double(r.last - r.first + 1) * pxPerMoment)), 1, 4 * int(p.width()) + 4);
    r.height = int(p.height());
    return r;
}

void MemoryTimelineWidget::requestRaster() {
    if (!m_timeline) return;
    const Request r = currentRequest();
    if ((m_pending && r == m_pendingRequest) ||
        (!m_pending && r == m_rasterRequest && !m_raster.cells.empty()))
        return;
    if (m_cancel) m_cancel->store(true);
    m_cancel = std::make_shared<std::atomic<bool>>(false);
    m_pending = true;
    m_pendingRequest = r;
    QPointer<MemoryTimelineWidget> self(this);
    startBackground([self, timeline = m_timeline, r, cancel = m_cancel] {
        auto raster = std::make_shared<MemoryTimeline::Raster>(
            timeline->raster(r.first, r.last, r.bytesTop, r.width, r.height, cancel.get()));
        if (cancel->load()) return;
        QMetaObject::invokeMethod(
            QCoreApplication::instance(),
            [self, raster, r, cancel] {
                if (!self || cancel->load()) return;
                self->m_raster = std::move(*raster);
                self->m_rasterRequest = r;
                self->m_pending = false;
                self->recolor();
                emit self->rasterReady();
                // The view may have moved on while this one was made.
                self->requestRaster();
            },
            Qt::QueuedConnection);
    });
}

void MemoryTimelineWidget::recolor() {
    const MemoryTimeline::Raster& r = m_raster;
    if (r.cells.empty()) {
        update();
        return;
    }
    m_image = QImage(r.width, r.height, QImage::Format_RGB32);
    for (int y = 0; y < r.height; ++y) {
        auto* line = reinterpret_cast<QRgb*>(m_image.scanLine(r.height - 1 - y));
        for (int x = 0; x < r.width; ++x) {
            const std::int32_t cell = r.at(x, y);
            QRgb c = emptyColor;
            if (cell != MemoryTimeline::emptyCell) {
                // A folded pixel takes its sample's colour, a little lighter than a whole band's.
                const auto a = std::size_t(MemoryTimeline::sampleOf(cell));
                if (std::int32_t(a) == m_selected)
                    c = selectedColor;
                else {
                    c = bandColor(a < m_colors.size() ? m_colors[a] : 0);
                    if (a < m_dimmed.size() && m_dimmed[a]) c = faded(c);
                    if (MemoryTimeline::isMixed(cell)) c = blendedWithMixed(c);
                }
            }
            line[x] = c;
        }
    }
    update();
}

std::optional<MemoryTimelineWidget::Hit> MemoryTimelineWidget::hitAt(QPointF pos) const {
    const QRectF p = plotRect();
    // A mouse position names a pixel; the raster is sampled at that pixel's centre.
    pos += QPointF(0.5, 0.5);
    if (!p.contains(pos) || m_raster.cells.empty()) return std::nullopt;
    const Request& r = m_rasterRequest;
    const double x0 = xOfMoment(double(r.first)), x1 = xOfMoment(double(r.last + 1));
    const int column = int(std::floor((pos.x() - x0) / std::max(1e-9, x1 - x0) * r.width));
    if (column < 0 || column >= r.width) return std::nullopt;
    const double bytes = (p.bottom() - pos.y()) / p.height() * double(r.bytesTop);
    const int row = int(std::floor(bytes / (double(r.bytesTop) / r.height)));
    Hit hit;
    hit.moment = m_raster.column[std::size_t(column)];
    hit.bytes = std::int64_t(bytes);
    hit.cell = row >= 0 && row < r.height ? m_raster.at(column, row) : MemoryTimeline::emptyCell;
    return hit;
}

bool MemoryTimelineWidget::waitForRaster(int timeoutMs) {
    QElapsedTimer t;
    t.start();
    while (t.elapsed() < timeoutMs) {
        if (!m_pending && m_rasterRequest == currentRequest() && !m_raster.cells.empty()) return true;
        QCoreApplication::processEvents(QEventLoop::AllEvents, 20);
    }
    return false;
}

QString MemoryTimelineWidget::hoverText(const Hit& hit) const {
    const auto bytesText = [](std::int64_t b) { return QString::fromStdString(formatBytes(double(b))); };
    QString moment = hit.moment < 0 ? tr("before the first event") : tr("after event %1").arg(hit.moment + 1);
    moment += tr(" · %1 active").arg(bytesText(m_timeline->curve()[std::size_t(hit.moment + 1)]));
    if (hit.cell == MemoryTimeline::emptyCell) return moment;
    const AllocationLifetime& a = m_timeline->allocations()[std::size_t(MemoryTimeline::sampleOf(hit.cell))];
    const QString folded =
        MemoryTimeline::isMixed(hit.cell)
            ? tr("Several allocations share this pixel (zoom in with W to tell them apart); "
                 "at its middle:\n")
            : QString();
    const QString from = a.begin < 0 ? tr("before the trace") : tr("event %1").arg(a.begin + 1);
    const QString to = a.end >= m_timeline->eventCount() ? tr("still alive at snapshot time")
                                                         : tr("freed at event %1").arg(a.end + 1);
    const QString where =
        m_label ? m_label(MemoryTimeline::sampleOf(hit.cell)) + QLatin1Char('\n') : QString();
    return folded + tr("%1 · allocated %2, %3\n%4%5").arg(bytesText(a.size), from, to, where, moment);
}

void MemoryTimelineWidget::paintEvent(QPaintEvent*) {
    QElapsedTimer timer;
    timer.start();
    QPainter painter(this);
    painter.fillRect(rect(), palette().window());
    const QRectF p = plotRect();
    painter.fillRect(p, Qt::white);
    if (!m_timeline) return;
    // The last raster, placed at its range in the current view (stretched while the next one is made).
    const Request& r = m_rasterRequest;
    const Request now = currentRequest();
    if (!m_image.isNull()) {
        const double x0 = xOfMoment(double(r.first)), x1 = xOfMoment(double(r.last + 1));
        const double h = p.height() * double(r.bytesTop) / double(std::max<std::int64_t>(1, now.bytesTop));
        painter.save();
        painter.setClipRect(p);
        painter.drawImage(QRectF(x0, p.bottom() - h, x1 - x0, h), m_image);
        painter.restore();
    }
    // Axes: bytes on the left, events below.
    painter.setPen(QColor(0x6b, 0x72, 0x80));
    const QFontMetrics fm(font());
    for (int i = 0; i <= 4; ++i) {
        const double y = p.bottom() - p.height() * i / 4;
        painter.drawLine(QPointF(p.left() - 4, y), QPointF(p.left(), y));
        const QString label = QString::fromStdString(formatBytes(double(now.bytesTop) * i / 4));
        painter.drawText(QRectF(0, y - fm.height() / 2.0, leftAxisWidth - 8, fm.height()),
                         Qt::AlignRight | Qt::AlignVCenter, label);
    }
    for (int i = 0; i <= 5; ++i) {
        const double x = p.left() + p.width() * i / 5;
        const auto moment = std::int64_t(std::floor(momentAtX(x)));
        painter.drawLine(QPointF(x, p.bottom()), QPointF(x, p.bottom() + 4));
        const QString label = moment < 0 ? tr("start") : tr("event %1").arg(moment + 1);
        const int w = fm.horizontalAdvance(label);
        const double lx = std::clamp(x - w / 2.0, p.left(), p.right() - w);
        painter.drawText(QPointF(lx, p.bottom() + 4 + fm.ascent()), label);
    }
    painter.drawRect(p);
    if (m_marker) {
        const double x = xOfMoment(double(*m_marker) + 0.5);
        if (x >= p.left() && x <= p.right()) {
            painter.setPen(QPen(QColor(0xdc, 0x26, 0x26), 1.5, Qt::DashLine));
            painter.drawLine(QPointF(x, p.top()), QPointF(x, p.bottom()));
        }
    }
    if (m_drag == Drag::Zoom && m_hover) {
        const double a = std::clamp(m_pressPos.x(), p.left(), p.right());
        const double b = std::clamp(m_hover->x(), p.left(), p.right());
        painter.fillRect(QRectF(std::min(a, b), p.top(), std::abs(b - a), p.height()),
                         QColor(59, 130, 246, 60));
    }
    m_frameMs.push_back(double(timer.nsecsElapsed()) / 1e6);
    if (m_frameMs.size() > 4096) m_frameMs.erase(m_frameMs.begin(), m_frameMs.begin() + 2048);
}

void MemoryTimelineWidget::resizeEvent(QResizeEvent*) {
    requestRaster();
}

void MemoryTimelineWidget::wheelEvent(QWheelEvent* e) {
    const QPoint angle = e->angleDelta();
    const double notches = angle.y() / 120.0;
    if (e->modifiers() & Qt::ShiftModifier || angle.x() != 0)
        panBy((angle.x() != 0 ? -angle.x() / 120.0 : -notches) * 0.1);
    else if (notches != 0)
        zoomBy(std::pow(zoomStep, notches), e->position().x());
    e->accept();
}

void MemoryTimelineWidget::keyPressEvent(QKeyEvent* e) {
    const QPointF mouse = mapFromGlobal(QCursor::pos());
    const std::optional<double> at =
        plotRect().contains(mouse) ? std::optional<double>(mouse.x()) : std::nullopt;
    if (const std::optional<ViewKey> key = viewKeyOf(e->key())) {
        switch (*key) {
        case ViewKey::ZoomIn:
            return zoomBy(zoomStep, at);
        case ViewKey::ZoomOut:
            return zoomBy(1 / zoomStep, at);
        case ViewKey::PanLeft:
            return panBy(-panStep);
        case ViewKey::PanRight:
            return panBy(panStep);
        case ViewKey::Fit:
            return fitAll();
        }
    }
    QWidget::keyPressEvent(e);
}

void MemoryTimelineWidget::mousePressEvent(QMouseEvent* e) {
    m_pressPos = e->position();
    m_pressFrom = m_from;
    m_pressTo = m_to;
    if (e->button() == Qt::MiddleButton) {
        m_drag = Drag::Pan;
        return;
    }
    if (e->button() != Qt::LeftButton) return;
    const bool onAxis = e->position().y() > plotRect().bottom();
    m_drag = (e->modifiers() & Qt::ShiftModifier) || onAxis ? Drag::Zoom : Drag::Click;
}

void MemoryTimelineWidget::mouseMoveEvent(QMouseEvent* e) {
    const QPointF pos = e->position();
    m_hover = pos;
    if (m_drag == Drag::Click && (pos - m_pressPos).manhattanLength() > 3) m_drag = Drag::Pan;
    if (m_drag == Drag::Pan) {
        const double d = (m_pressPos.x() - pos.x()) / plotRect().width() * (m_pressTo - m_pressFrom);
        setView(m_pressFrom + d, m_pressTo + d);
        return;
    }
    if (m_drag == Drag::Zoom) {
        update();
        return;
    }
    if (const std::optional<Hit> hit = hitAt(pos))
        QToolTip::showText(e->globalPosition().toPoint(), hoverText(*hit), this);
    else
        QToolTip::hideText();
}

void MemoryTimelineWidget::mouseReleaseEvent(QMouseEvent* e) {
    const Drag drag = m_drag;
    m_drag = Drag::None;
    if (drag == Drag::Zoom) {
        const double a = momentAtX(m_pressPos.x()), b = momentAtX(e->position().x());
        if (std::abs(e->position().x() - m_pressPos.x()) > 3) setView(std::min(a, b), std::max(a, b));
        update();
        return;
    }
    if (drag != Drag::Click) return;
    const std::optional<Hit> hit = hitAt(e->position());
    if (!hit) return;
    setMarker(hit->moment);
    if (hit->cell != MemoryTimeline::emptyCell) {
        // In a folded pixel, the allocation at its middle.
        const std::int32_t a = MemoryTimeline::sampleOf(hit->cell);
        setSelectedAllocation(a);
        emit allocationClicked(a, hit->moment);
    }
    emit momentClicked(hit->moment);
}

void MemoryTimelineWidget::leaveEvent(QEvent*) {
    m_hover.reset();
    QToolTip::hideText();
}

} // namespace kinetoscope
