#pragma once

#include "sql/tracedatabase.h"

#include <QAbstractTableModel>

#include <memory>

namespace kinetoscope {

// A query's rows as a table: integers and reals as numbers (so that sorting is numeric), text as text, NULL
// empty. Sort role: the value itself.
class QueryResultModel : public QAbstractTableModel {
    Q_OBJECT
  public:
    using QAbstractTableModel::QAbstractTableModel;
    void setResult(std::shared_ptr<const sql::QueryResult> result);
    const std::shared_ptr<const sql::QueryResult>& result() const { return m_result; }

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

  private:
    std::shared_ptr<const sql::QueryResult> m_result;
};

} // namespace kinetoscope
