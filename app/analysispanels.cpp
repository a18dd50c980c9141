#include "analysispanels.h"

#include "import/jsonbackend.h"
#include "query/enclosing.h"

#include "barchart.h"
#include "detailspanel.h"
#include "memorycurve.h"
#include "moduleflame.h"
#include "stackedcolumnchart.h"
#include "tablemodels.h"
#include "timelinepalette.h"

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

namespace {
QString esc(std::string_view s) {
    return QString::fromUtf8(s.data(), qsizetype(s.size())).toHtmlEscaped();
}
QString pct(double f) {
    return QString::number(f * 100, 'f', 1) + QLatin1Char('%');
}

QTableWidgetItem* numberItem(const QString& text, double sortValue) {
    return new NumberItem(text, sortValue);
}

QTableWidget* makeTable(QWidget* parent, const QStringList& headers) {
    QTableWidget* t = makeReadOnlyTable(parent, headers);
    t->horizontalHeader()->setStretchLastSection(true);
    return t;
}

QTableView* makeView(QWidget* parent, QSortFilterProxyModel* proxy) {
    auto* v = new QTableView(parent);
    v->setModel(proxy);
    v->setSortingEnabled(true);
    v->setSelectionBehavior(QAbstractItemView::SelectRows);
    v->setSelectionMode(QAbstractItemView::SingleSelection);
    v->verticalHeader()->hide();
    v->verticalHeader()->setDefaultSectionSize(20);
    v->horizontalHeader()->setSectionResizeMode(0, QHeaderView::Interactive);
    v->horizontalHeader()->resizeSection(0, 380);
    v->setAlternatingRowColors(true);
    return v;
}

QSortFilterProxyModel* makeProxy(QObject* parent, QAbstractItemModel* model) {
    auto* proxy = new QSortFilterProxyModel(parent);
    proxy->setSourceModel(model);
    proxy->setSortRole(SortRole);
    proxy->setFilterCaseSensitivity(Qt::CaseInsensitive);
    proxy->setFilterKeyColumn(0);
    return proxy;
}

// The layout the operator and kernel panels share: a grouping box and a filter above a sortable, filterable
// table, and beside it a column with a title, a bar chart and the panel's own detail widget. Selecting a row
// marks its name on the timeline; double-clicking jumps to the row's example.
struct TablePanel {
    QComboBox* grouping;
    QLineEdit* filter;
    QSortFilterProxyModel* proxy;
    QTableView* view;
    BarChart* chart;
};

TablePanel buildTablePanel(AnalysisPanel* panel, QAbstractItemModel* model, const QStringList& groupings,
                           const QString& filterHint, int sortColumn, const QString& sideTitle,
                           QWidget* detail) {
    auto* layout = new QVBoxLayout(panel);
    layout->setContentsMargins(2, 2, 2, 2);
    auto* bar = new QHBoxLayout;
    TablePanel t;
    t.grouping = new QComboBox(panel);
    t.grouping->addItems(groupings);
    t.filter = new QLineEdit(panel);
    t.filter->setPlaceholderText(filterHint);
    t.filter->setClearButtonEnabled(true);
    bar->addWidget(t.grouping);
    bar->addWidget(t.filter, 1);
    layout->addLayout(bar);
    t.proxy = makeProxy(panel, model);
    t.view = makeView(panel, t.proxy);
    t.view->sortByColumn(sortColumn, Qt::DescendingOrder);
    auto* split = new QSplitter(Qt::Horizontal, panel);
    split->addWidget(t.view);
    auto* side = new QWidget(split);
    auto* sideLayout = new QVBoxLayout(side);
    sideLayout->setContentsMargins(0, 0, 0, 0);
    t.chart = new BarChart(side);
    sideLayout->addWidget(new QLabel(sideTitle, side));
    sideLayout->addWidget(t.chart);
    sideLayout->addWidget(detail, 1);
    split->addWidget(side);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 1);
    layout->addWidget(split, 1);
    QObject::connect(t.grouping, &QComboBox::currentIndexChanged, panel, &AnalysisPanel::groupingChanged);
    QObject::connect(t.filter, &QLineEdit::textChanged, t.proxy,
                     &QSortFilterProxyModel::setFilterFixedString);
    QObject::connect(t.view->selectionModel(), &QItemSelectionModel::currentRowChanged, panel,
                     [panel](const QModelIndex& current) {
                         if (current.isValid())
                             emit panel->highlightRequested(current.data(NameRole).toString());
                     });
    QObject::connect(t.view, &QTableView::doubleClicked, panel, [panel](const QModelIndex& index) {
        const EventRef ref = index.data(EventRole).value<EventRef>();
        if (ref.isValid()) emit panel->jumpRequested(ref);
    });
    return t;
}

