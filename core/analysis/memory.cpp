#include "memory.h"

#include "argscan.h"

#include <algorithm>
#include <charconv>
#include <map>
#include <tuple>
#include <unordered_map>

namespace kinetoscope {

namespace {
std::optional<double> number(const std::vector<ArgField>& args, std::string_view key) {
    for (const ArgField& a : args) {
        if (a.key != key || a.isString) continue;
        double v = 0;
        const auto [p, ec] = std::from_chars(a.value.data(), a.value.data() + a.value.size(), v);
        if (ec == std::errc()) return v;
    }
    return std::nullopt;
}

std::string deviceLabel(std::int64_t type, std::int64_t id) {
    // c10::DeviceType: 0 CPU, 1 CUDA; Kineto writes the enum value.
    if (type == 0) return "CPU";
    if (type == 1) return "GPU " + std::to_string(id);
    return "device type " + std::to_string(type) + " #" + std::to_string(id);
}
} // namespace

std::size_t addMemoryCounterTracks(TraceStore& store) {
    const StringId memoryName = store.strings.find("[memory]");
    if (!memoryName.isValid()) return 0;
    struct Sample {
        TimeNs t;
        double allocated;
        std::optional<double> reserved;
    };
    // (pid, device type, device id) -> samples
    std::map<std::tuple<std::int64_t, std::int64_t, std::int64_t>, std::vector<Sample>> series;
    for (std::uint32_t ti = 0; ti < store.tracks.size(); ++ti) {
        const Track& t = store.tracks[ti];
        if (t.kind == TrackKind::Counter) continue;
        for (std::uint32_t r = 0; r < t.names.size(); ++r) {
            if (t.names[r] != memoryName) continue;
            const std::vector<ArgField> args = store.decodeArgs({TrackId(ti), r});
            const auto allocated = number(args, "Total Allocated");
            if (!allocated) continue;
            const std::int64_t type = std::int64_t(number(args, "Device Type").value_or(-1));
            const std::int64_t id = std::int64_t(number(args, "Device Id").value_or(-1));
            series[{t.pid, type, id}].push_back({t.starts[r], *allocated, number(args, "Total Reserved")});
        }
    }
    std::size_t added = 0;
    for (auto& [key, samples] : series) {
        std::stable_sort(samples.begin(), samples.end(), [](const Sample& a, const Sample& b) { return a.t < b.t; });
        const auto [pid, type, id] = key;
        const std::string device = deviceLabel(type, id);
        const bool hasReserved = std::any_of(samples.begin(), samples.end(), [](const Sample& s) { return s.reserved.has_value(); });
        for (int which = 0; which < (hasReserved ? 2 : 1); ++which) {
            Track track;
            track.kind = TrackKind::Counter;
            track.pid = pid;
            track.tid = 0;
            track.name = store.strings.intern((which == 0 ? "Memory allocated · " : "Memory reserved · ") + device);
            for (const Sample& s : samples) {
                if (which == 1 && !s.reserved) continue;
                track.counterTimes.push_back(s.t);
                track.counterValues.push_back(which == 0 ? s.allocated : *s.reserved);
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
std::optional<std::uint32_t> enclosingOperator(const TraceStore& store, EventRef ref, std::uint32_t* row = nullptr) {
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
    forEachNamed(store, "[memory]", from, to, [&](EventRef ref) {
        const std::string_view args = store.argsText(ref);
        const auto allocated = argNumber(args, "Total Allocated");
        if (!allocated) return;
        MemoryPeak& p = peaks[memoryDevice(args)];
        if (!p.at.isValid() || *allocated > p.allocated) {
            p.allocated = *allocated;
            p.at = ref;
        }
        p.reserved = std::max(p.reserved, argNumber(args, "Total Reserved").value_or(0));
    });
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
    forEachNamed(store, "[memory]", from, to, [&](EventRef ref) { events.push_back({ref, store.tracks[ref.track.value].starts[ref.index]}); });
    std::stable_sort(events.begin(), events.end(), [](const Event& a, const Event& b) { return a.t < b.t; });
    std::map<std::pair<std::int64_t, std::uint64_t>, std::size_t> live; // (device, address) -> block
    std::unordered_map<std::uint32_t, MemoryOperatorRow> ops;
    std::map<std::pair<std::uint32_t, std::uint32_t>, bool> opOccurrences; // (track, op row) seen
    for (const Event& e : events) {
        const std::string_view args = store.argsText(e.ref);
        const double bytes = argNumber(args, "Bytes").value_or(0);
        const std::int64_t device = memoryDevice(args);
        const std::uint64_t address = std::uint64_t(argNumber(args, "Addr").value_or(0));
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
            live[{device, address}] = m.blocks.size();
            m.blocks.push_back(b);
        } else if (bytes < 0) {
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
    for (auto& [id, row] : ops) m.operators.push_back(row);
    std::sort(m.operators.begin(), m.operators.end(), [&](const MemoryOperatorRow& a, const MemoryOperatorRow& b) {
        if (a.allocatedBytes != b.allocatedBytes) return a.allocatedBytes > b.allocatedBytes;
        return store.strings.view(a.name) < store.strings.view(b.name);
    });
    forEachNamed(store, "[OutOfMemory]", from, to, [&](EventRef ref) { m.outOfMemory.push_back(ref); });
    return m;
}

} // namespace kinetoscope
