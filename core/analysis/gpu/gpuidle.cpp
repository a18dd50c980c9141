#include "analysis/gpu/gpuidle.h"

#include "analysis/ops/summary.h"

#include <algorithm>
#include <array>

namespace kinetoscope {

namespace {

bool inScope(TimeNs t, const std::optional<std::pair<TimeNs, TimeNs>>& scope) {
    return !scope || (t >= scope->first && t <= scope->second);
}

// Quantiles as pandas computes them (linear between the two nearest ranks), so that figures compare with
// HTA's. Each needs only its two ranks in place: nth_element, not a sort.
double quantile(std::vector<double>& values, double q) {
    if (values.empty()) return 0;
    const double at = q * double(values.size() - 1);
    const auto lo = std::size_t(at);
    std::nth_element(values.begin(), values.begin() + std::ptrdiff_t(lo), values.end());
    const double low = values[lo];
    if (lo + 1 >= values.size()) return low;
    // The next rank is the smallest of what nth_element left above it.
    const double high = *std::min_element(values.begin() + std::ptrdiff_t(lo) + 1, values.end());
    return low + (high - low) * (at - double(lo));
}

Distribution distribution(std::vector<double> values) {
    Distribution d;
    d.max = values.empty() ? 0 : *std::max_element(values.begin(), values.end());
    d.p99 = quantile(values, 0.99);
    d.p90 = quantile(values, 0.9);
    d.median = quantile(values, 0.5);
    return d;
}

} // namespace

bool isLaunchCall(std::string_view name) {
    static constexpr std::array<std::string_view, 14> calls = {
        "cudaLaunchKernel",      "cudaLaunchKernelExC",      "cuLaunchKernel",     "cuLaunchKernelEx",
        "cudaMemcpyAsync",       "cudaMemsetAsync",          "hipLaunchKernel",    "hipExtLaunchKernel",
        "hipModuleLaunchKernel", "hipExtModuleLaunchKernel", "hipLaunchKernelExC", "hipMemcpyAsync",
        "hipMemsetAsync",        "hipMemcpyWithStream"};
    return std::find(calls.begin(), calls.end(), name) != calls.end();
}

std::vector<StreamIdle> gpuIdleBreakdown(const TraceStore& store,
                                         std::optional<std::pair<TimeNs, TimeNs>> scope) {
    std::vector<StreamIdle> out;
    std::vector<std::uint32_t> rows;
    // Each GPU event's launch call start, from one pass over the flows (in call order, so the first call
    // wins, as launchOf's), instead of a search per gap.
    constexpr TimeNs noLaunch = INT64_MIN;
    std::vector<std::vector<TimeNs>> launchStart(store.tracks().size());
    for (const Flow& f : store.flows()) {
        if (f.kind != FlowKind::Launch) continue;
        const Track& gpu = store.track(f.target.track);
        if (gpu.kind != TrackKind::GpuStream) continue;
        std::vector<TimeNs>& starts = launchStart[f.target.track.value];
        if (starts.empty()) starts.assign(gpu.sliceCount(), noLaunch);
        TimeNs& at = starts[f.target.index.value];
        if (at == noLaunch) at = store.track(f.source.track).starts[f.source.index.value];
    }
    for (std::uint32_t ti = 0; ti < store.tracks().size(); ++ti) {
        const Track& track = store.track(TrackId(ti));
        if (track.kind != TrackKind::GpuStream) continue;
        rows.clear();
        for (std::uint32_t row = 0; row < track.sliceCount(); ++row)
            if (!(track.flags[row] & SliceFlag::Instant) &&
                isGpuWork(store.categories()[track.categories[row]].kind) &&
                inScope(track.starts[row], scope))
                rows.push_back(row);
        if (rows.size() < 2) continue;
        auto byStart = [&](std::uint32_t a, std::uint32_t b) {
            return track.starts[a] != track.starts[b] ? track.starts[a] < track.starts[b] : a < b;
        };
        if (!std::is_sorted(rows.begin(), rows.end(), byStart)) // a stream of one lane already is
            std::sort(rows.begin(), rows.end(), byStart);
        StreamIdle s;
        s.device = deviceOf(track);
        s.stream = track.tid;
        // The end of everything before: an event that overlaps the next ones (programmatic dependent launch)
        // keeps the GPU busy until it ends.
        TimeNs prevEnd = track.endOf(rows[0]);
        for (std::size_t i = 1; i < rows.size(); ++i) {
            const TimeNs gap = track.starts[rows[i]] - prevEnd;
            prevEnd = std::max(prevEnd, track.endOf(rows[i]));
            if (gap <= 0) continue;
            const TimeNs gapEnd = track.starts[rows[i]] - gap; // the previous end, before this event's
            ++s.gaps;
            if (gap > s.longestGap) {
                s.longestGap = gap;
                s.longestGapStart = gapEnd;
                s.afterLongestGap = EventRef{TrackId(ti), EventIndex(rows[i])};
            }
            const std::vector<TimeNs>& launches = launchStart[ti];
            const TimeNs launch = launches.empty() ? noLaunch : launches[rows[i]];
            if (launch != noLaunch && launch > gapEnd)
                s.hostWait += gap;
            else if (gap < kernelWaitThreshold)
                s.kernelWait += gap;
            else
                s.other += gap;
        }
        out.push_back(s);
    }
    std::sort(out.begin(), out.end(), [](const StreamIdle& a, const StreamIdle& b) {
        return a.device != b.device ? a.device < b.device : a.stream < b.stream;
    });
    return out;
}

LaunchStatistics launchStatistics(const TraceStore& store, std::optional<std::pair<TimeNs, TimeNs>> scope) {
    LaunchStatistics stats;
    std::vector<double> cpu, gpu, delay;
    forEachLaunch(store, [&](EventRef call, EventRef gpuEvent) {
        const Track& track = store.track(call.track);
        const std::uint32_t row = call.index.value;
        if (!inScope(track.starts[row], scope)) return;
        const Track& gpuTrack = store.track(gpuEvent.track);
        const std::uint32_t g = gpuEvent.index.value;
        const TimeNs callDuration = track.durations[row];
        const TimeNs gpuDuration = gpuTrack.durations[g];
        const TimeNs launchDelay = std::max<TimeNs>(0, gpuTrack.starts[g] - track.endOf(row));
        ++stats.launches;
        cpu.push_back(double(callDuration));
        gpu.push_back(double(gpuDuration));
        delay.push_back(double(launchDelay));
        if (gpuDuration < callDuration && callDuration <= longCallThreshold)
            stats.shortKernels.push_back(call);
        if (callDuration > longCallThreshold) stats.longCalls.push_back(call);
        if (launchDelay > longDelayThreshold) stats.longDelays.push_back(call);
    });
    stats.cpuDuration = distribution(std::move(cpu));
    stats.gpuDuration = distribution(std::move(gpu));
    stats.launchDelay = distribution(std::move(delay));
    return stats;
}

} // namespace kinetoscope
