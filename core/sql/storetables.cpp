#include "sql/storetables.h"

#include "sql/vtab.h"

#include "query/args.h"
#include "query/lanelayout.h"

#include <algorithm>
#include <charconv>
#include <climits>
#include <cmath>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace kinetoscope::sql {

using namespace vtab;

namespace {

enum SlicePlan {
    ById = 1,
    ByTrack = 2,
    TsLower = 4,
    TsUpper = 8,
    TsEqual = 16,
    TsLowerStrict = 32, // the lower bound is `>`, not `>=`
    TsUpperStrict = 64, // the upper bound is `<`, not `<=`
};

// The integer an `=` with `v` picks on an INTEGER column (SQLite gives a text operand the column's numeric
// affinity first): nullopt when no integer equals it (NULL, a fraction, text that is not a number).
std::optional<std::int64_t> equalInteger(sqlite3_value* v) {
    switch (sqlite3_value_numeric_type(v)) {
    case SQLITE_INTEGER:
        return sqlite3_value_int64(v);
    case SQLITE_FLOAT: {
        const double d = sqlite3_value_double(v);
        if (d == std::floor(d) && d >= -9.2e18 && d <= 9.2e18) return std::int64_t(d);
        return std::nullopt;
    }
    default:
        return std::nullopt;
    }
}

// Narrows [lo, hi] to the integers that satisfy `column OP v` exactly (the planner leaves the check to us:
// SQLite does not test the rows again). `lower`: OP is > or >= (else < or <=); `strict`: > or <. Sets `none`
// when nothing can match: NULL compares true with nothing, and every integer sorts before any text.
void narrow(sqlite3_value* v, bool lower, bool strict, TimeNs& lo, TimeNs& hi, bool& none) {
    const int type = sqlite3_value_numeric_type(v);
    if (type == SQLITE_NULL) {
        none = true;
        return;
    }
    if (type != SQLITE_INTEGER && type != SQLITE_FLOAT) {
        if (lower) none = true; // ts > 'text' is never true; ts < 'text' always is
        return;
    }
    if (type == SQLITE_INTEGER) {
        const std::int64_t i = sqlite3_value_int64(v);
        // Nothing is above the largest integer, nor below the smallest (and i + 1 would overflow).
        if (strict && i == (lower ? INT64_MAX : INT64_MIN))
            none = true;
        else if (lower)
            lo = std::max(lo, strict ? i + 1 : i);
        else
            hi = std::min(hi, strict ? i - 1 : i);
        return;
    }
    const double d = sqlite3_value_double(v);
    if (std::isnan(d)) {
        none = true;
        return;
    }
    if (lower) {
        if (d >= 9.2e18)
            none = true;
        else if (d > -9.2e18)
            lo = std::max(lo, strict ? TimeNs(std::floor(d)) + 1 : TimeNs(std::ceil(d)));
    } else {
        if (d <= -9.2e18)
            none = true;
        else if (d < 9.2e18)
            hi = std::min(hi, strict ? TimeNs(std::ceil(d)) - 1 : TimeNs(std::floor(d)));
    }
}

struct SliceCursor final : Cursor {
    const TraceStore& store;
    const SliceIndex& index;
    // The (track, row range) runs to visit: one per lane, narrowed by the filter.
    struct Run {
        std::uint32_t track, row, end;
    };
    std::vector<Run> runs;
    std::size_t run = 0;
    std::uint32_t row = 0;
    SliceCursor(const TraceStore& s, const SliceIndex& i) : store(s), index(i) {}

