#include "views/jobfigures.h"

#include "analysis/report/sections.h"
#include "charts/rankheatmap.h"
#include "charts/stackedcolumnchart.h"
#include "model/textformat.h"
#include "panels/panelparts.h"
#include "tables/rowsmodel.h"
#include "tables/tablecells.h"

#include <QComboBox>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QTableView>
#include <QTableWidget>
#include <QVBoxLayout>

namespace kinetoscope {

namespace {
QString rankText(const RankFigures& r) {
    return QString::fromStdString(rankLabel(r));
}

void setDuration(QTableWidget* t, int row, int column, TimeNs v) {
    t->setItem(row, column, new NumberItem(durationText(v), double(v)));
}

QString spreadText(const Spread& s) {
    return QStringLiteral("%1 / %2 / %3 / %4")
        .arg(durationText(s.min), durationText(s.median), durationText(s.p90), durationText(s.max));
}

void finish(QTableWidget* t, int sortColumn, Qt::SortOrder order) {
    // Sorted explicitly: enabling sorting alone sorts by the header's default indicator.
    t->setSortingEnabled(true);
    t->sortByColumn(sortColumn, order);
    t->resizeColumnsToContents();
    t->horizontalHeader()->setStretchLastSection(false);
}
} // namespace

JobFigures::JobFigures(const JobReport& job, QWidget* parent) : QWidget(parent), m_job(job) {
    auto* layout = new QVBoxLayout(this);
    // What was read, and what is wrong with it: said first.
    QStringList facts;
    facts << tr("<b>%1</b>").arg(QString::fromStdString(countText(job.ranks.size(), "rank")));
    if (job.worldSize > 0) facts.last() += tr(" of a world of %1").arg(job.worldSize);
    facts << QString::fromStdString(countText(job.steps.size(), "step"));
    if (!job.hosts.empty()) facts << QString::fromStdString(countText(job.hosts.size(), "host"));
    QString banner = facts.join(QStringLiteral(" · "));
    if (!job.unreadable.empty()) {
        banner += tr(" · <span style='color:#991b1b'>%1 not read</span>")
                      .arg(QString::fromStdString(countText(job.unreadable.size(), "file")));
    }
    for (const std::string& problem : job.problems)
        banner += QStringLiteral("<br><span style='color:#92400e'>%1</span>")
                      .arg(QString::fromStdString(problem).toHtmlEscaped());
    m_banner = new QLabel(banner, this);
    m_banner->setWordWrap(true);
    m_banner->setTextInteractionFlags(Qt::TextSelectableByMouse);
    if (!job.unreadable.empty()) {
        QStringList lines;
        for (const UnreadableFile& u : job.unreadable)
            lines << QString::fromStdString(u.error);
        m_banner->setToolTip(lines.join(QLatin1Char('\n')));
    }
    layout->addWidget(m_banner);
    m_message = new QLabel(this);
    m_message->setWordWrap(true);
    m_message->setStyleSheet(QStringLiteral("QLabel{color:#1e3a8a}"));
    m_message->hide();
    layout->addWidget(m_message);

    auto* split = new QSplitter(Qt::Vertical, this);
    // The heat map: every rank and step at once.
    auto* mapBox = new QWidget(split);
    auto* ml = new QVBoxLayout(mapBox);
    ml->setContentsMargins(0, 0, 0, 0);
    auto* mapBar = new QHBoxLayout;
    m_metric = new QComboBox(mapBox);
    m_metric->addItems({tr("Computation"), tr("Communication"), tr("Other"), tr("Step time")});
    m_metric->setToolTip(
        tr("Per step, the TensorBoard plugin's split of the GPU's time:\n"
           "Computation: only compute kernels run.\n"
           "Communication: only collectives (NCCL/RCCL) run.\n"
           "Overlap: both run at once.\n"
           "Other: neither runs: the GPU idles inside the step (waiting for the CPU, the data loader, a "
           "host synchronisation or another rank)."));
    auto* mapTitle = new QLabel(tr("<b>Ranks × steps</b>"), mapBox);
    mapBar->addWidget(mapTitle);
    mapBar->addWidget(m_metric);
    mapBar->addStretch(1);
    ml->addLayout(mapBar);
    m_heatMap = new RankHeatMap(mapBox);
    ml->addWidget(m_heatMap, 1);
    connect(m_metric, &QComboBox::currentIndexChanged, this, &JobFigures::showMetric);
    connect(m_heatMap, &RankHeatMap::cellActivated, this, &JobFigures::rankActivated);
    showMetric(0);

    // Stragglers, every one, sortable.
    auto* strBox = new QWidget(split);
    auto* sl = new QVBoxLayout(strBox);
    sl->setContentsMargins(0, 0, 0, 0);
    m_stragglerLabel = new QLabel(strBox);
    m_stragglerLabel->setWordWrap(true);
    m_stragglerLabel->setText(
        job.stragglers.empty()
            ? tr("<b>Stragglers</b>: none (in every step, every rank computes within 5% of the step's median "
                 "rank)")
            : tr("<b>Stragglers</b>: %1 (rank, step) the others wait for. First those that arrive last at "
                 "most "
                 "of a step's collectives while waiting less than the median rank, whatever their "
                 "computation; "
                 "then those whose computation exceeds the step's median rank's by more than 5%. The Cause "
                 "column says what the trace shows. Double-click a row to see that rank beside the median "
                 "rank.")
                  .arg(job.stragglers.size()));
    sl->addWidget(m_stragglerLabel);
    m_stragglers =
        makeReadOnlyTable(strBox, {tr("Rank"), tr("Host"), tr("Step"), tr("Others waited"),
                                   tr("Last to arrive"), tr("Excess"), tr("Computation"), tr("Step median"),
                                   tr("Ranks waiting"), tr("Waiting longest"), tr("Cause")});
    m_stragglers->setRowCount(int(job.stragglers.size()));
    for (std::size_t i = 0; i < job.stragglers.size(); ++i) {
        const StragglerRow& s = job.stragglers[i];
        const RankFigures& r = job.ranks[s.rank];
        int c = 0;
        auto* rankItem = new NumberItem(rankText(r), double(r.rank));
        rankItem->setData(Qt::UserRole, qulonglong(i));
        m_stragglers->setItem(int(i), c++, rankItem);
        m_stragglers->setItem(int(i), c++, new QTableWidgetItem(QString::fromStdString(r.host)));
        m_stragglers->setItem(int(i), c++, new QTableWidgetItem(QString::fromStdString(s.step)));
        setDuration(m_stragglers, int(i), c++, s.othersWaited);
        m_stragglers->setItem(
            int(i), c++,
            new NumberItem(s.operations ? tr("%1 of %2").arg(s.lastArrivals).arg(s.operations) : QString(),
                           double(s.lastArrivals)));
        setDuration(m_stragglers, int(i), c++, s.excess);
        setDuration(m_stragglers, int(i), c++, s.computation);
        setDuration(m_stragglers, int(i), c++, s.medianComputation);
        m_stragglers->setItem(int(i), c++,
                              new NumberItem(QString::number(s.waitingRanks), double(s.waitingRanks)));
        QStringList victims;
        for (const Victim& v : s.victims)
            victims << tr("%1 %2").arg(rankText(job.ranks[v.rank]), durationText(v.waited));
        m_stragglers->setItem(int(i), c++, new QTableWidgetItem(victims.join(QStringLiteral(", "))));
        QStringList causes;
        for (const std::string& cause : s.causes)
            causes << QString::fromStdString(cause);
        auto* cause = new QTableWidgetItem(causes.join(QStringLiteral("; ")));
        cause->setToolTip(causes.join(QLatin1Char('\n')));
        m_stragglers->setItem(int(i), c++, cause);
    }
    finish(m_stragglers, 3, Qt::DescendingOrder);
    connect(m_stragglers, &QTableWidget::cellDoubleClicked, this, [this](int row, int) {
        const QTableWidgetItem* item = m_stragglers->item(row, 0);
        if (!item) return;
        const StragglerRow& s = m_job.stragglers[item->data(Qt::UserRole).toULongLong()];
        for (std::size_t id = 0; id < m_job.steps.size(); ++id)
            if (m_job.steps[id].name == s.step) emit rankActivated(s.rank, id);
    });
    sl->addWidget(m_stragglers, 1);

    // Small jobs keep the chart of each rank's mean step and the rank table.
    if (job.ranks.size() <= smallJob) {
        auto* small = new QWidget(split);
        auto* bl = new QVBoxLayout(small);
        bl->setContentsMargins(0, 0, 0, 0);
        m_chart = new StackedColumnChart(small);
        QStringList columns;
        std::vector<std::vector<double>> values;
        for (const RankFigures& r : job.ranks) {
            columns << rankText(r);
            const double n = std::max<double>(1, double(r.steps.size()));
            values.push_back({double(r.computation) / n, double(r.overlap) / n, double(r.communication) / n,
                              double(r.other) / n});
        }
        m_chart->setData(columns, values,
                         {tr("computation"), tr("overlap"), tr("communication"), tr("other (GPU idle)")},
                         {QColor(0x5f, 0xbf, 0x8f), QColor(0x9c, 0xc9, 0x7a), QColor(0x3a, 0xa6, 0xa6),
                          QColor(0xb0, 0xb7, 0xc3)});
        m_chart->setToolTip(m_metric->toolTip());
        m_rankTable =
            makeReadOnlyTable(small, {tr("Rank"), tr("Steps"), tr("Mean step"), tr("Computation / step"),
                                      tr("Communication / step"), tr("Overlap / step"), tr("Other / step"),
                                      tr("Transfer"), tr("Synchronising"), tr("File")});
        for (int c = 3; c <= 6; ++c)
            m_rankTable->horizontalHeaderItem(c)->setToolTip(m_metric->toolTip());
        m_rankTable->horizontalHeaderItem(7)->setToolTip(tr(
            "Collective time spent moving data (the rest of each collective after the last rank arrived)"));
        m_rankTable->horizontalHeaderItem(8)->setToolTip(
            tr("Collective time spent waiting for the last rank to arrive"));
        m_rankTable->setRowCount(int(job.ranks.size()));
        for (std::size_t i = 0; i < job.ranks.size(); ++i) {
            const RankFigures& r = job.ranks[i];
            const TimeNs n = std::max<TimeNs>(1, TimeNs(r.steps.size()));
            int c = 0;
            m_rankTable->setItem(
                int(i), c++,
                new NumberItem(r.rank >= 0 ? QString::number(r.rank) : QStringLiteral("?"), double(r.rank)));
            m_rankTable->setItem(int(i), c++,
                                 new NumberItem(QString::number(r.steps.size()), double(r.steps.size())));
            for (TimeNs v : {r.stepMean, r.computation / n, r.communication / n, r.overlap / n, r.other / n,
                             job.communication[i].transfer, job.communication[i].synchronization})
                setDuration(m_rankTable, int(i), c++, v);
            m_rankTable->setItem(
                int(i), c++, new QTableWidgetItem(QFileInfo(QString::fromStdString(r.source)).fileName()));
        }
        finish(m_rankTable, 0, Qt::AscendingOrder);
        auto* other = new QLabel(
            tr("<i>Other</i> is time inside the step when the GPU runs neither computation nor "
               "communication: "
               "it waits for the CPU (launch overhead, Python), the data loader, a host synchronisation, or "
               "another rank."),
            small);
        other->setWordWrap(true);
        bl->addWidget(m_chart, 1);
        bl->addWidget(other);
        bl->addWidget(m_rankTable, 1);
    }
    layout->addWidget(split, 1);
}

void JobFigures::say(const QString& message) {
    m_message->setText(message);
    m_message->setVisible(!message.isEmpty());
}

void JobFigures::showMetric(int metric) {
    QStringList ranks, steps;
    for (const RankFigures& r : m_job.ranks)
        ranks << rankText(r);
    for (const StepDistribution& s : m_job.steps)
        steps << QString::fromStdString(s.name);
    std::vector<std::vector<double>> values(m_job.ranks.size(), std::vector<double>(m_job.steps.size(), -1));
    std::unordered_map<std::string, std::size_t> stepIndex;
    for (std::size_t s = 0; s < m_job.steps.size(); ++s)
        stepIndex[m_job.steps[s].name] = s;
    for (std::size_t r = 0; r < m_job.ranks.size(); ++r)
        for (const RankStep& s : m_job.ranks[r].steps) {
            const TimeNs v = metric == 0   ? s.computation
                             : metric == 1 ? s.communication
                             : metric == 2 ? s.other
                                           : s.end - s.start;
            values[r][stepIndex[s.name]] = double(v);
        }
    m_heatMap->setData(ranks, steps, std::move(values), m_metric->itemText(metric));
}

QWidget* makePerRankTable(const JobReport& job, QWidget* parent) {
    auto* box = new QWidget(parent);
    auto* layout = new QVBoxLayout(box);
    auto* filter = new QLineEdit(box);
    filter->setPlaceholderText(QObject::tr("Filter by rank or file…"));
    filter->setClearButtonEnabled(true);
    auto* model =
        new RowsModel<JobRankRow>(jobRankColumns(),
                                  {"Rank", "Host", "Steps", "Mean step", "Computation", "Communication",
                                   "Overlap", "Other", "Collectives", "Transfer", "Synchronising", "File"},
                                  box);
    model->setRows(jobRankRows(job));
    QSortFilterProxyModel* proxy = panel::makeProxy(box, model);
    proxy->setFilterKeyColumn(-1);
    proxy->setFilterRole(Qt::DisplayRole);
    QTableView* view = panel::makeView(box, proxy);
    view->setObjectName(QStringLiteral("perRankTable"));
    // Paths differ at their end (rank3.json, rank4.json): elided on the left, the file name shows, where the
    // default showed "/tmp/...ata/..." on every row.
    view->setTextElideMode(Qt::ElideLeft);
    view->sortByColumn(0, Qt::AscendingOrder);
    view->horizontalHeader()->resizeSection(0, 80);
    QObject::connect(filter, &QLineEdit::textChanged, proxy, &QSortFilterProxyModel::setFilterFixedString);
    auto* note = new QLabel(
        QObject::tr("Times are sums over each rank's steps; hover a header for its definition."), box);
    layout->addWidget(filter);
    layout->addWidget(view, 1);
    layout->addWidget(note);
    return box;
}

QTableWidget* makeStepDistributionTable(const JobReport& job, QWidget* parent) {
    QTableWidget* t = makeReadOnlyTable(parent, {QObject::tr("Step"), QObject::tr("Ranks"),
                                                 QObject::tr("Step time (min / median / p90 / max)"),
                                                 QObject::tr("Computation"), QObject::tr("Communication"),
                                                 QObject::tr("Median rank"), QObject::tr("Slowest step"),
                                                 QObject::tr("Slowest rank")});
    const QString spread =
        QObject::tr("Across the ranks that have this step: the shortest, the median rank's "
                    "(nearest rank), the 90th percentile and the longest");
    t->horizontalHeaderItem(1)->setToolTip(QObject::tr("Ranks whose trace has this step (matched by name)"));
    for (int c = 2; c <= 4; ++c)
        t->horizontalHeaderItem(c)->setToolTip(spread);
    t->horizontalHeaderItem(3)->setToolTip(spread + QObject::tr(", of the time only compute kernels run"));
    t->horizontalHeaderItem(4)->setToolTip(spread + QObject::tr(", of the time only collectives run"));
    t->horizontalHeaderItem(5)->setToolTip(
        QObject::tr("The rank whose computation is the step's median: stragglers are measured against it"));
    t->setObjectName(QStringLiteral("stepTable"));
    t->setRowCount(int(job.steps.size()));
    for (std::size_t i = 0; i < job.steps.size(); ++i) {
        const StepDistribution& s = job.steps[i];
        int c = 0;
        auto* name = new NumberItem(QString::fromStdString(s.name), double(i));
        t->setItem(int(i), c++, name);
        t->setItem(int(i), c++, new NumberItem(QString::number(s.ranks), double(s.ranks)));
        for (const Spread* spread : {&s.stepTime, &s.computation, &s.communication})
            t->setItem(int(i), c++, new NumberItem(spreadText(*spread), double(spread->median)));
        t->setItem(int(i), c++,
                   new QTableWidgetItem(job.ranks.empty() ? QString() : rankText(job.ranks[s.medianRank])));
        // The slowest rank's time in a column of its own, to sort on (the spread sorts by its median).
        setDuration(t, int(i), c++, s.stepTime.max);
        t->setItem(int(i), c++,
                   new QTableWidgetItem(job.ranks.empty() ? QString()
                                        : s.slowestTied   ? QObject::tr("tie")
                                                          : rankText(job.ranks[s.slowestRank])));
    }
    finish(t, 0, Qt::AscendingOrder);
    return t;
}

QTableWidget* makeCollectiveSpreadTable(const JobReport& job, QWidget* parent) {
    QTableWidget* t = makeReadOnlyTable(
        parent, {QObject::tr("Collective"), QObject::tr("Size"), QObject::tr("Ranks"),
                 QObject::tr("Calls / rank"), QObject::tr("Total per rank (min / median / p90 / max)"),
                 QObject::tr("Synchronising (median)"), QObject::tr("Last to arrive")});
    t->horizontalHeaderItem(1)->setToolTip(QObject::tr("One call's message size, as nccl-tests counts it"));
    t->horizontalHeaderItem(4)->setToolTip(
        QObject::tr("Each rank's total time in this collective: shortest, median, 90th percentile, longest"));
    t->horizontalHeaderItem(5)->setToolTip(
        QObject::tr("The median rank's time waiting for the last rank to arrive, over its calls"));
    t->horizontalHeaderItem(6)->setToolTip(QObject::tr(
        "The ranks that started last most often (of the calls where one rank was last): the others "
        "waited for them"));
    t->setRowCount(int(job.collectives.size()));
    for (std::size_t i = 0; i < job.collectives.size(); ++i) {
        const CollectiveSpread& s = job.collectives[i];
        int c = 0;
        auto* name = new QTableWidgetItem(QString::fromStdString(collectiveLabel(s.name, s.group)));
        name->setData(Qt::UserRole, qulonglong(i)); // JobReport::collectives' index, whatever the sort
        name->setToolTip(QObject::tr("Double-click for its calls on every rank"));
        t->setItem(int(i), c++, name);
        t->setItem(
            int(i), c++,
            new NumberItem(s.messageBytes > 0 ? bytesText(s.messageBytes) : QString(), s.messageBytes));
        t->setItem(int(i), c++, new NumberItem(QString::number(s.ranks), double(s.ranks)));
        t->setItem(int(i), c++, new NumberItem(QString::number(s.callsPerRank), double(s.callsPerRank)));
        t->setItem(int(i), c++, new NumberItem(spreadText(s.total), double(s.total.median)));
        setDuration(t, int(i), c++, s.synchronization.median);
        QStringList last;
        for (const LastArrival& l : s.lastToArrive)
            last
                << QObject::tr("%1 (%2 of %3)").arg(rankText(job.ranks[l.rank])).arg(l.times).arg(s.compared);
        t->setItem(int(i), c++, new QTableWidgetItem(last.join(QStringLiteral(", "))));
    }
    finish(t, 4, Qt::DescendingOrder);
    return t;
}

} // namespace kinetoscope
