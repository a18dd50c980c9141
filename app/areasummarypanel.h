#pragma once

#include "query/areasummary.h"

#include <QWidget>

class QLabel;
class QTableWidget;

namespace kinetoscope {

// The slices under an area selection, aggregated by name (count, total, self, longest).
class AreaSummaryPanel : public QWidget {
    Q_OBJECT
  public:
    explicit AreaSummaryPanel(const TraceStore& store, QWidget* parent = nullptr);
    void showSummary(const AreaSummary& summary, std::size_t trackCount);
    void clear();
    QTableWidget* table() const { return m_table; }

  private:
    const TraceStore& m_store;
    QLabel* m_caption;
    QTableWidget* m_table;
};

} // namespace kinetoscope