    void filter(int plan, int, sqlite3_value** argv) override {
        runs.clear();
        run = 0;
        int arg = 0;
        const TraceStore& s = store;
        if (plan & ById) {
            std::uint32_t t = 0, r = 0;
            if (const auto id = equalInteger(argv[arg]); id && index.find(*id, t, r))
                runs.push_back({t, r, r + 1});
            row = runs.empty() ? 0 : runs[0].row;
            return;
        }
        std::uint32_t firstTrack = 0, lastTrack = std::uint32_t(s.tracks().size());
        if (plan & ByTrack) {
            const auto t = equalInteger(argv[arg++]);
            if (!t || *t < 0 || *t >= std::int64_t(s.tracks().size())) return;
            firstTrack = std::uint32_t(*t), lastTrack = std::uint32_t(*t) + 1;
        }
        // ts bounds, inclusive and exact: the planner was told SQLite need not check them again.
        TimeNs lo = INT64_MIN, hi = INT64_MAX;
        bool none = false;
        if (plan & TsEqual) {
            const auto at = equalInteger(argv[arg++]);
            none = !at;
            lo = hi = at.value_or(0);
        }
        if (plan & TsLower) narrow(argv[arg++], true, plan & TsLowerStrict, lo, hi, none);
        if (plan & TsUpper) narrow(argv[arg++], false, plan & TsUpperStrict, lo, hi, none);
        if (none || lo > hi) return;
        for (std::uint32_t t = firstTrack; t < lastTrack; ++t) {
            const Track& track = s.tracks()[t];
            for (std::uint32_t d = 0; d < track.laneCount(); ++d) {
                // A lane is sorted by start: its slices starting in [lo, hi] are one run.
                const TimeNs* begin = track.starts.data() + track.laneBegin[d];
                const TimeNs* end = track.starts.data() + track.laneBegin[d + 1];
                const TimeNs* a = std::lower_bound(begin, end, lo);
                const TimeNs* b = std::upper_bound(a, end, hi);
                if (a != b)
                    runs.push_back(
                        {t, std::uint32_t(a - track.starts.data()), std::uint32_t(b - track.starts.data())});
            }
        }
        row = runs.empty() ? 0 : runs[0].row;
    }
    // A full scan visits each track's rows in order (its lanes are consecutive rows), so slices with ids in
    // [begin, end) are one run a track.
    std::int64_t units() override { return index.count(); }
    void filterUnits(std::int64_t begin, std::int64_t end) override {
        runs.clear();
        run = 0;
        for (std::uint32_t t = 0; t + 1 < index.offset.size(); ++t) {
            const std::int64_t from = std::max(begin, index.offset[t]),
                               to = std::min(end, index.offset[t + 1]);
            if (from < to)
                runs.push_back(
                    {t, std::uint32_t(from - index.offset[t]), std::uint32_t(to - index.offset[t])});
        }
        row = runs.empty() ? 0 : runs[0].row;
    }
    bool eof() const override { return run >= runs.size(); }
    void next() override {
        if (++row >= runs[run].end && ++run < runs.size()) row = runs[run].row;
    }
    sqlite3_int64 rowid() const override { return index.idOf(runs[run].track, row); }
    // The row's lane, kept while the scan stays in it (a track's rows are its lanes in turn).
    std::uint32_t laneTrack = UINT32_MAX, lane = 0, laneFirstRow = 0, laneEndRow = 0;
    std::uint32_t depth(std::uint32_t t, const Track& track) {
        if (t != laneTrack || row < laneFirstRow || row >= laneEndRow) {
            lane = track.depthOf(row);
            laneTrack = t, laneFirstRow = track.laneBegin[lane], laneEndRow = track.laneBegin[lane + 1];
        }
        return lane;
    }
    void column(ValueSink& out, int column) override {
        const TraceStore& s = store;
        const std::uint32_t t = runs[run].track;
        const Track& track = s.tracks()[t];
        switch (column) {
        case 0: // id
            out.integer(index.idOf(t, row));
            break;
        case 1: // ts
            out.integer(track.starts[row]);
            break;
        case 2: // dur
            out.integer(track.durations[row]);
            break;
        case 3: // track_id
            out.integer(t);
            break;
        case 4: // category
            out.lastingText(s.strings().view(s.categories()[track.categories[row]].name));
            break;
        case 5: // name
            out.lastingText(s.strings().view(track.names[row]));
            break;
        case 6: // depth: its lane on the timeline
            out.integer(depth(t, track));
            break;
        case 7: // parent_id: the innermost slice enclosing it by the nesting rule
            if (const auto p = track.parentOf(row, depth(t, track)))
                out.integer(index.idOf(t, *p));
            else
                out.null();
            break;
        case 8: // arg_set_id: the slice's own id when it has args
            if (!s.argsText({TrackId(t), EventIndex(row)}).empty())
                out.integer(index.idOf(t, row));
            else
                out.null();
            break;
        default:
            out.null();
        }
    }
};

struct SliceTable final : Table {
    const TraceStore& store;
    const SliceIndex& index;
    SliceTable(const TraceStore& s, const SliceIndex& i) : store(s), index(i) {}
    std::string schema() const override {
        return "CREATE TABLE x(id INTEGER, ts INTEGER, dur INTEGER, track_id INTEGER, category TEXT, name "
               "TEXT, "
               "depth INTEGER, parent_id INTEGER, arg_set_id INTEGER)";
    }
    int bestIndex(sqlite3_index_info* info) const override {
        int plan = 0, arg = 0;
        double cost = double(index.offset.back()) + 1;
        // Each constraint used is applied exactly by the filter: SQLite need not test it on every row again.
        const auto use = [&](int constraint) {
            info->aConstraintUsage[constraint].argvIndex = ++arg;
            info->aConstraintUsage[constraint].omit = 1;
        };
        if (const int id = usable(info, 0, SQLITE_INDEX_CONSTRAINT_EQ); id >= 0) {
            plan = ById;
            use(id);
            cost = 1;
        } else {
            if (const int track = usable(info, 3, SQLITE_INDEX_CONSTRAINT_EQ); track >= 0) {
                plan |= ByTrack;
                use(track);
                cost /= 16;
            }
            if (const int equal = usable(info, 1, SQLITE_INDEX_CONSTRAINT_EQ); equal >= 0) {
                plan |= TsEqual;
                use(equal);
                cost /= 64;
            } else {
                int lower = usable(info, 1, SQLITE_INDEX_CONSTRAINT_GE);
                if (lower < 0 && (lower = usable(info, 1, SQLITE_INDEX_CONSTRAINT_GT)) >= 0)
                    plan |= TsLowerStrict;
                if (lower >= 0) {
                    plan |= TsLower;
                    use(lower);
                    cost /= 4;
                }
                int upper = usable(info, 1, SQLITE_INDEX_CONSTRAINT_LE);
                if (upper < 0 && (upper = usable(info, 1, SQLITE_INDEX_CONSTRAINT_LT)) >= 0)
                    plan |= TsUpperStrict;
                if (upper >= 0) {
                    plan |= TsUpper;
                    use(upper);
                    cost /= 4;
                }
            }
        }
        info->idxNum = plan;
        info->estimatedCost = cost;
        info->estimatedRows = sqlite3_int64(cost);
        return SQLITE_OK;
    }
    std::unique_ptr<Cursor> open() const override { return std::make_unique<SliceCursor>(store, index); }
};

// The args of slices, decoded one slice at a time as the cursor reaches it: `WHERE arg_set_id = …` decodes
// one slice's, a scan (an export) every slice's without holding them.
struct ArgsCursor final : Cursor {
    const TraceStore& store;
    const SliceIndex& index;
    std::int64_t id = 0, end = 0;
    std::uint32_t track = 0, row = 0; // where slice `id` is
    TypedArgsDecoder decoder;
    const std::vector<TypedArg>* fields = nullptr;
    std::size_t field = 0;
    ArgsCursor(const TraceStore& s, const SliceIndex& i) : store(s), index(i) {}

