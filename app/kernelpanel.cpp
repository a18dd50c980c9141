#include "kernelpanel.h"

#include "query/enclosing.h"

#include "barchart.h"
#include "detailspanel.h"
#include "memorycurve.h"
#include "moduleflame.h"
#include "panelparts.h"
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
    fitColumns(m_view);
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
             QStringLiteral("%1 (%2)").arg(durationText(t), percentText(share)),
             palette.color(TimelinePalette::categoryColors + int(c) * 5 % TimelinePalette::nameColors)});
    }
    std::sort(bars.begin(), bars.end(),
              [](const BarChart::Bar& a, const BarChart::Bar& b) { return a.value > b.value; });
    m_categories->setBars(bars);
}

} // namespace kinetoscope
