#include "tables/operatortablemodel.h"

namespace kinetoscope {

// The share columns read m_totals, which rowsChanged sets before any view asks.
OperatorTableModel::OperatorTableModel(QObject* parent)
    : RowsModel(operatorColumns(true, &m_totals),
                {"Name", "Input shapes", "Calls", "Host self", "Host total", "Device self", "Device total",
                 "Host self %", "Device self %", "Tensor-core eligible", "Tensor-core share"},
                parent) {
    Q_ASSERT(columnCount() == ColumnCount);
}

} // namespace kinetoscope
