#include "panels/panelparts.h"

#include "charts/barchart.h"
#include "tables/tablemodels.h"

#include <algorithm>
#include <cmath>

#include <QAbstractTextDocumentLayout>
#include <QComboBox>
#include <QEvent>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QScrollArea>
#include <QScrollBar>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QStyle>
#include <QTableView>
#include <QTableWidget>
#include <QTextBrowser>
#include <QTextDocument>
#include <QVBoxLayout>

namespace kinetoscope::panel {

QString esc(std::string_view s) {
    return QString::fromUtf8(s.data(), qsizetype(s.size())).toHtmlEscaped();
}

QTableWidgetItem* numberItem(const QString& text, double sortValue) {
    return new NumberItem(text, sortValue);
}

QTableWidget* makeTable(QWidget* parent, const QStringList& headers) {
    QTableWidget* t = makeReadOnlyTable(parent, headers);
    // No stretched last column: its right-aligned numbers would sit a window's width from their header.
    t->horizontalHeader()->setStretchLastSection(false);
    return t;
}

void growWithContent(QTextBrowser* browser) {
    browser->setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    browser->setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Fixed);
    // The document lays out again at each width; its height then is the section's.
    QObject::connect(browser->document()->documentLayout(), &QAbstractTextDocumentLayout::documentSizeChanged,
                     browser, [browser](const QSizeF& size) {
                         const int margins = 2 * browser->frameWidth() + browser->contentsMargins().top() +
                                             browser->contentsMargins().bottom();
                         browser->setFixedHeight(int(std::ceil(size.height())) + margins);
                     });
}

namespace {
// Fits a table's height again when its width changes: the horizontal bar comes and goes with it.
class RowsHeightKeeper : public QObject {
  public:
    using QObject::QObject;
    bool eventFilter(QObject* watched, QEvent* e) override {
        if (e->type() == QEvent::Resize) fitHeightToRows(static_cast<QTableWidget*>(watched));
        return false;
    }
};
} // namespace

void fitHeightToRows(QTableWidget* table) {
    table->setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    table->setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Fixed);
    if (!table->property("kinetoscopeFitsRows").toBool()) {
        table->setProperty("kinetoscopeFitsRows", true);
        table->installEventFilter(new RowsHeightKeeper(table));
    }
    int height = 2 * table->frameWidth() + table->horizontalHeader()->height();
    for (int r = 0; r < table->rowCount(); ++r)
        height += table->rowHeight(r);
    // Room for the horizontal bar when the columns are wider than the table.
    if (table->horizontalHeader()->length() > table->viewport()->width())
        height += table->horizontalScrollBar()->sizeHint().height();
    table->setFixedHeight(height);
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
    // A long name keeps its end, which tells kernels apart ("vectorized_elementwise_kernel<...> (mul)").
    v->setTextElideMode(Qt::ElideMiddle);
    return v;
}

QSortFilterProxyModel* makeProxy(QObject* parent, QAbstractItemModel* model) {
    auto* proxy = new QSortFilterProxyModel(parent);
    proxy->setSourceModel(model);
    proxy->setSortRole(SortRole);
    proxy->setFilterCaseSensitivity(Qt::CaseInsensitive);
    proxy->setFilterKeyColumn(0);
    // The filter matches the full name (NameRole), not the short one shown: search finds what the trace says.
    proxy->setFilterRole(NameRole);
    return proxy;
}

void fitColumns(QTableView* view) {
    view->resizeColumnsToContents();
    QHeaderView* header = view->horizontalHeader();
    header->setStretchLastSection(false);
    // resizeColumnsToContents leaves no room for the sort arrow: "Est. occupancy" came out clipped.
    const int arrow = view->style()->pixelMetric(QStyle::PM_HeaderMarkSize, nullptr, header) + 8;
    for (int c = 1; c < header->count(); ++c)
        if (!view->isColumnHidden(c))
            view->setColumnWidth(c, std::max(view->columnWidth(c), header->sectionSizeHint(c) + arrow));
    const int widest = std::max(480, view->viewport()->width() / 2);
    view->setColumnWidth(0, std::clamp(view->columnWidth(0), 200, widest));
}

QString totalText(const QSortFilterProxyModel* proxy, const QList<AdditiveColumn>& additive) {
    const int shown = proxy->rowCount();
    const int all = proxy->sourceModel() ? proxy->sourceModel()->rowCount() : shown;
    QString text = shown == all ? QObject::tr("%1 rows").arg(all)
                                : QObject::tr("Filtered: %1 of %2 rows").arg(shown).arg(all);
    for (const AdditiveColumn& a : additive) {
        double sum = 0;
        for (int r = 0; r < shown; ++r)
            sum += proxy->index(r, a.column).data(SortRole).toDouble();
        const QString header = proxy->headerData(a.column, Qt::Horizontal).toString();
        text += QStringLiteral(" · %1 %2")
                    .arg(header, a.time ? durationText(TimeNs(sum)) : QString::number(qint64(sum)));
    }
    return text;
}

TablePanel buildTablePanel(AnalysisPanel* panel, QAbstractItemModel* model, const QStringList& groupings,
                           const QString& filterHint, int sortColumn, const QString& sideTitle,
                           QWidget* detail, const QList<AdditiveColumn>& additive) {
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
    // The total of the rows shown, beside the filter (a line of its own would cost the table a row).
    t.total = new QLabel(panel);
    t.total->setStyleSheet(QStringLiteral("QLabel{color:#374151;padding:0 4px}"));
    bar->addWidget(t.total);
    auto* split = new QSplitter(Qt::Horizontal, panel);
    split->addWidget(t.view);
    auto* side = new QWidget(split);
    auto* sideLayout = new QVBoxLayout(side);
    sideLayout->setContentsMargins(0, 0, 0, 0);
    t.chart = new BarChart(side);
    sideLayout->addWidget(new QLabel(sideTitle, side));
    sideLayout->addWidget(t.chart);
    // The row's detail (a call chain can run to dozens of lines) scrolls in its own area: a panel's content
    // never asks for more height than the panel has.
    auto* detailScroll = new QScrollArea(side);
    detailScroll->setWidget(detail);
    detailScroll->setWidgetResizable(true);
    detailScroll->setFrameShape(QFrame::NoFrame);
    sideLayout->addWidget(detailScroll, 1);
    split->addWidget(side);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 1);
    layout->addWidget(split, 1);
    QObject::connect(t.grouping, &QComboBox::currentIndexChanged, panel, &AnalysisPanel::groupingChanged);
    QObject::connect(t.filter, &QLineEdit::textChanged, t.proxy,
                     &QSortFilterProxyModel::setFilterFixedString);
    // The total follows the rows shown, whatever changes them (new rows, a filter, a sort).
    const auto updateTotal = [proxy = t.proxy, label = t.total, additive] {
        label->setText(totalText(proxy, additive));
    };
    QObject::connect(t.proxy, &QAbstractItemModel::modelReset, t.total, updateTotal);
    QObject::connect(t.proxy, &QAbstractItemModel::layoutChanged, t.total, updateTotal);
    QObject::connect(t.proxy, &QAbstractItemModel::rowsInserted, t.total, updateTotal);
    QObject::connect(t.proxy, &QAbstractItemModel::rowsRemoved, t.total, updateTotal);
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

} // namespace kinetoscope::panel
