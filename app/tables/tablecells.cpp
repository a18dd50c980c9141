#include "tables/tablecells.h"

#include "model/textformat.h"

#include <QHeaderView>
#include <QTableWidget>

namespace kinetoscope {

QString durationText(TimeNs ns) {
    return QString::fromStdString(formatDuration(ns));
}

QString bytesText(double bytes) {
    return QString::fromStdString(formatBytes(bytes));
}

QString percentText(double fraction) {
    return QString::number(fraction * 100, 'f', 1) + QLatin1Char('%');
}

NumberItem::NumberItem(const QString& text, double value) : QTableWidgetItem(text) {
    setData(SortRole, value);
    setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
}

bool NumberItem::operator<(const QTableWidgetItem& other) const {
    return data(SortRole).toDouble() < other.data(SortRole).toDouble();
}

QTableWidget* makeReadOnlyTable(QWidget* parent, const QStringList& headers) {
    auto* t = new QTableWidget(0, int(headers.size()), parent);
    t->setHorizontalHeaderLabels(headers);
    t->verticalHeader()->hide();
    t->setEditTriggers(QAbstractItemView::NoEditTriggers);
    t->setSelectionBehavior(QAbstractItemView::SelectRows);
    return t;
}
} // namespace kinetoscope
