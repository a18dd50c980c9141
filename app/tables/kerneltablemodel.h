#pragma once

#include "analysis/ops/kernels.h"
#include "tables/tablecells.h"

#include <QAbstractTableModel>

#include <vector>

namespace kinetoscope {

class KernelTableModel : public QAbstractTableModel {
    Q_OBJECT
  public:
    enum Column {
        Name,
        Category,
        Calls,
        Total,
        Mean,
        Min,
        Max,
        GpuShare,
        BlocksPerSm,
        Occupancy,
        TensorCores,
        Launch,
        ColumnCount
    };
    using QAbstractTableModel::QAbstractTableModel;
    void setRows(std::vector<KernelTableRow> rows);
    const KernelTableRow& row(int r) const { return m_rows[std::size_t(r)]; }
    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

  private:
    QVariant sortValue(const KernelTableRow& r, int column) const;
    std::vector<KernelTableRow> m_rows;
};

} // namespace kinetoscope