const QColor breakdownColors[] = {
    QColor(0x5f, 0xbf, 0x8f), QColor(0xf0, 0xa0, 0x4b), QColor(0xe5, 0x8f, 0xb7), QColor(0x3a, 0xa6, 0xa6),
    QColor(0xe5, 0x86, 0x6a), QColor(0xf2, 0xc1, 0x4e), QColor(0x6c, 0x9b, 0xd2), QColor(0xb0, 0xb7, 0xc3)};
} // namespace

// ---- Overview
// --------------------------------------------------------------------------------------------------

OverviewPanel::OverviewPanel(const TraceStore& store, QWidget* parent)
    : AnalysisPanel(parent), m_store(store) {
    auto* outer = new QVBoxLayout(this);
    outer->setContentsMargins(0, 0, 0, 0);
    auto* scroll = new QScrollArea(this);
    scroll->setWidgetResizable(true);
    outer->addWidget(scroll);
    auto* body = new QWidget(scroll);
    scroll->setWidget(body);
    auto* layout = new QVBoxLayout(body);
    m_facts = new QLabel(body);
    m_facts->setTextFormat(Qt::RichText);
    m_facts->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_facts->setWordWrap(true);
    m_steps = new QLabel(body);
    m_steps->setWordWrap(true);
    auto* batchRow = new QHBoxLayout;
    m_batch = new QSpinBox(body);
    m_batch->setRange(0, 1 << 24);
    m_batch->setSpecialValueText(tr("(type one)"));
    m_batch->setToolTip(tr("Samples per step, to turn steps/s into samples/s"));
    m_throughput = new QLabel(body);
    batchRow->addWidget(new QLabel(tr("Batch size:"), body));
    batchRow->addWidget(m_batch);
    batchRow->addWidget(m_throughput, 1);
    connect(m_batch, &QSpinBox::valueChanged, this, &OverviewPanel::updateThroughput);
    m_chart = new StackedColumnChart(body);
    m_breakdown = makeTable(body, {});
    m_breakdown->setMinimumHeight(120);
    m_gpus = makeTable(body, {tr("GPU"), tr("Utilization"), tr("Busy of wall time"), tr("Est. SM efficiency"),
                              tr("Est. achieved occupancy"), tr("Tensor-core share")});
    const char* gpuTips[] = {
        "Device index (Kineto writes it as the pid)",
        "Union of kernel intervals from the first step's start to the last step's end, divided by that span "
        "(gaps "
        "between steps count as idle, as in the TensorBoard plugin)",
        "Length of the union of all GPU work (kernels, memcpy, memset) divided by the trace's wall time",
        "∫ min(Σ blocks per SM of the kernels running, 1) dt from the first step's start to the last step's "
        "end, "
        "divided by that span",
        "Σ (est. achieved occupancy % × kernel time clipped to the steps' span) / Σ that time, over kernels "
        "that report it",
        "Kernel time of tensor-core kernels (recognised by name, docs/DEFINITIONS.md) divided by all kernel "
        "time",
    };
    for (int c = 0; c < 6; ++c)
        m_gpus->horizontalHeaderItem(c)->setToolTip(QString::fromUtf8(gpuTips[c]));
    m_gpus->setMaximumHeight(110);
    m_recommendations = new QTextBrowser(body);
    m_recommendations->setOpenLinks(false);
    m_recommendations->setMinimumHeight(140);
    connect(m_recommendations, &QTextBrowser::anchorClicked, this, [this](const QUrl& url) {
        if (url.scheme() == QLatin1String("range")) {
            const QStringList parts = url.path().split(QLatin1Char(':'));
            if (parts.size() == 2) emit rangeRequested(parts[0].toLongLong(), parts[1].toLongLong());
        } else if (const EventRef ref = DetailsPanel::refFromLink(url); ref.isValid()) {
            emit jumpRequested(ref);
        }
    });
    // Double-clicking a step shows it on the timeline.
    connect(m_breakdown, &QTableWidget::cellDoubleClicked, this, [this](int row, int) {
        if (!m_result || row < 0 || std::size_t(row) >= m_result->overview.steps.size()) return;
        const StepRange& s = m_result->overview.steps[std::size_t(row)];
        emit rangeRequested(s.start, s.end);
    });
    layout->addWidget(m_facts);
    layout->addWidget(m_steps);
    layout->addLayout(batchRow);
    layout->addWidget(new QLabel(
        tr("<b>Step time breakdown</b> (each category takes only time no higher one claimed)"), body));
    layout->addWidget(m_chart);
    layout->addWidget(m_breakdown);
    layout->addWidget(new QLabel(tr("<b>GPU metrics</b> (hover the headers for their definitions)"), body));
    layout->addWidget(m_gpus);
    layout->addWidget(new QLabel(tr("<b>Recommendations</b>"), body));
    layout->addWidget(m_recommendations);
}

