#include "panels/rooflinepanel.h"

#include "charts/rooflinechart.h"
#include "panels/panelparts.h"
#include "tables/rooflinetablemodel.h"

#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QTableView>
#include <QTableWidget>
#include <QVBoxLayout>

namespace kinetoscope {

using namespace panel;

RooflinePanel::RooflinePanel(QWidget* parent) : AnalysisPanel(parent) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    m_header = new QLabel(this);
    m_header->setWordWrap(true);
    m_header->setTextFormat(Qt::RichText);
    layout->addWidget(m_header);
    m_filter = new QLineEdit(this);
    m_filter->setPlaceholderText(tr("Filter ops…"));
    m_filter->setClearButtonEnabled(true);
    layout->addWidget(m_filter);
    m_model = new RooflineTableModel(this);
    m_proxy = makeProxy(this, m_model);
    m_view = makeView(this, m_proxy);
    m_view->sortByColumn(RooflineTableModel::DeviceTime, Qt::DescendingOrder);
    // The table with the uncovered GPU time below it; the chart beside them, the panel's full height.
    auto* split = new QSplitter(Qt::Horizontal, this);
    auto* tables = new QSplitter(Qt::Vertical, split);
    tables->addWidget(m_view);
    m_notModelled =
        makeReadOnlyTable(tables, {tr("Not modelled: launched by"), tr("GPU events"), tr("GPU time")});
    tables->addWidget(m_notModelled);
    tables->setStretchFactor(0, 3);
    tables->setStretchFactor(1, 1);
    m_chart = new RooflineChart(split);
    split->addWidget(tables);
    split->addWidget(m_chart);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 2);
    split->setSizes({900, 650}); // the table's figures in view beside a readable chart
    layout->addWidget(split, 1);

    connect(m_filter, &QLineEdit::textChanged, m_proxy, &QSortFilterProxyModel::setFilterFixedString);
    connect(m_view->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this](const QModelIndex& current) {
                if (!current.isValid()) return;
                m_chart->setSelectedRow(m_proxy->mapToSource(current).row());
                emit highlightRequested(current.data(NameRole).toString());
            });
    connect(m_view, &QTableView::doubleClicked, this, [this](const QModelIndex& index) {
        const EventRef ref = index.data(EventRole).value<EventRef>();
        if (ref.isValid()) emit jumpRequested(ref);
    });
    connect(m_notModelled, &QTableWidget::cellDoubleClicked, this, [this](int row, int) {
        const QTableWidgetItem* name = m_notModelled->item(row, 0);
        const EventRef ref = name ? name->data(EventRole).value<EventRef>() : EventRef();
        if (ref.isValid()) emit jumpRequested(ref);
    });
    connect(m_chart, &RooflineChart::rowClicked, this, [this](int row) {
        const QModelIndex index = m_proxy->mapFromSource(m_model->index(row, 0));
        if (!index.isValid()) { // filtered out: show it
            m_filter->clear();
        }
        const QModelIndex shown = m_proxy->mapFromSource(m_model->index(row, 0));
        m_view->selectionModel()->setCurrentIndex(shown, QItemSelectionModel::ClearAndSelect |
                                                             QItemSelectionModel::Rows);
        m_view->scrollTo(shown);
    });
}

void RooflinePanel::setResult(std::shared_ptr<const AnalysisResult> result) {
    const PerfModelReport& r = result->perfModel;
    m_model->setRows(r.rows);
    m_chart->setData(r.rows, r.peaks);
    QString header;
    if (!r.hasShapes) {
        header =
            tr("This trace records no input shapes, so no op's FLOPs or bytes can be counted: profile with "
               "<code>record_shapes=True</code>.");
    } else {
        const QString gpu = r.deviceName.empty() ? tr("no GPU named in the trace") : esc(r.deviceName);
        header =
            r.peaks
                ? tr("<b>%1</b>: peaks of the %2 (%3).").arg(gpu, esc(r.peaks->name), esc(r.peaks->source))
                : tr("<b>%1</b>: peaks unknown, so the achieved figures show without %% of peak.").arg(gpu);
        header += tr(" Modelled ops cover <b>%1</b> of the GPU time (%2 calls).")
                      .arg(percentText(r.coverage()))
                      .arg(r.modelledCalls);
        if (r.unreadableCalls)
            header +=
                tr(" %1 calls of modelled ops had shapes the model cannot read.").arg(r.unreadableCalls);
    }
    m_header->setText(header);
    m_notModelled->setSortingEnabled(false);
    m_notModelled->setRowCount(int(r.notModelled.size()));
    for (int i = 0; i < int(r.notModelled.size()); ++i) {
        const NotModelledRow& n = r.notModelled[std::size_t(i)];
        auto* name = new QTableWidgetItem(QString::fromStdString(n.name));
        name->setData(EventRole, QVariant::fromValue(n.example)); // its longest GPU event
        m_notModelled->setItem(i, 0, name);
        m_notModelled->setItem(i, 1, numberItem(QString::number(n.count), double(n.count)));
        m_notModelled->setItem(i, 2, numberItem(durationText(n.gpuTime), double(n.gpuTime)));
    }
    m_notModelled->setSortingEnabled(true);
    m_notModelled->sortItems(2, Qt::DescendingOrder);
    m_notModelled->resizeColumnsToContents();
    fitColumns(m_view);
    // Shapes run long (a convolution's nine inputs): capped, so the figures beside them stay in view; the
    // cell's tooltip has them all.
    m_view->setColumnWidth(RooflineTableModel::InputDims,
                           std::min(m_view->columnWidth(RooflineTableModel::InputDims), 220));
}

} // namespace kinetoscope
