#pragma once

// Every table and tree of the viewer can be copied and saved as CSV (issue 61 item 16): the rows as the view
// shows them (its sort and filter, its visible columns, the cells' text), from a context menu, Ctrl+C, or
// the Edit menu. One filter on the application serves every view, including those made after it.

#include <QObject>
#include <QString>

class QAbstractItemView;
class QWidget;

namespace kinetoscope {

enum class TableRows { All, Selected };

// The view's rows as text: a header line, then one line per row (a tree's children after their parent,
// every one of them, expanded or not, the first cell indented by two spaces per level). CSV quotes a field
// holding the separator, a quote or a line break (RFC 4180); TSV, for pasting into a spreadsheet, turns tabs
// and line breaks in a cell into spaces. Selected rows: those with a selected cell; all when none is.
QString tableAsCsv(const QAbstractItemView& view, TableRows rows = TableRows::All);
QString tableAsTsv(const QAbstractItemView& view, TableRows rows = TableRows::Selected);
// Writes tableAsCsv to `path` (UTF-8, CRLF line ends as RFC 4180 asks); false with `error` set when it
// cannot.
bool saveTableAsCsv(const QAbstractItemView& view, const QString& path, QString* error);

// The item view that `widget` is or belongs to (its viewport, a header, the view itself), or nullptr.
QAbstractItemView* itemViewOf(QWidget* widget);

// Installed once on the application: a right click in any item view offers Copy, Copy Table and Export as
// CSV…; Ctrl+C copies the selected rows (Qt alone copies one cell). A view with a context menu of its own
// keeps it.
class TableExportFilter : public QObject {
    Q_OBJECT
  public:
    using QObject::QObject;
    // Asks for a file name and saves; used by the context menu and the Edit menu.
    static void exportWithDialog(QAbstractItemView* view);
    static void copyRows(const QAbstractItemView& view, TableRows rows);

  protected:
    bool eventFilter(QObject* watched, QEvent* event) override;
};

} // namespace kinetoscope
