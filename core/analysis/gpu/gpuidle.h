#pragma once

// Where the GPU waits, as Meta's Holistic Trace Analysis defines it (docs/DEFINITIONS.md, "GPU idle time and
// launches"): the idle-time breakdown per GPU stream and the kernel launch statistics.

#include "model/tracestore.h"

#include <optional>
#include <string_view>
#include <utility>
#include <vector>

namespace kinetoscope {

// A gap shorter than this between GPU events whose launch came in time is the GPU waiting for the previous
// kernel (HTA's consecutive_kernel_delay: it compares microseconds, although its documentation says ns).
inline constexpr TimeNs kernelWaitThreshold = 30'000;

struct StreamIdle {
    std::int64_t device = 0;
    std::int64_t stream = 0;
    TimeNs hostWait = 0;   // the next event's launch call began after the previous event ended
    TimeNs kernelWait = 0; // otherwise, a gap under kernelWaitThreshold
    TimeNs other = 0;      // every other gap
    std::uint64_t gaps = 0;
    // The longest gap, where it starts and the event after it: where the idle time shows most (the MCP
    // server's evidence for the row).
    TimeNs longestGap = 0;
    TimeNs longestGapStart = 0;
    EventRef afterLongestGap;
    TimeNs idle() const { return hostWait + kernelWait + other; }
};

// Per GPU stream (by device, then stream): the gaps between consecutive kernels, copies and memsets (sync
// events excluded) in start order, each from the end of all the events before it, classified by the next
// event's launch call. With a scope, the events that start in it.
std::vector<StreamIdle> gpuIdleBreakdown(const TraceStore& store,
                                         std::optional<std::pair<TimeNs, TimeNs>> scope = std::nullopt);

struct Distribution {
    double median = 0, p90 = 0, p99 = 0, max = 0; // ns
};

struct LaunchStatistics {
    std::uint64_t launches = 0;
    Distribution cpuDuration; // the launch call
    Distribution gpuDuration; // the GPU event it launched
    Distribution launchDelay; // max(0, GPU start − end of the call)
    // Outliers, as the launch calls: GPU time shorter than a call of at most 50 µs; calls over 50 µs; delays
    // over 100 µs (HTA's plot's three lists).
    std::vector<EventRef> shortKernels, longCalls, longDelays;
};

inline constexpr TimeNs longCallThreshold = 50'000;
inline constexpr TimeNs longDelayThreshold = 100'000;

// Every launch call (cudaLaunchKernel/ExC, cuLaunchKernel/Ex, cudaMemcpyAsync, cudaMemsetAsync and their hip
// counterparts) joined to the GPU event it launched (by correlation, the store's launch flows). With a scope,
// the calls that start in it.
LaunchStatistics launchStatistics(const TraceStore& store,
                                  std::optional<std::pair<TimeNs, TimeNs>> scope = std::nullopt);
// Whether a runtime or driver call of this name launches GPU work.
bool isLaunchCall(std::string_view name);

// Calls f(call, gpuEvent) for every launch call on the CPU threads joined to the GPU event it launched (its
// first, by correlation), in the calls' order; calls whose GPU event is not in the trace are skipped. One
// pass over the launch flows (sorted by call, then GPU event): no lookup per call.
template <typename F> void forEachLaunch(const TraceStore& store, F f) {
    std::vector<std::int8_t> launches(store.strings().size(), -1); // per name, worked out once
    EventRef previous;
    for (const Flow& flow : store.flows()) {
        if (flow.kind != FlowKind::Launch || flow.source == previous) continue;
        const Track& track = store.track(flow.source.track);
        if (track.kind != TrackKind::CpuThread) continue;
        const std::uint32_t row = flow.source.index.value;
        const CategoryKind kind = store.categories()[track.categories[row]].kind;
        if (kind != CategoryKind::Runtime && kind != CategoryKind::Driver) continue;
        std::int8_t& known = launches[track.names[row].value];
        if (known < 0) known = isLaunchCall(store.strings().view(track.names[row]));
        if (!known) continue;
        previous = flow.source;
        f(flow.source, flow.target);
    }
}

} // namespace kinetoscope
