#pragma once

#include "analysis/ops/summary.h"
#include "tables/tablecells.h"

#include <QAbstractTableModel>

#include <vector>

namespace kinetoscope {

class OperatorTableModel : public QAbstractTableModel {
    Q_OBJECT
  public:
    enum Column {
        Name,
        InputDims,
        Calls,
        HostSelf,
        HostTotal,
        DeviceSelf,
        DeviceTotal,
        HostTotalShare,
        DeviceTotalShare,
        TensorCoreEligible,
        TensorCoreShare,
        ColumnCount
    };
    using QAbstractTableModel::QAbstractTableModel;
    void setRows(std::vector<OperatorRow> rows);
    const OperatorRow& row(int r) const { return m_rows[std::size_t(r)]; }
    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

  private:
    QVariant sortValue(const OperatorRow& r, int column) const;
    std::vector<OperatorRow> m_rows;
    TimeNs m_hostTotal = 0;
    TimeNs m_deviceTotal = 0;
};

} // namespace kinetoscope
