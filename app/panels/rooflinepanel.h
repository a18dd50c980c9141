#pragma once

#include "panels/analysispanel.h"

class QLabel;
class QLineEdit;
class QSortFilterProxyModel;
class QTableView;
class QTableWidget;

namespace kinetoscope {

class RooflineChart;
class RooflineTableModel;

// How close to the hardware each op runs (analysis/roofline): the table of ops by shapes and dtypes with
// their FLOPs, achieved TFLOP/s and TB/s, % of peak and bound; the roofline chart beside it; and the GPU time
// the model does not cover. A row selected in either marks the op's calls on the timeline; double-click
// jumps to its longest call.
class RooflinePanel : public AnalysisPanel {
    Q_OBJECT
  public:
    explicit RooflinePanel(QWidget* parent = nullptr);
    void setResult(std::shared_ptr<const AnalysisResult> result) override;
    RooflineTableModel* model() const { return m_model; }
    QSortFilterProxyModel* proxy() const { return m_proxy; }
    QTableView* view() const { return m_view; }
    RooflineChart* chart() const { return m_chart; }
    QLabel* header() const { return m_header; }
    QTableWidget* notModelled() const { return m_notModelled; }

  private:
    QLabel* m_header;
    QLineEdit* m_filter;
    RooflineTableModel* m_model;
    QSortFilterProxyModel* m_proxy;
    QTableView* m_view;
    RooflineChart* m_chart;
    QTableWidget* m_notModelled;
};

} // namespace kinetoscope
