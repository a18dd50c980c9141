#pragma once

// The kernel table (core's kernelTableColumns): by name, or by name and launch properties.

#include "analysis/report/sections.h"
#include "tables/rowsmodel.h"

namespace kinetoscope {

class KernelTableModel : public RowsModel<KernelTableRow> {
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
        Gbps, // Inductor's estimates: shown only when a row has them
        Tflops,
        TensorCores,
        Launch,
        ColumnCount
    };
    explicit KernelTableModel(QObject* parent = nullptr);
};

} // namespace kinetoscope
