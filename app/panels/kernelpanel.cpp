#include "panels/kernelpanel.h"

#include <algorithm>

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

#include <array>

namespace kinetoscope {

using namespace panel;

KernelPanel::KernelPanel(const TraceStore& store, QWidget* parent) : AnalysisPanel(parent), m_store(store) {
    m_model = new KernelTableModel(this);
    m_origin = new QLabel(this);
    m_origin->setWordWrap(true);
    m_origin->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_origin->setAlignment(Qt::AlignTop | Qt::AlignLeft);
    const TablePanel t = buildTablePanel(
        this, m_model,
        {tr("Group by name"), tr("Group by name + launch (grid, block, registers, shared memory, operator)")},
        tr("Filter kernels…"), KernelTableModel::Total, tr("<b>GPU time by category</b>"), m_origin,
        {{KernelTableModel::Calls, false}, {KernelTableModel::Total, true}});
    m_grouping = t.grouping;
    m_filter = t.filter;
    m_proxy = t.proxy;
    m_view = t.view;
    m_categories = t.chart;
    m_total = t.total;
    // Grouped by launch, the launch (grid, block, registers, shared memory, operator) reads right after the
    // name, not off the right edge after every figure.
    m_view->horizontalHeader()->moveSection(m_view->horizontalHeader()->visualIndex(KernelTableModel::Launch),
                                            1);
    // The chart of GPU time by category sums the rows the table shows: a filter narrows it too.
    connect(m_proxy, &QAbstractItemModel::modelReset, this, &KernelPanel::updateCategories);
    connect(m_proxy, &QAbstractItemModel::rowsInserted, this, &KernelPanel::updateCategories);
    connect(m_proxy, &QAbstractItemModel::rowsRemoved, this, &KernelPanel::updateCategories);
    // Below the table: the sequences of kernels operators launch again and again (fusion candidates). A
    // kernel's name selects its row above; "show" the longest call on the timeline.
    // They share the height with the table in a splitter that leaves the table most of it.
    auto* tableSplit = qobject_cast<QSplitter*>(layout()->itemAt(layout()->count() - 1)->widget());
    auto* vertical = new QSplitter(Qt::Vertical, this);
    delete layout()->replaceWidget(tableSplit, vertical); // the old layout item is ours to delete
    vertical->addWidget(tableSplit);
    auto* box = new QWidget(vertical);
    auto* boxLayout = new QVBoxLayout(box);
    boxLayout->setContentsMargins(0, 4, 0, 0);
    boxLayout->addWidget(new QLabel(
        tr("<b>Kernel sequences</b> (what one operator launches, in order, by GPU time: fusion candidates)"),
        box));
    m_sequences = new QTextBrowser(box);
    m_sequences->setOpenLinks(false);
    boxLayout->addWidget(m_sequences, 1);
    vertical->addWidget(box);
    // The table keeps ten rows at the default split; the sequences take what is left, at least a few lines.
    vertical->setStretchFactor(0, 5);
    vertical->setStretchFactor(1, 1);
    vertical->setChildrenCollapsible(false);
    box->setMinimumHeight(60);
    connect(m_sequences, &QTextBrowser::anchorClicked, this, [this](const QUrl& url) {
        if (const EventRef ref = DetailsPanel::refFromLink(url); ref.isValid()) {
            emit jumpRequested(ref);
            return;
        }
        if (url.scheme() != QLatin1String("kernel") || !m_result) return;
        const QStringList at = url.path().split(QLatin1Char(':'));
        const std::size_t seq = at.value(0).toULongLong(), pos = at.value(1).toULongLong();
        if (seq >= m_result->kernelSequences.size() || pos >= m_result->kernelSequences[seq].work.size())
            return;
        selectKernel(QString::fromStdString(m_result->kernelSequences[seq].work[pos]));
    });
    connect(m_view->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this](const QModelIndex& current) {
                if (!current.isValid()) return;
                const EventRef kernel = current.data(EventRole).value<EventRef>();
                QStringList chain;
                if (const auto launch = m_store.launchOf(kernel)) {
                    const Track& t = m_store.track(launch->track);
                    chain << esc(m_store.nameOf(*launch));
                    const std::vector<std::uint32_t> enclosing = enclosingRows(t, launch->index.value);
                    for (auto p = enclosing.rbegin(); p != enclosing.rend(); ++p) {
                        const EventRef ref{launch->track, EventIndex(*p)};
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

bool KernelPanel::selectKernel(const QString& name) {
    m_filter->clear();
    for (int r = 0; r < m_proxy->rowCount(); ++r) {
        const QModelIndex index = m_proxy->index(r, 0);
        if (index.data(NameRole).toString() != name) continue;
        m_view->setCurrentIndex(index);
        m_view->scrollTo(index);
        return true;
    }
    return false;
}

KernelGrouping KernelPanel::grouping() const {
    return m_grouping->currentIndex() == 1 ? KernelGrouping::NameAndLaunch : KernelGrouping::Name;
}
void KernelPanel::setGrouping(KernelGrouping g) {
    m_grouping->setCurrentIndex(g == KernelGrouping::NameAndLaunch ? 1 : 0);
}

void KernelPanel::setResult(std::shared_ptr<const AnalysisResult> result) {
    m_result = result;
    m_model->setRows(result->kernels.rows);
    QString html;
    constexpr std::size_t listed = 30;
    for (std::size_t i = 0; i < std::min(listed, result->kernelSequences.size()); ++i) {
        const KernelSequence& k = result->kernelSequences[i];
        QStringList kernels;
        for (std::size_t j = 0; j < k.work.size(); ++j)
            kernels << QStringLiteral("<a href=\"kernel:%1:%2\">%3</a>")
                           .arg(i)
                           .arg(j)
                           .arg(QString::fromStdString(shortKernelName(k.work[j])).toHtmlEscaped());
        html += tr("<p><b>%1</b> ×%2 · GPU %3 · CPU %4 · <a href=\"%5\">show</a><br/>%6</p>")
                    .arg(QString::fromStdString(k.op).toHtmlEscaped())
                    .arg(k.count)
                    .arg(durationText(k.gpuTime), durationText(k.cpuTime), DetailsPanel::linkFor(k.example),
                         kernels.join(QStringLiteral(" → ")));
    }
    m_sequences->setHtml(
        html.isEmpty() ? tr("<p>No operator in this scope launches three or more kernels.</p>") : html);
    m_view->setColumnHidden(KernelTableModel::Launch,
                            result->kernelGrouping != KernelGrouping::NameAndLaunch);
    // Inductor's bandwidth and FLOP/s, where its estimates are in the trace (TORCHINDUCTOR_BENCHMARK_KERNEL=1
    // or a trace augmented by profile_analysis).
    const auto any = [&](double KernelTableRow::*field) {
        return std::any_of(result->kernels.rows.begin(), result->kernels.rows.end(),
                           [&](const KernelTableRow& r) { return r.*field > 0; });
    };
    m_view->setColumnHidden(KernelTableModel::Gbps, !any(&KernelTableRow::achievedGbps));
    m_view->setColumnHidden(KernelTableModel::Tflops, !any(&KernelTableRow::achievedTflops));
    fitColumns(m_view);
    updateCategories();
}

void KernelPanel::updateCategories() {
    if (!m_result) return;
    // GPU time by category over the rows shown (all of them unless filtered), as a share of all kernel time.
    std::array<TimeNs, kernelCategoryCount> byCategory{};
    for (int r = 0; r < m_proxy->rowCount(); ++r) {
        const int source = m_proxy->mapToSource(m_proxy->index(r, 0)).row();
        const KernelTableRow& row = m_model->row(source);
        byCategory[std::size_t(row.category)] += row.total;
    }
    QVector<BarChart::Bar> bars;
    const TimelinePalette palette;
    // One colour of the name ring per category: 5 is prime to the ring's size, so the 15 categories get 15
    // colours.
    static_assert(kernelCategoryCount <= std::size_t(TimelinePalette::nameColors));
    const TimeNs all = m_result->kernels.totalKernelTime;
    for (std::size_t c = 0; c < kernelCategoryCount; ++c) {
        const TimeNs t = byCategory[c];
        if (t == 0) continue;
        const double share = all ? double(t) / double(all) : 0;
        bars.push_back(
            {QString::fromLatin1(kernelCategoryName(KernelCategory(c)).data()), double(t),
             QStringLiteral("%1 (%2)").arg(durationText(t), percentText(share)),
             palette.color(TimelinePalette::categoryColors + int(c) * 5 % TimelinePalette::nameColors)});
    }
    std::sort(bars.begin(), bars.end(),
              [](const BarChart::Bar& a, const BarChart::Bar& b) { return a.value > b.value; });
    m_categories->setBars(bars);
}

} // namespace kinetoscope
