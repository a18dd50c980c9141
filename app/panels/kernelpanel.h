#pragma once

#include "panels/analysispanel.h"

class QComboBox;
class QLabel;
class QLineEdit;
class QSortFilterProxyModel;
class QTableView;
class QTextBrowser;

namespace kinetoscope {

class KernelTableModel;

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
    // The kernel sequences under the table; a kernel's link selects its row (selectKernel).
    QTextBrowser* sequences() const { return m_sequences; }
    QLineEdit* filter() const { return m_filter; }
    QLabel* total() const { return m_total; }
    bool selectKernel(const QString& name);

  private:
    void updateCategories();
    const TraceStore& m_store;
    QComboBox* m_grouping;
    QLineEdit* m_filter;
    KernelTableModel* m_model;
    QSortFilterProxyModel* m_proxy;
    QTableView* m_view;
    BarChart* m_categories;
    QLabel* m_origin;
    QTextBrowser* m_sequences;
    QLabel* m_total = nullptr;
    std::shared_ptr<const AnalysisResult> m_result;
};

} // namespace kinetoscope
