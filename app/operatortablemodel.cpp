#include "operatortablemodel.h"

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
    const double hostShare = m_hostTotal ? double(r.hostSelf) / double(m_hostTotal) : 0;
    const double deviceShare = m_deviceTotal ? double(r.deviceSelf) / double(m_deviceTotal) : 0;
    if (role == EventRole) return QVariant::fromValue(r.example);
    if (role == NameRole) return QString::fromStdString(r.name);
    if (role == Qt::TextAlignmentRole)
        return index.column() <= InputDims ? int(Qt::AlignLeft | Qt::AlignVCenter)
                                           : int(Qt::AlignRight | Qt::AlignVCenter);
    if (role == SortRole) {
        switch (index.column()) {
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
            return hostShare;
        case DeviceTotalShare:
            return deviceShare;
        case TensorCoreEligible:
            return r.tensorCoreEligible();
        case TensorCoreShare:
            return r.tensorCoreShare();
        }
    }
    if (role != Qt::DisplayRole && role != Qt::ToolTipRole) return {};
    switch (index.column()) {
    case Name:
        return QString::fromStdString(r.name);
    case InputDims:
        return QString::fromStdString(r.inputDims);
    case Calls:
        return QString::number(r.count);
    case HostSelf:
        return durationText(r.hostSelf);
    case HostTotal:
        return durationText(r.hostTotal);
    case DeviceSelf:
        return durationText(r.deviceSelf);
    case DeviceTotal:
        return durationText(r.deviceTotal);
    case HostTotalShare:
        return percentText(hostShare);
    case DeviceTotalShare:
        return percentText(deviceShare);
    case TensorCoreEligible:
        return r.tensorCoreEligible() ? QStringLiteral("yes") : QString();
    case TensorCoreShare:
        return r.deviceSelf ? percentText(r.tensorCoreShare()) : QString();
    }
    return {};
}

} // namespace kinetoscope
