#include "analysis/memory/memory.h"

#include "model/argscan.h"
#include "model/memoryseries.h"

#include <algorithm>
#include <charconv>
#include <functional>
#include <map>
#include <tuple>
#include <unordered_map>

namespace kinetoscope {

namespace {
std::int64_t memoryDevice(std::string_view args) {
    const auto type = argNumber(args, "Device Type");
    if (type && *type == 0) return -1; // CPU
    return argInteger(args, "Device Id").value_or(-1);
}

template <typename Visit>
void forEachNamed(const TraceStore& store, std::string_view name, TimeNs from, TimeNs to, Visit&& visit) {
    const StringId id = store.strings().find(name);
    if (!id.isValid()) return;
    for (std::uint32_t ti = 0; ti < store.tracks().size(); ++ti) {
        const Track& t = store.tracks()[ti];
        if (t.kind == TrackKind::Counter) continue;
        for (std::uint32_t r = 0; r < t.names.size(); ++r) {
            if (t.names[r] == id && t.starts[r] >= from && t.starts[r] <= to)
                visit(EventRef{TrackId(ti), EventIndex(r)});
        }
    }
}

// For each memory event (sorted by time), the innermost cpu_op row around it on its thread: on the deepest
// lane that has one, the first row (in lane order) that is not an instant, is a cpu_op, and holds the event's
// time, ends included. One sweep per lane over the events of its track in time order, instead of a binary
// search per event and lane.
template <typename Event>
std::vector<std::optional<std::uint32_t>> enclosingOperators(const TraceStore& store,
                                                             const std::vector<Event>& events) {
    std::vector<std::optional<std::uint32_t>> found(events.size());
    std::unordered_map<std::uint32_t, std::vector<std::size_t>> byTrack; // in time order
    for (std::size_t i = 0; i < events.size(); ++i)
        byTrack[events[i].ref.track.value].push_back(i);
    for (const auto& [track, indices] : byTrack) {
        const Track& t = store.track(TrackId(track));
        std::vector<std::size_t> open = indices; // events without an op yet
        for (std::uint32_t d = std::uint32_t(t.laneCount()); d-- > 0 && !open.empty();) {
            const std::uint32_t first = t.laneBegin[d], last = t.laneBegin[d + 1];
            std::uint32_t next = first; // the first row starting at or after the event's time
            std::vector<std::size_t> still;
            for (const std::size_t i : open) {
                const TimeNs at = events[i].t;
                while (next < last && t.starts[next] < at)
                    ++next;
                // As Track::rowsInRange: the row before may still be open at `at` (ends are sorted in a
                // lane).
                std::uint32_t r = next;
                if (r > first && t.endOf(r - 1) >= at) --r;
                for (; r < last && t.starts[r] <= at; ++r) {
                    if (r == events[i].ref.index.value || (t.flags[r] & SliceFlag::Instant)) continue;
                    if (store.categories()[t.categories[r]].kind != CategoryKind::CpuOp) continue;
                    if (t.starts[r] <= at && at <= t.endOf(r)) {
                        found[i] = r;
                        break;
                    }
                }
                if (!found[i]) still.push_back(i);
            }
            open = std::move(still);
        }
    }
    return found;
}
} // namespace

std::map<std::int64_t, MemoryPeak> memoryPeaks(const TraceStore& store, TimeNs from, TimeNs to) {
    std::map<std::int64_t, MemoryPeak> peaks;
    for (const auto& [key, s] : allocatedSeries(store)) {
        const auto [pid, type, id] = key;
        const std::int64_t device = type == 0 ? -1 : id; // CPU is -1
        for (const AllocatedSample& x : s.samples) {
            if (x.t < from || x.t > to) continue;
            MemoryPeak& p = peaks[device];
            if (!p.at.isValid() || x.allocated > p.allocated) {
                p.allocated = x.allocated;
                p.at = x.ref;
            }
            p.reserved = std::max(p.reserved, x.reserved.value_or(0));
            p.hasReserved = p.hasReserved || x.reserved.has_value();
            p.relative = s.relative;
        }
    }
    return peaks;
}

MemoryAnalysis analyzeMemory(const TraceStore& store, TimeNs from, TimeNs to) {
    MemoryAnalysis m;
    m.peaks = memoryPeaks(store, from, to);
    struct Event {
        EventRef ref;
        TimeNs t;
    };
    std::vector<Event> events;
    forEachNamed(store, "[memory]", from, to, [&](EventRef ref) {
        events.push_back({ref, store.track(ref.track).starts[ref.index.value]});
    });
    std::stable_sort(events.begin(), events.end(), [](const Event& a, const Event& b) { return a.t < b.t; });
    const std::vector<std::optional<std::uint32_t>> opRows = enclosingOperators(store, events);
    std::map<std::pair<std::int64_t, std::uint64_t>, std::size_t> live; // (device, address) -> block
    std::unordered_map<std::uint32_t, MemoryOperatorRow> ops;
    // Per occurrence of an op (track, row): the bytes of the events directly inside it. Summed over every op
    // around it once at the end, not once per event: a trace's memory events come by the thousand per op.
    std::unordered_map<std::uint64_t, double> occurrences;
    for (std::size_t i = 0; i < events.size(); ++i) {
        const Event& e = events[i];
        const std::string_view args = store.argsText(e.ref);
        const double bytes = argNumber(args, "Bytes").value_or(0);
        const std::int64_t device = memoryDevice(args);
        const auto addressArg = argNumber(args, "Addr");
        const std::uint64_t address = std::uint64_t(addressArg.value_or(0));
        // PyTorch before 1.10 wrote no address: its allocations cannot be paired with their frees.
        if (!addressArg && bytes != 0) m.unaddressedEvents += 1;
        const std::optional<std::uint32_t> opRow = opRows[i];
        std::optional<std::uint32_t> op;
        if (opRow) {
            const Track& t = store.track(e.ref.track);
            op = t.names[*opRow].value;
            MemoryOperatorRow& row = ops[*op];
            row.name = StringId(*op);
            if (bytes > 0) {
                ++row.allocations;
                row.allocatedBytes += bytes;
            }
            row.selfSizeIncrease += bytes;
            const auto [at, first] =
                occurrences.try_emplace(std::uint64_t(e.ref.track.value) << 32 | *opRow, 0.0);
            if (first) ++row.calls;
            at->second += bytes;
        }
        if (bytes > 0) {
            MemoryBlock b;
            b.device = device;
            b.address = address;
            b.bytes = bytes;
            b.allocatedAt = e.t;
            b.allocation = e.ref;
            b.operatorName = op;
            b.paired = addressArg.has_value();
            if (b.paired) live[{device, address}] = m.blocks.size();
            m.blocks.push_back(b);
        } else if (bytes < 0) {
            ++m.frees;
            if (!addressArg) continue;
            auto it = live.find({device, address});
            if (it == live.end()) {
                ++m.unmatchedFrees;
                continue;
            }
            m.blocks[it->second].freedAt = e.t;
            m.blocks[it->second].free = e.ref;
            live.erase(it);
        }
    }
    // Size increase counts an event for every op around it (the op itself included). Sizes are whole bytes:
    // the sums are exact in any order.
    std::unordered_map<std::uint64_t, std::vector<std::uint32_t>> around; // (track, row) -> cpu_op names
    const std::function<const std::vector<std::uint32_t>&(const Track&, std::uint64_t, std::uint32_t)>
        opsAround =
            [&](const Track& t, std::uint64_t track, std::uint32_t row) -> const std::vector<std::uint32_t>& {
        const std::uint64_t key = track << 32 | row;
        if (const auto found = around.find(key); found != around.end()) return found->second;
        std::vector<std::uint32_t> names;
        if (store.categories()[t.categories[row]].kind == CategoryKind::CpuOp)
            names.push_back(t.names[row].value);
        if (const auto parent = t.parentOf(row)) {
            const std::vector<std::uint32_t>& outer = opsAround(t, track, *parent);
            names.insert(names.end(), outer.begin(), outer.end());
        }
        return around.emplace(key, std::move(names)).first->second;
    };
    for (const auto& [key, bytes] : occurrences) {
        const Track& t = store.track(TrackId(std::uint32_t(key >> 32)));
        for (const std::uint32_t name : opsAround(t, key >> 32, std::uint32_t(key))) {
            MemoryOperatorRow& anc = ops[name];
            anc.name = StringId(name);
            anc.sizeIncrease += bytes;
        }
    }
    for (auto& [id, row] : ops)
        m.operators.push_back(row);
    std::sort(m.operators.begin(), m.operators.end(),
              [&](const MemoryOperatorRow& a, const MemoryOperatorRow& b) {
                  if (a.allocatedBytes != b.allocatedBytes) return a.allocatedBytes > b.allocatedBytes;
                  return store.strings().view(a.name) < store.strings().view(b.name);
              });
    forEachNamed(store, "[OutOfMemory]", from, to, [&](EventRef ref) { m.outOfMemory.push_back(ref); });
    return m;
}

} // namespace kinetoscope
