// Our own tables beside Perfetto's (docs/SQL.md): what a GPU engineer asks of a PyTorch trace and Perfetto
// has no table for. Each row is a slice (its `id` is slice.id), found when the table is first read; the
// args a column needs are read from the slice's own text when that column is read.

#include "sql/vtab.h"

#include "analysis/ops/hosttree.h"
#include "analysis/ops/steps.h"
#include "analysis/ops/summary.h"
#include "model/argscan.h"
#include "model/memoryseries.h"
#include "query/args.h"

#include <mutex>

namespace kinetoscope::sql::vtab {

namespace {

// The slices of one kind, in id order, listed when first asked for (a query planned on another table never
// pays for it).
class SliceList {
  public:
    SliceList(const TraceStore& store, const SliceIndex& index, std::function<bool(EventRef)> keep)
        : m_store(store), m_index(index), m_keep(std::move(keep)) {}
    const std::vector<std::int64_t>& ids() const {
        std::call_once(m_once, [this] {
            for (std::uint32_t t = 0; t < m_store.tracks().size(); ++t)
                for (std::uint32_t r = 0; r < m_store.tracks()[t].sliceCount(); ++r)
                    if (m_keep({TrackId(t), EventIndex(r)})) m_ids.push_back(m_index.idOf(t, r));
        });
        return m_ids;
    }
    EventRef ref(std::size_t row) const {
        std::uint32_t t = 0, r = 0;
        m_index.find(ids()[row], t, r);
        return {TrackId(t), EventIndex(r)};
    }