QString OverviewPanel::throughputText() const {
    return m_throughput->text();
}

void OverviewPanel::updateThroughput() {
    if (!m_result) return;
    const double sps = m_result->overview.stepsPerSecond;
    QString text = tr("%1 steps/s").arg(sps, 0, 'f', 2);
    if (m_batch->value() > 0) text += tr(" · %1 samples/s").arg(sps * m_batch->value(), 0, 'f', 1);
    m_throughput->setText(text);
}

void OverviewPanel::setResult(std::shared_ptr<const AnalysisResult> result) {
    m_result = result;
    const Overview& ov = result->overview;
    QString facts;
    for (const DeviceProperties& d : result->facts.devices) {
        facts += tr("<b>GPU %1</b>: %2 · %3 GiB · %4 SMs · compute capability %5.%6<br/>")
                     .arg(d.id)
                     .arg(QString::fromStdString(d.name).toHtmlEscaped())
                     .arg(double(d.totalGlobalMem) / double(1ll << 30), 0, 'f', 1)
                     .arg(d.numSms)
                     .arg(d.computeMajor)
                     .arg(d.computeMinor);
    }
    QStringList items;
    for (const auto& [k, v] : result->facts.facts)
        items << QStringLiteral("%1: <b>%2</b>")
                     .arg(QString::fromStdString(k).toHtmlEscaped(),
                          QString::fromStdString(v).toHtmlEscaped());
    facts += items.join(QStringLiteral(" · "));
    m_facts->setText(facts.isEmpty() ? tr("No device properties or version metadata in this trace.") : facts);
    m_steps->setText(tr("<b>Steps:</b> %1%2 · mean %3 · median %4 · min %5 · max %6")
                         .arg(ov.steps.size())
                         .arg(ov.syntheticStep
                                  ? tr(" (no ProfilerStep: one activity step, from the first CPU operator or "
                                       "Python frame to the end of the GPU work it launched)")
                                  : QString())
                         .arg(durationText(ov.stepMean), durationText(ov.stepMedian),
                              durationText(ov.stepMin), durationText(ov.stepMax)));
    updateThroughput();

    QStringList series;
    QVector<QColor> colors;
    for (std::size_t c = 0; c < breakdownCategoryCount; ++c) {
        series << QString::fromLatin1(breakdownCategoryName(BreakdownCategory(c)).data());
        colors << breakdownColors[c];
    }
    QStringList columns;
    std::vector<std::vector<double>> values;
    for (std::size_t i = 0; i < ov.breakdown.size(); ++i) {
        columns << QString::fromStdString(result->stepNames[i]).remove(QStringLiteral("ProfilerStep"));
        std::vector<double> v;
        for (TimeNs t : ov.breakdown[i].time)
            v.push_back(double(t));
        values.push_back(std::move(v));
    }
    m_chart->setData(columns, values, series, colors);

    m_breakdown->clear();
    m_breakdown->setColumnCount(int(breakdownCategoryCount) + 2);
    QStringList headers{tr("Step"), tr("Duration")};
    headers << series;
    m_breakdown->setHorizontalHeaderLabels(headers);
    // What each column counts (docs/DEFINITIONS.md, "Step-time breakdown"): each instant of a step goes to
    // the first category that covers it, in this order.
    static const char* const breakdownTips[breakdownCategoryCount] = {
        "GPU kernels that are not communication (highest priority)",
        "GPU memcpy not already under a kernel",
        "GPU memset not already claimed",
        "Collective kernels (NCCL/RCCL, DeepEP, custom all-reduce) and, on the CPU, nccl:*/gloo:*/c10d:: "
        "ranges",
        "Runtime and driver calls (cudaLaunchKernel, cuLaunchKernel, synchronisation, ...)",
        "enumerate(DataLoader) ranges",
        "Operators and annotations on the CPU, other than the steps",
        "The rest of the step: nothing recorded ran",
    };
    m_breakdown->horizontalHeaderItem(0)->setToolTip(
        tr("A ProfilerStep extended to the end of the GPU work it launched, or the one activity step"));
    m_breakdown->horizontalHeaderItem(1)->setToolTip(tr("The step's length"));
    for (std::size_t c = 0; c < breakdownCategoryCount; ++c)
        if (QTableWidgetItem* h = m_breakdown->horizontalHeaderItem(int(c) + 2))
            h->setToolTip(tr(breakdownTips[c]));
    // Hundreds of steps make a table nobody reads and cost the UI thread; the chart shows them all, the table
    // the first 200 and the total over every step.
    constexpr std::size_t maxSteps = 200;
    const std::size_t listed = std::min(ov.breakdown.size(), maxSteps);
    m_breakdown->setRowCount(int(listed) + 1);
    TimeNs totalSpan = 0;
    for (std::size_t i = 0; i <= listed; ++i) {
        const bool total = i == listed;
        const auto& times = total ? ov.breakdownTotal : ov.breakdown[i].time;
        TimeNs span = 0;
        for (TimeNs t : times)
            span += t;
        if (!total) totalSpan += span;
        m_breakdown->setItem(int(i), 0,
                             new QTableWidgetItem(total ? (listed < ov.breakdown.size()
                                                               ? tr("All %1 steps").arg(ov.breakdown.size())
                                                               : tr("All steps"))
                                                        : QString::fromStdString(result->stepNames[i])));
        m_breakdown->setItem(int(i), 1, numberItem(durationText(span), double(span)));
        for (std::size_t c = 0; c < breakdownCategoryCount; ++c) {
            m_breakdown->setItem(
                int(i), int(c) + 2,
                numberItem(QStringLiteral("%1 (%2)").arg(durationText(times[c]),
                                                         pct(span ? double(times[c]) / double(span) : 0)),
                           double(times[c])));
        }
    }
    m_breakdown->resizeColumnsToContents();

    m_gpus->setRowCount(int(ov.gpus.size()));
    for (std::size_t i = 0; i < ov.gpus.size(); ++i) {
        const GpuMetrics& g = ov.gpus[i];
        m_gpus->setItem(int(i), 0, new QTableWidgetItem(QStringLiteral("GPU %1").arg(g.device)));
        m_gpus->setItem(int(i), 1, numberItem(pct(g.utilization), g.utilization));
        m_gpus->setItem(int(i), 2, numberItem(pct(g.busyOfWall), g.busyOfWall));
        m_gpus->setItem(int(i), 3, numberItem(g.hasSmData ? pct(g.smEfficiency) : tr("n/a"), g.smEfficiency));
        m_gpus->setItem(int(i), 4,
                        numberItem(g.hasOccupancyData
                                       ? QString::number(g.achievedOccupancy, 'f', 1) + QLatin1Char('%')
                                       : tr("n/a"),
                                   g.achievedOccupancy));
        m_gpus->setItem(int(i), 5, numberItem(pct(g.tensorCoreShare), g.tensorCoreShare));
    }
    m_gpus->resizeColumnsToContents();

    QString html;
    if (ov.recommendations.empty()) html = tr("<p>Nothing stands out: no rule fired for this scope.</p>");
    for (const Recommendation& r : ov.recommendations) {
        QString link;
        if (r.example.isValid())
            link = QStringLiteral(" <a href=\"%1\">show</a>").arg(DetailsPanel::linkFor(r.example));
        else if (r.to > r.from)
            link = QStringLiteral(" <a href=\"range:%1:%2\">show</a>").arg(r.from).arg(r.to);
        html += QStringLiteral("<p><b>%1</b><br/><span style=\"color:#4b5563\">%2</span>%3</p>")
                    .arg(QString::fromStdString(r.title).toHtmlEscaped(),
                         QString::fromStdString(r.evidence).toHtmlEscaped(), link);
        if (r.example.isValid() && !r.exampleName.empty())
            html += QStringLiteral("<p style=\"margin-left:12px;color:#6b7280\">%1</p>")
                        .arg(tr("Example: %1 (%2)")
                                 .arg(QString::fromStdString(r.exampleName).toHtmlEscaped(),
                                      durationText(r.exampleDuration)));
    }
    m_recommendations->setHtml(html);
}

