#pragma once

// The roofline's rows (one per op + input shapes + dtypes, core's perfModelColumns): what each computes and
// moves, and how close to the GPU's peak it runs.

#include "analysis/report/sections.h"
#include "tables/rowsmodel.h"

namespace kinetoscope {

class RooflineTableModel : public RowsModel<PerfModelRow> {
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
    explicit RooflineTableModel(QObject* parent = nullptr);
};

} // namespace kinetoscope
