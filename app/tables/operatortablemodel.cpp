#include "tables/operatortablemodel.h"

#include <QVariant>

namespace kinetoscope {

void OperatorTableModel::setRows(std::vector<OperatorRow> rows) {
    beginResetModel();
    m_rows = std::move(rows);
    m_hostTotal = m_deviceTotal = 0;
    // Shares are of the self times: they add up to 100% over the table, unlike totals (which nest).
    for (const OperatorRow& r : m_rows) {
        m_hostTotal += r.hostSelf;
        m_deviceTotal += r.deviceSelf;
    }
    endResetModel();
}

int OperatorTableModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : int(m_rows.size());
}
int OperatorTableModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant OperatorTableModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal) return {};
    static const char* titles[] = {"Name",
                                   "Input shapes",
                                   "Calls",
                                   "Host self",
                                   "Host total",
                                   "Device self",
                                   "Device total",
                                   "Host self %",
                                   "Device self %",
                                   "Tensor-core eligible",
                                   "Tensor-core share"};
    static const char* tips[] = {
        "Operator name (annotations: a trailing #N folded to #*)",
        "Input Dims of the calls (when grouped by shape)",
        "Number of calls; an operator whose only child has its name counts once, as in key_averages()",
        "Duration minus its direct children: operators, annotations, and runtime and driver calls "
        "(key_averages' Self CPU)",
        "Host time from start to end of the calls",
        "GPU time of the kernels, copies and memsets its own launch calls made (key_averages' Self CUDA)",
        "Device self of the calls and of everything called inside them",
        "Share of the summed host self time of all rows",
        "Share of the summed device self time of all rows",
        "A GEMM, convolution or attention operator that can run on tensor cores",
        "Share of its device self time spent in tensor-core kernels",
    };
    if (section < 0 || section >= ColumnCount) return {};
    if (role == Qt::DisplayRole) return QString::fromLatin1(titles[section]);
    if (role == Qt::ToolTipRole) return QString::fromLatin1(tips[section]);
    return {};
}

QVariant OperatorTableModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || index.row() >= int(m_rows.size()) || index.column() >= ColumnCount) return {};
    const OperatorRow& r = m_rows[std::size_t(index.row())];
    if (role == EventRole) return QVariant::fromValue(r.example);
    if (role == NameRole) return QString::fromStdString(r.name);
    if (role == Qt::TextAlignmentRole)
        return index.column() <= InputDims ? int(Qt::AlignLeft | Qt::AlignVCenter)
                                           : int(Qt::AlignRight | Qt::AlignVCenter);
    const QVariant value = sortValue(r, index.column());
    if (role == SortRole) return value;
    if (role != Qt::DisplayRole && role != Qt::ToolTipRole) return {};
    switch (index.column()) {
    case HostSelf:
    case HostTotal:
    case DeviceSelf:
    case DeviceTotal:
        return durationText(value.toLongLong());
    case HostTotalShare:
    case DeviceTotalShare:
        return percentText(value.toDouble());
    case TensorCoreEligible:
        return value.toBool() ? QStringLiteral("yes") : QString();
    case TensorCoreShare:
        return r.deviceSelf ? percentText(value.toDouble()) : QString();
    default:
        return value.toString();
    }
}

// The raw value of a cell: what its column sorts by, and what its text is made from.
QVariant OperatorTableModel::sortValue(const OperatorRow& r, int column) const {
    switch (column) {
    case Name:
        return QString::fromStdString(r.name);
    case InputDims:
        return QString::fromStdString(r.inputDims);
    case Calls:
        return qulonglong(r.count);
    case HostSelf:
        return qlonglong(r.hostSelf);
    case HostTotal:
        return qlonglong(r.hostTotal);
    case DeviceSelf:
        return qlonglong(r.deviceSelf);
    case DeviceTotal:
        return qlonglong(r.deviceTotal);
    case HostTotalShare:
        return m_hostTotal ? double(r.hostSelf) / double(m_hostTotal) : 0.0;
    case DeviceTotalShare:
        return m_deviceTotal ? double(r.deviceSelf) / double(m_deviceTotal) : 0.0;
    case TensorCoreEligible:
        return r.tensorCoreEligible();
    case TensorCoreShare:
        return r.tensorCoreShare();
    }
    return {};
}

} // namespace kinetoscope