// ---- Operators
// -------------------------------------------------------------------------------------------------

// The call stack of one operator call, innermost first: its "Call stack" arg (legacy traces), else the Python
// frames (python_function) that enclose it on its thread, as with_stack traces record them.
QString callStackText(const TraceStore& store, EventRef ref) {
    if (!ref.isValid()) return {};
    for (const ArgField& f : decodeArgs(store, ref)) {
        if (f.key == "Call stack" || f.key == "Python stack")
            return QString::fromStdString(f.value).replace(QLatin1Char(';'), QLatin1Char('\n'));
    }
    const Track& t = store.track(ref.track);
    const std::vector<std::uint32_t> enclosing = enclosingRows(t, ref.index);
    QStringList frames;
    for (auto p = enclosing.rbegin(); p != enclosing.rend(); ++p) {
        if (store.categories[t.categories[*p]].kind != CategoryKind::PythonFunction) continue;
        const std::string_view name = store.strings.view(t.names[*p]);
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
                        tr("<b>Top 10</b> by the sorted column"), m_stack);
    m_grouping = t.grouping;
    m_filter = t.filter;
    m_proxy = t.proxy;
    m_view = t.view;
    m_chart = t.chart;
    connect(m_proxy, &QAbstractItemModel::layoutChanged, this, &OperatorPanel::updateChart);
    connect(m_proxy, &QAbstractItemModel::modelReset, this, &OperatorPanel::updateChart);
    connect(m_view->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this](const QModelIndex& current) {
                if (!current.isValid()) return;
                const EventRef ref = current.data(EventRole).value<EventRef>();
                m_stack->setPlainText(callStackText(m_store, ref));
            });
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

