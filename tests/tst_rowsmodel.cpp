// The viewer's table models read core's column descriptions (app/tables/rowsmodel.h over
// analysis/report/sections.h): each header is core's title and tooltip, each cell core's value as the viewer
// writes it, on real traces; shares of self time add up to the whole, a short kernel name keeps its full name
// in the tooltip, and figures a row lacks (no peak known) are empty cells that sort apart.
#include "analysis/ops/kernels.h"
#include "analysis/ops/summary.h"
#include "analysis/roofline/roofline.h"
#include "tables/rooflinetablemodel.h"
#include "tables/tablemodels.h"
#include "testsupport.h"

#include <QTest>

using namespace kinetoscope;

class TestRowsModel : public QObject {
    Q_OBJECT
  private slots:
    void headersAreCores();
    void operatorCells();
    void kernelCells();
    void rooflineCells();
};

namespace {
const TraceStore& store(const char* relative) {
    static std::map<std::string, std::unique_ptr<const TraceStore>> stores;
    auto& s = stores[relative];
    if (!s) {
        LoadResult r = loadTrace(test::tracePath(relative));
        if (!r.ok()) qFatal("cannot load %s: %s", relative, r.error.c_str());
        s = std::move(r.store);
    }
    return *s;
}
const char* const resnet =
    "AMD-AGI__TraceLens/tests__traces__mi300__ddp_resnet18_no_pool__train_resnet18.json.gz";

QString qs(std::string_view s) {
    return QString::fromUtf8(s.data(), qsizetype(s.size()));
}

// The model's header `section` is core's column titled `title`, tooltip included.
template <typename Row>
void checkHeader(const QAbstractItemModel& model, int section, const Columns<Row>& columns,
                 const char* title) {
    const auto it = std::find_if(columns.begin(), columns.end(), [&](const Column<Row>& c) {
        return (c.outputs & InTable) && c.title == title;
    });
    QVERIFY2(it != columns.end(), title);
    QCOMPARE(model.headerData(section, Qt::Horizontal, Qt::DisplayRole).toString(),
             QString::fromLatin1(title));
    QCOMPARE(model.headerData(section, Qt::Horizontal, Qt::ToolTipRole).toString(), qs(it->tip));
    QVERIFY2(!it->tip.empty(), title);
}
} // namespace

void TestRowsModel::headersAreCores() {
    OperatorTableModel ops;
    QCOMPARE(ops.columnCount(), int(OperatorTableModel::ColumnCount));
    const SelfTimeTotals none;
    checkHeader(ops, OperatorTableModel::HostSelf, operatorColumns(true, &none), "Host self");
    checkHeader(ops, OperatorTableModel::DeviceTotalShare, operatorColumns(true, &none), "Device self %");
    checkHeader(ops, OperatorTableModel::TensorCoreShare, operatorColumns(true, &none), "Tensor-core share");
    KernelTableModel kernels;
    QCOMPARE(kernels.columnCount(), int(KernelTableModel::ColumnCount));
    checkHeader(kernels, KernelTableModel::Occupancy, kernelTableColumns(), "Est. occupancy");
    checkHeader(kernels, KernelTableModel::Launch, kernelTableColumns(), "Launch");
    RooflineTableModel roofline;
    QCOMPARE(roofline.columnCount(), int(RooflineTableModel::ColumnCount));
    checkHeader(roofline, RooflineTableModel::PeakPct, perfModelColumns(), "% of peak");
    checkHeader(roofline, RooflineTableModel::Category, perfModelColumns(), "Kind");
    checkHeader(roofline, RooflineTableModel::InputTypes, perfModelColumns(), "Input types");
}