    // From slice `id` on, the first with args (a scan steps through the tracks in order, without a search).
    void settle() {
        for (; id < end; ++id) {
            if (id >= index.offset[track + 1] || id < index.offset[track]) index.find(id, track, row);
            row = std::uint32_t(id - index.offset[track]);
            const std::string_view text = store.argsText({TrackId(track), EventIndex(row)});
            const std::string_view source = store.sourceText();
            fields = &decoder.decode(
                text,
                text.empty() ? 0 : std::size_t(source.data() + source.size() - (text.data() + text.size())));
            field = 0;
            if (!fields->empty()) return;
        }
    }
    void filter(int plan, int, sqlite3_value** argv) override {
        if (plan) {
            id = sqlite3_value_numeric_type(argv[0]) == SQLITE_INTEGER ? sqlite3_value_int64(argv[0]) : -1;
            end = id >= 0 && id < index.count() ? id + 1 : id;
        } else {
            id = 0;
            end = index.count();
        }
        track = 0;
        settle();
    }
    std::int64_t units() override { return index.count(); }
    void filterUnits(std::int64_t begin, std::int64_t last) override {
        id = begin;
        end = last;
        track = 0;
        settle();
    }
    bool eof() const override { return id >= end; }
    void next() override {
        if (++field < fields->size()) return;
        ++id;
        settle();
    }
    sqlite3_int64 rowid() const override { return id; }
    void column(ValueSink& out, int c) override {
        const TypedArg& f = (*fields)[field];
        using Kind = TypedArg::Kind;
        switch (c) {
        case 0:
            return out.integer(id);
        case 1:
            return out.lastingText(f.key); // (the decoder's, until the next slice)
        case 2:
            return resultOptional(out, f.kind == Kind::Integer, f.integer);
        case 3:
            if (f.kind == Kind::String || f.kind == Kind::Json) return out.lastingText(f.text);
            return out.null();
        case 4:
            if (f.kind == Kind::Real) return out.real(f.real);
            return out.null();
        case 5:
            return out.lastingText(f.kind == Kind::Integer  ? "int"
                                   : f.kind == Kind::Real   ? "real"
                                   : f.kind == Kind::String ? "string"
                                                            : "json");
        }
    }
};

struct ArgsTable final : Table {
    const TraceStore& store;
    const SliceIndex& index;
    ArgsTable(const TraceStore& s, const SliceIndex& i) : store(s), index(i) {}
    std::string schema() const override {
        return "CREATE TABLE x(arg_set_id INTEGER, key TEXT, int_value INTEGER, string_value TEXT, "
               "real_value "
               "REAL, value_type TEXT)";
    }
    int bestIndex(sqlite3_index_info* info) const override {
        if (const int key = usable(info, 0, SQLITE_INDEX_CONSTRAINT_EQ); key >= 0) {
            info->aConstraintUsage[key].argvIndex = 1;
            info->idxNum = 1;
            info->estimatedCost = 10;
        } else {
            info->idxNum = 0;
            info->estimatedCost = 1e9; // a scan decodes every slice's args: the planner avoids it
        }
        return SQLITE_OK;
    }
    std::unique_ptr<Cursor> open() const override { return std::make_unique<ArgsCursor>(store, index); }
};

std::string_view trackType(TrackKind kind) {
    switch (kind) {
    case TrackKind::CpuThread:
        return "thread";
    case TrackKind::GpuStream:
        return "gpu_stream";
    case TrackKind::Async:
        return "async";
    case TrackKind::Counter:
        return "counter";
    }
    return "other";
}

// The store's tables share the thread and process numbering.
struct Numbering {
    // Threads: the CPU thread tracks, numbered; processes: the pids of the trace, numbered.
    std::vector<std::uint32_t> threadTracks;
    std::vector<std::int64_t> pids;
    std::map<std::int64_t, std::size_t> upidOf;
    std::map<std::uint32_t, std::size_t> utidOf; // by track
    std::vector<std::uint32_t> counterTracks;
    std::vector<std::int64_t> counterOffset; // per counter track, the id of its first sample
};

} // namespace