// ---- Kernels
// ---------------------------------------------------------------------------------------------------

KernelPanel::KernelPanel(const TraceStore& store, QWidget* parent) : AnalysisPanel(parent), m_store(store) {
    m_model = new KernelTableModel(this);
    m_origin = new QLabel(this);
    m_origin->setWordWrap(true);
    m_origin->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_origin->setAlignment(Qt::AlignTop | Qt::AlignLeft);
    const TablePanel t = buildTablePanel(
        this, m_model,
        {tr("Group by name"), tr("Group by name + launch (grid, block, registers, shared memory, operator)")},
        tr("Filter kernels…"), KernelTableModel::Total, tr("<b>GPU time by category</b>"), m_origin);
    m_grouping = t.grouping;
    m_filter = t.filter;
    m_proxy = t.proxy;
    m_view = t.view;
    m_categories = t.chart;
    connect(m_view->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this](const QModelIndex& current) {
                if (!current.isValid()) return;
                const EventRef kernel = current.data(EventRole).value<EventRef>();
                QStringList chain;
                if (const auto launch = m_store.launchOf(kernel)) {
                    const Track& t = m_store.track(launch->track);
                    chain << esc(m_store.nameOf(*launch));
                    const std::vector<std::uint32_t> enclosing = enclosingRows(t, launch->index);
                    for (auto p = enclosing.rbegin(); p != enclosing.rend(); ++p) {
                        const EventRef ref{launch->track, *p};
                        const bool python = m_store.categoryOf(ref).kind == CategoryKind::PythonFunction;
                        chain << (python ? QStringLiteral("<span style=\"color:#6d28d9\">%1</span>")
                                         : QStringLiteral("%1"))
                                     .arg(esc(m_store.nameOf(ref)));
                    }
                }
                m_origin->setText(
                    chain.isEmpty()
                        ? tr("No launch recorded for this kernel.")
                        : tr("<b>Launched from</b> (innermost first; Python frames in purple):<br/>") +
                              chain.join(QStringLiteral("<br/>")));
            });
}