void TestRowsModel::operatorCells() {
    const Summary summary = summarize(store(resnet), OperatorGrouping::NameAndShape);
    QVERIFY(summary.operators.size() > 50);
    OperatorTableModel model;
    model.setRows(summary.operators);
    QCOMPARE(model.rowCount(), int(summary.operators.size()));
    double hostShares = 0, deviceShares = 0;
    for (int r = 0; r < model.rowCount(); ++r) {
        const OperatorRow& row = summary.operators[std::size_t(r)];
        auto cell = [&](int column, int role = Qt::DisplayRole) { return model.index(r, column).data(role); };
        QCOMPARE(cell(OperatorTableModel::Name).toString(), QString::fromStdString(row.name));
        QCOMPARE(cell(OperatorTableModel::InputDims).toString(), QString::fromStdString(row.inputDims));
        QCOMPARE(cell(OperatorTableModel::Calls, SortRole).toULongLong(), row.count);
        QCOMPARE(cell(OperatorTableModel::HostSelf).toString(), durationText(row.hostSelf));
        QCOMPARE(cell(OperatorTableModel::DeviceTotal, SortRole).toLongLong(), row.deviceTotal);
        QCOMPARE(cell(OperatorTableModel::TensorCoreShare).toString().isEmpty(), row.deviceSelf == 0);
        QCOMPARE(cell(OperatorTableModel::Name, NameRole).toString(), QString::fromStdString(row.name));
        QCOMPARE(cell(OperatorTableModel::Calls, Qt::TextAlignmentRole).toInt(),
                 int(Qt::AlignRight | Qt::AlignVCenter));
        QCOMPARE(cell(OperatorTableModel::InputDims, Qt::TextAlignmentRole).toInt(),
                 int(Qt::AlignLeft | Qt::AlignVCenter));
        hostShares += cell(OperatorTableModel::HostTotalShare, SortRole).toDouble();
        deviceShares += cell(OperatorTableModel::DeviceTotalShare, SortRole).toDouble();
    }
    // Shares of self time, which do not nest: over the whole table they are the whole.
    QVERIFY2(std::abs(hostShares - 1) < 1e-9, qPrintable(QString::number(hostShares)));
    QVERIFY2(std::abs(deviceShares - 1) < 1e-9, qPrintable(QString::number(deviceShares)));
    QCOMPARE(model.index(0, OperatorTableModel::HostTotalShare).data().toString(),
             percentText(model.index(0, OperatorTableModel::HostTotalShare).data(SortRole).toDouble()));
}

void TestRowsModel::kernelCells() {
    const TraceStore& s = store(resnet);
    const KernelTable table = kernelTable(s, KernelGrouping::Name, s.minTime(), s.maxTime());
    QVERIFY(table.rows.size() > 5);
    KernelTableModel model;
    model.setRows(table.rows);
    bool shortened = false;
    for (int r = 0; r < model.rowCount(); ++r) {
        const KernelTableRow& row = table.rows[std::size_t(r)];
        auto cell = [&](int column, int role = Qt::DisplayRole) { return model.index(r, column).data(role); };
        // The short name shows, the full one is the tooltip.
        QCOMPARE(cell(KernelTableModel::Name).toString(), QString::fromStdString(row.displayName));
        QCOMPARE(cell(KernelTableModel::Name, Qt::ToolTipRole).toString(), QString::fromStdString(row.name));
        shortened = shortened || row.displayName != row.name;
        QCOMPARE(cell(KernelTableModel::Category).toString(), qs(kernelCategoryName(row.category)));
        QCOMPARE(cell(KernelTableModel::Mean).toString(), durationText(row.mean()));
        QCOMPARE(cell(KernelTableModel::GpuShare).toString(), percentText(row.shareOfGpuTime));
        QCOMPARE(cell(KernelTableModel::TensorCores).toString(),
                 row.tensorCores ? QStringLiteral("yes") : QString());
        QCOMPARE(cell(KernelTableModel::Occupancy).toString(),
                 row.achievedOccupancy > 0 ? QString::number(row.achievedOccupancy, 'f', 1) + QLatin1Char('%')
                                           : QString());
        QCOMPARE(cell(KernelTableModel::Name, EventRole).value<EventRef>(), row.example);
    }
    QVERIFY(shortened);
}

void TestRowsModel::rooflineCells() {
    // A row without a share of peak (no peak for its GPU or compute type, or no device time) has empty
    // share-of-peak and bound cells that sort as nothing, not as 0; the MI300X's peaks are known, so some
    // rows are rated.
    const PerfModelReport report = perfModel(store(resnet));
    QVERIFY(!report.rows.empty());
    RooflineTableModel model;
    model.setRows(report.rows);
    int rated = 0;
    for (int r = 0; r < model.rowCount(); ++r) {
        const PerfModelRow& row = report.rows[std::size_t(r)];
        auto cell = [&](int column, int role = Qt::DisplayRole) { return model.index(r, column).data(role); };
        QCOMPARE(cell(RooflineTableModel::InputDims).toString(), QString::fromStdString(row.inputDims));
        QCOMPARE(cell(RooflineTableModel::Category).toString(),
                 QString::fromLatin1(opFamilyName(row.family)) + QStringLiteral(" · ") +
                     QString::fromLatin1(computeTypeName(row.compute)));
        const auto fraction = row.peakFraction();
        QCOMPARE(cell(RooflineTableModel::PeakPct).toString(), fraction ? percentText(*fraction) : QString());
        QCOMPARE(cell(RooflineTableModel::PeakPct, SortRole).isValid(), bool(fraction));
        QCOMPARE(cell(RooflineTableModel::Bound).toString().isEmpty(), boundName(row.bound()) == nullptr);
        if (const auto t = row.tflops()) QCOMPARE(cell(RooflineTableModel::Tflops, SortRole).toDouble(), *t);
        rated += fraction ? 1 : 0;
    }
    QCOMPARE(bool(rated), report.peaks != nullptr);
}

QTEST_MAIN(TestRowsModel)
#include "tst_rowsmodel.moc"
