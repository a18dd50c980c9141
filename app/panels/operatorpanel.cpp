#include "panels/operatorpanel.h"

#include "analysis/ops/hosttree.h"
#include "query/args.h"
#include "query/enclosing.h"
#include "query/kernelshortname.h"

#include "charts/barchart.h"
#include "charts/memorycurve.h"
#include "charts/moduleflame.h"
#include "charts/stackedcolumnchart.h"
#include "panels/detailspanel.h"
#include "panels/panelparts.h"
#include "tables/tablemodels.h"
#include "timeline/timelinepalette.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QScrollArea>
#include <QSortFilterProxyModel>
#include <QSpinBox>
#include <QSplitter>
#include <QTableView>
#include <QTableWidget>
#include <QTextBrowser>
#include <QTreeWidget>
#include <QUrl>
#include <QVBoxLayout>

namespace kinetoscope {

using namespace panel;

// The call stack of one operator call, innermost first: its "Call stack" arg (legacy traces), else the Python
// frames (python_function) that enclose it on its thread, as with_stack traces record them.
QString callStackText(const TraceStore& store, EventRef ref) {
    if (!ref.isValid()) return {};
    for (const ArgField& f : decodeArgs(store, ref)) {
        if (f.key == "Call stack" || f.key == "Python stack")
            return QString::fromStdString(f.value).replace(QLatin1Char(';'), QLatin1Char('\n'));
    }
    const Track& t = store.track(ref.track);
    const std::vector<std::uint32_t> enclosing = enclosingRows(t, ref.index.value);
    QStringList frames;
    for (auto p = enclosing.rbegin(); p != enclosing.rend(); ++p) {
        if (store.categories()[t.categories[*p]].kind != CategoryKind::PythonFunction) continue;
        const std::string_view name = store.strings().view(t.names[*p]);
        frames << QString::fromUtf8(name.data(), qsizetype(name.size()));
    }
    if (frames.isEmpty())
        return QObject::tr("No call stack recorded for this operator (profile with with_stack=True).");
    return QObject::tr("Python frames around its longest call, innermost first:\n") +
           frames.join(QLatin1Char('\n'));
}

OperatorPanel::OperatorPanel(const TraceStore& store, QWidget* parent)
    : AnalysisPanel(parent), m_store(store) {
    m_model = new OperatorTableModel(this);
    m_stack = new QTextBrowser(this);
    m_stack->setPlaceholderText(
        tr("Select an operator: its longest call's call stack (when recorded) shows here."));
    const TablePanel t =
        buildTablePanel(this, m_model,
                        {tr("Group by name"), tr("Group by name + input shapes"),
                         tr("Annotations: record_function ranges, steps, optimizer, DataLoader")},
                        tr("Filter operators…"), OperatorTableModel::DeviceTotal,
                        tr("<b>Top 10</b> by the sorted column"), m_stack,
                        {{OperatorTableModel::Calls, false},
                         {OperatorTableModel::HostSelf, true},
                         {OperatorTableModel::DeviceSelf, true}});
    m_grouping = t.grouping;
    m_filter = t.filter;
    m_proxy = t.proxy;
    m_view = t.view;
    m_chart = t.chart;
    m_total = t.total;
    // The chart shows the top rows the table shows: a filter narrows it too.
    connect(m_proxy, &QAbstractItemModel::layoutChanged, this, &OperatorPanel::updateChart);
    connect(m_proxy, &QAbstractItemModel::modelReset, this, &OperatorPanel::updateChart);
    connect(m_proxy, &QAbstractItemModel::rowsInserted, this, &OperatorPanel::updateChart);
    connect(m_proxy, &QAbstractItemModel::rowsRemoved, this, &OperatorPanel::updateChart);
    m_stack->setOpenLinks(false);
    connect(m_stack, &QTextBrowser::anchorClicked, this, [this](const QUrl& url) {
        const EventRef ref = DetailsPanel::refFromLink(url);
        if (ref.isValid()) emit jumpRequested(ref);
    });
    connect(m_view->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this](const QModelIndex& current) {
                if (!current.isValid()) return;
                const int source = m_proxy->mapToSource(current).row();
                if (source < 0 || source >= m_model->rowCount()) return;
                showRow(m_model->row(source));
            });
}

void OperatorPanel::showRow(const OperatorRow& row) {
    // The GPU work every call of the operator launched, per kernel (each linked to its longest), then the
    // call stack of its longest call.
    const std::vector<LaunchedWork> launched =
        gpuWorkLaunchedWithin(m_store, callsOfRow(m_store, row, m_grouping->currentIndex() == 2));
    QString html;
    if (launched.empty())
        html += tr("<p style=\"color:#6b7280\">Its calls launched no GPU work.</p>");
    else
        html += QStringLiteral("<p><b>%1</b></p>").arg(tr("GPU work its %1 calls launched").arg(row.count)) +
                DetailsPanel::launchedWorkHtml(m_store, launched);
    html += QStringLiteral("<pre>%1</pre>").arg(callStackText(m_store, row.example).toHtmlEscaped());
    m_stack->setHtml(html);
}

OperatorGrouping OperatorPanel::grouping() const {
    return m_grouping->currentIndex() == 1 ? OperatorGrouping::NameAndShape : OperatorGrouping::Name;
}
void OperatorPanel::setGrouping(OperatorGrouping g) {
    m_grouping->setCurrentIndex(g == OperatorGrouping::NameAndShape ? 1 : 0);
}

void OperatorPanel::setResult(std::shared_ptr<const AnalysisResult> result) {
    m_model->setRows(m_grouping->currentIndex() == 2 ? result->summary.annotations
                                                     : result->summary.operators);
    m_view->setColumnHidden(OperatorTableModel::InputDims,
                            result->operatorGrouping != OperatorGrouping::NameAndShape);
    fitColumns(m_view);
    updateChart();
}

void OperatorPanel::updateChart() {
    const int column = m_view->horizontalHeader()->sortIndicatorSection();
    QVector<BarChart::Bar> bars;
    for (int r = 0; r < std::min(10, m_proxy->rowCount()); ++r) {
        const QModelIndex index = m_proxy->index(r, column);
        const QVariant v = index.data(SortRole);
        bars.push_back({m_proxy->index(r, 0).data().toString(), v.toDouble(), index.data().toString(), {}});
    }
    m_chart->setBars(bars);
}

} // namespace kinetoscope
