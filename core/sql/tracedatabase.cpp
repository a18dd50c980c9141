#include "sql/tracedatabase.h"

#include "sql/storetables.h"
#include "sql/vtab.h"

#include <sqlite3.h>

#include <algorithm>
#include <charconv>
#include <iterator>

namespace kinetoscope::sql {

namespace {

// Reading is all a query may do: no write, no ATTACH of a file, no PRAGMA that changes anything, no new
// table or view (a query's own CTEs and subqueries need none of them).
int authorize(void*, int action, const char*, const char*, const char*, const char*) {
    if (vtab::declaringTable) return SQLITE_OK;
    switch (action) {
    case SQLITE_SELECT:
    case SQLITE_READ:
    case SQLITE_FUNCTION:
    case SQLITE_RECURSIVE:
        return SQLITE_OK;
    default:
        return SQLITE_DENY;
    }
}

// Line and column (1-based) of byte `offset` of `sql`.
void position(std::string_view sql, int offset, int& line, int& column) {
    line = 1;
    column = 1;
    for (int i = 0; i < offset && std::size_t(i) < sql.size(); ++i) {
        if (sql[std::size_t(i)] == '\n') {
            ++line;
            column = 1;
        } else {
            ++column;
        }
    }
}

} // namespace

TraceDatabase::TraceDatabase(const TraceStore& store) : m_store(store) {
    // No global count of SQLite's memory: it takes a process-wide mutex on every allocation (an export makes
    // tens of millions). Possible only before SQLite starts, so once, before the first connection.
    static const bool configured = [] {
        sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
        return true;
    }();
    (void)configured;
    if (sqlite3_open_v2(":memory:", &m_db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX,
                        nullptr) != SQLITE_OK)
        return;
    // No code from files, no schema tricks, nothing attached.
    sqlite3_db_config(m_db, SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION, 0, nullptr);
    sqlite3_db_config(m_db, SQLITE_DBCONFIG_DEFENSIVE, 1, nullptr);
    sqlite3_db_config(m_db, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, nullptr);
    sqlite3_limit(m_db, SQLITE_LIMIT_ATTACHED, 0);
    m_tables = registerStoreTables(m_db, store);
    sqlite3_set_authorizer(m_db, authorize, nullptr);
}

TraceDatabase::~TraceDatabase() {
    sqlite3_close_v2(m_db); // before the tables it reads go
    m_tables.reset();
}

void TraceDatabase::interrupt() {
    if (m_db) sqlite3_interrupt(m_db);
}

std::int64_t TraceDatabase::sliceId(EventRef ref) const {
    return sliceIdOf(m_tables, ref);
}

std::optional<EventRef> TraceDatabase::sliceOf(std::int64_t id) const {
    return sliceOfId(m_tables, id);
}

QueryResult TraceDatabase::query(std::string_view sql,
                                 const std::vector<std::pair<std::string, Value>>& parameters) {
    QueryResult out;
    if (!m_db || !m_tables) {
        out.error = "the SQL engine could not start";
        return out;
    }
    const char* begin = sql.data();
    const char* end = begin + sql.size();
    const char* at = begin;
    while (at < end) {
        sqlite3_stmt* stmt = nullptr;
        const char* rest = nullptr;
        const int prepared = sqlite3_prepare_v3(m_db, at, int(end - at), 0, &stmt, &rest);
        if (prepared != SQLITE_OK) {
            out.error = sqlite3_errmsg(m_db);
            if (const int offset = sqlite3_error_offset(m_db); offset >= 0)
                position(sql, int(at - begin) + offset, out.errorLine, out.errorColumn);
            if (prepared == SQLITE_AUTH)
                out.error += " (queries only read the trace: no writes, ATTACH, PRAGMA or new tables)";
            sqlite3_finalize(stmt);
            return out;
        }
        at = rest;
        if (!stmt) continue; // whitespace or a comment
        for (int i = 1; i <= sqlite3_bind_parameter_count(stmt); ++i) {
            const char* name = sqlite3_bind_parameter_name(stmt, i);
            if (!name) continue;
            for (const auto& [key, value] : parameters) {
                if (key != name + 1) continue; // the name without its : $ or @
                if (const auto* n = std::get_if<std::int64_t>(&value))
                    sqlite3_bind_int64(stmt, i, *n);
                else if (const auto* d = std::get_if<double>(&value))
                    sqlite3_bind_double(stmt, i, *d);
                else if (const auto* text = std::get_if<std::string>(&value))
                    sqlite3_bind_text64(stmt, i, text->data(), text->size(), SQLITE_TRANSIENT, SQLITE_UTF8);
            }
        }
        if (!sqlite3_stmt_readonly(stmt)) {
            sqlite3_finalize(stmt);
            out.error = "queries only read the trace: this statement would write";
            return out;
        }
        const int columns = sqlite3_column_count(stmt);
        std::vector<std::string> names, origins;
        std::vector<std::vector<Value>> rows;
        for (int c = 0; c < columns; ++c) {
            names.emplace_back(sqlite3_column_name(stmt, c));
            const char* table = sqlite3_column_table_name(stmt, c);
            const char* column = sqlite3_column_origin_name(stmt, c);
            origins.push_back(table && column ? std::string(table) + "." + column : std::string());
        }
        int rc = SQLITE_ROW;
        while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
            std::vector<Value> row;
            row.reserve(std::size_t(columns));
            for (int c = 0; c < columns; ++c) {
                switch (sqlite3_column_type(stmt, c)) {
                case SQLITE_INTEGER:
                    row.emplace_back(std::int64_t(sqlite3_column_int64(stmt, c)));
                    break;
                case SQLITE_FLOAT:
                    row.emplace_back(sqlite3_column_double(stmt, c));
                    break;
                case SQLITE_NULL:
                    row.emplace_back(std::monostate{});
                    break;
                default: {
                    const auto* text = reinterpret_cast<const char*>(sqlite3_column_text(stmt, c));
                    row.emplace_back(
                        std::string(text ? text : "", std::size_t(sqlite3_column_bytes(stmt, c))));
                }
                }
            }
            rows.push_back(std::move(row));
        }
        if (rc != SQLITE_DONE) {
            out.interrupted = rc == SQLITE_INTERRUPT;
            out.error = out.interrupted ? std::string("interrupted") : std::string(sqlite3_errmsg(m_db));
            sqlite3_finalize(stmt);
            return out;
        }
        sqlite3_finalize(stmt);
        if (columns > 0) {
            out.columns = std::move(names);
            out.origins = std::move(origins);
            out.rows = std::move(rows);
        }
    }
    return out;
}

