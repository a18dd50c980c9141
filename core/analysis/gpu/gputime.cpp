#include "analysis/gpu/gputime.h"

#include "analysis/gpu/intervals.h"
#include "analysis/ops/kernelclass.h"
#include "analysis/ops/summary.h"

#include <algorithm>
#include <map>

namespace kinetoscope {

namespace {

// Each kind's intervals as runs in start order (one per lane of each stream, filtered): their union needs a
// merge, not a sort.
struct Runs {
    std::vector<IntervalSet> runs;
    IntervalSet current;
    void endRun() {
        if (!current.empty()) runs.push_back(std::move(current));
        current.clear();
    }
    IntervalSet merged() {
        endRun();
        return unionOfRuns(runs);
    }
};

struct DeviceIntervals {
    Runs all, compute, communication, memory;
    void endRuns() {
        for (Runs* r : {&all, &compute, &communication, &memory})
            r->endRun();
    }
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
        for (std::uint32_t lane = 0; lane < track.laneCount(); ++lane) {
            for (std::uint32_t row = track.laneBegin[lane]; row < track.laneBegin[lane + 1]; ++row) {
                if (track.flags[row] & SliceFlag::Instant) continue;
                const CategoryKind kind = store.categories()[track.categories[row]].kind;
                if (!isGpuWork(kind)) continue;
                const TimeNs start = track.starts[row];
                if (scope && (start < scope->first || start > scope->second)) continue;
                if (!d) d = &byDevice[deviceOf(track)];
                const std::pair<TimeNs, TimeNs> iv{start, track.endOf(row)};
                d->all.current.push_back(iv);
                if (kind != CategoryKind::Kernel) {
                    d->memory.current.push_back(iv);
                    continue;
                }
                std::int8_t& comm = communication[track.names[row].value];
                if (comm < 0)
                    comm = kernelCategory(store.strings().view(track.names[row])) ==
                           KernelCategory::Communication;
                (comm ? d->communication : d->compute).current.push_back(iv);
            }
            if (d) d->endRuns();
        }
    }
    std::vector<DeviceTime> out;
    for (auto& [device, d] : byDevice) {
        DeviceTime t;
        t.rank = store.metadata().rank;
        t.device = device;
        const IntervalSet all = d.all.merged();
        const IntervalSet compute = d.compute.merged();
        const IntervalSet communication = d.communication.merged();
        const IntervalSet memory = d.memory.merged();
        // (A device whose GPU work all lasts 0 ns has no interval left after the merge: a fuzzed trace,
        // tests/fuzz/seeds/regression-gputime-zero-length.json.)
        t.span = all.empty() ? 0 : all.back().second - all.front().first;
        t.idle = t.span - totalLength(all);
        t.compute = totalLength(compute);
        t.communication = totalLength(communication);
        t.memory = totalLength(memory);
        t.overlap = totalLength(intersect(compute, unionOf(communication, memory)));
        out.push_back(t);
    }
    return out;
}

} // namespace kinetoscope
