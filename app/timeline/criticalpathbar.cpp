#include "timeline/criticalpathbar.h"

#include "timeline/criticalpathoverlay.h"

#include "analysis/overview/overview.h"
#include "model/timeconv.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QPainter>
#include <QToolButton>

namespace kinetoscope {

namespace {
constexpr int barWidth = 220;
} // namespace

QColor CriticalPathBar::colorOf(BoundBy bound) {
    switch (bound) {
    case BoundBy::Cpu:
        return QColor(0x64, 0x74, 0x8b);
    case BoundBy::GpuCompute:
        return QColor(0x16, 0xa3, 0x4a);
    case BoundBy::GpuCommunication:
        return QColor(0x93, 0x33, 0xea);
    case BoundBy::LaunchDelay:
        return QColor(0xf5, 0x9e, 0x0b);
    case BoundBy::KernelKernelDelay:
        return QColor(0xea, 0x58, 0x0c);
    case BoundBy::DataLoading: // the breakdown's DataLoader colour family
        return QColor(0x0e, 0x74, 0x90);
    case BoundBy::None:
        break;
    }
    return QColor(0xcb, 0xd5, 0xe1);
}

CriticalPathBar::CriticalPathBar(QWidget* parent) : QWidget(parent) {
    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(8, 3, 4, 3);
    layout->addSpacing(barWidth + 8);
    m_label = new QLabel(this);
    m_label->setTextFormat(Qt::RichText);
    m_label->setTextInteractionFlags(Qt::TextSelectableByMouse);
    // Wraps rather than pushing the buttons out of a narrow window.
    m_label->setWordWrap(true);
    m_label->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    layout->addWidget(m_label, 1);
    m_zoom = new QToolButton(this);
    m_zoom->setText(tr("Zoom to Step"));
    m_zoom->setAutoRaise(true);
    layout->addWidget(m_zoom);
    auto* close = new QToolButton(this);
    close->setText(QStringLiteral("✕"));
    close->setToolTip(tr("Clear the critical path"));
    close->setAutoRaise(true);
    layout->addWidget(close);
    setStyleSheet(
        QStringLiteral("kinetoscope--CriticalPathBar{background:#fff1f2;border-bottom:1px solid #fda4af}"));
    setAttribute(Qt::WA_StyledBackground, true);
    connect(close, &QToolButton::clicked, this, &CriticalPathBar::closeRequested);
    connect(m_zoom, &QToolButton::clicked, this, [this] {
        if (m_path) emit zoomRequested(m_path->stepStart, m_path->stepEnd);
    });
}

void CriticalPathBar::setComputing(const QString& what) {
    m_path.reset();
    m_text = tr("Critical path of %1: computing…").arg(what);
    m_label->setText(m_text.toHtmlEscaped());
    m_zoom->setEnabled(false);
    update();
}

void CriticalPathBar::setPath(std::shared_ptr<const StepCriticalPath> path) {
    m_path = std::move(path);
    m_zoom->setEnabled(bool(m_path));
    if (!m_path) return;
    const CriticalPath& p = m_path->path;
    const TimeNs step = m_path->stepEnd - m_path->stepStart;
    QString html = tr("<b>Critical path of %1</b>: %2")
                       .arg(QString::fromStdString(m_path->step).toHtmlEscaped(),
                            QString::fromStdString(formatDuration(p.length)));
    m_text = tr("Critical path of %1: %2")
                 .arg(QString::fromStdString(m_path->step), QString::fromStdString(formatDuration(p.length)));
    if (step > 0) {
        const QString share = tr(" (%1% of the step's %2)")
                                  .arg(100.0 * double(p.length) / double(step), 0, 'f', 1)
                                  .arg(QString::fromStdString(formatDuration(step)));
        html += share;
        m_text += share;
    }
    QStringList parts, plain;
    for (std::size_t b = 0; b + 1 < boundByCount; ++b) {
        if (p.bound[b] == 0 || p.length == 0) continue;
        const QString part = QStringLiteral("%1 %2%")
                                 .arg(QString::fromLatin1(boundByTitle(BoundBy(b)).data()))
                                 .arg(100.0 * double(p.bound[b]) / double(p.length), 0, 'f', 1);
        plain << part;
        parts << QStringLiteral("<span style='color:%1'>■</span> %2").arg(colorOf(BoundBy(b)).name(), part);
    }
    if (!parts.isEmpty()) {
        html += QStringLiteral(" — ") + parts.join(QStringLiteral(" · "));
        m_text += QStringLiteral(" — ") + plain.join(QStringLiteral(" · "));
    }
    const QString counts = p.syncs == 1 ? tr("; %1 events, 1 sync").arg(m_path->events.size())
                                        : tr("; %1 events, %2 syncs").arg(m_path->events.size()).arg(p.syncs);
    const QString tail =
        counts + (p.inferredSyncs ? tr(" (waits inferred: no cuda_sync events)") : QString());
    html += tail.toHtmlEscaped();
    m_text += tail;
    // The advice the path gives, as the CLI's report lists it (criticalPathRecommendation).
    if (const auto advice = criticalPathRecommendation(*m_path)) {
        html += QStringLiteral("<br/><b>%1</b>").arg(QString::fromStdString(advice->title).toHtmlEscaped());
        m_text += QStringLiteral("\n") + QString::fromStdString(advice->title);
        m_label->setWordWrap(true);
    }
    if (p.edges.empty()) {
        m_text = tr("Critical path of %1: the step has no CPU ops").arg(QString::fromStdString(m_path->step));
        html = m_text.toHtmlEscaped();
    }
    m_label->setText(html);
    update();
}

QRectF CriticalPathBar::barRect() const {
    return QRectF(8, height() / 2.0 - 6, barWidth, 12);
}

void CriticalPathBar::paintEvent(QPaintEvent* e) {
    QWidget::paintEvent(e);
    QPainter p(this);
    const QRectF bar = barRect();
    p.fillRect(bar, QColor(0xe2, 0xe8, 0xf0));
    if (m_path && m_path->path.length > 0) {
        double x = bar.left();
        for (std::size_t b = 0; b + 1 < boundByCount; ++b) {
            const double w = bar.width() * double(m_path->path.bound[b]) / double(m_path->path.length);
            p.fillRect(QRectF(x, bar.top(), w, bar.height()), colorOf(BoundBy(b)));
            x += w;
        }
    }
    p.setPen(QPen(criticalPathColor(), 1.5));
    p.drawRect(bar);
}

} // namespace kinetoscope
