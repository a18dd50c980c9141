#include "tables/kerneltablemodel.h"

namespace kinetoscope {

KernelTableModel::KernelTableModel(QObject* parent)
    : RowsModel(kernelTableColumns(),
                {"Name", "Category", "Calls", "Total", "Mean", "Min", "Max", "% GPU time", "Blocks per SM",
                 "Est. occupancy", "GB/s", "TFLOP/s", "Tensor cores", "Launch"},
                parent) {
    Q_ASSERT(columnCount() == ColumnCount);
}

} // namespace kinetoscope
