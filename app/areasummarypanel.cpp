#include "areasummarypanel.h"

#include "tablemodels.h"

#include <QHeaderView>
#include <QLabel>
#include <QTableWidget>
#include <QVBoxLayout>

namespace kinetoscope {

AreaSummaryPanel::AreaSummaryPanel(const TraceStore& store, QWidget* parent)
    : QWidget(parent), m_store(store) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    m_caption = new QLabel(this);
    m_caption->setContentsMargins(6, 3, 6, 3);
    m_table = makeReadOnlyTable(this, {tr("Name"), tr("Count"), tr("Total"), tr("Self"), tr("Longest")});
    m_table->horizontalHeader()->setSectionResizeMode(0, QHeaderView::Stretch);
    m_table->setSortingEnabled(true);
    layout->addWidget(m_caption);
    layout->addWidget(m_table, 1);
    clear();
}

void AreaSummaryPanel::clear() {
    m_table->setRowCount(0);
    m_caption->setText(tr("Ctrl+drag over lanes to select an area; its slices are summarised here."));
}

void AreaSummaryPanel::showSummary(const AreaSummary& summary, std::size_t trackCount) {
    m_table->setSortingEnabled(false);
    m_table->setRowCount(int(summary.rows.size()));
    int r = 0;
    for (const AreaSummaryRow& row : summary.rows) {
        const std::string_view name = m_store.strings().view(row.name);
        m_table->setItem(r, 0, new QTableWidgetItem(QString::fromUtf8(name.data(), qsizetype(name.size()))));
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
    m_caption->setText(tr("%1 slices, %2 names, over %3 on %4 tracks (durations clipped to the selection)")
                           .arg(summary.sliceCount)
                           .arg(summary.rows.size())
                           .arg(QString::fromStdString(formatDuration(summary.to - summary.from)))
                           .arg(trackCount));
}

} // namespace kinetoscope
