#pragma once

#include "panels/analysispanel.h"

class QLabel;
class QTreeWidget;

namespace kinetoscope {

class ModuleFlame;

class ModulePanel : public AnalysisPanel {
    Q_OBJECT
  public:
    explicit ModulePanel(const TraceStore& store, QWidget* parent = nullptr);
    void setResult(std::shared_ptr<const AnalysisResult> result) override;
    QTreeWidget* tree() const { return m_tree; }
    ModuleFlame* flame() const { return m_flame; }

  private:
    const TraceStore& m_store;
    std::shared_ptr<const AnalysisResult> m_result;
    QLabel* m_empty;
    QTreeWidget* m_tree;
    ModuleFlame* m_flame;
};

} // namespace kinetoscope
