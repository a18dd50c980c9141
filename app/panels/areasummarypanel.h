#pragma once

#include "query/areasummary.h"

#include <QWidget>

class QComboBox;
class QLabel;
class QTableWidget;

namespace kinetoscope {

// The slices under an area selection, aggregated by name, category or track (count, total, self, longest).
class AreaSummaryPanel : public QWidget {
    Q_OBJECT
  public:
    explicit AreaSummaryPanel(const TraceStore& store, QWidget* parent = nullptr);
    void showSummary(const AreaSummary& summary, std::size_t trackCount);
    void clear();
    QTableWidget* table() const { return m_table; }
    AreaGrouping grouping() const;
    void setGrouping(AreaGrouping grouping);

  signals:
    // The user picked another grouping: the area is summarised again.
    void groupingChanged();
    // "Query these slices": the area's slices as SQL in the Query tab.
    void queryRequested();

  private:
    const TraceStore& m_store;
    QComboBox* m_grouping;
    QLabel* m_caption;
    QTableWidget* m_table;
};

} // namespace kinetoscope
