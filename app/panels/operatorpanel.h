#pragma once

#include "panels/analysispanel.h"

class QComboBox;
class QLabel;
class QLineEdit;
class QSortFilterProxyModel;
class QTableView;
class QTextBrowser;

namespace kinetoscope {

class OperatorTableModel;

// The call stack of one operator call, innermost first: its "Call stack" arg, else the enclosing Python
// frames.
QString callStackText(const TraceStore& store, EventRef ref);

class OperatorPanel : public AnalysisPanel {
    Q_OBJECT
  public:
    explicit OperatorPanel(const TraceStore& store, QWidget* parent = nullptr);
    void setResult(std::shared_ptr<const AnalysisResult> result) override;
    OperatorGrouping grouping() const;
    void setGrouping(OperatorGrouping g);
    OperatorTableModel* model() const { return m_model; }
    QSortFilterProxyModel* proxy() const { return m_proxy; }
    QTableView* view() const { return m_view; }
    QLineEdit* filter() const { return m_filter; }
    BarChart* chart() const { return m_chart; }
    // Beside the table: the GPU work the selected operator's calls launched, per kernel, and its call stack.
    QTextBrowser* callStack() const { return m_stack; }
    QLabel* total() const { return m_total; }

  private:
    void updateChart();
    void showRow(const OperatorRow& row);
    const TraceStore& m_store;
    QComboBox* m_grouping;
    QLineEdit* m_filter;
    OperatorTableModel* m_model;
    QSortFilterProxyModel* m_proxy;
    QTableView* m_view;
    BarChart* m_chart;
    QTextBrowser* m_stack;
    QLabel* m_total = nullptr;
};

} // namespace kinetoscope