KernelGrouping KernelPanel::grouping() const {
    return m_grouping->currentIndex() == 1 ? KernelGrouping::NameAndLaunch : KernelGrouping::Name;
}
void KernelPanel::setGrouping(KernelGrouping g) {
    m_grouping->setCurrentIndex(g == KernelGrouping::NameAndLaunch ? 1 : 0);
}

void KernelPanel::setResult(std::shared_ptr<const AnalysisResult> result) {
    m_model->setRows(result->kernels.rows);
    m_view->setColumnHidden(KernelTableModel::Launch,
                            result->kernelGrouping != KernelGrouping::NameAndLaunch);
    QVector<BarChart::Bar> bars;
    const TimelinePalette palette;
    // One colour of the name ring per category: 5 is prime to the ring's size, so the 14 categories get 14
    // colours.
    static_assert(kernelCategoryCount <= std::size_t(TimelinePalette::nameColors));
    for (std::size_t c = 0; c < kernelCategoryCount; ++c) {
        const TimeNs t = result->kernels.byCategory[c];
        if (t == 0) continue;
        const double share =
            result->kernels.totalKernelTime ? double(t) / double(result->kernels.totalKernelTime) : 0;
        bars.push_back(
            {QString::fromLatin1(kernelCategoryName(KernelCategory(c)).data()), double(t),
             QStringLiteral("%1 (%2)").arg(durationText(t), pct(share)),
             palette.color(TimelinePalette::categoryColors + int(c) * 5 % TimelinePalette::nameColors)});
    }
    std::sort(bars.begin(), bars.end(),
              [](const BarChart::Bar& a, const BarChart::Bar& b) { return a.value > b.value; });
    m_categories->setBars(bars);
}

// ---- Memory
// ----------------------------------------------------------------------------------------------------

MemoryPanel::MemoryPanel(const TraceStore& store, QWidget* parent) : AnalysisPanel(parent), m_store(store) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    m_curve = new MemoryCurve(store, this);
    m_summary = new QLabel(this);
    m_summary->setWordWrap(true);
    m_blocks = makeTable(
        this, {tr("Device"), tr("Size"), tr("Allocated at"), tr("Freed at"), tr("Lifetime"), tr("Operator")});
    m_blocks->setSortingEnabled(true);
    m_operators = makeTable(this, {tr("Operator"), tr("Calls"), tr("Allocations"), tr("Allocated"),
                                   tr("Size increase"), tr("Self size increase")});
    m_operators->setSortingEnabled(true);
    auto* tables = new QSplitter(Qt::Horizontal, this);
    tables->addWidget(m_blocks);
    tables->addWidget(m_operators);
    layout->addWidget(m_curve);
    layout->addWidget(m_summary);
    layout->addWidget(tables, 1);
    connect(m_curve, &MemoryCurve::rangeSelected, this,
            [this](qint64 a, qint64 b) { emit scopeRequested(a, b); });
    for (QTableWidget* t : {m_blocks, m_operators}) {
        connect(t, &QTableWidget::cellDoubleClicked, this, [this, t](int row, int) {
            const EventRef ref = t->item(row, 0)->data(EventRole).value<EventRef>();
            if (ref.isValid()) emit jumpRequested(ref);
        });
    }
}

