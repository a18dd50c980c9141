#pragma once

// SQL over a loaded trace (issue 62): SQLite (Debian's libsqlite3) with virtual tables over the store's
// columns, no copy of the trace. Perfetto's table and column names where the concept is the same
// (docs/SQL.md): slice, args, thread, process, track, thread_track, counter, flow. Read-only: a query cannot
// write, attach a file or load code; a long query can be interrupted from another thread.

#include "model/tracestore.h"

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

struct sqlite3;

namespace kinetoscope::sql {

using Value = std::variant<std::monostate, std::int64_t, double, std::string>; // NULL, INTEGER, REAL, TEXT

struct QueryResult {
    std::vector<std::string> columns;
    // Where each column comes from, "table.column" (kernel.id), when it is a table's column as it is; empty
    // for an expression.
    std::vector<std::string> origins;
    std::vector<std::vector<Value>> rows;
    std::string error; // empty when the query ran
    int errorLine = 0; // where in the SQL, when SQLite knows (1-based; 0 when not)
    int errorColumn = 0;
    bool interrupted = false;
    bool ok() const { return error.empty(); }
};

// What an export wrote: each table with its rows, or why it stopped.
struct ExportResult {
    std::vector<std::pair<std::string, std::uint64_t>> tables;
    std::string error; // empty when the file was written
    bool ok() const { return error.empty(); }
};

class TraceDatabase {
  public:
    // The store must outlive the database.
    explicit TraceDatabase(const TraceStore& store);
    ~TraceDatabase();
    TraceDatabase(const TraceDatabase&) = delete;
    TraceDatabase& operator=(const TraceDatabase&) = delete;

    // Runs every statement of `sql`; the rows are the last statement's that returned any columns.
    // `parameters` bind by name (`:from`, `$selected_id`); a parameter the SQL names and the list lacks is
    // NULL.
    QueryResult query(std::string_view sql,
                      const std::vector<std::pair<std::string, Value>>& parameters = {});
    // Stops the query running now (from any thread): it ends with interrupted set.
    void interrupt();
    // Every table (the store's, ours and the report's) into a new SQLite file at `path`, streamed row by row:
    // written under a temporary name beside it and renamed over it once complete, so that a failed or
    // interrupted export leaves whatever was at `path` as it was. `progress` hears each table as it starts
    // (rows 0) and every 65,536 rows; returning false stops the export (the result says "interrupted").
    ExportResult
    exportSqlite(const std::string& path,
                 const std::function<bool(const std::string& table, std::uint64_t rows)>& progress = {});
    // The tables a query can read, in the order they were registered.
    std::vector<std::string> tableNames() const;
    // A slice's id in the tables (slice.id, kernel.id, flow.slice_out…) and back; nullopt for an id of none.
    std::int64_t sliceId(EventRef ref) const;
    std::optional<EventRef> sliceOf(std::int64_t id) const;
    const TraceStore& store() const { return m_store; }

  private:
    const TraceStore& m_store;
    sqlite3* m_db = nullptr;
    std::shared_ptr<const void> m_tables; // the virtual tables' state, released after the connection
};

// The column of a result that holds slice ids (what a click on its row selects): the first whose origin is a
// slice id (slice.id, kernel.id, operator.id, memory_event.id, step.slice_id, kernel.launch_id and
// .operator_id, slice.parent_id, flow.slice_out and .slice_in), else one named `id` or `slice_id` of no
// other table's; -1 when none.
int sliceIdColumn(const QueryResult& result);

// Text for a value as the CLI's table and CSV print it (NULL empty, reals as SQLite prints them).
std::string valueText(const Value& v);

} // namespace kinetoscope::sql
