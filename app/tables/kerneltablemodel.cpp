#include "tables/kerneltablemodel.h"

#include <QVariant>

namespace kinetoscope {

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
    // The short name in the cell, the full one in its tooltip (and in the Details panel and search).
    if (role == Qt::ToolTipRole && index.column() == Name) return QString::fromStdString(r.name);
    const QVariant value = sortValue(r, index.column());
    if (role == SortRole) return value;
    if (role != Qt::DisplayRole && role != Qt::ToolTipRole) return {};
    switch (index.column()) {
    case Total:
    case Mean:
    case Min:
    case Max:
        return durationText(value.toLongLong());
    case GpuShare:
        return percentText(value.toDouble());
    case BlocksPerSm:
        return r.meanBlocksPerSm > 0 ? QString::number(r.meanBlocksPerSm, 'f', 2) : QString();
    case Occupancy:
        return r.achievedOccupancy > 0 ? QString::number(r.achievedOccupancy, 'f', 1) + QLatin1Char('%')
                                       : QString();
    case TensorCores:
        return value.toBool() ? QStringLiteral("yes") : QString();
    default:
        return value.toString();
    }
}

// The raw value of a cell: what its column sorts by, and what its text is made from.
QVariant KernelTableModel::sortValue(const KernelTableRow& r, int column) const {
    switch (column) {
    case Name:
        return QString::fromStdString(r.displayName);
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
    return {};
}

} // namespace kinetoscope
