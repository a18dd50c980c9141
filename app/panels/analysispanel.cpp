#include "panels/analysispanel.h"

#include <QLabel>
#include <QResizeEvent>
#include <QTimer>

namespace kinetoscope {

void AnalysisPanel::setComputing(bool computing) {
    if (!computing) {
        if (m_computing) m_computing->hide();
        if (m_computingTimer) m_computingTimer->stop();
        return;
    }
    if (!m_computing) {
        m_computing = new QLabel(this);
        m_computing->setAlignment(Qt::AlignCenter);
        m_computing->setStyleSheet(QStringLiteral("QLabel{background:rgba(255,255,255,215);color:#4b5563}"));
        m_computingTimer = new QTimer(this);
        m_computingTimer->setInterval(1000);
        connect(m_computingTimer, &QTimer::timeout, this, [this] {
            m_computing->setText(tr("Computing… %1 s").arg((m_computingSince.elapsed() + 500) / 1000));
        });
    }
    m_computingSince.start();
    m_computing->setText(tr("Computing…"));
    m_computing->setGeometry(rect());
    m_computing->raise();
    m_computing->show();
    m_computingTimer->start();
}

bool AnalysisPanel::isComputing() const {
    return m_computing && !m_computing->isHidden();
}

void AnalysisPanel::resizeEvent(QResizeEvent* event) {
    QWidget::resizeEvent(event);
    if (m_computing) m_computing->setGeometry(rect());
}

} // namespace kinetoscope
