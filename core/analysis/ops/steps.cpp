#include "analysis/ops/steps.h"

#include <algorithm>
#include <unordered_set>

namespace kinetoscope {

namespace {

// A runtime call that launched GPU work, with that work's extent and count.
struct RuntimeLaunch {
    TimeNs start = 0;
    TimeNs end = 0;
    std::vector<EventRef> work;
};

std::vector<RuntimeLaunch> runtimeLaunches(const TraceStore& store) {
    std::vector<RuntimeLaunch> out;
    for (std::uint32_t t = 0; t < store.tracks().size(); ++t) {
        const Track& track = store.tracks()[t];
        if (track.kind != TrackKind::CpuThread) continue;
        for (std::uint32_t r = 0; r < track.sliceCount(); ++r) {
            // The plugin's runtime nodes are `cuda_runtime` (and other *_runtime) calls only: a driver-level
            // launch (cuLaunchKernel) places its work in no step.
            if (store.categories()[track.categories[r]].kind != CategoryKind::Runtime) continue;
            RuntimeLaunch launch{track.starts[r], track.endOf(r),
                                 store.gpuWorkOf({TrackId(t), EventIndex(r)})};
            if (!launch.work.empty()) out.push_back(std::move(launch));
        }
    }
    std::stable_sort(out.begin(), out.end(),
                     [](const RuntimeLaunch& a, const RuntimeLaunch& b) { return a.start < b.start; });
    return out;
}

} // namespace

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

    // The TensorBoard plugin's rules (torch_tb_profiler StepParser._find_device_steps and
    // _update_steps_duration), kept exactly because users compare our steps with its. One merge of the
    // runtime calls (by start) against the steps (by start): a call counts for a step only when it lies
    // wholly inside the step's host range; a call before a step, or straddling its boundary, counts for none.
    constexpr TimeNs none = INT64_MAX;
    std::vector<TimeNs> deviceFirst(steps.size(), none), deviceLast(steps.size(), INT64_MIN);
    std::vector<std::size_t> deviceCount(steps.size(), 0);
    std::unordered_set<std::uint64_t> matched;
    const auto key = [](EventRef e) { return (std::uint64_t(e.track.value) << 32) | e.index.value; };
    const std::vector<RuntimeLaunch> launches = runtimeLaunches(store);
    for (std::size_t s = 0, l = 0; s < steps.size() && l < launches.size();) {
        const RuntimeLaunch& launch = launches[l];
        if (launch.start < steps[s].cpuStart) {
            ++l;
        } else if (launch.end <= steps[s].cpuEnd) {
            for (EventRef g : launch.work) {
                const Track& gt = store.track(g.track);
                deviceFirst[s] = std::min(deviceFirst[s], gt.starts[g.index.value]);
                deviceLast[s] = std::max(deviceLast[s], gt.endOf(g.index.value));
                matched.insert(key(g));
                ++deviceCount[s];
            }
            ++l;
        } else if (launch.start < steps[s].cpuEnd) {
            ++l;
        } else {
            ++s;
        }
    }
    if (matched.empty()) return steps; // no step launched GPU work: the host ranges as they are

    // The first step starts no earlier than the end of any GPU work that no step launched and that ended
    // before the first step's own GPU work began (work queued before profiling, warm-up, a checkpoint's
    // recompute).
    TimeNs previousEnd = steps[0].cpuStart;
    if (deviceFirst[0] != none) {
        for (std::uint32_t t = 0; t < store.tracks().size(); ++t) {
            const Track& track = store.tracks()[t];
            if (track.kind != TrackKind::GpuStream) continue;
            for (std::uint32_t r = 0; r < track.sliceCount(); ++r) {
                if (!isGpuWork(store.categories()[track.categories[r]].kind)) continue;
                const TimeNs end = track.endOf(r);
                if (end < deviceFirst[0] && !matched.contains(key({TrackId(t), EventIndex(r)})))
                    previousEnd = std::max(previousEnd, end);
            }
        }
    }
    for (std::size_t i = 0; i < steps.size(); ++i) {
        StepRange& st = steps[i];
        st.start = std::max(previousEnd, st.cpuStart);
        st.end = std::max({st.cpuEnd, deviceFirst[i] == none ? st.start : deviceLast[i], st.start});
        previousEnd = st.end;
    }
    // Tail steps that launched no GPU work are dropped (the profiler may have stopped before their kernels
    // ran), and so is the last one that did when it launched under 80% of what the step before it launched.
    if (steps.size() > 1) {
        std::size_t last = steps.size();
        while (last > 0 && deviceCount[last - 1] == 0)
            --last;
        if (last > 0) {
            std::size_t keep = last;
            if (last > 1 && double(deviceCount[last - 2]) * 0.8 > double(deviceCount[last - 1]))
                keep = last - 1;
            steps.resize(keep);
        }
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
