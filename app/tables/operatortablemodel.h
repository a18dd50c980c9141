#pragma once

// The operator and annotation tables: key_averages' figures (core's operatorColumns), self-time shares of the
// rows shown, and tensor-core use, in the TensorBoard plugin's order (self before total).

#include "analysis/report/sections.h"
#include "tables/rowsmodel.h"

namespace kinetoscope {

class OperatorTableModel : public RowsModel<OperatorRow> {
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
    explicit OperatorTableModel(QObject* parent = nullptr);

  private:
    void rowsChanged() override { m_totals = SelfTimeTotals::of(m_rows); }
    SelfTimeTotals m_totals;
};

} // namespace kinetoscope
