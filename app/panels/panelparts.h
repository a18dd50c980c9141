#pragma once

// The parts the analysis panels share: HTML escaping and percentages, sortable number cells, read-only
// tables, and the table-and-chart layout of the operator and kernel panels.

#include "panels/analysispanel.h"
#include "tables/tablecells.h"

#include <QString>
#include <QStringList>

#include <string_view>

class QAbstractItemModel;
class QComboBox;
class QLabel;
class QLineEdit;
class QObject;
class QSortFilterProxyModel;
class QTableView;
class QTableWidget;
class QTableWidgetItem;
class QTextBrowser;

namespace kinetoscope::panel {

QString esc(std::string_view s);
QTableWidgetItem* numberItem(const QString& text, double sortValue);
QTableWidget* makeTable(QWidget* parent, const QStringList& headers);
QTableView* makeView(QWidget* parent, QSortFilterProxyModel* proxy);
QSortFilterProxyModel* makeProxy(QObject* parent, QAbstractItemModel* model);
// Sizes every column to its cells and its header (with room for the sort arrow) after new rows, the name
// column (0) kept between a readable minimum and a share of the view's width, so that long names neither hide
// the figures nor get cut to nothing. No column stretches: a number stays next to its header.
void fitColumns(QTableView* view);

// A section of a page that scrolls as a whole (the Overview): as tall as its content, with no scroll bar of
// its own, so that the page has one scroll and the wheel moves it wherever the pointer is.
void growWithContent(QTextBrowser* browser);
// The same for a table, once its rows are set (again after each change of them).
void fitHeightToRows(QTableWidget* table);

// The layout the operator and kernel panels share: a grouping box and a filter above a sortable, filterable
// table, and beside it a column with a title, a bar chart and the panel's own detail widget. Selecting a row
// marks its name on the timeline; double-clicking jumps to the row's example.
struct TablePanel {
    QComboBox* grouping;
    QLineEdit* filter;
    QSortFilterProxyModel* proxy;
    QTableView* view;
    BarChart* chart;
    QLabel*
        total; // under the table: the rows shown (of how many) and the sums of the additive columns over them
};

// A column whose values add up over rows (calls, a total time in ns), summed under the table for the rows
// shown.
struct AdditiveColumn {
    int column;
    bool time; // ns, shown as a duration; else a count
};

TablePanel buildTablePanel(AnalysisPanel* panel, QAbstractItemModel* model, const QStringList& groupings,
                           const QString& filterHint, int sortColumn, const QString& sideTitle,
                           QWidget* detail, const QList<AdditiveColumn>& additive);
// The text of a table panel's total line for the rows `proxy` shows.
QString totalText(const QSortFilterProxyModel* proxy, const QList<AdditiveColumn>& additive);

} // namespace kinetoscope::panel
