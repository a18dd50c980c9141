#include "tables/tableexport.h"

#include <QAbstractItemView>
#include <QApplication>
#include <QClipboard>
#include <QContextMenuEvent>
#include <QFileDialog>
#include <QHeaderView>
#include <QKeyEvent>
#include <QMenu>
#include <QMessageBox>
#include <QSaveFile>
#include <QTableView>
#include <QTreeView>

namespace kinetoscope {

namespace {

bool columnHidden(const QAbstractItemView& view, int column) {
    if (auto* table = qobject_cast<const QTableView*>(&view)) return table->isColumnHidden(column);
    if (auto* tree = qobject_cast<const QTreeView*>(&view)) return tree->isColumnHidden(column);
    return false;
}

// Visible columns in the order the header shows them (a user may have dragged one).
std::vector<int> shownColumns(const QAbstractItemView& view) {
    const QAbstractItemModel* model = view.model();
    std::vector<int> columns;
    const QHeaderView* header = nullptr;
    if (auto* table = qobject_cast<const QTableView*>(&view)) header = table->horizontalHeader();
    if (auto* tree = qobject_cast<const QTreeView*>(&view)) header = tree->header();
    for (int visual = 0; visual < model->columnCount(); ++visual) {
        const int c = header ? header->logicalIndex(visual) : visual;
        if (c >= 0 && !columnHidden(view, c)) columns.push_back(c);
    }
    return columns;
}

QString csvField(QString text) {
    if (text.contains(QLatin1Char(',')) || text.contains(QLatin1Char('"')) ||
        text.contains(QLatin1Char('\n')) || text.contains(QLatin1Char('\r'))) {
        text.replace(QLatin1String("\""), QLatin1String("\"\""));
        return QLatin1Char('"') + text + QLatin1Char('"');
    }
    return text;
}

QString tsvField(QString text) {
    for (QChar& c : text)
        if (c == QLatin1Char('\t') || c == QLatin1Char('\n') || c == QLatin1Char('\r')) c = QLatin1Char(' ');
    return text;
}

QString tableText(const QAbstractItemView& view, TableRows which, bool csv, const QString& lineEnd) {
    const QAbstractItemModel* model = view.model();
    if (!model) return {};
    const std::vector<int> columns = shownColumns(view);
    const QItemSelectionModel* selection = view.selectionModel();
    const bool onlySelected = which == TableRows::Selected && selection && selection->hasSelection();
    auto field = [csv](const QString& text) { return csv ? csvField(text) : tsvField(text); };
    const QString separator = csv ? QStringLiteral(",") : QStringLiteral("\t");
    QString out;
    QStringList cells;
    for (int c : columns)
        cells << field(model->headerData(c, Qt::Horizontal, Qt::DisplayRole).toString());
    out += cells.join(separator) + lineEnd;
    // Depth first, so that a tree's rows keep their parent before them.
    auto addRows = [&](auto&& self, const QModelIndex& parent, int depth) -> void {
        for (int r = 0; r < model->rowCount(parent); ++r) {
            const QModelIndex first = model->index(r, 0, parent);
            if (!onlySelected || selection->isRowSelected(r, parent) ||
                std::any_of(columns.begin(), columns.end(),
                            [&](int c) { return selection->isSelected(model->index(r, c, parent)); })) {
                cells.clear();
                for (std::size_t i = 0; i < columns.size(); ++i) {
                    QString text = model->index(r, columns[i], parent).data(Qt::DisplayRole).toString();
                    if (i == 0 && depth > 0) text.prepend(QString(2 * depth, QLatin1Char(' ')));
                    cells << field(text);
                }
                out += cells.join(separator) + lineEnd;
            }
            if (model->hasChildren(first)) self(self, first, depth + 1);
        }
    };
    addRows(addRows, QModelIndex(), 0);
    return out;
}

} // namespace

QString tableAsCsv(const QAbstractItemView& view, TableRows rows) {
    return tableText(view, rows, true, QStringLiteral("\r\n"));
}

QString tableAsTsv(const QAbstractItemView& view, TableRows rows) {
    return tableText(view, rows, false, QStringLiteral("\n"));
}

bool saveTableAsCsv(const QAbstractItemView& view, const QString& path, QString* error) {
    const QByteArray bytes = tableAsCsv(view).toUtf8();
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly) || file.write(bytes) != bytes.size() || !file.commit()) {
        if (error) *error = QStringLiteral("%1: %2").arg(path, file.errorString());
        return false;
    }
    return true;
}

QAbstractItemView* itemViewOf(QWidget* widget) {
    for (QWidget* w = widget; w; w = w->parentWidget()) {
        if (auto* view = qobject_cast<QAbstractItemView*>(w)) return view->model() ? view : nullptr;
        if (w->isWindow()) break;
    }
    return nullptr;
}

void TableExportFilter::copyRows(const QAbstractItemView& view, TableRows rows) {
    QApplication::clipboard()->setText(tableAsTsv(view, rows));
}

void TableExportFilter::exportWithDialog(QAbstractItemView* view) {
    if (!view) return;
    const QString path = QFileDialog::getSaveFileName(view->window(), tr("Export Table as CSV"),
                                                      QStringLiteral("table.csv"), tr("CSV (*.csv)"));
    if (path.isEmpty()) return;
    QString error;
    if (!saveTableAsCsv(*view, path, &error))
        QMessageBox::warning(view->window(), tr("Export Table as CSV"), error);
}

bool TableExportFilter::eventFilter(QObject* watched, QEvent* event) {
    if (event->type() != QEvent::ContextMenu && event->type() != QEvent::KeyPress) return false;
    auto* widget = qobject_cast<QWidget*>(watched);
    if (!widget) return false;
    QAbstractItemView* view = itemViewOf(widget);
    if (!view) return false;
    if (event->type() == QEvent::KeyPress) {
        if (watched != view || !static_cast<QKeyEvent*>(event)->matches(QKeySequence::Copy)) return false;
        copyRows(*view, TableRows::Selected);
        return true;
    }
    // The view's own menu, where it has one (its viewport asks the view).
    if (view->contextMenuPolicy() != Qt::DefaultContextMenu || watched != view->viewport()) return false;
    QMenu menu(view);
    const bool selected = view->selectionModel() && view->selectionModel()->hasSelection();
    menu.addAction(tr("Copy Selected Rows"), view, [view] { copyRows(*view, TableRows::Selected); })
        ->setEnabled(selected);
    menu.addAction(tr("Copy Table"), view, [view] { copyRows(*view, TableRows::All); });
    menu.addAction(tr("Export Table as CSV…"), view, [view] { exportWithDialog(view); });
    menu.exec(static_cast<QContextMenuEvent*>(event)->globalPos());
    return true;
}

} // namespace kinetoscope