std::shared_ptr<const void> registerStoreTables(sqlite3* db, const TraceStore& store) {
    auto owner = std::make_shared<Registry>();
    Registry& registry = *owner;
    registry.store = &store;
    registry.slices = std::make_unique<SliceIndex>(store);
    auto numbering = std::make_shared<Numbering>();
    registry.state.push_back(numbering);
    Numbering* reg = numbering.get();
    for (std::uint32_t t = 0; t < store.tracks().size(); ++t) {
        const Track& track = store.tracks()[t];
        if (!reg->upidOf.count(track.pid)) {
            reg->upidOf[track.pid] = reg->pids.size();
            reg->pids.push_back(track.pid);
        }
        if (track.kind == TrackKind::CpuThread) {
            reg->utidOf[t] = reg->threadTracks.size();
            reg->threadTracks.push_back(t);
        }
        if (track.kind == TrackKind::Counter) {
            reg->counterOffset.push_back(
                reg->counterOffset.empty()
                    ? 0
                    : reg->counterOffset.back() +
                          std::int64_t(store.tracks()[reg->counterTracks.back()].counterTimes.size()));
            reg->counterTracks.push_back(t);
        }
    }
    const TraceStore& s = store;
    auto name = [&s](StringId id) { return s.strings().view(id); };

    const SliceIndex* sliceIndex = registry.slices.get();
    const auto add = [&registry](const char* name, std::unique_ptr<Table> table) {
        table->name = name;
        registry.tables.push_back(std::move(table));
    };
    add("slice", std::make_unique<SliceTable>(store, *sliceIndex));

    auto track = std::make_unique<ListTable>();
    track->ddl = "CREATE TABLE x(id INTEGER, name TEXT, type TEXT, utid INTEGER, upid INTEGER)";
    track->rowsFor = [reg, &s](const sqlite3_value* key) {
        return keyedRows(s.tracks().size(), key, [reg, &s](ValueSink& out, std::size_t row, int c) {
            const Track& t = s.tracks()[row];
            switch (c) {
            case 0:
                out.integer(sqlite3_int64(row));
                break;
            case 1:
                out.text(trackTitle(s, TrackId(std::uint32_t(row))));
                break;
            case 2:
                out.text(trackType(t.kind));
                break;
            case 3:
                if (const auto it = reg->utidOf.find(std::uint32_t(row)); it != reg->utidOf.end())
                    out.integer(sqlite3_int64(it->second));
                else
                    out.null();
                break;
            case 4:
                out.integer(sqlite3_int64(reg->upidOf.at(t.pid)));
                break;
            }
        });
    };
    add("track", std::move(track));

    auto threadTrack = std::make_unique<ListTable>();
    threadTrack->ddl = "CREATE TABLE x(id INTEGER, name TEXT, type TEXT, utid INTEGER)";
    threadTrack->rowsFor = [reg, &s](const sqlite3_value* key) {
        const auto column = [reg, &s](ValueSink& out, std::size_t i, int c) {
            const std::uint32_t t = reg->threadTracks[i];
            if (c == 0) out.integer(t);
            if (c == 1) out.text(trackTitle(s, TrackId(t)));
            if (c == 2) out.text("thread");
            if (c == 3) out.integer(sqlite3_int64(i));
        };
        if (!key) return Rows{reg->threadTracks.size(), column};
        // By track id: the thread track of that id, if it is one.
        const auto it = reg->utidOf.find(std::uint32_t(sqlite3_value_int64(const_cast<sqlite3_value*>(key))));
        if (it == reg->utidOf.end()) return Rows{0, column};
        const std::size_t i = it->second;
        return Rows{1, [column, i](ValueSink& out, std::size_t, int c) { column(out, i, c); }};
    };
    add("thread_track", std::move(threadTrack));

    auto thread = std::make_unique<ListTable>();
    thread->ddl = "CREATE TABLE x(utid INTEGER, tid INTEGER, name TEXT, upid INTEGER)";
    thread->rowsFor = [reg, &s, name](const sqlite3_value* key) {
        return keyedRows(reg->threadTracks.size(), key,
                         [reg, &s, name](ValueSink& out, std::size_t i, int c) {
                             const Track& t = s.tracks()[reg->threadTracks[i]];
                             if (c == 0) out.integer(sqlite3_int64(i));
                             if (c == 1) out.integer(t.tid);
                             if (c == 2) {
                                 if (t.name.isValid())
                                     out.text(name(t.name));
                                 else
                                     out.null();
                             }
                             if (c == 3) out.integer(sqlite3_int64(reg->upidOf.at(t.pid)));
                         });
    };
    add("thread", std::move(thread));

    auto process = std::make_unique<ListTable>();
    process->ddl = "CREATE TABLE x(upid INTEGER, pid INTEGER, name TEXT)";
    process->rowsFor = [reg, &s, name](const sqlite3_value* key) {
        return keyedRows(reg->pids.size(), key, [reg, &s, name](ValueSink& out, std::size_t i, int c) {
            if (c == 0) out.integer(sqlite3_int64(i));
            if (c == 1) out.integer(reg->pids[i]);
            if (c == 2) {
                for (const ProcessInfo& p : s.processes())
                    if (p.pid == reg->pids[i] && p.name.isValid()) return out.text(name(p.name));
                out.null();
            }
        });
    };
    add("process", std::move(process));

    auto counter = std::make_unique<ListTable>();
    counter->ddl = "CREATE TABLE x(id INTEGER, ts INTEGER, track_id INTEGER, value REAL)";
    std::size_t samples = 0;
    for (std::uint32_t t : reg->counterTracks)
        samples += s.tracks()[t].counterTimes.size();
    counter->rowEstimate = [samples] { return double(samples) + 1; };
    counter->rowsFor = [reg, &s, samples](const sqlite3_value* key) {
        return keyedRows(samples, key, [reg, &s](ValueSink& out, std::size_t id, int c) {
            const auto it =
                std::upper_bound(reg->counterOffset.begin(), reg->counterOffset.end(), std::int64_t(id));
            const std::size_t k = std::size_t(it - reg->counterOffset.begin() - 1);
            const std::uint32_t t = reg->counterTracks[k];
            const std::size_t i = id - std::size_t(reg->counterOffset[k]);
            const Track& track = s.tracks()[t];
            if (c == 0) out.integer(sqlite3_int64(id));
            if (c == 1) out.integer(track.counterTimes[i]);
            if (c == 2) out.integer(t);
            if (c == 3) out.real(track.counterValues[i]);
        });
    };
    add("counter", std::move(counter));

    auto flow = std::make_unique<ListTable>();
    flow->ddl = "CREATE TABLE x(id INTEGER, slice_out INTEGER, slice_in INTEGER, category TEXT)";
    flow->rowEstimate = [&s] { return double(s.flows().size()) + 1; };
    flow->rowsFor = [sliceIndex, &s, name](const sqlite3_value* key) {
        return keyedRows(s.flows().size(), key, [sliceIndex, &s, name](ValueSink& out, std::size_t i, int c) {
            const Flow& f = s.flows()[i];
            if (c == 0) out.integer(sqlite3_int64(i));
            if (c == 1) out.integer(sliceIndex->idOf(f.source.track.value, f.source.index.value));
            if (c == 2) out.integer(sliceIndex->idOf(f.target.track.value, f.target.index.value));
            if (c == 3) {
                if (f.category.isValid())
                    out.text(name(f.category));
                else
                    out.null();
            }
        });
    };
    add("flow", std::move(flow));

    // args: decoded only for the slices a query asks about (arg_set_id = a slice id), a slice at a time.
    auto args = std::make_unique<ArgsTable>(s, *sliceIndex);
    add("args", std::move(args));

    addOwnTables(registry);
    addSummaryTables(registry);
    if (!registerModules(db, registry)) return nullptr;
    return owner;
}

std::int64_t sliceIdOf(const std::shared_ptr<const void>& tables, EventRef ref) {
    const auto* registry = static_cast<const Registry*>(tables.get());
    return registry ? registry->slices->idOf(ref) : -1;
}

std::optional<EventRef> sliceOfId(const std::shared_ptr<const void>& tables, std::int64_t id) {
    const auto* registry = static_cast<const Registry*>(tables.get());
    std::uint32_t t = 0, r = 0;
    if (!registry || !registry->slices->find(id, t, r)) return std::nullopt;
    return EventRef{TrackId(t), EventIndex(r)};
}

std::vector<std::string> registeredTableNames(const std::shared_ptr<const void>& tables) {
    std::vector<std::string> names;
    if (const auto* registry = static_cast<const Registry*>(tables.get()))
        for (const auto& t : registry->tables)
            names.push_back(t->name);
    return names;
}

} // namespace kinetoscope::sql
