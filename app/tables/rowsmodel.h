#pragma once

// The viewer's side of core's row writer (analysis/report/rows.h): a table model over rows of one type that
// shows the columns of core's description, picked and ordered by title. A column's title, tooltip, unit and
// value are core's; this adapter only turns a cell into what Qt asks for (the text, the number a column sorts
// by, the alignment), so a column reads the same in the viewer as in the reports.

#include "analysis/report/rows.h"
#include "tables/tablecells.h"

#include <QAbstractTableModel>
#include <QString>
#include <QVariant>

#include <initializer_list>
#include <string_view>
#include <vector>

namespace kinetoscope {

// A cell as the table shows it: durations and shares as durationText and percentText, the rest as numbers.
QString cellDisplay(CellFormat format, int decimals, const Cell& cell);
// The raw value a column sorts by (invalid for an absent value).
QVariant cellSortValue(const Cell& cell);
// Text, JSON text and yes/no cells are left-aligned, numbers right-aligned.
bool cellIsLeftAligned(CellFormat format);

// Rows carry `name` (the full name, for NameRole and the first column's tooltip) and `example` (the event a
// row jumps to, for EventRole).
template <typename Row> class RowsModel : public QAbstractTableModel {
  public:
    // The columns of `all` whose titles are `shown`, in that order (every title must be one of them).
    RowsModel(const Columns<Row>& all, std::initializer_list<std::string_view> shown, QObject* parent)
        : QAbstractTableModel(parent) {
        for (std::string_view title : shown)
            for (const Column<Row>& c : all)
                if ((c.outputs & InTable) && c.title == title) {
                    m_columns.push_back(c);
                    break;
                }
        Q_ASSERT(m_columns.size() == shown.size());
    }
    void setRows(std::vector<Row> rows) {
        beginResetModel();
        m_rows = std::move(rows);
        rowsChanged();
        endResetModel();
    }
    const Row& row(int r) const { return m_rows[std::size_t(r)]; }
    const std::vector<Row>& rows() const { return m_rows; }

    int rowCount(const QModelIndex& parent = {}) const override {
        return parent.isValid() ? 0 : int(m_rows.size());
    }
    int columnCount(const QModelIndex& parent = {}) const override {
        return parent.isValid() ? 0 : int(m_columns.size());
    }
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override {
        if (orientation != Qt::Horizontal || section < 0 || section >= int(m_columns.size())) return {};
        const Column<Row>& c = m_columns[std::size_t(section)];
        if (role == Qt::DisplayRole) return text(c.title);
        if (role == Qt::ToolTipRole) return text(c.tip);
        return {};
    }
    QVariant data(const QModelIndex& index, int role) const override {
        if (!index.isValid() || index.row() >= int(m_rows.size()) || index.column() >= int(m_columns.size()))
            return {};
        const Row& r = m_rows[std::size_t(index.row())];
        const Column<Row>& c = m_columns[std::size_t(index.column())];
        switch (role) {
        case EventRole:
            return QVariant::fromValue(r.example);
        case NameRole:
            return QString::fromStdString(r.name);
        case Qt::TextAlignmentRole:
            return int((cellIsLeftAligned(c.format) ? Qt::AlignLeft : Qt::AlignRight) | Qt::AlignVCenter);
        case SortRole:
            return cellSortValue(c.value(r));
        case Qt::ToolTipRole:
            // The first column may show a short name; its tooltip gives the whole one.
            if (index.column() == 0) return QString::fromStdString(r.name);
            [[fallthrough]];
        case Qt::DisplayRole:
            return cellDisplay(c.format, c.decimals, c.value(r));
        default:
            return {};
        }
    }

  protected:
    // Called with the new rows in place, before views see them (for figures over all rows).
    virtual void rowsChanged() {}
    std::vector<Row> m_rows;

  private:
    static QString text(std::string_view s) { return QString::fromUtf8(s.data(), qsizetype(s.size())); }
    Columns<Row> m_columns;
};

} // namespace kinetoscope
