// `kinetoscope-cli export TRACE --sqlite OUT.db`: the tables a query reads, written into a real SQLite file
// for DuckDB, Datasette, pandas or sqlite3. Each table's cursor gives its rows straight to the file's
// B-tree (sqlitefile.h), in key order, without SQLite's insert in between: the same values a query reads,
// at the cost of encoding them. Streamed: a table's pages go out as they fill; only the keys of the indexes
// that must be sorted are held, until the table's rows are written.

#include "model/freedmemory.h"
#include "sql/indexkeys.h"
#include "sql/sqlitefile.h"
#include "sql/storetables.h"
#include "sql/tracedatabase.h"
#include "sql/vtab.h"

#include <sqlite3.h>

#include <algorithm>
#include <atomic>
#include <barrier>
#include <cerrno>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <deque>
#include <fcntl.h>
#include <functional>
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
// rows do; the others are gathered as the rows go and sorted once all are.
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

// A column's value as an index reads it: an integer, NULL, or neither (a real, a text: no key).
struct KeyValue {
    std::int64_t integer = 0;
    bool isNull = false, isInteger = false;
};
// The values of a row as the cursor gives them: into the record, and each kept as a key.
struct RowSink final : vtab::ValueSink {
    RecordEncoder record;
    KeyValue value;     // the last value given
    bool encode = true; // false: only the value is wanted (a key)
    void null() override {
        value = {0, true, false};
        if (encode) record.null();
    }
    void integer(std::int64_t v) override {
        value = {v, false, true};
        if (encode) record.integer(v);
    }
    void real(double v) override {
        value = {};
        if (encode) record.real(v);
    }
    void text(std::string_view v) override {
        value = {};
        if (encode) record.text(v);
    }
    void lastingText(std::string_view v) override {
        value = {};
        if (encode) record.lastingText(v);
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

// Rows encoded on one thread for another to write: each row's record (`bytes`, each up to its end), or an
// index's entries, in order.
struct Batch {
    ByteBuffer bytes;
    std::vector<std::size_t> ends;
    std::vector<std::int64_t> rowids; // a row's rowid when the table has a key (else numbered when written)
    std::vector<IndexEntry> entries;  // a row's entries of the indexes written as the rows go
    bool end = false;                 // the last batch of its part or its index
    std::string error;                // the producer's, ending the export
};

// A short queue of batches between the encoding thread and the writing one, with the emptied batches handed
// back (their buffers kept).
// On cache lines of its own: each encoding thread reads its queue's stop flag at every row, and a line it
// shared with what the writing thread changes at every row would move between the cores at every row.
class alignas(64) RowQueue {
  public:
    // A batch ends at BatchRows rows or BatchBytes bytes, whichever comes first (a part of `args`, 4,096
    // slices, is 30,000 rows and more), so that what the queues hold stays a few megabytes.
    static constexpr std::size_t BatchRows = 8192, BatchBytes = std::size_t(512) << 10, Depth = 4;
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
        b.bytes.clear(), b.ends.clear(), b.rowids.clear(), b.entries.clear(), b.error.clear();
        b.end = false;
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
    alignas(64) std::atomic<bool> m_stop = false; // read by the producer at every row, without the lock
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
    // What the tables read later compute on first read (the slice lists of our own tables, the steps, the
    // report's analysis, which its tables share), computed meanwhile on a thread of its own.
    // (An export that ends early stops it between tables.)
    struct Joined {
        std::thread thread;
        std::atomic<bool> stop = false;
        ~Joined() {
            stop = true;
            if (thread.joinable()) thread.join();
        }
    } analysis;
    analysis.thread = std::thread([registry, &stop = analysis.stop] {
        for (const auto& table : registry->tables)
            if (!stop) table->prepare();
        if (registry->beforeExport && !stop) registry->beforeExport();
    });
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
                keyed = row.value.isInteger && (first || row.value.integer > previous);
                previous = row.value.integer;
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
            std::unique_ptr<SqliteFileWriter::BTree> tree;
        };
        std::vector<Index> indexes;
        std::vector<std::size_t> streamed, sorted; // indexes written as the rows go, and those sorted after
        for (const IndexSpec& spec : indexSpecs()) {
            if (name != spec.table) continue;
            Index index;
            index.spec = &spec;
            for (const char* column : spec.columns)
                index.column[index.width++] = columns.find(column);
            if (std::find(index.column, index.column + index.width, -1) != index.column + index.width)
                return fail(name + ": no column of index " + spec.name);
            (spec.inScanOrder ? streamed : sorted).push_back(indexes.size());
            index.tree = file.index();
            indexes.push_back(std::move(index));
        }
        // An index's entry of a row, from the row's values as its columns gave them (integers or NULL: the
        // only keys the indexes have).
        const auto entryFrom = [](const std::vector<KeyValue>& values, const Index& index, std::int64_t rowid,
                                  IndexEntry& entry) {
            for (int k = 0; k < index.width; ++k) {
                const KeyValue& value = values[std::size_t(index.column[k])];
                if (!value.isNull && !value.isInteger) return false;
                entry.key[k] = value.integer, entry.null[k] = value.isNull;
            }
            entry.rowid = rowid;
            return true;
        };

        // The columns the sorted indexes read, each once (a key part holds each value once however many
        // indexes read it), and each sorted index's columns among them.
        std::vector<int> keyColumns;
        std::vector<std::size_t> keyReader; // for each, the first index that reads it (named by an error)
        std::vector<std::vector<int>> sortedKeys;
        for (std::size_t i : sorted) {
            std::vector<int>& keys = sortedKeys.emplace_back();
            for (int k = 0; k < indexes[i].width; ++k) {
                const int column = indexes[i].column[k];
                auto it = std::find(keyColumns.begin(), keyColumns.end(), column);
                if (it == keyColumns.end()) {
                    it = keyColumns.insert(keyColumns.end(), column);
                    keyReader.push_back(i);
                }
                keys.push_back(int(it - keyColumns.begin()));
            }
        }

        // Two threads run the cursors and encode while this one lays out pages. The rows go in parts of
        // `chunk` units (slices, or rows), taken by the threads in turn, so that this thread reads them in
        // order from the two queues in turn; a cursor that cannot scan in parts has one thread and one part.
        // The keys of the indexes to sort are gathered from the same rows, a part's apart from the others';
        // once both threads are through the rows, each merges an index in turn (indexkeys.h). What is held:
        // a few batches a queue, and the keys (8 bytes a key column a row: 24 a slice).
        constexpr std::int64_t chunk = 4096;
        const std::int64_t units = table->open()->units();
        const std::int64_t parts = units > chunk ? (units + chunk - 1) / chunk : 1;
        const int lanes = units > chunk ? 2 : 1;
        RowQueue queues[2];
        // A part's keys, in its rows' order. In a table without a key of its own, a row's rowid is its place
        // in the part (from 1) until all parts are in and each is offset by the rows before it.
        std::vector<KeyPart> gathered(static_cast<std::size_t>(parts));
        const auto numberRows = [&gathered, keyed]() noexcept {
            std::int64_t before = 0;
            for (KeyPart& part : gathered) {
                if (!keyed) part.offsetRowids(before);
                before += std::int64_t(part.rows());
            }
        };
        std::barrier rowsGathered(lanes, numberRows);
        std::atomic<std::size_t> indexesLeft = sorted.size();
        // What the threads read at every row is theirs (copied), not this frame's, whose variables this
        // thread changes at every row: a cache line shared by both would move between the cores each time.
        const auto produce = [&name, &gathered, &rowsGathered, &indexesLeft, queues = &queues[0],
                              table = table.get(), keyed, width, parts, lanes, units, streamed, sorted,
                              keyColumns, keyReader, sortedKeys, indexes = indexes.data(),
                              entryFrom](int lane) {
            RowQueue& queue = queues[lane];
            RowSink sink;
            std::vector<KeyValue> values(static_cast<std::size_t>(width));
            std::vector<std::int64_t> keyValues(keyColumns.size());
            std::unique_ptr<bool[]> keyNulls(new bool[keyColumns.size() + 1]);
            auto cursor = table->open();
            Batch batch = queue.emptyBatch();
            const auto notInteger = [&](const Index& index) {
                batch.error = name + ": index " + index.spec->name + " over a column that is not integer";
            };
            // The rows: each part this lane's, in batches (the part's last marked `end`).
            for (std::int64_t part = lane; part < parts && !queue.stopped(); part += lanes) {
                if (parts > 1)
                    cursor->filterUnits(part * chunk, std::min(units, (part + 1) * chunk));
                else
                    cursor->filter(0, 0, nullptr);
                KeyPart keys(int(keyColumns.size()));
                if (!keyColumns.empty()) keys.reserve(std::size_t(chunk));
                std::int64_t partRow = 0;
                for (; !cursor->eof() && !queue.stopped() && batch.error.empty(); cursor->next()) {
                    sink.record.clear();
                    std::int64_t rowid = 0; // (a table without a key of its own: numbered by the writer)
                    if (keyed) {
                        sink.encode = false;
                        cursor->column(sink, 0);
                        rowid = sink.value.integer;
                        values[0] = sink.value;
                    }
                    sink.encode = true;
                    for (int c = 0; c < width; ++c) {
                        if (c == 0 && keyed) {
                            sink.record.null(); // the rowid's own column holds NULL in the record
                        } else {
                            cursor->column(sink, c);
                            values[std::size_t(c)] = sink.value;
                        }
                    }
                    sink.record.write(batch.bytes.extend(sink.record.size()));
                    batch.ends.push_back(batch.bytes.used);
                    batch.rowids.push_back(rowid);
                    ++partRow;
                    for (std::size_t i : streamed)
                        if (!entryFrom(values, indexes[i], rowid, batch.entries.emplace_back()))
                            notInteger(indexes[i]);
                    if (!keyColumns.empty()) {
                        for (std::size_t k = 0; k < keyColumns.size(); ++k) {
                            const KeyValue& value = values[std::size_t(keyColumns[k])];
                            keyValues[k] = value.integer;
                            keyNulls[k] = value.isNull;
                            if (!value.isNull && !value.isInteger) notInteger(indexes[keyReader[k]]);
                        }
                        keys.add(keyValues.data(), keyNulls.get(), keyed ? rowid : partRow);
                    }
                    if (batch.rowids.size() == RowQueue::BatchRows ||
                        batch.bytes.used >= RowQueue::BatchBytes) {
                        queue.push(std::move(batch));
                        batch = queue.emptyBatch();
                    }
                }
                batch.end = true;
                queue.push(std::move(batch));
                batch = queue.emptyBatch();
                keys.shrink();
                gathered[std::size_t(part)] = std::move(keys);
            }
            rowsGathered.arrive_and_wait();
            for (std::size_t k = std::size_t(lane); k < sorted.size() && !queue.stopped();
                 k += std::size_t(lanes)) {
                const Index& index = indexes[sorted[k]];
                MergedEntries entries(gathered, sortedKeys[k]);
                for (IndexEntry entry; entries.next(entry);) {
                    appendIndexRecord(batch.bytes, entry, index.width);
                    batch.ends.push_back(batch.bytes.used);
                    if (batch.ends.size() == RowQueue::BatchRows) {
                        if (queue.stopped()) break;
                        queue.push(std::move(batch));
                        batch = queue.emptyBatch();
                    }
                }
                batch.end = true;
                queue.push(std::move(batch));
                batch = queue.emptyBatch();
                // The keys go as soon as the last index is merged (the next tables need the room).
                if (--indexesLeft == 0) std::vector<KeyPart>().swap(gathered);
            }
            queue.finish();
        };
        // Stopped and joined however this scope ends (an exception here included, which would otherwise end
        // the process with the threads still joinable).
        struct Producers {
            explicit Producers(RowQueue* q) : queues(q) {}
            RowQueue* queues;
            std::thread threads[2];
            void stop() {
                for (int lane = 0; lane < 2; ++lane)
                    if (threads[lane].joinable()) {
                        queues[lane].stop();
                        threads[lane].join();
                    }
            }
            ~Producers() { stop(); }
        } producers(queues);
        for (int lane = 0; lane < lanes; ++lane)
            producers.threads[lane] = std::thread(produce, lane);
        const auto stopProducers = [&] { producers.stop(); };
        // Takes the batches of one part (or one index) from its lane, the last marked `end`.
        ByteBuffer entryRecord;
        std::vector<IndexEntry> lastEntry(indexes.size());
        auto tree = file.table();
        std::uint64_t rows = 0;
        std::string error;
        const auto consume = [&](int lane, const std::function<void(Batch&)>& use) {
            for (Batch batch; error.empty();) {
                if (!queues[lane].pop(batch)) {
                    error =
                        name + ": a part of its rows went missing"; // (a thread ended early: never expected)
                    break;
                }
                if (!batch.error.empty()) error = batch.error;
                if (error.empty()) use(batch);
                const bool end = batch.end;
                queues[lane].recycle(std::move(batch));
                if (end) break;
            }
        };
        const auto useRows = [&](Batch& batch) {
            std::size_t begin = 0;
            for (std::size_t r = 0; r < batch.rowids.size() && error.empty(); ++r) {
                const std::int64_t rowid = keyed ? batch.rowids[r] : std::int64_t(rows) + 1;
                tree->add(rowid, batch.bytes.view().substr(begin, batch.ends[r] - begin));
                begin = batch.ends[r];
                for (std::size_t s = 0; s < streamed.size(); ++s) {
                    IndexEntry entry = batch.entries[r * streamed.size() + s];
                    entry.rowid = rowid;
                    const Index& index = indexes[streamed[s]];
                    if (rows > 0 && !entryBefore(lastEntry[s], entry, index.width))
                        error = name + ": index " + index.spec->name + ": rows out of its order";
                    lastEntry[s] = entry;
                    entryRecord.clear();
                    appendIndexRecord(entryRecord, entry, index.width);
                    index.tree->add(0, entryRecord.view());
                }
                if (++rows % 65536 == 0 && progress && !progress(name, rows)) error = "interrupted";
            }
        };
        for (std::int64_t part = 0; part < parts && error.empty() && file.error().empty(); ++part)
            consume(int(part % lanes), useRows);
        for (std::size_t k = 0; k < sorted.size() && error.empty() && file.error().empty(); ++k)
            consume(int(k % std::size_t(lanes)), [&](Batch& batch) {
                const std::string_view bytes = batch.bytes.view();
                std::size_t begin = 0;
                for (std::size_t end : batch.ends) {
                    indexes[sorted[k]].tree->add(0, bytes.substr(begin, end - begin));
                    begin = end;
                }
            });
        stopProducers();
        if (!error.empty()) return fail(error);
        file.addSchema("table", name, name, tree->finish(), create);
        for (Index& index : indexes) {
            std::string sql = std::string("CREATE INDEX ") + index.spec->name + " ON " + quoted(name) + "(";
            for (int k = 0; k < index.width; ++k)
                sql += (k ? ", " : "") + quoted(index.spec->columns[std::size_t(k)]);
            file.addSchema("index", index.spec->name, name, index.tree->finish(), sql + ")");
        }
        if (!file.error().empty()) break;
        out.tables.emplace_back(name, rows);
        returnFreedMemory(); // the table's keys and batches, freed on the encoding threads
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
