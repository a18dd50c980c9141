#include "tablemodels.h"

#include <QHeaderView>
#include <QTableWidget>
#include <QVariant>

namespace kinetoscope {

QString durationText(TimeNs ns) {
    return QString::fromStdString(formatDuration(ns));
}

NumberItem::NumberItem(const QString& text, double value) : QTableWidgetItem(text) {
    setData(SortRole, value);
    setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
}

bool NumberItem::operator<(const QTableWidgetItem& other) const {
    return data(SortRole).toDouble() < other.data(SortRole).toDouble();
}

QTableWidget* makeReadOnlyTable(QWidget* parent, const QStringList& headers) {
    auto* t = new QTableWidget(0, int(headers.size()), parent);
    t->setHorizontalHeaderLabels(headers);
    t->verticalHeader()->hide();
    t->setEditTriggers(QAbstractItemView::NoEditTriggers);
    t->setSelectionBehavior(QAbstractItemView::SelectRows);
    return t;
}

namespace {
QString percentText(double f) {
    return QString::number(f * 100, 'f', 1) + QLatin1Char('%');
}
} // namespace

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

void KernelTableModel::setRows(std::vector<KernelTableRow> rows) {
    beginResetModel();
    m_rows = std::move(rows);
    endResetModel();
}

int KernelTableModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : int(m_rows.size());
}
int KernelTableModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant KernelTableModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || section < 0 || section >= ColumnCount) return {};
    static const char* titles[] = {
        "Name", "Category",   "Calls",         "Total",          "Mean",         "Min",
        "Max",  "% GPU time", "Blocks per SM", "Est. occupancy", "Tensor cores", "Launch"};
    static const char* tips[] = {
        "Kernel name",
        "What the kernel does, from its name (docs/DEFINITIONS.md: TorchInductor's categories first)",
        "Number of launches",
        "Summed duration",
        "Mean duration",
        "Shortest call",
        "Longest call",
        "Share of all kernel time in scope",
        "Mean blocks per SM (the trace's 'blocks per SM', or grid size / SMs)",
        "Duration-weighted mean of 'est. achieved occupancy %'",
        "Runs on tensor cores (HMMA/GMMA/MFMA), from its name: the TensorBoard plugin's list plus Hopper, "
        "Blackwell and AMD kernels",
        "Grid, block, registers, shared memory and launching operator (when grouped by launch)"};
    if (role == Qt::DisplayRole) return QString::fromLatin1(titles[section]);
    if (role == Qt::ToolTipRole) return QString::fromLatin1(tips[section]);
    return {};
}

QVariant KernelTableModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || index.row() >= int(m_rows.size()) || index.column() >= ColumnCount) return {};
    const KernelTableRow& r = m_rows[std::size_t(index.row())];
    if (role == EventRole) return QVariant::fromValue(r.example);
    if (role == NameRole) return QString::fromStdString(r.name);
    if (role == Qt::TextAlignmentRole) {
        const bool text = index.column() == Name || index.column() == Category || index.column() == Launch ||
                          index.column() == TensorCores;
        return text ? int(Qt::AlignLeft | Qt::AlignVCenter) : int(Qt::AlignRight | Qt::AlignVCenter);
    }
    if (role == SortRole) {
        switch (index.column()) {
        case Name:
            return QString::fromStdString(r.name);
        case Category:
            return QString::fromLatin1(kernelCategoryName(r.category).data());
        case Calls:
            return qulonglong(r.count);
        case Total:
            return qlonglong(r.total);
        case Mean:
            return qlonglong(r.mean());
        case Min:
            return qlonglong(r.min);
        case Max:
            return qlonglong(r.max);
        case GpuShare:
            return r.shareOfGpuTime;
        case BlocksPerSm:
            return r.meanBlocksPerSm;
        case Occupancy:
            return r.achievedOccupancy;
        case TensorCores:
            return r.tensorCores;
        case Launch:
            return QString::fromStdString(r.launch);
        }
    }
    if (role != Qt::DisplayRole && role != Qt::ToolTipRole) return {};
    switch (index.column()) {
    case Name:
        return QString::fromStdString(r.name);
    case Category:
        return QString::fromLatin1(kernelCategoryName(r.category).data());
    case Calls:
        return QString::number(r.count);
    case Total:
        return durationText(r.total);
    case Mean:
        return durationText(r.mean());
    case Min:
        return durationText(r.min);
    case Max:
        return durationText(r.max);
    case GpuShare:
        return percentText(r.shareOfGpuTime);
    case BlocksPerSm:
        return r.meanBlocksPerSm > 0 ? QString::number(r.meanBlocksPerSm, 'f', 2) : QString();
    case Occupancy:
        return r.achievedOccupancy > 0 ? QString::number(r.achievedOccupancy, 'f', 1) + QLatin1Char('%')
                                       : QString();
    case TensorCores:
        return r.tensorCores ? QStringLiteral("yes") : QString();
    case Launch:
        return QString::fromStdString(r.launch);
    }
    return {};
}

} // namespace kinetoscope
