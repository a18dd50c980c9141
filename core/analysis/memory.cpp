#include "memory.h"

#include <algorithm>
#include <charconv>
#include <map>
#include <tuple>

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
