#pragma once

// The strip above the timeline while a critical path is shown: the step, the path's length and share of it,
// and what bounds it, as text and as one bar split by category.

#include "analysis/gpu/criticalpath.h"

#include <QWidget>

#include <memory>

class QLabel;
class QToolButton;

namespace kinetoscope {

class CriticalPathBar : public QWidget {
    Q_OBJECT
  public:
    explicit CriticalPathBar(QWidget* parent = nullptr);
    void setComputing(const QString& what);
    void setPath(std::shared_ptr<const StepCriticalPath> path);
    const QString& text() const { return m_text; }
    // The category colours of the bar, in BoundBy order.
    static QColor colorOf(BoundBy bound);

  signals:
    void closeRequested();
    void zoomRequested(kinetoscope::TimeNs from, kinetoscope::TimeNs to);

  protected:
    void paintEvent(QPaintEvent*) override;

  private:
    QRectF barRect() const;

    std::shared_ptr<const StepCriticalPath> m_path;
    QString m_text;
    QLabel* m_label = nullptr;
    QToolButton* m_zoom = nullptr;
};

} // namespace kinetoscope
