#include "steps.h"

#include <algorithm>

namespace kinetoscope {

std::vector<StepRange> findSteps(const TraceStore& store) {
    std::vector<bool> isStepName(store.strings.size(), false);
    bool any = false;
    for (std::uint32_t i = 0; i < store.strings.size(); ++i) {
        if (store.strings.view(StringId(i)).starts_with("ProfilerStep#")) isStepName[i] = any = true;
    }
    std::vector<StepRange> steps;
    if (!any) return steps;
    for (std::uint32_t t = 0; t < store.tracks.size(); ++t) {
        const Track& track = store.tracks[t];
        if (track.kind != TrackKind::CpuThread && track.kind != TrackKind::Async) continue;
        for (std::uint32_t r = 0; r < track.names.size(); ++r) {
            if (!isStepName[track.names[r].value] || (track.flags[r] & SliceFlag::Instant)) continue;
            StepRange s;
            s.name = track.names[r];
            s.slice = {TrackId(t), r};
            s.cpuStart = s.start = track.starts[r];
            s.cpuEnd = s.end = track.endOf(r);
            steps.push_back(s);
        }
    }
    std::sort(steps.begin(), steps.end(), [](const StepRange& a, const StepRange& b) {
        return a.cpuStart != b.cpuStart ? a.cpuStart < b.cpuStart : a.slice < b.slice;
    });
    // Extend each step over the GPU work of launches made inside it, on any CPU thread of the step's process.
    for (StepRange& s : steps) {
        const std::int64_t pid = store.tracks[s.slice.track.value].pid;
        for (std::uint32_t t = 0; t < store.tracks.size(); ++t) {
            const Track& track = store.tracks[t];
            if (track.kind != TrackKind::CpuThread || track.pid != pid) continue;
            for (std::uint32_t d = 0; d < track.laneCount(); ++d) {
                const auto [first, last] = track.rowsInRange(d, s.cpuStart, s.cpuEnd);
                for (std::uint32_t r = first; r < last; ++r) {
                    if (track.starts[r] < s.cpuStart || track.starts[r] > s.cpuEnd) continue;
                    const EventRef ref{TrackId(t), r};
                    if (!isLaunchCategory(store.categoryOf(ref).kind)) continue;
                    for (EventRef gpu : store.gpuWorkOf(ref)) {
                        s.end = std::max(s.end, store.tracks[gpu.track.value].endOf(gpu.index));
                    }
                }
            }
        }
    }
    for (std::size_t i = 1; i < steps.size(); ++i) {
        steps[i].start = std::max(steps[i].start, steps[i - 1].end);
        steps[i].end = std::max(steps[i].end, steps[i].start);
    }
    return steps;
}

} // namespace kinetoscope
