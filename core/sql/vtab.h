#pragma once

// What every virtual table of the SQL layer is made of (private to core/sql): a table declares its schema,
// plans a query's constraints (xBestIndex) and opens cursors; the store's tables (storetables.cpp), ours
// (owntables.cpp) and the report's (summarytables.cpp) are all registered as eponymous, read-only modules.

#include "model/tracestore.h"

#include <sqlite3.h>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace kinetoscope::sql::vtab {

// Where a column's value goes: SQLite's result for a query (vtab.cpp), or a record of an exported file
// (sqliteexport.cpp), so that an export reads the same values a query does without SQLite in between.
struct ValueSink {
    virtual void null() = 0;
    virtual void integer(std::int64_t value) = 0;
    virtual void real(double value) = 0;
    virtual void text(std::string_view value) = 0;
    // A text that stays where it is until the cursor moves on (the store's strings, a decoder's buffer
    // for the row): a sink may keep the view instead of copying it, as an export's records do.
    virtual void lastingText(std::string_view value) { text(value); }

  protected:
    ~ValueSink() = default;
};

// A row source: the rows of a table, or of one filter. Each table says how a filter narrows them.
struct Cursor {
    virtual ~Cursor() = default;
    virtual void filter(int plan, int argc, sqlite3_value** argv) = 0;
    virtual bool eof() const = 0;
    virtual void next() = 0;
    virtual void column(ValueSink& out, int column) = 0;
    virtual sqlite3_int64 rowid() const = 0;
    // An export's scan in parts, on several threads: a full scan's units (a slice for the tables of slices
    // and their args, a row for the others; -1: this cursor scans whole only), and the rows of units
    // [begin, end), in the full scan's order.
    virtual std::int64_t units() { return -1; }
    virtual void filterUnits(std::int64_t, std::int64_t) {}
};

struct Table {
    std::string name; // the module's (and so the table's) name
    virtual ~Table() = default;
    virtual std::string schema() const = 0;
    virtual int bestIndex(sqlite3_index_info* info) const = 0;
    virtual std::unique_ptr<Cursor> open() const = 0;
    // What a first read computes, done ahead (an export does it for every table on a thread of its own,
    // while it writes the tables before). Safe beside a read of the table on another thread.
    virtual void prepare() const {}
};

inline void resultOptional(ValueSink& out, bool has, std::int64_t value) {
    if (has)
        out.integer(value);
    else
        out.null();
}

// The first usable constraint `op` on `column`; -1 when none.
int usable(const sqlite3_index_info* info, int column, unsigned char op);

// Slice ids: every slice of every track, numbered track by track (a track's offset plus its row), so that an
// id is a binary search away from its slice and the tables that name slices (flow, kernel, operator) agree.
// (The numbering of model/viewlink.h's sliceIdOf, which links use: the offsets here serve a query's many
// lookups.)
struct SliceIndex {
    std::vector<std::int64_t> offset; // per track, the id of its row 0; one past the end last
    explicit SliceIndex(const TraceStore& s);
    std::int64_t idOf(EventRef ref) const { return offset[ref.track.value] + ref.index.value; }
    std::int64_t idOf(std::uint32_t track, std::uint32_t row) const { return offset[track] + row; }
    bool find(std::int64_t id, std::uint32_t& track, std::uint32_t& row) const;
    std::int64_t count() const { return offset.back(); }
};

// Tables of rows numbered [0, count): column(row, column) gives a value; an EQ constraint on column 0 gives
// `rowsFor` its value (a key: one row, or the rows of one slice for args).
struct Rows {
    std::size_t count = 0;
    std::function<void(ValueSink&, std::size_t row, int column)> column;
};
struct ListTable final : Table {
    std::string ddl;
    std::function<Rows(const sqlite3_value* key)> rowsFor; // key null: every row
    std::function<double()> rowEstimate = [] { return 1000.0; };
    // What prepare() does, where the rows are built once (call_once) on first read.
    std::function<void()> warm;
    void prepare() const override {
        if (warm) warm();
    }
    std::string schema() const override { return ddl; }
    int bestIndex(sqlite3_index_info* info) const override;
    std::unique_ptr<Cursor> open() const override;
};

// The rows of a table keyed by its row number, as a key constraint picks them.
template <typename F> Rows keyedRows(std::size_t count, const sqlite3_value* key, F column) {
    if (!key) return {count, column};
    auto* k = const_cast<sqlite3_value*>(key);
    const sqlite3_int64 row = sqlite3_value_int64(k);
    if (sqlite3_value_numeric_type(k) != SQLITE_INTEGER || row < 0 || std::size_t(row) >= count)
        return {0, column};
    return {1, [column, row](ValueSink& out, std::size_t, int c) { column(out, std::size_t(row), c); }};
}

// The rows of a table whose rows are slices in id order (`ids` ascending), keyed by slice id.
template <typename F>
Rows sliceKeyedRows(const std::vector<std::int64_t>& ids, const sqlite3_value* key, F column) {
    if (!key) return {ids.size(), column};
    auto* k = const_cast<sqlite3_value*>(key);
    const sqlite3_int64 id = sqlite3_value_int64(k);
    const auto it = std::lower_bound(ids.begin(), ids.end(), id);
    if (sqlite3_value_numeric_type(k) != SQLITE_INTEGER || it == ids.end() || *it != id) return {0, column};
    const std::size_t row = std::size_t(it - ids.begin());
    return {1, [column, row](ValueSink& out, std::size_t, int c) { column(out, row, c); }};
}

// Every table a database has: the store's, ours and the report's, with what they share.
struct Registry {
    const TraceStore* store = nullptr;
    std::unique_ptr<SliceIndex> slices;
    std::vector<std::unique_ptr<Table>> tables;
    std::vector<std::shared_ptr<void>> state; // what the tables' closures point into
    std::function<void()> beforeExport;       // what an export of every table computes first (after each
                                              // table's prepare())
};

// Registers every table of `registry` on `db` (the registry must outlive the connection).
bool registerModules(sqlite3* db, const Registry& registry);
// Our own tables (owntables.cpp): kernel, operator, step, memory_event.
void addOwnTables(Registry& registry);
// The report's tables (summarytables.cpp): every table of `summary --json`, computed when first read.
void addSummaryTables(Registry& registry);
// True while a table declares its schema (the authorizer lets that CREATE through, nothing else).
extern thread_local bool declaringTable;

} // namespace kinetoscope::sql::vtab
