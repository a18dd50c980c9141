#pragma once

// What the readers of profilers' SQLite databases share (nsysimport, rpdimport): a database opened read-only
// and immutable, and a writer of Kineto's events, which those readers turn the rows into so that the one JSON
// importer builds the store (docs/FORMATS.md).

#include "import/kinetoevents.h"

#include <sqlite3.h>

#include <cstdint>
#include <functional>
#include <set>
#include <string>
#include <string_view>

namespace kinetoscope {

// Whether a file's first bytes are a SQLite database's header.
bool isSqliteHeader(std::string_view firstBytes);

// The profiler behind a SQLite database, from its tables; None when none we read.
enum class SqliteTraceKind { None, Nsight, RocmRpd, Rocpd };
SqliteTraceKind sqliteTraceKind(const std::string& path);

namespace sqlitetrace {

// A database opened read-only and immutable (no lock, no journal, nothing written next to it), by a URI so
// that a path with `?` or `#` still names the file.
class ReadOnlyDatabase {
  public:
    explicit ReadOnlyDatabase(const std::string& path);
    ~ReadOnlyDatabase() { sqlite3_close_v2(m_db); }
    ReadOnlyDatabase(const ReadOnlyDatabase&) = delete;
    ReadOnlyDatabase& operator=(const ReadOnlyDatabase&) = delete;

    bool ok() const { return m_db && m_error.empty(); }
    const std::string& error() const { return m_error; }
    bool has(const std::string& table) const { return m_tables.count(table) != 0; }
    std::set<std::string> columns(const std::string& table) {
        std::set<std::string> out;
        each("SELECT name FROM pragma_table_info('" + table + "')",
             [&](sqlite3_stmt* s) { out.insert(text(s, 0)); });
        return out;
    }
    // Runs `sql`, handing each row to `row`; false (and error set) when SQLite refuses it.
    bool each(const std::string& sql, const std::function<void(sqlite3_stmt*)>& row) {
        sqlite3_stmt* stmt = nullptr;
        if (sqlite3_prepare_v2(m_db, sql.c_str(), -1, &stmt, nullptr) != SQLITE_OK) {
            m_error = sqlite3_errmsg(m_db);
            sqlite3_finalize(stmt);
            return false;
        }
        int rc = SQLITE_ROW;
        while ((rc = sqlite3_step(stmt)) == SQLITE_ROW)
            row(stmt);
        if (rc != SQLITE_DONE) m_error = sqlite3_errmsg(m_db);
        sqlite3_finalize(stmt);
        return rc == SQLITE_DONE;
    }
    static std::string text(sqlite3_stmt* s, int c) {
        const auto* t = reinterpret_cast<const char*>(sqlite3_column_text(s, c));
        return t ? std::string(t, std::size_t(sqlite3_column_bytes(s, c))) : std::string();
    }

  private:
    sqlite3* m_db = nullptr;
    std::string m_error;
    std::set<std::string> m_tables;
};

// A column of a table, or a stand-in when the export's schema lacks it: the SQL reads what there is.
inline std::string columnOr(const std::set<std::string>& columns, const std::string& name,
                            const std::string& otherwise) {
    return columns.count(name) ? name : otherwise;
}

inline bool isNull(sqlite3_stmt* s, int c) {
    return sqlite3_column_type(s, c) == SQLITE_NULL;
}

using Writer = KinetoEventWriter;

} // namespace sqlitetrace
} // namespace kinetoscope
