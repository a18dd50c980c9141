#pragma once

#include "analysis/analysisresult.h"

#include <QWidget>

#include <memory>

class QComboBox;
class QLabel;
class QLineEdit;
class QSortFilterProxyModel;
class QSpinBox;
class QTableView;
class QTableWidget;
class QTextBrowser;
class QTreeWidget;

namespace kinetoscope {

// The call stack of one operator call, innermost first: its "Call stack" arg, else the enclosing Python
// frames.
QString callStackText(const TraceStore& store, EventRef ref);

class BarChart;
class KernelTableModel;
class OperatorTableModel;
class StackedColumnChart;

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
};

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
    QTextBrowser* callStack() const { return m_stack; }

  private:
    void updateChart();
    const TraceStore& m_store;
    QComboBox* m_grouping;
    QLineEdit* m_filter;
    OperatorTableModel* m_model;
    QSortFilterProxyModel* m_proxy;
    QTableView* m_view;
    BarChart* m_chart;
    QTextBrowser* m_stack;
};

class KernelPanel : public AnalysisPanel {
    Q_OBJECT
  public:
    explicit KernelPanel(const TraceStore& store, QWidget* parent = nullptr);
    void setResult(std::shared_ptr<const AnalysisResult> result) override;
    KernelGrouping grouping() const;
    void setGrouping(KernelGrouping g);
    KernelTableModel* model() const { return m_model; }
    QSortFilterProxyModel* proxy() const { return m_proxy; }
    QTableView* view() const { return m_view; }
    BarChart* categories() const { return m_categories; }
    QLabel* origin() const { return m_origin; }

  private:
    const TraceStore& m_store;
    QComboBox* m_grouping;
    QLineEdit* m_filter;
    KernelTableModel* m_model;
    QSortFilterProxyModel* m_proxy;
    QTableView* m_view;
    BarChart* m_categories;
    QLabel* m_origin;
};

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