  private:
    const TraceStore& m_store;
    const SliceIndex& m_index;
    std::function<bool(EventRef)> m_keep;
    mutable std::once_flag m_once;
    mutable std::vector<std::int64_t> m_ids;
};

// A table whose rows are the slices of a list, keyed by slice id; `column(out, ref, c)` for columns past the
// first (the id).
template <typename Column>
std::unique_ptr<ListTable> sliceTable(std::string ddl, std::shared_ptr<const SliceList> list, Column column) {
    auto table = std::make_unique<ListTable>();
    table->ddl = std::move(ddl);
    table->rowEstimate = [list] { return double(list->ids().size()) + 1; };
    table->warm = [list] { list->ids(); };
    table->rowsFor = [list, column](const sqlite3_value* key) {
        return sliceKeyedRows(list->ids(), key, [list, column](ValueSink& out, std::size_t row, int c) {
            if (c == 0) return out.integer(list->ids()[row]);
            column(out, list->ref(row), c);
        });
    };
    return table;
}

void resultNumber(ValueSink& out, std::optional<double> v) {
    if (!v)
        out.null();
    else if (*v == double(std::int64_t(*v)))
        out.integer(std::int64_t(*v));
    else
        out.real(*v);
}

// The columns every slice-row table starts with after its id.
void sliceColumns(ValueSink& out, const TraceStore& s, EventRef ref, int c) {
    const Track& t = s.track(ref.track);
    switch (c) {
    case 1:
        return out.integer(t.starts[ref.index.value]);
    case 2:
        return out.integer(t.durations[ref.index.value]);
    case 3:
        return out.integer(ref.track.value);
    case 4:
        return out.lastingText(s.nameOf(ref));
    }
}

std::unique_ptr<ListTable> kernelTable(const TraceStore& s, const SliceIndex& index) {
    auto kernels = std::make_shared<const SliceList>(
        s, index, [&s](EventRef ref) { return s.categoryOf(ref).kind == CategoryKind::Kernel; });
    return sliceTable(
        "CREATE TABLE x(id INTEGER, ts INTEGER, dur INTEGER, track_id INTEGER, name TEXT, device INTEGER, "
        "stream INTEGER, grid_x INTEGER, grid_y INTEGER, grid_z INTEGER, block_x INTEGER, block_y INTEGER, "
        "block_z INTEGER, registers_per_thread INTEGER, shared_memory INTEGER, blocks_per_sm REAL, "
        "warps_per_sm REAL, occupancy_pct REAL, correlation INTEGER, launch_id INTEGER, operator_id INTEGER)",
        kernels, [&s, &index](ValueSink& out, EventRef ref, int c) {
            const Track& t = s.track(ref.track);
            const std::string_view args = s.argsText(ref);
            const auto triple = [&](std::string_view key, std::size_t i) {
                const auto v = argTriple(args, key);
                resultOptional(out, v.has_value(), v ? (*v)[i] : 0);
            };
            switch (c) {
            case 5:
                return out.integer(deviceOf(t));
            case 6:
                return out.integer(t.tid);
            case 7:
            case 8:
            case 9:
                return triple("grid", std::size_t(c - 7));
            case 10:
            case 11:
            case 12:
                return triple("block", std::size_t(c - 10));
            case 13:
                return resultNumber(out, argNumber(args, "registers per thread"));
            case 14:
                return resultNumber(out, argNumber(args, "shared memory"));
            case 15:
                return resultNumber(out, argNumber(args, "blocks per SM"));
            case 16:
                return resultNumber(out, argNumber(args, "warps per SM"));
            case 17:
                return resultNumber(out, argNumber(args, "est. achieved occupancy %"));
            case 18: { // the id launchOf joins by, from the kernel's own args (the store's lookup scans)
                const auto id = argInteger(args, "correlation");
                return resultOptional(out, id.has_value(), id.value_or(0));
            }
            case 19: {
                const auto launch = s.launchOf(ref);
                return resultOptional(out, launch.has_value(), launch ? index.idOf(*launch) : 0);
            }
            case 20: {
                const auto launch = s.launchOf(ref);
                const auto op = launch ? launchingOperator(s, *launch) : std::nullopt;
                return resultOptional(out, op.has_value(), op ? index.idOf(*op) : 0);
            }
            default:
                return sliceColumns(out, s, ref, c);
            }
        });
}

// What an operator's three input columns read, for one scan: a copy (each filter makes one, on the thread
// that scans) starts empty. It keeps its decoder's buffers from row to row, the row it last located (a row's
// three columns are read in turn) and each distinct text minified. A text it gives lasts until the next row.
class OperatorInputsCache {
  public:
    OperatorInputsCache() = default;
    OperatorInputsCache(const OperatorInputsCache&) {}
    OperatorInputsCache& operator=(const OperatorInputsCache&) = delete;
    // Field 0, 1, 2: "Input Dims", "Input type", "Concrete Inputs", minified; null when the row has none.
    const std::string* field(const TraceStore& s, EventRef ref, int which) const {
        if (!(m_ref == ref)) {
            m_minified.startOverIfFull(); // (between rows: a row's texts are still being read until then)
            m_ref = ref;
            m_found = m_decoder.locate(s.argsText(ref), m_text);
        }
        if (!m_found) return nullptr;
        const std::string_view text = which == 0 ? m_text.dims : which == 1 ? m_text.types : m_text.concrete;
        return text.empty() ? nullptr : &m_minified.of(text);
    }

