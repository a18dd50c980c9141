#pragma once

#include "analysis/report/analysisresult.h"

#include <QElapsedTimer>
#include <QWidget>

#include <memory>

class QLabel;
class QTimer;

namespace kinetoscope {

class BarChart;

// Signals every analysis panel may send to the trace view.
class AnalysisPanel : public QWidget {
    Q_OBJECT
  public:
    using QWidget::QWidget;
    virtual void setResult(std::shared_ptr<const AnalysisResult> result) = 0;
    // While its analysis runs: a note over the panel saying so, with the time it has taken (a 10 GB trace's
    // analyses take tens of seconds); cleared when its result is in.
    void setComputing(bool computing);
    bool isComputing() const;

  signals:
    void jumpRequested(kinetoscope::EventRef ref);
    void rangeRequested(qint64 from, qint64 to);       // zoom the timeline there
    void scopeRequested(qint64 from, qint64 to);       // scope every panel to it
    void highlightRequested(const QString& exactName); // mark every slice with this name on the timeline
    void groupingChanged();

  protected:
    void resizeEvent(QResizeEvent* event) override;

  private:
    QLabel* m_computing = nullptr;
    QTimer* m_computingTimer = nullptr;
    QElapsedTimer m_computingSince;
};

} // namespace kinetoscope
