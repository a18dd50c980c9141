#pragma once

#include "panels/analysispanel.h"

class QComboBox;
class QLabel;
class QPushButton;
class QTreeWidget;

namespace kinetoscope {

// A compiled model's kernels as TorchInductor's profiling guide reports them (analysis/compiled): for the
// whole trace or scope, or one compiled graph over its calls, the GPU work by Inductor's categories, each
// kernel's calls, self device time and share of the wall time. Selecting a kernel marks its calls on the
// timeline; double-click jumps to its longest call, and a graph's first call is one click away.
class CompiledPanel : public AnalysisPanel {
    Q_OBJECT
  public:
    explicit CompiledPanel(QWidget* parent = nullptr);
    void setResult(std::shared_ptr<const AnalysisResult> result) override;
    // Whether the result has anything to show (a Triton kernel): the trace view hides the tab otherwise.
    bool hasContent() const;
    QComboBox* breakdownChoice() const { return m_choice; }
    QLabel* summary() const { return m_summary; }
    QTreeWidget* tree() const { return m_tree; }
    QPushButton* firstCallButton() const { return m_firstCall; }

  private:
    void showBreakdown(int choice);
    std::shared_ptr<const AnalysisResult> m_result;
    QComboBox* m_choice;
    QLabel* m_summary;
    QTreeWidget* m_tree;
    QPushButton* m_firstCall;
};

} // namespace kinetoscope
