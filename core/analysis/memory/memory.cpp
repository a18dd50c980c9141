#include "analysis/memory/memory.h"

#include "model/argscan.h"
#include "model/memoryseries.h"

#include <algorithm>
#include <charconv>
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

// The innermost cpu_op enclosing a (zero-length) memory event on its thread.
std::optional<std::uint32_t> enclosingOperator(const TraceStore& store, EventRef ref,
                                               std::uint32_t* row = nullptr) {
    const Track& t = store.track(ref.track);
    const TimeNs at = t.starts[ref.index.value];
    for (std::uint32_t d = std::uint32_t(t.laneCount()); d-- > 0;) {
        const auto [r0, r1] = t.rowsInRange(d, at, at);
        for (std::uint32_t r = r0; r < r1; ++r) {
            if (r == ref.index.value || (t.flags[r] & SliceFlag::Instant)) continue;
            if (store.categories()[t.categories[r]].kind != CategoryKind::CpuOp) continue;
            if (t.starts[r] <= at && at <= t.endOf(r)) {
                if (row) *row = r;
                return t.names[r].value;
            }
        }
    }
    return std::nullopt;
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
    std::map<std::pair<std::int64_t, std::uint64_t>, std::size_t> live; // (device, address) -> block
    std::unordered_map<std::uint32_t, MemoryOperatorRow> ops;
    std::map<std::pair<std::uint32_t, std::uint32_t>, bool> opOccurrences; // (track, op row) seen
    for (const Event& e : events) {
        const std::string_view args = store.argsText(e.ref);
        const double bytes = argNumber(args, "Bytes").value_or(0);
        const std::int64_t device = memoryDevice(args);
        const auto addressArg = argNumber(args, "Addr");
        const std::uint64_t address = std::uint64_t(addressArg.value_or(0));
        // PyTorch before 1.10 wrote no address: its allocations cannot be paired with their frees.
        if (!addressArg && bytes != 0) m.unaddressedEvents += 1;
        std::uint32_t opRow = 0;
        const auto op = enclosingOperator(store, e.ref, &opRow);
        if (op) {
            MemoryOperatorRow& row = ops[*op];
            row.name = StringId(*op);
            if (bytes > 0) {
                ++row.allocations;
                row.allocatedBytes += bytes;
            }
            row.selfSizeIncrease += bytes;
            if (opOccurrences.try_emplace({e.ref.track.value, opRow}, true).second) ++row.calls;
            // Size increase counts the event for every enclosing op.
            const Track& t = store.track(e.ref.track);
            for (auto p = std::optional<std::uint32_t>(opRow); p; p = t.parentOf(*p)) {
                if (store.categories()[t.categories[*p]].kind != CategoryKind::CpuOp) continue;
                MemoryOperatorRow& anc = ops[t.names[*p].value];
                anc.name = t.names[*p];
                anc.sizeIncrease += bytes;
            }
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
