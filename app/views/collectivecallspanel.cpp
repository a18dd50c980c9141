#include "views/collectivecallspanel.h"

#include "analysis/jobs/distributed.h"
#include "tables/tablecells.h"

#include <QHeaderView>
#include <QLabel>
#include <QSplitter>
#include <QTableWidget>
#include <QVBoxLayout>

namespace kinetoscope {

namespace {
QString rankName(const RankFigures& r) {
    return r.rank >= 0 ? QObject::tr("rank %1").arg(r.rank) : QString::fromStdString(r.source);
}
} // namespace

CollectiveCallsPanel::CollectiveCallsPanel(const JobReport& job, QWidget* parent)
    : QWidget(parent), m_job(job) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    m_title = new QLabel(tr("Double-click a collective above for its calls on every rank."), this);
    m_title->setStyleSheet(QStringLiteral("QLabel{padding:2px 6px}"));
    layout->addWidget(m_title);
    auto* split = new QSplitter(Qt::Horizontal, this);
    m_calls = makeReadOnlyTable(split, {tr("Step"), tr("Call"), tr("Ranks"), tr("Last to arrive"),
                                        tr("Others waited"), tr("Arrivals spread")});
    m_calls->horizontalHeaderItem(1)->setToolTip(tr("Its run in the step, counted within its process group"));
    m_ranks = makeReadOnlyTable(split, {tr("Rank"), tr("Arrival"), tr("Waited"), tr("Kernel")});
    m_ranks->horizontalHeaderItem(1)->setToolTip(tr("After the first rank to arrive"));
    m_ranks->horizontalHeaderItem(3)->setToolTip(tr("Double-click: the kernel on its rank's timeline"));
    layout->addWidget(split, 1);
    connect(m_calls, &QTableWidget::currentCellChanged, this, [this](int row) {
        if (row >= 0) showCall(m_calls->item(row, 0)->data(Qt::UserRole).toULongLong());
    });
    connect(m_ranks, &QTableWidget::cellDoubleClicked, this, [this](int row) {
        if (m_shownCall >= m_callList.size()) return;
        const std::size_t i = m_ranks->item(row, 0)->data(Qt::UserRole).toULongLong();
        const CollectiveCallRank& r = m_callList[m_shownCall].ranks.at(i);
        emit kernelRequested(r.rank, r.start, r.end);
    });
}

void CollectiveCallsPanel::showCollective(std::size_t collective) {
    m_callList = collectiveCalls(m_job, collective);
    const CollectiveSpread& c = m_job.collectives.at(collective);
    m_title->setText(
        tr("<b>%1</b>%2: %3, the k-th run in each step on every rank (%4)")
            .arg(QString::fromStdString(collectiveLabel(c.name, c.group)).toHtmlEscaped(),
                 c.messageBytes > 0 ? QStringLiteral(" · ") + bytesText(c.messageBytes) : QString(),
                 tr("%n call(s)", nullptr, int(m_callList.size())),
                 m_job.sharedClock ? tr("arrivals by the traces' clock")
                                   : tr("each call aligned on its end")));
    m_calls->setSortingEnabled(false);
    m_calls->setRowCount(int(m_callList.size()));
    for (std::size_t i = 0; i < m_callList.size(); ++i) {
        const CollectiveCall& call = m_callList[i];
        auto* step = new QTableWidgetItem(QString::fromStdString(m_job.steps.at(call.step).name));
        step->setData(Qt::UserRole, qulonglong(i));
        m_calls->setItem(int(i), 0, step);
        m_calls->setItem(int(i), 1, new NumberItem(QString::number(call.k + 1), double(call.k + 1)));
        m_calls->setItem(int(i), 2,
                         new NumberItem(QString::number(call.ranks.size()), double(call.ranks.size())));
        m_calls->setItem(int(i), 3,
                         new QTableWidgetItem(call.ranks.size() < 2 ? QString()
                                              : call.tied           ? tr("tie")
                                                          : rankName(m_job.ranks[call.lastRank()])));
        m_calls->setItem(int(i), 4,
                         new NumberItem(durationText(call.othersWaited), double(call.othersWaited)));
        const TimeNs spread = call.ranks.empty() ? 0 : call.ranks.back().arrival;
        m_calls->setItem(int(i), 5, new NumberItem(durationText(spread), double(spread)));
    }
    // In step and call order until the user sorts by a column (no indicator: no sort).
    m_calls->horizontalHeader()->setSortIndicator(-1, Qt::AscendingOrder);
    m_calls->setSortingEnabled(true);
    m_ranks->setRowCount(0);
    if (!m_callList.empty()) {
        m_calls->setCurrentCell(0, 0); // no signal when the cell was current already: shown here
        showCall(m_calls->item(0, 0)->data(Qt::UserRole).toULongLong());
    }
}

void CollectiveCallsPanel::showCall(std::size_t index) {
    if (index >= m_callList.size()) return;
    m_shownCall = index;
    const CollectiveCall& call = m_callList[index];
    m_ranks->setSortingEnabled(false);
    m_ranks->setRowCount(int(call.ranks.size()));
    for (std::size_t i = 0; i < call.ranks.size(); ++i) {
        const CollectiveCallRank& r = call.ranks[i];
        auto* rank = new QTableWidgetItem(rankName(m_job.ranks[r.rank]));
        rank->setData(Qt::UserRole, qulonglong(i));
        m_ranks->setItem(int(i), 0, rank);
        m_ranks->setItem(int(i), 1, new NumberItem(durationText(r.arrival), double(r.arrival)));
        m_ranks->setItem(int(i), 2, new NumberItem(durationText(r.waited), double(r.waited)));
        m_ranks->setItem(int(i), 3, new NumberItem(durationText(r.end - r.start), double(r.end - r.start)));
    }
    m_ranks->setSortingEnabled(true);
    m_ranks->sortByColumn(1, Qt::AscendingOrder); // arrival order, the last rank last
}

} // namespace kinetoscope
