#pragma once

#include "analysis/compiled/kernelsources.h"
#include "panels/analysispanel.h"

#include <memory>

class QComboBox;
class QDoubleSpinBox;
class QSpinBox;
class QLabel;
class QPushButton;
class QTreeWidget;

namespace kinetoscope {

// A compiled model's kernels as TorchInductor's profiling guide reports them (analysis/compiled): for the
// whole trace or scope, or one compiled graph over its calls, the GPU work by Inductor's categories, each
// kernel's calls, self device time and share of the wall time. Selecting a kernel marks its calls on the
// timeline; double-click jumps to its longest call. A graph shows all its calls summed or any one of them,
// and the call is one click away on the timeline.
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
    QComboBox* callChoice() const { return m_call; }
    QPushButton* callButton() const { return m_showCall; }
    // A compiled_module_profile.json of N runs (`python output_code.py -p`): the runs and the wall time per
    // run the script printed turn the whole trace's breakdown into the script's table.
    QSpinBox* runsField() const { return m_runs; }
    // Where the trace's Triton kernels' code was found: the selected kernel's "Show source" opens it.
    void setKernelSources(std::shared_ptr<const KernelSourceSearch> sources);
    QPushButton* sourceButton() const { return m_showSource; }
    QDoubleSpinBox* wallField() const { return m_wallMs; }

  signals:
    void kernelSourceRequested(QString kernel, QString hash);

  private:
    void chooseBreakdown(); // after either choice changed
    void updateSourceButton();
    void showBreakdown(const InductorBreakdown& b);
    std::shared_ptr<const AnalysisResult> m_result;
    QComboBox* m_choice;
    QLabel* m_summary;
    QTreeWidget* m_tree;
    QComboBox* m_call;
    QPushButton* m_showCall;
    QSpinBox* m_runs;
    QPushButton* m_showSource;
    std::shared_ptr<const KernelSourceSearch> m_sources;
    QDoubleSpinBox* m_wallMs;
};

} // namespace kinetoscope
