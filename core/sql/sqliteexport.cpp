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
#include <atomic>
#include <cerrno>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <deque>
#include <fcntl.h>
#include <mutex>
#include <thread>
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

// An index entry's record: its key columns, then the rowid.
Payload indexPayload(RecordEncoder& record, const IndexEntry& entry, int columns) {
    record.clear();
    for (int k = 0; k < columns; ++k)
        entry.null[k] ? record.null() : record.integer(entry.key[k]);
    record.integer(entry.rowid);
    return record.payload();
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

// Rows encoded on one thread for another to write: each row's rowid, and its record followed by its entry
// in each index written as the rows go (`bytes`, each piece up to its end).
struct Batch {
    std::string bytes;
    std::vector<std::size_t> ends;
    std::vector<std::int64_t> rowids;
    int index = -1;    // -1: rows of the table; else entries of the table's index of that number, in order
    std::string error; // the producer's, ending the table
};

// A short queue of batches between the encoding thread and the writing one, with the emptied batches handed
// back (their buffers kept).
class RowQueue {
  public:
    static constexpr std::size_t BatchRows = 8192, Depth = 4;
    Batch emptyBatch() {
        std::lock_guard lock(m_mutex);
        if (m_free.empty()) return {};
        Batch b = std::move(m_free.back());
        m_free.pop_back();
        return b;
    }
    void push(Batch b) {
        std::unique_lock lock(m_mutex);
        m_changed.wait(lock, [&] { return m_full.size() < Depth || m_stop; });
        if (m_stop) return;
        m_full.push_back(std::move(b));
        m_changed.notify_all();
    }
    void finish() {
        std::lock_guard lock(m_mutex);
        m_done = true;
        m_changed.notify_all();
    }
    bool pop(Batch& b) {
        std::unique_lock lock(m_mutex);
        m_changed.wait(lock, [&] { return !m_full.empty() || m_done; });
        if (m_full.empty()) return false;
        b = std::move(m_full.front());
        m_full.pop_front();
        m_changed.notify_all();
        return true;
    }
    void recycle(Batch b) {
        b.bytes.clear(), b.ends.clear(), b.rowids.clear(), b.error.clear();
        b.index = -1;
        std::lock_guard lock(m_mutex);
        m_free.push_back(std::move(b));
    }
    void stop() {
        std::lock_guard lock(m_mutex);
        m_stop = true;
        m_changed.notify_all();
    }
    bool stopped() const { return m_stop.load(std::memory_order_relaxed); }

  private:
    std::mutex m_mutex;
    std::condition_variable m_changed;
    std::deque<Batch> m_full;
    std::vector<Batch> m_free;
    bool m_done = false;
    std::atomic<bool> m_stop = false; // read by the producer at every row, without the lock
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
        const auto entryOf = [keyed](vtab::Cursor& cursor, RowSink& sink, const Index& index,
                                     std::int64_t rowid, IndexEntry& entry) {
            sink.encode = false;
            for (int k = 0; k < index.width; ++k) {
                if (keyed && index.column[k] == 0) {
                    entry.key[k] = rowid, entry.null[k] = false;
                    continue;
                }
                cursor.column(sink, index.column[k]);
                if (!sink.isNull && !sink.isInteger) return false;
                entry.key[k] = sink.integer_, entry.null[k] = sink.isNull;
            }
            entry.rowid = rowid;
            return true;
        };
        // The rows come from a second thread, which runs the cursor and encodes them (for args, the decoding
        // of every slice's), while this one lays them into pages: batches pass between the two, a few at a
        // time, so the export holds no more than those.
        std::vector<Index*> streamed;
        for (Index& index : indexes)
            if (index.tree) streamed.push_back(&index);
        RowQueue queue;
        std::thread producer([&, table = table.get()] {
            RowSink sink;
            RecordEncoder keyRecord;
            std::vector<IndexEntry> lastEntry(streamed.size());
            auto cursor = table->open();
            cursor->filter(0, 0, nullptr);
            std::int64_t n = 0;
            Batch batch = queue.emptyBatch();
            for (; !cursor->eof() && !queue.stopped(); cursor->next()) {
                std::int64_t rowid = ++n;
                sink.record.clear();
                if (keyed) {
                    sink.encode = false;
                    cursor->column(sink, 0);
                    rowid = sink.integer_;
                }
                sink.encode = true;
                for (int c = 0; c < width; ++c) {
                    if (c == 0 && keyed)
                        sink.record.null(); // the rowid's own column holds NULL in the record
                    else
                        cursor->column(sink, c);
                }
                for (std::string_view piece : sink.record.payload().pieces)
                    batch.bytes += piece;
                batch.ends.push_back(batch.bytes.size());
                batch.rowids.push_back(rowid);
                for (std::size_t i = 0; i < streamed.size(); ++i) {
                    const Index& index = *streamed[i];
                    IndexEntry entry;
                    if (!entryOf(*cursor, sink, index, rowid, entry)) {
                        batch.error =
                            name + ": index " + index.spec->name + " over a column that is not integer";
                        break;
                    }
                    if (n > 1 && !entryBefore(lastEntry[i], entry, index.width)) {
                        batch.error = name + ": index " + index.spec->name + ": rows out of its order";
                        break;
                    }
                    lastEntry[i] = entry;
                    for (std::string_view piece : indexPayload(keyRecord, entry, index.width).pieces)
                        batch.bytes += piece;
                    batch.ends.push_back(batch.bytes.size());
                }
                if (!batch.error.empty() || batch.rowids.size() == RowQueue::BatchRows) {
                    queue.push(std::move(batch));
                    batch = queue.emptyBatch();
                }
            }
            // Then the indexes to be sorted: gathered from a second pass over the table (only their key
            // columns read), sorted and encoded here, while the writing thread lays out what came before.
            for (std::size_t i = 0; i < indexes.size() && batch.error.empty() && !queue.stopped(); ++i) {
                const Index& index = indexes[i];
                if (index.spec->inScanOrder) continue;
                std::vector<IndexEntry> entries;
                auto scan = table->open();
                scan->filter(0, 0, nullptr);
                std::int64_t row = 0;
                for (; !scan->eof() && batch.error.empty(); scan->next()) {
                    std::int64_t rowid = ++row;
                    if (keyed) {
                        sink.encode = false;
                        scan->column(sink, 0);
                        rowid = sink.integer_;
                    }
                    if (!entryOf(*scan, sink, index, rowid, entries.emplace_back()))
                        batch.error =
                            name + ": index " + index.spec->name + " over a column that is not integer";
                }
                std::sort(entries.begin(), entries.end(), [&](const IndexEntry& a, const IndexEntry& b) {
                    return entryBefore(a, b, index.width);
                });
                queue.push(std::move(batch));
                batch = queue.emptyBatch();
                batch.index = int(i);
                for (const IndexEntry& entry : entries) {
                    for (std::string_view piece : indexPayload(keyRecord, entry, index.width).pieces)
                        batch.bytes += piece;
                    batch.ends.push_back(batch.bytes.size());
                    if (batch.ends.size() == RowQueue::BatchRows) {
                        queue.push(std::move(batch));
                        batch = queue.emptyBatch();
                        batch.index = int(i);
                    }
                }
            }
            queue.push(std::move(batch));
            queue.finish();
        });
        const auto stopProducer = [&] {
            queue.stop();
            producer.join();
        };
        auto tree = file.table();
        std::uint64_t rows = 0;
        for (Batch batch; queue.pop(batch); queue.recycle(std::move(batch))) {
            if (!batch.error.empty()) {
                stopProducer();
                return fail(batch.error);
            }
            // Each row's record, then its entry of each index written as the rows go.
            const std::string_view bytes = batch.bytes;
            std::size_t begin = 0, piece = 0;
            const auto next = [&] {
                const std::string_view record = bytes.substr(begin, batch.ends[piece] - begin);
                begin = batch.ends[piece++];
                return record;
            };
            if (batch.index >= 0) { // a sorted index's entries
                Index& index = indexes[std::size_t(batch.index)];
                if (!index.tree) index.tree = file.index();
                while (piece < batch.ends.size())
                    index.tree->add(0, next());
                continue;
            }
            for (std::size_t r = 0; r < batch.rowids.size(); ++r) {
                tree->add(batch.rowids[r], next());
                for (const Index* index : streamed)
                    index->tree->add(0, next());
                if (++rows % 65536 == 0 && progress && !progress(name, rows)) {
                    stopProducer();
                    return fail("interrupted");
                }
            }
            if (!file.error().empty()) break;
        }
        stopProducer();
        file.addSchema("table", name, name, tree->finish(), create);
        for (Index& index : indexes) {
            if (!index.tree) index.tree = file.index(); // (a table without rows)
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
