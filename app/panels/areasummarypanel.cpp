#include "panels/areasummarypanel.h"

#include "model/textformat.h"
#include "query/lanelayout.h"

#include "tables/tablemodels.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QPushButton>

#include <QHeaderView>
#include <QLabel>
#include <QTableWidget>
#include <QVBoxLayout>

#include <algorithm>

namespace kinetoscope {

namespace {
const char* const groupingTitles[] = {"Name", "Category", "Track"};
} // namespace

AreaSummaryPanel::AreaSummaryPanel(const TraceStore& store, QWidget* parent)
    : QWidget(parent), m_store(store) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    auto* bar = new QHBoxLayout;
    bar->setContentsMargins(6, 3, 6, 3);
    m_grouping = new QComboBox(this);
    m_grouping->addItems({tr("Group by name"), tr("Group by category"), tr("Group by track")});
    m_caption = new QLabel(this);
    bar->addWidget(m_grouping);
    bar->addWidget(m_caption, 1);
    auto* query = new QPushButton(tr("Query these slices"), this);
    query->setToolTip(tr("Open the area's slices in the Query tab, as SQL to refine"));
    bar->addWidget(query);
    connect(query, &QPushButton::clicked, this, &AreaSummaryPanel::queryRequested);
    m_table = makeReadOnlyTable(this, {tr("Name"), tr("Count"), tr("Total"), tr("Self"), tr("Longest")});
    m_table->horizontalHeader()->setSectionResizeMode(0, QHeaderView::Stretch);
    m_table->setSortingEnabled(true);
    layout->addLayout(bar);
    layout->addWidget(m_table, 1);
    connect(m_grouping, &QComboBox::currentIndexChanged, this, &AreaSummaryPanel::groupingChanged);
    clear();
}

AreaGrouping AreaSummaryPanel::grouping() const {
    return AreaGrouping(std::clamp(m_grouping->currentIndex(), 0, 2));
}

void AreaSummaryPanel::setGrouping(AreaGrouping grouping) {
    m_grouping->setCurrentIndex(int(grouping));
}

void AreaSummaryPanel::clear() {
    m_table->setRowCount(0);
    m_caption->setText(tr("Ctrl+drag over lanes to select an area; its slices are summarised here."));
}

void AreaSummaryPanel::showSummary(const AreaSummary& summary, std::size_t trackCount) {
    m_table->setSortingEnabled(false);
    m_table->setRowCount(int(summary.rows.size()));
    int r = 0;
    m_table->horizontalHeaderItem(0)->setText(tr(groupingTitles[int(summary.grouping)]));
    for (const AreaSummaryRow& row : summary.rows) {
        const std::string label = summary.grouping == AreaGrouping::Track
                                      ? trackTitle(m_store, row.track)
                                      : std::string(m_store.strings().view(row.name));
        m_table->setItem(r, 0, new QTableWidgetItem(QString::fromStdString(label)));
        m_table->setItem(r, 1, new NumberItem(QString::number(row.count), double(row.count)));
        m_table->setItem(
            r, 2, new NumberItem(QString::fromStdString(formatDuration(row.total)), double(row.total)));
        m_table->setItem(r, 3,
                         new NumberItem(QString::fromStdString(formatDuration(row.self)), double(row.self)));
        m_table->setItem(
            r, 4,
            new NumberItem(QString::fromStdString(formatDuration(row.maxDuration)), double(row.maxDuration)));
        ++r;
    }
    m_table->setSortingEnabled(true);
    m_table->sortByColumn(2, Qt::DescendingOrder);
    static const char* const nouns[] = {"name", "category", "track"};
    static const char* const plurals[] = {"names", "categories", "tracks"};
    m_caption->setText(
        tr("%1, %2, over %3 on %4 (durations clipped to the selection)")
            .arg(QString::fromStdString(countText(summary.sliceCount, "slice")),
                 QString::fromStdString(countText(summary.rows.size(), nouns[int(summary.grouping)],
                                                  plurals[int(summary.grouping)])),
                 QString::fromStdString(formatDuration(summary.to - summary.from)),
                 QString::fromStdString(countText(trackCount, "track"))));
}

} // namespace kinetoscope
