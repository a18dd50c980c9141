// Copying and exporting tables (tables/tableexport.h; issue 61 item 16): what the view shows, in its order,
// its visible columns and its cells' text; CSV quoted by RFC 4180; trees depth first; the context menu,
// Ctrl+C and the Edit menu on the operator table of a real trace.
#include "panels/operatorpanel.h"
#include "shell/mainwindow.h"
#include "tables/tablecells.h"
#include "tables/tableexport.h"
#include "testsupport.h"
#include "views/traceview.h"

#include <QApplication>
#include <QClipboard>
#include <QContextMenuEvent>
#include <QFile>
#include <QMenu>
#include <QMenuBar>
#include <QSettings>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>
#include <QTreeWidget>

using namespace kinetoscope;

namespace {
// RFC 4180, enough to read back what we wrote: quoted fields with doubled quotes and line breaks inside.
QList<QStringList> parseCsv(const QString& text) {
    QList<QStringList> rows;
    QStringList row;
    QString field;
    bool quoted = false;
    for (qsizetype i = 0; i < text.size(); ++i) {
        const QChar c = text[i];
        if (quoted) {
            if (c == QLatin1Char('"') && i + 1 < text.size() && text[i + 1] == QLatin1Char('"')) {
                field += c;
                ++i;
            } else if (c == QLatin1Char('"')) {
                quoted = false;
            } else {
                field += c;
            }
        } else if (c == QLatin1Char('"')) {
            quoted = true;
        } else if (c == QLatin1Char(',')) {
            row << field;
            field.clear();
        } else if (c == QLatin1Char('\r') && i + 1 < text.size() && text[i + 1] == QLatin1Char('\n')) {
            row << field;
            rows << row;
            row.clear();
            field.clear();
            ++i;
        } else {
            field += c;
        }
    }
    if (!row.isEmpty() || !field.isEmpty()) rows << (row << field);
    return rows;
}

// Triggers the action named `text` of the next popup menu.
void chooseFromNextMenu(const QString& text) {
    QTimer::singleShot(50, [text] {
        auto* menu = qobject_cast<QMenu*>(QApplication::activePopupWidget());
        if (!menu) qFatal("no menu opened");
        for (QAction* a : menu->actions())
            if (a->text() == text) {
                menu->close();
                a->trigger();
                return;
            }
        qFatal("no action %s", qPrintable(text));
    });
}
} // namespace

class TestTableExport : public QObject {
    Q_OBJECT
  private slots:
    void initTestCase() {
        QCoreApplication::setOrganizationName(QStringLiteral("KinetoscopeTests"));
        QCoreApplication::setApplicationName(QStringLiteral("tst_tableexport"));
        QSettings().clear();
    }
    void fieldsQuotedAndOrderKept();
    void treesDepthFirst();
    void operatorTableOfARealTrace();
};

void TestTableExport::fieldsQuotedAndOrderKept() {
    QTableWidget* table = makeReadOnlyTable(nullptr, {"Name", "Hidden", "Total"});
    std::unique_ptr<QTableWidget> owner(table);
    const QStringList names = {"aten::mm", "say \"hi\", twice", "line\nbreak", "tab\there"};
    const double totals[] = {5, 30, 1, 20};
    table->setRowCount(int(names.size()));
    for (int r = 0; r < names.size(); ++r) {
        table->setItem(r, 0, new QTableWidgetItem(names[r]));
        table->setItem(r, 1, new QTableWidgetItem(QStringLiteral("secret")));
        table->setItem(r, 2, new NumberItem(QStringLiteral("%1 ms").arg(totals[r]), totals[r]));
    }
    table->setColumnHidden(1, true);
    table->setSortingEnabled(true);
    table->sortByColumn(2, Qt::DescendingOrder);
    const QList<QStringList> rows = parseCsv(tableAsCsv(*table));
    QCOMPARE(rows.size(), 5);
    QCOMPARE(rows[0], (QStringList{"Name", "Total"}));
    // Sorted as shown (by the number, not the text: "5 ms" would sort after "30 ms"), the hidden column left
    // out, every awkward field read back whole.
    QCOMPARE(rows[1], (QStringList{"say \"hi\", twice", "30 ms"}));
    QCOMPARE(rows[2], (QStringList{"tab\there", "20 ms"}));
    QCOMPARE(rows[3], (QStringList{"aten::mm", "5 ms"}));
    QCOMPARE(rows[4], (QStringList{"line\nbreak", "1 ms"}));
    QVERIFY(tableAsCsv(*table).contains(QStringLiteral("\"say \"\"hi\"\", twice\"")));

    // TSV: the selected rows only, tabs and line breaks in a cell made spaces (a paste keeps its grid).
    table->selectRow(3);
    QCOMPARE(tableAsTsv(*table), QStringLiteral("Name\tTotal\nline break\t1 ms\n"));
    table->clearSelection();
    QCOMPARE(tableAsTsv(*table).count(QLatin1Char('\n')), 5); // none selected: all of it
}

