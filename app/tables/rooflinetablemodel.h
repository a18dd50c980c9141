#pragma once

#include "analysis/roofline/roofline.h"
#include "tables/tablecells.h"

#include <QAbstractTableModel>

#include <vector>

namespace kinetoscope {

// The roofline's rows (one per op + input shapes + dtypes): what each computes and moves, and how close to
// the GPU's peak it runs.
class RooflineTableModel : public QAbstractTableModel {
    Q_OBJECT
  public:
    enum Column {
        Name,
        InputDims,
        Calls,
        DeviceTime,
        Tflops,
        PeakPct,
        Bound,
        Tbps,
        Intensity,
        Gflop,
        Headroom,
        Category,
        InputTypes,
        ColumnCount
    };
    using QAbstractTableModel::QAbstractTableModel;
    void setRows(std::vector<PerfModelRow> rows);
    const std::vector<PerfModelRow>& rows() const { return m_rows; }
    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

  private:
    QVariant sortValue(const PerfModelRow& r, int column) const;
    std::vector<PerfModelRow> m_rows;
};

} // namespace kinetoscope