void MemoryPanel::setResult(std::shared_ptr<const AnalysisResult> result) {
    const MemoryAnalysis& m = result->memory;
    if (result->scope)
        m_curve->setRange(result->scope->first, result->scope->second);
    else
        m_curve->setRange(m_store.minTime, m_store.maxTime);
    QStringList parts;
    for (const auto& [device, peak] : m.peaks) {
        QString part = tr("%1: peak allocated %2 MiB%3")
                           .arg(device < 0 ? tr("CPU") : tr("GPU %1").arg(device))
                           .arg(peak.allocated / 1048576.0, 0, 'f', 1)
                           .arg(peak.relative ? tr(" above the trace's start") : QString());
        if (peak.hasReserved) part += tr(", peak reserved %1 MiB").arg(peak.reserved / 1048576.0, 0, 'f', 1);
        parts << part;
    }
    std::size_t unfreed = 0, unpaired = 0;
    for (const MemoryBlock& b : m.blocks) {
        unfreed += b.paired && !b.freedAt;
        unpaired += !b.paired;
    }
    if (m.unaddressedEvents > 0) {
        // PyTorch before 1.10 wrote no addresses: an allocation's free cannot be known, so none is called
        // unfreed.
        parts << tr("%1 allocations, %2 frees; this trace records no addresses (PyTorch before 1.10), so "
                    "allocations are "
                    "not paired with their frees, and the curve is the running sum of their sizes from the "
                    "trace's start")
                     .arg(m.blocks.size())
                     .arg(m.frees);
        if (unpaired < m.blocks.size())
            parts << tr("%1 allocations with addresses, %2 never freed in scope")
                         .arg(m.blocks.size() - unpaired)
                         .arg(unfreed);
    } else {
        parts << tr("%1 allocations (%2 never freed in scope), %3 frees without an allocation")
                     .arg(m.blocks.size())
                     .arg(unfreed)
                     .arg(m.unmatchedFrees);
    }
    QString text = parts.join(QStringLiteral(" · "));
    if (!m.outOfMemory.empty()) {
        text = tr("<span style=\"color:#b91c1c\"><b>⚠ %n out-of-memory event(s)</b> — the first at %1 from "
                  "the start.</span><br/>",
                  nullptr, int(m.outOfMemory.size()))
                   .arg(QString::fromStdString(formatDuration(
                       m_store.tracks[m.outOfMemory[0].track.value].starts[m.outOfMemory[0].index] -
                       m_store.minTime))) +
               text;
    }
    m_summary->setText(text);

    // The table shows the largest allocations (filling a table widget costs ~5 µs a cell on the UI thread);
    // the summary above counts them all.
    constexpr std::size_t maxRows = 2000;
    std::vector<const MemoryBlock*> shown;
    shown.reserve(m.blocks.size());
    for (const MemoryBlock& b : m.blocks)
        shown.push_back(&b);
    if (shown.size() > maxRows) {
        std::partial_sort(shown.begin(), shown.begin() + maxRows, shown.end(),
                          [](const MemoryBlock* a, const MemoryBlock* b) { return a->bytes > b->bytes; });
        shown.resize(maxRows);
        text +=
            tr("<br/>The table lists the %1 largest of %2 allocations.").arg(maxRows).arg(m.blocks.size());
        m_summary->setText(text);
    }
    m_blocks->setSortingEnabled(false);
    m_blocks->setRowCount(int(shown.size()));
    for (std::size_t i = 0; i < shown.size(); ++i) {
        const MemoryBlock& b = *shown[i];
        auto* device = new QTableWidgetItem(b.device < 0 ? tr("CPU") : tr("GPU %1").arg(b.device));
        device->setData(EventRole, QVariant::fromValue(b.allocation));
        if (b.paired && !b.freedAt) device->setForeground(QColor(0xb4, 0x53, 0x09));
        m_blocks->setItem(int(i), 0, device);
        m_blocks->setItem(
            int(i), 1,
            numberItem(QString::number(b.bytes / 1024.0, 'f', 1) + QStringLiteral(" KiB"), b.bytes));
        m_blocks->setItem(int(i), 2,
                          numberItem(QString::fromStdString(formatDuration(b.allocatedAt - m_store.minTime)),
                                     double(b.allocatedAt)));
        const QString notFreed = b.paired ? tr("not freed") : tr("unknown (no address)");
        m_blocks->setItem(
            int(i), 3,
            numberItem(b.freedAt ? QString::fromStdString(formatDuration(*b.freedAt - m_store.minTime))
                                 : notFreed,
                       b.freedAt ? double(*b.freedAt) : 1e30));
        m_blocks->setItem(int(i), 4,
                          numberItem(b.freedAt ? durationText(*b.freedAt - b.allocatedAt) : QString(),
                                     b.freedAt ? double(*b.freedAt - b.allocatedAt) : 1e30));
        m_blocks->setItem(
            int(i), 5,
            new QTableWidgetItem(
                b.operatorName
                    ? QString::fromUtf8(m_store.strings.view(StringId(*b.operatorName)).data(),
                                        qsizetype(m_store.strings.view(StringId(*b.operatorName)).size()))
                    : QString()));
    }
    m_blocks->setSortingEnabled(true);
    m_operators->setSortingEnabled(false);
    m_operators->setRowCount(int(m.operators.size()));
    for (std::size_t i = 0; i < m.operators.size(); ++i) {
        const MemoryOperatorRow& o = m.operators[i];
        const std::string_view name = m_store.strings.view(o.name);
        m_operators->setItem(int(i), 0,
                             new QTableWidgetItem(QString::fromUtf8(name.data(), qsizetype(name.size()))));
        m_operators->setItem(int(i), 1, numberItem(QString::number(o.calls), double(o.calls)));
        m_operators->setItem(int(i), 2, numberItem(QString::number(o.allocations), double(o.allocations)));
        m_operators->setItem(
            int(i), 3,
            numberItem(QString::number(o.allocatedBytes / 1048576.0, 'f', 2) + QStringLiteral(" MiB"),
                       o.allocatedBytes));
        m_operators->setItem(
            int(i), 4,
            numberItem(QString::number(o.sizeIncrease / 1048576.0, 'f', 2) + QStringLiteral(" MiB"),
                       o.sizeIncrease));
        m_operators->setItem(
            int(i), 5,
            numberItem(QString::number(o.selfSizeIncrease / 1048576.0, 'f', 2) + QStringLiteral(" MiB"),
                       o.selfSizeIncrease));
    }
    m_operators->setSortingEnabled(true);
    m_operators->sortByColumn(3, Qt::DescendingOrder);
}

