// `kinetoscope-cli export TRACE --sqlite OUT.db`: the tables a query reads, written into a real SQLite file
// for DuckDB, Datasette, pandas or sqlite3. Each table's cursor gives its rows straight to the file's
// B-tree (sqlitefile.h), in key order, without SQLite's insert in between: the same values a query reads,
// at the cost of encoding them. Streamed: a table's pages go out as they fill; only the keys of an index
// that must be sorted are held, one index at a time.

#include "sql/sqlitefile.h"
#include "sql/storetables.h"
#include "sql/tracedatabase.h"
#include "sql/vtab.h"

#include <sqlite3.h>

#include <algorithm>
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
// `inScanOrder`: the table's rows come in the index's order (args by slice), so its entries go out as the
// rows do; the others are gathered and sorted once the table is written.
struct IndexSpec {
    const char* name;
    const char* table;
    std::vector<const char*> columns;
    bool inScanOrder = false;
};
const std::vector<IndexSpec>& indexSpecs() {
    static const std::vector<IndexSpec> specs = {
        {"slice_track_ts", "slice", {"track_id", "ts"}},
        {"slice_ts", "slice", {"ts"}},
        {"slice_parent", "slice", {"parent_id"}},
        {"args_arg_set_id", "args", {"arg_set_id"}, true},
        {"flow_out", "flow", {"slice_out"}},
        {"flow_in", "flow", {"slice_in"}},
        {"counter_track_ts", "counter", {"track_id", "ts"}},
    };
    return specs;
}

// An index entry over at most two integer columns (NULL sorting first, as SQLite's order has it), then the
// row's rowid.
struct IndexEntry {
    std::int64_t key[2] = {0, 0};
    bool null[2] = {false, false};
    std::int64_t rowid = 0;
};
bool entryBefore(const IndexEntry& a, const IndexEntry& b, int columns) {
    for (int c = 0; c < columns; ++c) {
        if (a.null[c] != b.null[c]) return a.null[c];
        if (!a.null[c] && a.key[c] != b.key[c]) return a.key[c] < b.key[c];
    }
    return a.rowid < b.rowid;
}

// The values of a row as the cursor gives them: into the record, and (for the key and index columns) kept
// as integers.
struct RowSink final : vtab::ValueSink {
    RecordEncoder record;
    bool isInteger = false, isNull = false;
    std::int64_t integer_ = 0;
    bool encode = true; // false: only the value is wanted (a key, an index column)
    void null() override {
        isNull = true, isInteger = false;
        if (encode) record.null();
    }
    void integer(std::int64_t v) override {
        isNull = false, isInteger = true, integer_ = v;
        if (encode) record.integer(v);
    }
    void real(double v) override {
        isNull = isInteger = false;
        if (encode) record.real(v);
    }
    void text(std::string_view v) override {
        isNull = isInteger = false;
        if (encode) record.text(v);
    }
};

// One table's columns, as SQLite declares them for a query.
struct Columns {
    std::vector<std::string> names, types;
    int find(const char* name) const {
        const auto it = std::find(names.begin(), names.end(), name);
        return it == names.end() ? -1 : int(it - names.begin());
    }
};

} // namespace

std::vector<std::string> TraceDatabase::tableNames() const {
    return registeredTableNames(m_tables);
}

