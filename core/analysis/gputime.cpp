#include "gputime.h"

#include "intervals.h"
#include "kernelclass.h"
#include "summary.h"

#include <algorithm>
#include <map>

namespace kinetoscope {

namespace {

// Sorts intervals gathered in any order and makes them the disjoint union (intervals.h); returns its length.
TimeNs mergeUnion(IntervalSet& v) {
    std::sort(v.begin(), v.end());
    v = unionOfRuns({std::move(v)});
    return totalLength(v);
}

struct DeviceIntervals {
    IntervalSet all, compute, communication, memory;
};

} // namespace

std::vector<DeviceTime> gpuTimeBreakdown(const TraceStore& store,
                                         std::optional<std::pair<TimeNs, TimeNs>> scope) {
    std::map<std::int64_t, DeviceIntervals> byDevice;
    std::vector<std::int8_t> communication(store.strings().size(), -1); // per kernel name, worked out once
    for (std::uint32_t ti = 0; ti < store.tracks().size(); ++ti) {
        const Track& track = store.track(TrackId(ti));
        if (track.kind != TrackKind::GpuStream) continue;
        DeviceIntervals* d = nullptr;
        for (std::uint32_t row = 0; row < track.sliceCount(); ++row) {
            if (track.flags[row] & SliceFlag::Instant) continue;
            const CategoryKind kind = store.categories()[track.categories[row]].kind;
            if (kind != CategoryKind::Kernel && kind != CategoryKind::Memcpy && kind != CategoryKind::Memset)
                continue;
            const TimeNs start = track.starts[row];
            if (scope && (start < scope->first || start > scope->second)) continue;
            if (!d) d = &byDevice[deviceOf(track)];
            const std::pair<TimeNs, TimeNs> iv{start, track.endOf(row)};
            d->all.push_back(iv);
            if (kind != CategoryKind::Kernel) {
                d->memory.push_back(iv);
                continue;
            }
            std::int8_t& comm = communication[track.names[row].value];
            if (comm < 0)
                comm =
                    kernelCategory(store.strings().view(track.names[row])) == KernelCategory::Communication;
            (comm ? d->communication : d->compute).push_back(iv);
        }
    }
    std::vector<DeviceTime> out;
    for (auto& [device, d] : byDevice) {
        DeviceTime t;
        t.rank = store.metadata().rank;
        t.device = device;
        const TimeNs busy = mergeUnion(d.all);
        t.span = d.all.back().second - d.all.front().first;
        t.idle = t.span - busy;
        t.compute = mergeUnion(d.compute);
        t.communication = mergeUnion(d.communication);
        t.memory = mergeUnion(d.memory);
        t.overlap = totalLength(intersect(d.compute, unionOf(d.communication, d.memory)));
        out.push_back(t);
    }
    return out;
}

} // namespace kinetoscope