// ---- Modules
// ---------------------------------------------------------------------------------------------------

ModulePanel::ModulePanel(const TraceStore& store, QWidget* parent) : AnalysisPanel(parent), m_store(store) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    m_empty = new QLabel(
        tr("This trace has no nn.Module frames (profile with with_stack=True and with_modules=True)."), this);
    m_tree = new QTreeWidget(this);
    m_tree->setColumnCount(6);
    m_tree->setHeaderLabels({tr("Module"), tr("Calls"), tr("Host total"), tr("Host self"), tr("Device total"),
                             tr("Device self")});
    m_tree->header()->setStretchLastSection(false);
    m_tree->header()->setSectionResizeMode(0, QHeaderView::Stretch);
    for (int c = 1; c < 6; ++c)
        m_tree->header()->resizeSection(c, 100);
    m_tree->setSortingEnabled(false);
    m_flame = new ModuleFlame(this);
    auto* split = new QSplitter(Qt::Vertical, this);
    split->addWidget(m_tree);
    split->addWidget(m_flame);
    layout->addWidget(m_empty);
    layout->addWidget(split, 1);
    auto select = [this](int node) {
        if (!m_result || node < 0) return;
        const EventRef ref = m_result->modules.nodes[std::size_t(node)].example;
        if (ref.isValid()) emit jumpRequested(ref);
    };
    connect(m_tree, &QTreeWidget::currentItemChanged, this, [select](QTreeWidgetItem* item) {
        if (item) select(item->data(0, Qt::UserRole).toInt());
    });
    connect(m_flame, &ModuleFlame::nodeClicked, this, [this](int node) {
        // Keep the tree in step with the flame graph; selecting the tree item jumps the timeline.
        for (QTreeWidgetItemIterator it(m_tree); *it; ++it) {
            if ((*it)->data(0, Qt::UserRole).toInt() == node) {
                m_tree->setCurrentItem(*it);
                break;
            }
        }
    });
}

void ModulePanel::setResult(std::shared_ptr<const AnalysisResult> result) {
    m_result = result;
    const ModuleTree& tree = result->modules;
    m_empty->setVisible(tree.nodes.empty());
    m_tree->clear();
    std::function<void(QTreeWidgetItem*, int)> add = [&](QTreeWidgetItem* parent, int n) {
        const ModuleNode& node = tree.nodes[std::size_t(n)];
        QStringList cols{QString::fromStdString(node.name), QString::number(node.occurrences),
                         durationText(node.hostTotal),      durationText(node.hostSelf),
                         durationText(node.deviceTotal),    durationText(node.deviceSelf)};
        auto* item = parent ? new QTreeWidgetItem(parent, cols) : new QTreeWidgetItem(m_tree, cols);
        item->setData(0, Qt::UserRole, n);
        for (int c = 1; c < 6; ++c)
            item->setTextAlignment(c, Qt::AlignRight | Qt::AlignVCenter);
        for (int child : node.children)
            add(item, child);
    };
    for (int r : tree.roots)
        add(nullptr, r);
    m_tree->expandToDepth(1);
    m_flame->setTree(&result->modules);
}

} // namespace kinetoscope
