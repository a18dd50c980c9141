#pragma once

// What the analysis tables share: their roles, number and duration cells, read-only table widgets.

#include "model/timeconv.h"

#include <QString>
#include <QStringList>
#include <QTableWidgetItem>

class QTableWidget;
class QWidget;

namespace kinetoscope {

// Roles shared by the analysis tables: the raw number a column sorts by, and the event a row jumps to.
enum AnalysisRole { SortRole = Qt::UserRole + 1, EventRole, NameRole };

QString durationText(TimeNs ns);
// A share as "12.3%".
QString percentText(double fraction);
// Bytes in an adaptive binary unit ("820.4 MiB"): formatBytes.
QString bytesText(double bytes);

// A table-widget cell that shows text but sorts by the number in SortRole (QTableWidget itself compares the
// text).
class NumberItem : public QTableWidgetItem {
  public:
    NumberItem(const QString& text, double value);
    bool operator<(const QTableWidgetItem& other) const override;
};

// A read-only table widget selecting whole rows, with these column headers and no row numbers.
QTableWidget* makeReadOnlyTable(QWidget* parent, const QStringList& headers);

} // namespace kinetoscope