  private:
    mutable OperatorInputsDecoder m_decoder;
    mutable EventRef m_ref{TrackId(UINT32_MAX), EventIndex(UINT32_MAX)};
    mutable OperatorInputsText m_text;
    mutable bool m_found = false;
    mutable MinifiedJson m_minified;
};

std::unique_ptr<ListTable> operatorTable(const TraceStore& s, const SliceIndex& index) {
    auto ops = std::make_shared<const SliceList>(
        s, index, [&s](EventRef ref) { return s.categoryOf(ref).kind == CategoryKind::CpuOp; });
    auto table = sliceTable(
        "CREATE TABLE x(id INTEGER, ts INTEGER, dur INTEGER, track_id INTEGER, name TEXT, input_dims TEXT, "
        "input_types TEXT, concrete_inputs TEXT)",
        ops, [&s, inputs = OperatorInputsCache()](ValueSink& out, EventRef ref, int c) {
            if (c < 5) return sliceColumns(out, s, ref, c);
            const std::string* field = inputs.field(s, ref, c - 5);
            if (!field) return out.null();
            out.lastingText(*field);
        });
    return table;
}

std::unique_ptr<ListTable> memoryEventTable(const TraceStore& s, const SliceIndex& index) {
    const StringId memory = s.strings().find("[memory]");
    auto events = std::make_shared<const SliceList>(s, index, [&s, memory](EventRef ref) {
        return memory.isValid() && s.track(ref.track).kind != TrackKind::Counter &&
               s.track(ref.track).names[ref.index.value] == memory;
    });
    return sliceTable(
        "CREATE TABLE x(id INTEGER, ts INTEGER, dur INTEGER, track_id INTEGER, name TEXT, device_type "
        "INTEGER, device_id INTEGER, addr INTEGER, bytes INTEGER, total_allocated INTEGER, total_reserved "
        "INTEGER)",
        events, [&s](ValueSink& out, EventRef ref, int c) {
            if (c < 5) return sliceColumns(out, s, ref, c);
            const std::string_view args = s.argsText(ref);
            const MemoryEventArgs m = readMemoryEventArgs(args);
            switch (c) {
            case 5:
                return resultOptional(out, m.deviceType >= 0, m.deviceType);
            case 6:
                return resultOptional(out, m.deviceId >= 0, m.deviceId);
            case 7: {
                const auto addr = argInteger(args, "Addr");
                return resultOptional(out, addr.has_value(), addr.value_or(0));
            }
            case 8:
                return resultNumber(out, m.bytes);
            case 9:
                return resultNumber(out, m.allocated);
            case 10:
                return resultNumber(out, m.reserved);
            }
        });
}

// Steps as the reports name them: the ProfilerSteps, or the one activity step of a trace without them.
struct StepRows {
    std::once_flag once;
    std::vector<StepRange> steps;
    std::vector<std::string> names;
    bool synthetic = false;
    void build(const TraceStore& s) {
        std::call_once(once, [&] {
            steps = findSteps(s);
            if (steps.empty()) {
                synthetic = true;
                steps.push_back(activityStep(s, INT64_MIN, INT64_MAX));
            }
            for (const StepRange& step : steps)
                names.push_back(stepLabel(s, step));
        });
    }
};

std::unique_ptr<ListTable> stepTable(const TraceStore& s, const SliceIndex& index) {
    auto rows = std::make_shared<StepRows>();
    auto table = std::make_unique<ListTable>();
    table->ddl = "CREATE TABLE x(id INTEGER, name TEXT, ts INTEGER, dur INTEGER, slice_id INTEGER, cpu_ts "
                 "INTEGER, cpu_dur INTEGER)";
    table->rowEstimate = [] { return 100.0; };
    table->warm = [&s, rows] { rows->build(s); };
    table->rowsFor = [&s, &index, rows](const sqlite3_value* key) {
        rows->build(s);
        return keyedRows(rows->steps.size(), key, [&index, rows](ValueSink& out, std::size_t i, int c) {
            const StepRange& step = rows->steps[i];
            switch (c) {
            case 0:
                return out.integer(std::int64_t(i));
            case 1:
                return out.text(rows->names[i]);
            case 2:
                return out.integer(step.start);
            case 3:
                return out.integer(step.end - step.start);
            case 4:
                return resultOptional(out, !rows->synthetic && step.slice.isValid(),
                                      step.slice.isValid() ? index.idOf(step.slice) : 0);
            case 5:
                return out.integer(step.cpuStart);
            case 6:
                return out.integer(step.cpuEnd - step.cpuStart);
            }
        });
    };
    return table;
}

} // namespace

void addOwnTables(Registry& registry) {
    const TraceStore& s = *registry.store;
    const SliceIndex& index = *registry.slices;
    const auto add = [&registry](const char* name, std::unique_ptr<Table> table) {
        table->name = name;
        registry.tables.push_back(std::move(table));
    };
    add("kernel", kernelTable(s, index));
    add("operator", operatorTable(s, index));
    add("step", stepTable(s, index));
    add("memory_event", memoryEventTable(s, index));
}

} // namespace kinetoscope::sql::vtab
