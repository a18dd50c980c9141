#pragma once

#include "panels/analysispanel.h"

class QLabel;
class QSpinBox;
class QTableWidget;
class QTextBrowser;

namespace kinetoscope {

class StackedColumnChart;

// Run facts, steps and throughput, the step-time breakdown (chart and table), GPU metrics and
// recommendations.
class OverviewPanel : public AnalysisPanel {
    Q_OBJECT
  public:
    explicit OverviewPanel(const TraceStore& store, QWidget* parent = nullptr);
    void setResult(std::shared_ptr<const AnalysisResult> result) override;
    QTableWidget* breakdownTable() const { return m_breakdown; }
    QTableWidget* gpuTable() const { return m_gpus; }
    QTextBrowser* recommendations() const { return m_recommendations; }
    // Idle and launch figures per GPU and stream, and the launch outliers, each linked to the timeline.
    QTextBrowser* gpuWaits() const { return m_gpuWaits; }
    QSpinBox* batchSize() const { return m_batch; }
    QString throughputText() const;
    // The result the panel shows (a newer one may be on its way to it).
    const std::shared_ptr<const AnalysisResult>& shownResult() const { return m_result; }

  private:
    void updateThroughput();
    const TraceStore& m_store;
    std::shared_ptr<const AnalysisResult> m_result;
    QLabel* m_facts;
    QLabel* m_steps;
    QSpinBox* m_batch;
    QLabel* m_throughput;
    StackedColumnChart* m_chart;
    QTableWidget* m_breakdown;
    QTableWidget* m_gpus;
    QTextBrowser* m_recommendations;
    QTextBrowser* m_gpuWaits;
};

} // namespace kinetoscope