void TestTableExport::treesDepthFirst() {
    QTreeWidget tree;
    tree.setHeaderLabels({"Module", "Calls"});
    auto* model = new QTreeWidgetItem(&tree, {"Model", "1"});
    auto* encoder = new QTreeWidgetItem(model, {"encoder", "2"});
    new QTreeWidgetItem(encoder, {"attention", "12"});
    new QTreeWidgetItem(model, {"head", "1"});
    new QTreeWidgetItem(&tree, {"loss", "1"});
    // Collapsed or not, every row is written.
    QCOMPARE(tableAsCsv(tree), QStringLiteral("Module,Calls\r\nModel,1\r\n  encoder,2\r\n    attention,12\r\n"
                                              "  head,1\r\nloss,1\r\n"));
}

void TestTableExport::operatorTableOfARealTrace() {
    MainWindow w;
    w.show();
    TraceView* view = w.openTrace(QString::fromStdString(test::tracePath(test::traces::qwenH100)));
    QVERIFY(QTest::qWaitFor([&] { return view->state() != TraceView::State::Loading; }, 60000));
    QTRY_VERIFY_WITH_TIMEOUT(view->analysis() != nullptr, 60000);
    QTableView* ops = view->operatorPanel()->view();
    QTRY_VERIFY_WITH_TIMEOUT(ops->model()->rowCount() > 10, 30000);
    view->bottomTabs()->setCurrentWidget(view->operatorPanel());
    QTRY_VERIFY(ops->isVisible());
    const int shown = ops->model()->rowCount();

    QTemporaryDir dir;
    const QString path = dir.filePath("operators.csv");
    QString error;
    QVERIFY2(saveTableAsCsv(*ops, path, &error), qPrintable(error));
    QFile file(path);
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QList<QStringList> rows = parseCsv(QString::fromUtf8(file.readAll()));
    QCOMPARE(rows.size(), shown + 1);
    QCOMPARE(rows[0].first(), ops->model()->headerData(0, Qt::Horizontal).toString());
    for (int r = 0; r < shown; r += 7) {
        QCOMPARE(rows[r + 1].size(), rows[0].size());
        QCOMPARE(rows[r + 1].first(), ops->model()->index(r, 0).data().toString());
    }
    QVERIFY(!saveTableAsCsv(*ops, dir.filePath("no/such/folder/x.csv"), &error));
    QVERIFY(error.contains(QStringLiteral("no/such/folder/x.csv")));

    // Ctrl+C copies the selected rows (Qt alone copies one cell's text).
    ops->setFocus();
    ops->selectRow(0);
    ops->selectionModel()->select(ops->model()->index(2, 0),
                                  QItemSelectionModel::Select | QItemSelectionModel::Rows);
    QTest::keyClick(ops, Qt::Key_C, Qt::ControlModifier);
    const QStringList copied = QApplication::clipboard()->text().split(QLatin1Char('\n'), Qt::SkipEmptyParts);
    QCOMPARE(copied.size(), 3);
    QCOMPARE(copied[1].section(QLatin1Char('\t'), 0, 0), ops->model()->index(0, 0).data().toString());
    QCOMPARE(copied[2].section(QLatin1Char('\t'), 0, 0), ops->model()->index(2, 0).data().toString());

    // A right click offers the whole table.
    QApplication::clipboard()->clear();
    chooseFromNextMenu(QStringLiteral("Copy Table"));
    QContextMenuEvent menuEvent(QContextMenuEvent::Mouse, QPoint(20, 20),
                                ops->viewport()->mapToGlobal(QPoint(20, 20)));
    QApplication::sendEvent(ops->viewport(), &menuEvent);
    QCOMPARE(QApplication::clipboard()->text().count(QLatin1Char('\n')), shown + 1);

    // The Edit menu acts on the table last worked in.
    QCOMPARE(w.lastTable(), static_cast<QAbstractItemView*>(ops));
    QApplication::clipboard()->clear();
    QAction* copyTable = nullptr;
    for (QAction* menu : w.menuBar()->actions())
        if (menu->menu())
            for (QAction* a : menu->menu()->actions())
                if (a->text() == QStringLiteral("Copy &Table")) copyTable = a;
    QVERIFY(copyTable);
    copyTable->trigger();
    QCOMPARE(QApplication::clipboard()->text().count(QLatin1Char('\n')), shown + 1);
}

QTEST_MAIN(TestTableExport)
#include "tst_tableexport.moc"