int sliceIdColumn(const QueryResult& result) {
    static const std::string_view sliceIds[] = {
        "slice.id",         "kernel.id",          "operator.id",     "memory_event.id", "step.slice_id",
        "kernel.launch_id", "kernel.operator_id", "slice.parent_id", "flow.slice_out",  "flow.slice_in"};
    for (std::size_t c = 0; c < result.origins.size(); ++c)
        if (std::find(std::begin(sliceIds), std::end(sliceIds), result.origins[c]) != std::end(sliceIds))
            return int(c);
    for (std::size_t c = 0; c < result.columns.size(); ++c)
        if ((result.columns[c] == "id" || result.columns[c] == "slice_id") &&
            (c >= result.origins.size() || result.origins[c].empty()))
            return int(c);
    return -1;
}

std::string valueText(const Value& v) {
    if (std::holds_alternative<std::monostate>(v)) return {};
    if (const auto* i = std::get_if<std::int64_t>(&v)) return std::to_string(*i);
    if (const auto* d = std::get_if<double>(&v)) {
        // The shortest text that reads back as the same double.
        char buf[32];
        return std::string(buf, std::size_t(std::to_chars(buf, buf + sizeof buf, *d).ptr - buf));
    }
    return std::get<std::string>(v);
}

} // namespace kinetoscope::sql
