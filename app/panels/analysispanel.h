#pragma once

#include "analysis/report/analysisresult.h"

#include <QWidget>

#include <memory>

namespace kinetoscope {

class BarChart;

// Signals every analysis panel may send to the trace view.
class AnalysisPanel : public QWidget {
    Q_OBJECT
  public:
    using QWidget::QWidget;
    virtual void setResult(std::shared_ptr<const AnalysisResult> result) = 0;

  signals:
    void jumpRequested(kinetoscope::EventRef ref);
    void rangeRequested(qint64 from, qint64 to);       // zoom the timeline there
    void scopeRequested(qint64 from, qint64 to);       // scope every panel to it
    void highlightRequested(const QString& exactName); // mark every slice with this name on the timeline
    void groupingChanged();
};

} // namespace kinetoscope
