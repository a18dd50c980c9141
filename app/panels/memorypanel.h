#pragma once

#include "panels/analysispanel.h"

class QLabel;
class QTableWidget;

namespace kinetoscope {

class MemoryCurve;

class MemoryPanel : public AnalysisPanel {
    Q_OBJECT
  public:
    explicit MemoryPanel(const TraceStore& store, QWidget* parent = nullptr);
    void setResult(std::shared_ptr<const AnalysisResult> result) override;
    QTableWidget* blocks() const { return m_blocks; }
    QTableWidget* operators() const { return m_operators; }
    QLabel* summary() const { return m_summary; }
    MemoryCurve* curve() const { return m_curve; }

  private:
    const TraceStore& m_store;
    MemoryCurve* m_curve;
    QLabel* m_summary;
    QTableWidget* m_blocks;
    QTableWidget* m_operators;
};

} // namespace kinetoscope
