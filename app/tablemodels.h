#pragma once

#include "analysis/kernels.h"
#include "analysis/summary.h"

#include <QAbstractTableModel>
#include <QTableWidgetItem>

#include <vector>

namespace kinetoscope {

// Roles shared by the analysis tables: the raw number a column sorts by, and the event a row jumps to.
enum AnalysisRole { SortRole = Qt::UserRole + 1, EventRole, NameRole };

class OperatorTableModel : public QAbstractTableModel {
    Q_OBJECT
  public:
    enum Column {
        Name,
        InputDims,
        Calls,
        HostSelf,
        HostTotal,
        DeviceSelf,
        DeviceTotal,
        HostTotalShare,
        DeviceTotalShare,
        TensorCoreEligible,
        TensorCoreShare,
        ColumnCount
    };
    using QAbstractTableModel::QAbstractTableModel;
    void setRows(std::vector<OperatorRow> rows);
    const OperatorRow& row(int r) const { return m_rows[std::size_t(r)]; }
    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

  private:
    std::vector<OperatorRow> m_rows;
    TimeNs m_hostTotal = 0;
    TimeNs m_deviceTotal = 0;
};

class KernelTableModel : public QAbstractTableModel {
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
        TensorCores,
        Launch,
        ColumnCount
    };
    using QAbstractTableModel::QAbstractTableModel;
    void setRows(std::vector<KernelTableRow> rows);
    const KernelTableRow& row(int r) const { return m_rows[std::size_t(r)]; }
    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

  private:
    std::vector<KernelTableRow> m_rows;
};

QString durationText(TimeNs ns);

// A table-widget cell that shows text but sorts by the number in SortRole (QTableWidget itself compares the
// text).
class NumberItem : public QTableWidgetItem {
  public:
    NumberItem(const QString& text, double value);
    bool operator<(const QTableWidgetItem& other) const override;
};

// A read-only table widget selecting whole rows, with these column headers and no row numbers.
QTableWidget* makeReadOnlyTable(QWidget* parent, const QStringList& headers);

} // namespace kinetoscope
