#include "panels/memorypanel.h"

#include "model/textformat.h"

#include "query/enclosing.h"

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
        m_curve->setRange(m_store.minTime(), m_store.maxTime());
    QStringList parts;
    for (const auto& [device, peak] : m.peaks) {
        QString part = tr("%1: peak allocated %2%3")
                           .arg(device < 0 ? tr("CPU") : tr("GPU %1").arg(device), bytesText(peak.allocated),
                                peak.relative ? tr(" above the trace's start") : QString());
        if (peak.hasReserved) part += tr(", peak reserved %1").arg(bytesText(peak.reserved));
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
        text = tr("<span style=\"color:#b91c1c\"><b>⚠ %1</b> — the first at %2 from the start.</span><br/>")
                   .arg(QString::fromStdString(countText(m.outOfMemory.size(), "out-of-memory event")))
                   .arg(QString::fromStdString(formatDuration(
                       m_store.tracks()[m.outOfMemory[0].track.value].starts[m.outOfMemory[0].index.value] -
                       m_store.minTime()))) +
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
        m_blocks->setItem(int(i), 1, numberItem(bytesText(b.bytes), b.bytes));
        m_blocks->setItem(
            int(i), 2,
            numberItem(QString::fromStdString(formatDuration(b.allocatedAt - m_store.minTime())),
                       double(b.allocatedAt)));
        const QString notFreed = b.paired ? tr("not freed") : tr("unknown (no address)");
        m_blocks->setItem(
            int(i), 3,
            numberItem(b.freedAt ? QString::fromStdString(formatDuration(*b.freedAt - m_store.minTime()))
                                 : notFreed,
                       b.freedAt ? double(*b.freedAt) : 1e30));
        m_blocks->setItem(int(i), 4,
                          numberItem(b.freedAt ? durationText(*b.freedAt - b.allocatedAt) : QString(),
                                     b.freedAt ? double(*b.freedAt - b.allocatedAt) : 1e30));
        m_blocks->setItem(
            int(i), 5,
            new QTableWidgetItem(
                b.operatorName
                    ? QString::fromUtf8(m_store.strings().view(StringId(*b.operatorName)).data(),
                                        qsizetype(m_store.strings().view(StringId(*b.operatorName)).size()))
                    : QString()));
    }
    m_blocks->setSortingEnabled(true);
    m_operators->setSortingEnabled(false);
    m_operators->setRowCount(int(m.operators.size()));
    for (std::size_t i = 0; i < m.operators.size(); ++i) {
        const MemoryOperatorRow& o = m.operators[i];
        const std::string_view name = m_store.strings().view(o.name);
        m_operators->setItem(int(i), 0,
                             new QTableWidgetItem(QString::fromUtf8(name.data(), qsizetype(name.size()))));
        m_operators->setItem(int(i), 1, numberItem(QString::number(o.calls), double(o.calls)));
        m_operators->setItem(int(i), 2, numberItem(QString::number(o.allocations), double(o.allocations)));
        m_operators->setItem(int(i), 3, numberItem(bytesText(o.allocatedBytes), o.allocatedBytes));
        m_operators->setItem(int(i), 4, numberItem(bytesText(o.sizeIncrease), o.sizeIncrease));
        m_operators->setItem(int(i), 5, numberItem(bytesText(o.selfSizeIncrease), o.selfSizeIncrease));
    }
    m_operators->setSortingEnabled(true);
    m_operators->sortByColumn(3, Qt::DescendingOrder);
}

} // namespace kinetoscope
