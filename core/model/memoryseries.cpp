#include "memoryseries.h"

#include "argscan.h"

#include <algorithm>
#include <cstdint>

namespace kinetoscope {

namespace {
std::string deviceLabel(std::int64_t type, std::int64_t id) {
    // c10::DeviceType: 0 CPU, 1 CUDA; Kineto writes the enum value.
    if (type == 0) return "CPU";
    if (type == 1) return "GPU " + std::to_string(id);
    return "device type " + std::to_string(type) + " #" + std::to_string(id);
}

// Over a store being built or a built one: its strings, its tracks and a [memory] slice's args.
template <typename ArgsOf>
MemorySeriesByDevice seriesOf(const StringPool& strings, const std::vector<Track>& tracks, ArgsOf argsOf) {
    MemorySeriesByDevice series;
    const StringId memoryName = strings.find("[memory]");
    if (!memoryName.isValid()) return series;
    for (std::uint32_t ti = 0; ti < tracks.size(); ++ti) {
        const Track& t = tracks[ti];
        if (t.kind == TrackKind::Counter) continue;
        for (std::uint32_t r = 0; r < t.names.size(); ++r) {
            if (t.names[r] != memoryName) continue;
            const MemoryEventArgs args = argsOf(EventRef{TrackId(ti), EventIndex(r)});
            AllocatedSeries& s = series[{t.pid, args.deviceType, args.deviceId}];
            if (args.allocated) {
                s.samples.push_back(
                    {t.starts[r], *args.allocated, args.reserved, {TrackId(ti), EventIndex(r)}});
            } else if (args.bytes) {
                s.relative = true;
                s.samples.push_back(
                    {t.starts[r], *args.bytes, std::nullopt, {TrackId(ti), EventIndex(r)}}); // summed below
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

MemoryEventArgs readMemoryEventArgs(std::string_view args) {
    MemoryEventArgs a;
    a.deviceType = argInteger(args, "Device Type").value_or(-1);
    a.deviceId = argInteger(args, "Device Id").value_or(-1);
    a.allocated = argNumber(args, "Total Allocated");
    if (a.allocated)
        a.reserved = argNumber(args, "Total Reserved");
    else
        a.bytes = argNumber(args, "Bytes");
    return a;
}

std::optional<ParsedMemoryArgs> ParsedMemoryArgs::of(std::uint64_t argsOffset, const MemoryEventArgs& args) {
    const auto fits = [](std::int64_t v) { return v >= INT16_MIN && v <= INT16_MAX; };
    if (!fits(args.deviceType) || !fits(args.deviceId)) return std::nullopt;
    ParsedMemoryArgs p;
    p.argsOffset = argsOffset;
    p.deviceType = std::int16_t(args.deviceType);
    p.deviceId = std::int16_t(args.deviceId);
    if (args.allocated) {
        p.value = *args.allocated;
        p.kind = args.reserved ? Kind::AllocatedAndReserved : Kind::Allocated;
        p.reserved = args.reserved.value_or(0);
    } else if (args.bytes) {
        p.value = *args.bytes;
        p.kind = Kind::Bytes;
    }
    return p;
}

MemoryEventArgs ParsedMemoryArgs::args() const {
    MemoryEventArgs a;
    a.deviceType = deviceType;
    a.deviceId = deviceId;
    if (kind == Kind::Allocated || kind == Kind::AllocatedAndReserved) a.allocated = value;
    if (kind == Kind::AllocatedAndReserved) a.reserved = reserved;
    if (kind == Kind::Bytes) a.bytes = value;
    return a;
}

MemorySeriesByDevice allocatedSeries(const TraceStore& store) {
    return seriesOf(store.strings(), store.tracks(),
                    [&](EventRef ref) { return readMemoryEventArgs(store.argsText(ref)); });
}

MemorySeriesByDevice memoryCounterSeries(const TraceStoreParts& store,
                                         const std::vector<std::vector<ParsedMemoryArgs>>& pieces) {
    // The pieces as one sequence: element i is in the piece whose first index is the last one at or before i.
    std::vector<std::size_t> firsts;
    std::size_t count = 0;
    for (const auto& piece : pieces) {
        firsts.push_back(count);
        count += piece.size();
    }
    std::size_t piece = 0; // the piece of the last element asked for: the next is most often in it too
    const auto at = [&](std::size_t i) -> const ParsedMemoryArgs& {
        if (i < firsts[piece] || i - firsts[piece] >= pieces[piece].size())
            piece = std::size_t(std::upper_bound(firsts.begin(), firsts.end(), i) - firsts.begin()) - 1;
        return pieces[piece][i - firsts[piece]];
    };
    // Rows come track by track in time order, and a thread's [memory] events are mostly next to each other in
    // the source: each lookup starts from the last one found and widens its steps (a galloping search).
    std::size_t last = 0;
    const auto argsOf = [&](EventRef ref) {
        const ArgsRange range = store.argsRange(ref);
        if (range.length && count) {
            const auto before = [&](std::size_t i) { return at(i).argsOffset < range.offset; };
            std::size_t lo = 0, hi = count;
            if (before(last)) {
                std::size_t step = 1;
                lo = last + 1;
                while (lo + step < count && before(lo + step - 1)) {
                    lo += step;
                    step *= 2;
                }
                hi = std::min(count, lo + step);
            } else {
                std::size_t step = 1;
                hi = last;
                while (hi >= step && !before(hi - step)) {
                    hi -= step;
                    step *= 2;
                }
                lo = hi >= step ? hi - step : 0;
            }
            while (lo < hi) { // the first not before, in [lo, hi]
                const std::size_t mid = lo + (hi - lo) / 2;
                if (before(mid))
                    lo = mid + 1;
                else
                    hi = mid;
            }
            if (lo < count && at(lo).argsOffset == range.offset) {
                last = lo;
                return at(lo).args();
            }
        }
        return readMemoryEventArgs(store.argsText(ref));
    };
    return seriesOf(store.strings, store.tracks, argsOf);
}

std::size_t appendMemoryCounterTracks(TraceStoreParts& store, const MemorySeriesByDevice& series) {
    std::size_t added = 0;
    for (const auto& [key, s] : series) {
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
