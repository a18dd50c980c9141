#include "memoryseries.h"

#include "argscan.h"

#include <algorithm>

namespace kinetoscope {

namespace {
std::string deviceLabel(std::int64_t type, std::int64_t id) {
    // c10::DeviceType: 0 CPU, 1 CUDA; Kineto writes the enum value.
    if (type == 0) return "CPU";
    if (type == 1) return "GPU " + std::to_string(id);
    return "device type " + std::to_string(type) + " #" + std::to_string(id);
}

using SeriesByDevice = std::map<std::tuple<std::int64_t, std::int64_t, std::int64_t>, AllocatedSeries>;

// Over a store being built or a built one: its strings, its tracks and a slice's args text.
template <typename ArgsText>
SeriesByDevice seriesOf(const StringPool& strings, const std::vector<Track>& tracks, ArgsText argsText) {
    SeriesByDevice series;
    const StringId memoryName = strings.find("[memory]");
    if (!memoryName.isValid()) return series;
    for (std::uint32_t ti = 0; ti < tracks.size(); ++ti) {
        const Track& t = tracks[ti];
        if (t.kind == TrackKind::Counter) continue;
        for (std::uint32_t r = 0; r < t.names.size(); ++r) {
            if (t.names[r] != memoryName) continue;
            const std::string_view args = argsText(EventRef{TrackId(ti), EventIndex(r)});
            const std::int64_t type = argInteger(args, "Device Type").value_or(-1);
            const std::int64_t id = argInteger(args, "Device Id").value_or(-1);
            AllocatedSeries& s = series[{t.pid, type, id}];
            if (const auto allocated = argNumber(args, "Total Allocated")) {
                s.samples.push_back({t.starts[r],
                                     *allocated,
                                     argNumber(args, "Total Reserved"),
                                     {TrackId(ti), EventIndex(r)}});
            } else if (const auto bytes = argNumber(args, "Bytes")) {
                s.relative = true;
                s.samples.push_back(
                    {t.starts[r], *bytes, std::nullopt, {TrackId(ti), EventIndex(r)}}); // summed below
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

SeriesByDevice allocatedSeries(const TraceStoreParts& store) {
    return seriesOf(store.strings, store.tracks, [&](EventRef ref) { return store.argsText(ref); });
}

SeriesByDevice allocatedSeries(const TraceStore& store) {
    return seriesOf(store.strings(), store.tracks(), [&](EventRef ref) { return store.argsText(ref); });
}

std::size_t appendMemoryCounterTracks(TraceStoreParts& store) {
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
