#include "tables/rooflinetablemodel.h"

namespace kinetoscope {

// The figures that answer "is this op good?" first, the details after.
RooflineTableModel::RooflineTableModel(QObject* parent)
    : RowsModel(perfModelColumns(),
                {"Name", "Input shapes", "Calls", "Device time", "TFLOP/s", "% of peak", "Bound", "TB/s",
                 "FLOP/byte", "GFLOP/call", "Headroom", "Kind", "Input types"},
                parent) {
    Q_ASSERT(columnCount() == ColumnCount);
}

} // namespace kinetoscope
