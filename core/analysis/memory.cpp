#include "memory.h"

#include "argscan.h"

#include <algorithm>
#include <charconv>
#include <map>
#include <tuple>
#include <unordered_map>

namespace kinetoscope {

namespace {
std::string deviceLabel(std::int64_t type, std::int64_t id) {
    // c10::DeviceType: 0 CPU, 1 CUDA; Kineto writes the enum value.
    if (type == 0) return "CPU";
    if (type == 1) return "GPU " + std::to_string(id);
    return "device type " + std::to_string(type) + " #" + std::to_string(id);
}
} // namespace

namespace {
struct AllocatedSample {
    TimeNs t;
    double allocated;
    std::optional<double> reserved;
    EventRef ref;
};
struct AllocatedSeries {
    std::vector<AllocatedSample> samples; // in time order
    bool relative = false; // running sum of "Bytes" from the trace's start: no "Total Allocated"
};

// The allocated (and reserved) memory over time per (pid, device type, device id), from `[memory]` events.
// Kineto writes running totals ("Total Allocated", "Total Reserved"); PyTorch before 1.10 wrote only each
// event's "Bytes" (positive for an allocation, negative for a free), from which the total is a running sum
// that starts at 0 at the trace's start: the memory held before the profiler started is not in the trace.
std::map<std::tuple<std::int64_t, std::int64_t, std::int64_t>, AllocatedSeries>
allocatedSeries(const TraceStore& store) {
    std::map<std::tuple<std::int64_t, std::int64_t, std::int64_t>, AllocatedSeries> series;
    const StringId memoryName = store.strings.find("[memory]");
    if (!memoryName.isValid()) return series;
    for (std::uint32_t ti = 0; ti < store.tracks.size(); ++ti) {
        const Track& t = store.tracks[ti];
        if (t.kind == TrackKind::Counter) continue;
        for (std::uint32_t r = 0; r < t.names.size(); ++r) {
            if (t.names[r] != memoryName) continue;
            const std::string_view args = store.argsText({TrackId(ti), r});
            const std::int64_t type = std::int64_t(argNumber(args, "Device Type").value_or(-1));
            const std::int64_t id = std::int64_t(argNumber(args, "Device Id").value_or(-1));
            AllocatedSeries& s = series[{t.pid, type, id}];
            if (const auto allocated = argNumber(args, "Total Allocated")) {
                s.samples.push_back(
                    {t.starts[r], *allocated, argNumber(args, "Total Reserved"), {TrackId(ti), r}});
            } else if (const auto bytes = argNumber(args, "Bytes")) {
                s.relative = true;
                s.samples.push_back({t.starts[r], *bytes, std::nullopt, {TrackId(ti), r}}); // summed below
            }
        }
    }
    for (auto it = series.begin(); it != series.end();) {
        AllocatedSeries& s = it->second;
        std::stable_sort(s.samples.begin(), s.samples.end(),
                         [](const AllocatedSample& a, const AllocatedSample& b) { return a.t < b.t; });
        if (s.relative) {
            double total = 0;
            for (AllocatedSample& sample : s.samples)
                sample.allocated = total += sample.allocated;
        }
        it = s.samples.empty() ? series.erase(it) : std::next(it);
    }
    return series;
}
} // namespace

std::size_t addMemoryCounterTracks(TraceStore& store) {
    std::size_t added = 0;
    for (auto& [key, s] : allocatedSeries(store)) {
        const std::vector<AllocatedSample>& samples = s.samples;
        const auto [pid, type, id] = key;
        const std::string device = deviceLabel(type, id);
        const bool hasReserved = std::any_of(samples.begin(), samples.end(),
                                             [](const AllocatedSample& x) { return x.reserved.has_value(); });
        for (int which = 0; which < (hasReserved ? 2 : 1); ++which) {
            Track track;
            track.kind = TrackKind::Counter;
            track.pid = pid;
            track.tid = 0;
            // "Δ": the change since the trace's start, for traces that give sizes and no totals.
            track.name = store.strings.intern(
                (which == 0 ? (s.relative ? "Memory allocated Δ · " : "Memory allocated · ")
                            : "Memory reserved · ") +
                device);
            for (const AllocatedSample& x : samples) {
                if (which == 1 && !x.reserved) continue;
                track.counterTimes.push_back(x.t);
                track.counterValues.push_back(which == 0 ? x.allocated : *x.reserved);
            }
            store.tracks.push_back(std::move(track));
            ++added;
        }
    }
    return added;
}

} // namespace kinetoscope

namespace kinetoscope {

namespace {
std::int64_t memoryDevice(std::string_view args) {
    const auto type = argNumber(args, "Device Type");
    const auto id = argNumber(args, "Device Id");
    if (type && *type == 0) return -1; // CPU
    return id ? std::int64_t(*id) : -1;
}

template <typename Visit>
void forEachNamed(const TraceStore& store, std::string_view name, TimeNs from, TimeNs to, Visit&& visit) {
    const StringId id = store.strings.find(name);
    if (!id.isValid()) return;
    for (std::uint32_t ti = 0; ti < store.tracks.size(); ++ti) {
        const Track& t = store.tracks[ti];
        if (t.kind == TrackKind::Counter) continue;
        for (std::uint32_t r = 0; r < t.names.size(); ++r) {
            if (t.names[r] == id && t.starts[r] >= from && t.starts[r] <= to) visit(EventRef{TrackId(ti), r});
        }
    }
}

// The innermost cpu_op enclosing a (zero-length) memory event on its thread.
std::optional<std::uint32_t> enclosingOperator(const TraceStore& store, EventRef ref,
                                               std::uint32_t* row = nullptr) {
    const Track& t = store.tracks[ref.track.value];
    const TimeNs at = t.starts[ref.index];
    for (std::uint32_t d = std::uint32_t(t.laneCount()); d-- > 0;) {
        const auto [r0, r1] = t.rowsInRange(d, at, at);
        for (std::uint32_t r = r0; r < r1; ++r) {
            if (r == ref.index || (t.flags[r] & SliceFlag::Instant)) continue;
            if (store.categories[t.categories[r]].kind != CategoryKind::CpuOp) continue;
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
        events.push_back({ref, store.tracks[ref.track.value].starts[ref.index]});
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
            const Track& t = store.tracks[e.ref.track.value];
            for (auto p = std::optional<std::uint32_t>(opRow); p; p = t.parentOf(*p)) {
                if (store.categories[t.categories[*p]].kind != CategoryKind::CpuOp) continue;
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
                  return store.strings.view(a.name) < store.strings.view(b.name);
              });
    forEachNamed(store, "[OutOfMemory]", from, to, [&](EventRef ref) { m.outOfMemory.push_back(ref); });
    return m;
}

} // namespace kinetoscope
