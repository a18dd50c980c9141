#include "tables/queryresultmodel.h"

namespace kinetoscope {

void QueryResultModel::setResult(std::shared_ptr<const sql::QueryResult> result) {
    beginResetModel();
    m_result = std::move(result);
    endResetModel();
}

int QueryResultModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() || !m_result ? 0 : int(m_result->rows.size());
}

int QueryResultModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() || !m_result ? 0 : int(m_result->columns.size());
}

QVariant QueryResultModel::data(const QModelIndex& index, int role) const {
    if (!m_result || !index.isValid()) return {};
    const sql::Value& v = m_result->rows[std::size_t(index.row())][std::size_t(index.column())];
    if (role == Qt::TextAlignmentRole)
        return std::holds_alternative<std::string>(v) ? QVariant(int(Qt::AlignLeft | Qt::AlignVCenter))
                                                      : QVariant(int(Qt::AlignRight | Qt::AlignVCenter));
    if (role == Qt::ToolTipRole) {
        if (const auto* s = std::get_if<std::string>(&v); s && s->size() > 60)
            return QString::fromStdString(*s);
        return {};
    }
    if (role != Qt::DisplayRole && role != Qt::EditRole) return {};
    if (const auto* i = std::get_if<std::int64_t>(&v)) return qlonglong(*i);
    if (const auto* d = std::get_if<double>(&v)) {
        // Shown as SQLite's shortest text, sorted as the number.
        if (role == Qt::EditRole) return *d;
        return QString::fromStdString(sql::valueText(v));
    }
    if (const auto* s = std::get_if<std::string>(&v)) return QString::fromStdString(*s);
    return {};
}

QVariant QueryResultModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (!m_result || role != Qt::DisplayRole) return {};
    if (orientation == Qt::Vertical) return section + 1;
    return QString::fromStdString(m_result->columns[std::size_t(section)]);
}

} // namespace kinetoscope
