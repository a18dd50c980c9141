#include "tables/rooflinetablemodel.h"

#include <QVariant>

namespace kinetoscope {

void RooflineTableModel::setRows(std::vector<PerfModelRow> rows) {
    beginResetModel();
    m_rows = std::move(rows);
    endResetModel();
}

int RooflineTableModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : int(m_rows.size());
}
int RooflineTableModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant RooflineTableModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || section < 0 || section >= ColumnCount) return {};
    // In Column's order: the figures that answer "is this op good?" first, the details after.
    static const char* titles[] = {"Name",      "Input shapes", "Calls",      "Device time", "TFLOP/s",
                                   "% of peak", "Bound",        "TB/s",       "FLOP/byte",   "GFLOP/call",
                                   "Headroom",  "Kind",         "Input types"};
    static const char* tips[] = {
        "Operator name (linear and matmul show as the mm, addmm or bmm they call)",
        "Input Dims of the calls",
        "Number of calls",
        "GPU time of the kernels, copies and memsets launched under each call, overlaps merged, summed over "
        "the calls",
        "Achieved: all calls' FLOPs over their device time",
        "Achieved over the peak that bounds the op: FLOP/s when compute-bound, bandwidth when memory-bound",
        "Compute when the intensity reaches the GPU's ridge point (peak FLOP/s over peak bandwidth), else "
        "memory",
        "Achieved: the bytes the calls must move at least, over their device time",
        "Arithmetic intensity: FLOPs per byte moved",
        "FLOPs of one call, in billions",
        "Device time that running at that peak would save",
        "What the FLOPs and bytes are counted as, and the arithmetic whose peak applies",
        "Input type of the calls",
    };
    if (role == Qt::DisplayRole) return QString::fromLatin1(titles[section]);
    if (role == Qt::ToolTipRole) return QString::fromLatin1(tips[section]);
    return {};
}

namespace {
QString number(double v, int decimals) {
    return QString::number(v, 'f', v != 0 && std::abs(v) < 0.01 ? 4 : decimals);
}
} // namespace

QVariant RooflineTableModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || index.row() >= int(m_rows.size()) || index.column() >= ColumnCount) return {};
    const PerfModelRow& r = m_rows[std::size_t(index.row())];
    if (role == EventRole) return QVariant::fromValue(r.example);
    if (role == NameRole) return QString::fromStdString(r.name);
    if (role == Qt::TextAlignmentRole)
        return index.column() <= InputDims || index.column() >= Category || index.column() == Bound
                   ? int(Qt::AlignLeft | Qt::AlignVCenter)
                   : int(Qt::AlignRight | Qt::AlignVCenter);
    const QVariant value = sortValue(r, index.column());
    if (role == SortRole) return value;
    if (role != Qt::DisplayRole && role != Qt::ToolTipRole) return {};
    if (!value.isValid()) return QString(); // no GPU time, or no peak for this GPU
    switch (index.column()) {
    case DeviceTime:
    case Headroom:
        return durationText(value.toLongLong());
    case Gflop:
        return number(value.toDouble(), 3);
    case Tflops:
    case Intensity:
        return number(value.toDouble(), 1);
    case Tbps:
        return number(value.toDouble(), 3);
    case PeakPct:
        return percentText(value.toDouble());
    default:
        return value.toString();
    }
}

QVariant RooflineTableModel::sortValue(const PerfModelRow& r, int column) const {
    auto optional = [](std::optional<double> v) { return v ? QVariant(*v) : QVariant(); };
    switch (column) {
    case Name:
        return QString::fromStdString(r.name);
    case InputDims:
        return QString::fromStdString(r.inputDims);
    case InputTypes:
        return QString::fromStdString(r.inputTypes);
    case Category:
        return QString::fromLatin1(opFamilyName(r.family)) + QStringLiteral(" · ") +
               QString::fromLatin1(computeTypeName(r.compute));
    case Calls:
        return qulonglong(r.count);
    case DeviceTime:
        return qlonglong(r.deviceUnion);
    case Gflop:
        return r.flops / double(std::max<std::uint64_t>(1, r.count)) / 1e9;
    case Tflops:
        return optional(r.tflops());
    case PeakPct:
        return optional(r.peakFraction());
    case Tbps:
        return optional(r.tbps());
    case Intensity:
        return optional(r.intensity());
    case Bound:
        return boundName(r.bound()) ? QVariant(QString::fromLatin1(boundName(r.bound()))) : QVariant();
    case Headroom:
        if (const auto h = r.headroom()) return qlonglong(*h);
        return {};
    }
    return {};
}

} // namespace kinetoscope
