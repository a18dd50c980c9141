#include "tables/rowsmodel.h"

#include <cmath>

namespace kinetoscope {

namespace {
// A tiny figure keeps four decimals rather than reading 0.0.
QString number(double v, int decimals) {
    return QString::number(v, 'f', v != 0 && std::abs(v) < 0.01 ? 4 : decimals);
}
} // namespace

QString cellDisplay(CellFormat format, int decimals, const Cell& cell) {
    if (cell.isNull()) return {};
    switch (format) {
    case CellFormat::Text:
    case CellFormat::Json:
        return QString::fromStdString(cell.text);
    case CellFormat::Count:
    case CellFormat::Integer:
        return cell.kind == Cell::Kind::Unsigned ? QString::number(cell.unsignedValue)
                                                 : QString::number(cell.signedValue);
    case CellFormat::Micros:
        return durationText(cell.kind == Cell::Kind::Unsigned ? TimeNs(cell.unsignedValue)
                                                              : cell.signedValue);
    case CellFormat::Share:
        return percentText(cell.number());
    case CellFormat::Percent:
        return QString::number(cell.number(), 'f', decimals) + QLatin1Char('%');
    case CellFormat::Fixed:
        return QString::number(cell.number(), 'f', decimals);
    case CellFormat::General:
    case CellFormat::Exact:
        return number(cell.number(), decimals);
    case CellFormat::Bool:
        return cell.flag ? QStringLiteral("yes") : QString();
    }
    return {};
}

QVariant cellSortValue(const Cell& cell) {
    switch (cell.kind) {
    case Cell::Kind::Text:
        return QString::fromStdString(cell.text);
    case Cell::Kind::Unsigned:
        return qulonglong(cell.unsignedValue);
    case Cell::Kind::Signed:
        return qlonglong(cell.signedValue);
    case Cell::Kind::Real:
        return cell.real;
    case Cell::Kind::Bool:
        return cell.flag;
    case Cell::Kind::Null:
        break;
    }
    return {};
}

bool cellIsLeftAligned(CellFormat format) {
    return format == CellFormat::Text || format == CellFormat::Json || format == CellFormat::Bool;
}

} // namespace kinetoscope
