#include "steps.h"

#include <algorithm>

namespace kinetoscope {

std::vector<StepRange> findSteps(const TraceStore& store) {
    std::vector<bool> isStepName(store.strings().size(), false);
    bool any = false;
    for (std::uint32_t i = 0; i < store.strings().size(); ++i) {
        if (store.strings().view(StringId(i)).starts_with("ProfilerStep#")) isStepName[i] = any = true;
    }
    std::vector<StepRange> steps;
    if (!any) return steps;
    for (std::uint32_t t = 0; t < store.tracks().size(); ++t) {
        const Track& track = store.tracks()[t];
        if (track.kind != TrackKind::CpuThread && track.kind != TrackKind::Async) continue;
        for (std::uint32_t r = 0; r < track.names.size(); ++r) {
            if (!isStepName[track.names[r].value] || (track.flags[r] & SliceFlag::Instant)) continue;
            StepRange s;
            s.name = track.names[r];
            s.slice = {TrackId(t), EventIndex(r)};
            s.cpuStart = s.start = track.starts[r];
            s.cpuEnd = s.end = track.endOf(r);
            steps.push_back(s);
        }
    }
    std::sort(steps.begin(), steps.end(), [](const StepRange& a, const StepRange& b) {
        return a.cpuStart != b.cpuStart ? a.cpuStart < b.cpuStart : a.slice < b.slice;
    });
    // Extend each step over the GPU work of launches made inside it, on any CPU thread of the step's process:
    // one pass over the launch flows (sorted by source), each placed in its step by binary search on the host
    // ranges.
    for (const Flow& f : store.flows()) {
        if (f.kind != FlowKind::Launch) continue;
        const Track& lt = store.track(f.source.track);
        if (lt.kind != TrackKind::CpuThread) continue;
        const TimeNs at = lt.starts[f.source.index.value];
        auto it = std::upper_bound(steps.begin(), steps.end(), at,
                                   [](TimeNs v, const StepRange& st) { return v < st.cpuStart; });
        // Steps of different processes may overlap in time: look back over those that started before `at`.
        for (auto k = it; k != steps.begin();) {
            --k;
            if (at > k->cpuEnd) {
                if (it - k > 8) break;
                continue;
            }
            if (store.track(k->slice.track).pid != lt.pid) continue;
            k->end = std::max(k->end, store.track(f.target.track).endOf(f.target.index.value));
            break;
        }
    }
    for (std::size_t i = 1; i < steps.size(); ++i) {
        steps[i].start = std::max(steps[i].start, steps[i - 1].end);
        steps[i].end = std::max(steps[i].end, steps[i].start);
    }
    return steps;
}

StepRange activityStep(const TraceStore& store, TimeNs from, TimeNs to) {
    from = std::max(from, store.minTime());
    to = std::max(from, std::min(to, store.maxTime()));
    TimeNs cpuLo = INT64_MAX, cpuHi = INT64_MIN;
    for (const Track& t : store.tracks()) {
        if (t.kind != TrackKind::CpuThread) continue;
        for (std::uint32_t d = 0; d < t.laneCount(); ++d) {
            const auto [r0, r1] = t.rowsInRange(d, from, to);
            for (std::uint32_t r = r0; r < r1; ++r) {
                const CategoryKind kind = store.categories()[t.categories[r]].kind;
                if ((kind != CategoryKind::CpuOp && kind != CategoryKind::PythonFunction) ||
                    (t.flags[r] & SliceFlag::Instant))
                    continue;
                cpuLo = std::min(cpuLo, std::max(t.starts[r], from));
                cpuHi = std::max(cpuHi, std::min(t.endOf(r), to));
            }
        }
    }
    StepRange step;
    if (cpuLo > cpuHi) {
        step.start = step.cpuStart = from;
        step.end = step.cpuEnd = to;
        return step;
    }
    TimeNs end = cpuHi;
    for (const Track& t : store.tracks()) {
        if (t.kind != TrackKind::GpuStream) continue;
        for (std::uint32_t r = 0; r < t.sliceCount(); ++r) {
            const CategoryKind kind = store.categories()[t.categories[r]].kind;
            if (!isGpuWork(kind)) continue;
            if (t.endOf(r) <= end) continue;
            const auto launch =
                store.launchOf({TrackId(std::uint32_t(&t - store.tracks().data())), EventIndex(r)});
            if (!launch) continue;
            const TimeNs at = store.track(launch->track).starts[launch->index.value];
            if (at >= cpuLo && at <= cpuHi) end = t.endOf(r);
        }
    }
    step.start = step.cpuStart = cpuLo;
    step.cpuEnd = cpuHi;
    step.end = end;
    return step;
}

std::string stepLabel(const TraceStore& store, const StepRange& step, bool selection) {
    if (step.name.isValid()) return std::string(store.strings().view(step.name));
    return selection ? "(selection)" : "(activity)";
}

} // namespace kinetoscope