ExportResult
TraceDatabase::exportSqlite(const std::string& path,
                            const std::function<bool(const std::string&, std::uint64_t)>& progress) {
    ExportResult out;
    const auto* registry = static_cast<const vtab::Registry*>(m_tables.get());
    if (!m_db || !registry) {
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
    const auto fail = [&](std::string why) {
        out.error = std::move(why);
        out.tables.clear();
        ::close(fd);
        std::remove(partial.c_str());
        return out;
    };
    SqliteFileWriter file(fd);
    RowSink row;
    for (const auto& table : registry->tables) {
        const std::string& name = table->name;
        if (progress && !progress(name, 0)) return fail("interrupted");
        // The columns as a query sees them (names and declared types), from SQLite's own reading of the
        // table's schema.
        Columns columns;
        {
            Statement read;
            if (sqlite3_prepare_v2(m_db, ("SELECT * FROM " + quoted(name)).c_str(), -1, &read.stmt,
                                   nullptr) != SQLITE_OK)
                return fail(name + ": " + sqlite3_errmsg(m_db));
            for (int c = 0; c < sqlite3_column_count(read.stmt); ++c) {
                const char* type = sqlite3_column_decltype(read.stmt, c);
                columns.names.emplace_back(sqlite3_column_name(read.stmt, c));
                columns.types.emplace_back(type ? type : "");
            }
        }
        const int width = int(columns.names.size());
        // A table of numbered rows keeps its number as the rowid (INTEGER PRIMARY KEY: no index to build),
        // when its rows come in strictly ascending order of it, as every such table of ours does.
        bool keyed = width > 0 && columns.types[0] == "INTEGER" &&
                     (columns.names[0] == "id" || columns.names[0] == "utid" || columns.names[0] == "upid");
        row.encode = false;
        if (keyed) {
            auto scan = table->open();
            scan->filter(0, 0, nullptr);
            std::int64_t previous = 0;
            for (bool first = true; keyed && !scan->eof(); scan->next(), first = false) {
                scan->column(row, 0);
                keyed = row.isInteger && (first || row.integer_ > previous);
                previous = row.integer_;
            }
        }
        std::string create = "CREATE TABLE " + quoted(name) + "(";
        for (int c = 0; c < width; ++c) {
            create += (c ? ", " : "") + quoted(columns.names[std::size_t(c)]);
            if (c == 0 && keyed)
                create += " INTEGER PRIMARY KEY";
            else if (!columns.types[std::size_t(c)].empty())
                create += " " + columns.types[std::size_t(c)];
        }
        create += ")";

        // The indexes of this table: the columns each reads.
        struct Index {
            const IndexSpec* spec = nullptr;
            int column[2] = {-1, -1};
            int width = 0;
            std::unique_ptr<SqliteFileWriter::BTree> tree; // an index written as the rows go
            IndexEntry last;
            bool any = false;
        };
        std::vector<Index> indexes;
        for (const IndexSpec& spec : indexSpecs()) {
            if (name != spec.table) continue;
            Index index;
            index.spec = &spec;
            for (const char* column : spec.columns)
                index.column[index.width++] = columns.find(column);
            if (std::find(index.column, index.column + index.width, -1) != index.column + index.width)
                return fail(name + ": no column of index " + spec.name);
            if (spec.inScanOrder) index.tree = file.index();
            indexes.push_back(std::move(index));
        }
        // Reads an index's columns of the cursor's row (integers or NULL: the only keys the indexes have).
        const auto entryOf = [&](vtab::Cursor& cursor, const Index& index, std::int64_t rowid,
                                 IndexEntry& entry) {
            const bool encoding = row.encode;
            row.encode = false;
            for (int k = 0; k < index.width; ++k) {
                if (keyed && index.column[k] == 0) {
                    entry.key[k] = rowid, entry.null[k] = false;
                    continue;
                }
                cursor.column(row, index.column[k]);
                if (!row.isNull && !row.isInteger) return false;
                entry.key[k] = row.integer_, entry.null[k] = row.isNull;
            }
            entry.rowid = rowid;
            row.encode = encoding;
            return true;
        };
        RecordEncoder indexRecord;
        const auto indexRecordOf = [&](const IndexEntry& entry, int columnsInKey) {
            indexRecord.clear();
            for (int k = 0; k < columnsInKey; ++k)
                entry.null[k] ? indexRecord.null() : indexRecord.integer(entry.key[k]);
            indexRecord.integer(entry.rowid);
            return indexRecord.record();
        };

        auto tree = file.table();
        auto cursor = table->open();
        cursor->filter(0, 0, nullptr);
        std::uint64_t rows = 0;
        for (; !cursor->eof(); cursor->next()) {
            std::int64_t rowid = std::int64_t(rows) + 1;
            row.record.clear();
            row.encode = false;
            if (keyed) {
                cursor->column(row, 0);
                rowid = row.integer_;
            }
            row.encode = true;
            for (int c = 0; c < width; ++c) {
                if (c == 0 && keyed)
                    row.record.null(); // the rowid's own column holds NULL in the record
                else
                    cursor->column(row, c);
            }
            tree->add(rowid, row.record.record());
            for (Index& index : indexes) {
                if (!index.tree) continue;
                IndexEntry entry;
                if (!entryOf(*cursor, index, rowid, entry))
                    return fail(name + ": index " + index.spec->name + " over a column that is not integer");
                if (index.any && !entryBefore(index.last, entry, index.width))
                    return fail(name + ": index " + index.spec->name + ": rows out of its order");
                index.last = entry, index.any = true;
                index.tree->add(0, indexRecordOf(entry, index.width));
            }
            if (++rows % 65536 == 0 && progress && !progress(name, rows)) return fail("interrupted");
            if (rows % 65536 == 0 && !file.error().empty()) break;
        }
        file.addSchema("table", name, name, tree->finish(), create);
        for (Index& index : indexes) {
            if (!index.tree) {
                // Gathered from a second pass over the table (only the key columns read), then sorted.
                std::vector<IndexEntry> entries;
                auto scan = table->open();
                scan->filter(0, 0, nullptr);
                std::int64_t n = 0;
                for (; !scan->eof(); scan->next()) {
                    std::int64_t rowid = ++n;
                    if (keyed) {
                        row.encode = false;
                        scan->column(row, 0);
                        rowid = row.integer_;
                    }
                    IndexEntry& entry = entries.emplace_back();
                    if (!entryOf(*scan, index, rowid, entry))
                        return fail(name + ": index " + index.spec->name +
                                    " over a column that is not integer");
                }
                std::sort(entries.begin(), entries.end(), [&](const IndexEntry& a, const IndexEntry& b) {
                    return entryBefore(a, b, index.width);
                });
                index.tree = file.index();
                for (const IndexEntry& entry : entries)
                    index.tree->add(0, indexRecordOf(entry, index.width));
            }
            std::string sql = std::string("CREATE INDEX ") + index.spec->name + " ON " + quoted(name) + "(";
            for (int k = 0; k < index.width; ++k)
                sql += (k ? ", " : "") + quoted(index.spec->columns[std::size_t(k)]);
            file.addSchema("index", index.spec->name, name, index.tree->finish(), sql + ")");
        }
        if (!file.error().empty()) break;
        out.tables.emplace_back(name, rows);
    }
    if (!file.finish()) return fail(path + ": " + file.error());
    if (::close(fd) != 0) {
        out.error = path + ": " + std::strerror(errno);
        out.tables.clear();
        std::remove(partial.c_str());
        return out;
    }
    if (std::rename(partial.c_str(), path.c_str()) != 0) {
        out.error = path + ": " + std::strerror(errno);
        out.tables.clear();
        std::remove(partial.c_str());
    }
    return out;
}

} // namespace kinetoscope::sql
