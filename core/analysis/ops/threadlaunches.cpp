#include "analysis/ops/threadlaunches.h"

#include <algorithm>

namespace kinetoscope {

std::vector<std::vector<ThreadLaunch>> launchesByThread(const TraceStore& store, TimeNs workFrom,
                                                        TimeNs workTo) {
    std::vector<std::vector<ThreadLaunch>> byThread(store.tracks().size());
    for (const Flow& f : store.flows()) {
        if (f.kind != FlowKind::Launch || !isGpuWork(store.categoryOf(f.target).kind)) continue;
        const Track& t = store.track(f.source.track);
        if (t.kind != TrackKind::CpuThread) continue;
        const TimeNs start = store.track(f.target.track).starts[f.target.index.value];
        if (start < workFrom || start > workTo) continue;
        byThread[f.source.track.value].push_back({t.starts[f.source.index.value], f.source, f.target});
    }
    const auto byCall = [](const ThreadLaunch& a, const ThreadLaunch& b) {
        return a.callStart < b.callStart;
    };
    for (std::vector<ThreadLaunch>& list : byThread)
        if (!std::is_sorted(list.begin(), list.end(), byCall))
            std::stable_sort(list.begin(), list.end(), byCall);
    return byThread;
}

} // namespace kinetoscope
