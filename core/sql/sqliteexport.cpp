// `kinetoscope-cli export TRACE --sqlite OUT.db`: the tables a query reads, written into a real SQLite file
// for DuckDB, Datasette, pandas or sqlite3. Streamed: each row goes from the virtual table's cursor straight
// into the file's insert (sqlite3_bind_value), so the export holds no more than a load does.

#include "sql/storetables.h"
#include "sql/tracedatabase.h"

#include <sqlite3.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <unistd.h>

namespace kinetoscope::sql {

namespace {

std::string quoted(const std::string& name) {
    std::string out = "\"";
    for (char c : name) {
        if (c == '"') out += '"';
        out += c;
    }
    return out + '"';
}

// Finalizes a statement when it goes out of scope.
struct Statement {
    sqlite3_stmt* stmt = nullptr;
    ~Statement() { sqlite3_finalize(stmt); }
};

// The indexes a reader of the file wants first: slices by track and time, args by slice, flows both ways.
constexpr const char* indexes[] = {
    "CREATE INDEX slice_track_ts ON slice(track_id, ts)",
    "CREATE INDEX slice_ts ON slice(ts)",
    "CREATE INDEX slice_parent ON slice(parent_id)",
    "CREATE INDEX args_arg_set_id ON args(arg_set_id)",
    "CREATE INDEX flow_out ON flow(slice_out)",
    "CREATE INDEX flow_in ON flow(slice_in)",
    "CREATE INDEX counter_track_ts ON counter(track_id, ts)",
};

} // namespace

std::vector<std::string> TraceDatabase::tableNames() const {
    return registeredTableNames(m_tables);
}

ExportResult
TraceDatabase::exportSqlite(const std::string& path,
                            const std::function<bool(const std::string&, std::uint64_t)>& progress) {
    ExportResult out;
    if (!m_db || !m_tables) {
        out.error = "the SQL engine could not start";
        return out;
    }
    // A name of our own beside the target: created here (O_EXCL, never through a planted link), renamed over
    // the target only once complete.
    const std::string partial = path + ".partial-" + std::to_string(::getpid());
    const int fd = ::open(partial.c_str(), O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC | O_NOFOLLOW, 0644);
    if (fd < 0) {
        out.error = partial + ": " + std::strerror(errno);
        return out;
    }
    ::close(fd);
    sqlite3* file = nullptr;
    const auto fail = [&](std::string why) {
        out.error = std::move(why);
        out.tables.clear();
        sqlite3_close_v2(file);
        std::remove(partial.c_str());
        return out;
    };
    if (sqlite3_open_v2(partial.c_str(), &file,
                        SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOFOLLOW | SQLITE_OPEN_NOMUTEX,
                        nullptr) != SQLITE_OK)
        return fail(partial + ": " + (file ? sqlite3_errmsg(file) : "cannot open"));
    sqlite3_db_config(file, SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION, 0, nullptr);
    // A file written once, start to end: no journal to roll back to (a failure removes the file instead).
    const auto exec = [&](const std::string& sql) {
        char* message = nullptr;
        if (sqlite3_exec(file, sql.c_str(), nullptr, nullptr, &message) == SQLITE_OK) return std::string();
        std::string why = message ? message : sqlite3_errmsg(file);
        sqlite3_free(message);
        return why + " (" + sql.substr(0, 60) + ")";
    };
    for (const char* pragma :
         {"PRAGMA page_size = 65536", "PRAGMA journal_mode = OFF", "PRAGMA synchronous = OFF",
          "PRAGMA locking_mode = EXCLUSIVE", "PRAGMA cache_size = -65536", "BEGIN"})
        if (auto why = exec(pragma); !why.empty()) return fail(path + ": " + why);

    for (const std::string& table : tableNames()) {
        if (progress && !progress(table, 0)) return fail("interrupted");
        Statement read;
        if (sqlite3_prepare_v2(m_db, ("SELECT * FROM " + quoted(table)).c_str(), -1, &read.stmt, nullptr) !=
            SQLITE_OK)
            return fail(table + ": " + sqlite3_errmsg(m_db));
        const int columns = sqlite3_column_count(read.stmt);
        std::string create = "CREATE TABLE " + quoted(table) + "(";
        std::string insert = "INSERT INTO " + quoted(table) + " VALUES(";
        for (int c = 0; c < columns; ++c) {
            const std::string name = sqlite3_column_name(read.stmt, c);
            const char* type = sqlite3_column_decltype(read.stmt, c);
            create += (c ? ", " : "") + quoted(name);
            // The first column of a table of numbered rows is its key (the rowid: no index to build).
            if (c == 0 && (name == "id" || name == "utid" || name == "upid") && type &&
                std::string_view(type) == "INTEGER")
                create += " INTEGER PRIMARY KEY";
            else if (type && *type)
                create += std::string(" ") + type;
            insert += c ? ", ?" : "?";
        }
        if (auto why = exec(create + ")"); !why.empty()) return fail(path + ": " + why);
        Statement write;
        if (sqlite3_prepare_v2(file, (insert + ")").c_str(), -1, &write.stmt, nullptr) != SQLITE_OK)
            return fail(path + ": " + sqlite3_errmsg(file));
        std::uint64_t rows = 0;
        int rc = SQLITE_ROW;
        while ((rc = sqlite3_step(read.stmt)) == SQLITE_ROW) {
            for (int c = 0; c < columns; ++c)
                sqlite3_bind_value(write.stmt, c + 1, sqlite3_column_value(read.stmt, c));
            if (sqlite3_step(write.stmt) != SQLITE_DONE)
                return fail(path + ": " + table + ": " + sqlite3_errmsg(file));
            sqlite3_reset(write.stmt);
            if (++rows % 65536 == 0 && progress && !progress(table, rows)) return fail("interrupted");
        }
        if (rc != SQLITE_DONE)
            return fail(rc == SQLITE_INTERRUPT ? std::string("interrupted")
                                               : table + ": " + sqlite3_errmsg(m_db));
        out.tables.emplace_back(table, rows);
    }
    for (const char* index : indexes)
        if (auto why = exec(index); !why.empty()) return fail(path + ": " + why);
    if (auto why = exec("COMMIT"); !why.empty()) return fail(path + ": " + why);
    if (sqlite3_close(file) != SQLITE_OK) return fail(path + ": " + sqlite3_errmsg(file));
    file = nullptr;
    if (std::rename(partial.c_str(), path.c_str()) != 0) return fail(path + ": " + std::strerror(errno));
    return out;
}

} // namespace kinetoscope::sql
