// The overview's step breakdown and GPU metrics, from the facts one pass over the slices gathered.
#include "analysis/overview/overviewfacts.h"

#include <algorithm>
#include <tuple>

namespace kinetoscope::overview {

bool WarmUpCalls::contains(EventRef call) {
    const Track& t = m_store.track(call.track);
    const TimeNs d = t.durations[call.index.value];
    if (d < warmUpCallMinimum) return false;
    if (!m_median) {
        std::unordered_map<std::uint32_t, std::vector<TimeNs>> durations;
        for (const Track& track : m_store.tracks()) {
            if (track.kind != TrackKind::CpuThread) continue;
            for (std::uint32_t r = 0; r < track.sliceCount(); ++r) {
                const CategoryKind kind = m_store.categories()[track.categories[r]].kind;
                if (kind == CategoryKind::Runtime || kind == CategoryKind::Driver)
                    durations[track.names[r].value].push_back(track.durations[r]);
            }
        }
        m_median.emplace();
        for (auto& [name, list] : durations) {
            const auto mid = list.begin() + std::ptrdiff_t(list.size() / 2);
            std::nth_element(list.begin(), mid, list.end());
            (*m_median)[name] = *mid;
        }
    }
    const auto m = m_median->find(t.names[call.index.value].value);
    return m != m_median->end() && d >= warmUpCallRatio * m->second;
}

namespace {
// The warm-up launch calls that run in the steps, and the longest of them.
IntervalSet warmUpInSteps(const TraceStore& store, const StepSpan& span, EventRef& longest) {
    WarmUpCalls warmUp(store);
    IntervalSet calls;
    TimeNs longestDuration = 0;
    for (std::uint32_t ti = 0; ti < store.tracks().size(); ++ti) {
        const Track& t = store.tracks()[ti];
        if (t.kind != TrackKind::CpuThread) continue;
        for (std::uint32_t d = 0; d < t.laneCount(); ++d) {
            const auto [r0, r1] = t.rowsInRange(d, span.lo, span.hi);
            for (std::uint32_t r = r0; r < r1; ++r) {
                if (t.durations[r] < warmUpCallMinimum) continue;
                const CategoryKind kind = store.categories()[t.categories[r]].kind;
                if (kind != CategoryKind::Runtime && kind != CategoryKind::Driver) continue;
                // Launch calls only: a copy or a synchronisation that takes long waits for the GPU
                // (sync_bound's and copy's time), it does not warm up.
                if (store.strings().view(t.names[r]).find("Launch") == std::string_view::npos) continue;
                const EventRef ref{TrackId(ti), EventIndex(r)};
                if (!warmUp.contains(ref)) continue;
                calls.emplace_back(t.starts[r], t.endOf(r));
                if (t.durations[r] > longestDuration) longestDuration = t.durations[r], longest = ref;
            }
        }
    }
    std::sort(calls.begin(), calls.end());
    return intersect(unionOfRuns({calls}), span.set);
}
} // namespace

void computeBreakdown(const TraceStore& store, Overview& ov, const SliceFacts& facts, const StepSpan& span) {
    const auto& runs = facts.runs;
    const IntervalSet& stepSet = span.set;
    // Priority subtraction, then per-step sums.
    std::array<IntervalSet, breakdownCategoryCount> exclusive;
    IntervalSet claimed, communicationHidden;
    for (std::size_t c = 0; c + 1 < breakdownCategoryCount; ++c) {
        IntervalSet u = intersect(unionOfRuns(runs[c]), stepSet);
        exclusive[c] = subtract(u, claimed);
        // What compute hid of communication: communication kernels while kernels, copies or memsets ran (the
        // categories claimed before it), as DEFINITIONS says and the plugin counts it; the CPU's collective
        // ranges (c10d::*, nccl:* annotations) are the host waiting, which no kernel hides.
        if (BreakdownCategory(c) == BreakdownCategory::Communication)
            communicationHidden =
                intersect(intersect(unionOfRuns(facts.gpuCommunicationRuns), stepSet), claimed);
        claimed = unionOf(std::move(claimed), u);
    }
    // The runtime's time in warm-up calls: what of the breakdown's runtime they hold.
    const IntervalSet warmUpRuntime = intersect(warmUpInSteps(store, span, ov.longestWarmUp),
                                                exclusive[std::size_t(BreakdownCategory::Runtime)]);
    for (const StepRange& s : ov.steps) {
        StepBreakdown b;
        b.step = s;
        TimeNs used = 0;
        for (std::size_t c = 0; c + 1 < breakdownCategoryCount; ++c) {
            b.time[c] = lengthWithin(exclusive[c], s.start, s.end);
            used += b.time[c];
        }
        b.time[std::size_t(BreakdownCategory::Other)] = std::max<TimeNs>(0, (s.end - s.start) - used);
        b.communicationOverlapped = lengthWithin(communicationHidden, s.start, s.end);
        ov.communicationOverlappedTotal += b.communicationOverlapped;
        b.warmUp = lengthWithin(warmUpRuntime, s.start, s.end);
        ov.warmUpTotal += b.warmUp;
        for (std::size_t c = 0; c < breakdownCategoryCount; ++c)
            ov.breakdownTotal[c] += b.time[c];
        ov.breakdown.push_back(b);
    }
}

void computeGpuMetrics(Overview& ov, SliceFacts& facts, const StepSpan& span) {
    auto [kernelsInSteps, kernelRuns, gpuWorkRuns, occupancy, tensorTime, smData] =
        std::tie(facts.kernelsInSteps, facts.kernelRuns, facts.gpuWorkRuns, facts.occupancy, facts.tensorTime,
                 facts.smData);
    using KernelInfo = KernelInStep;
    const TimeNs metricSpan = span.hi - span.lo;
    const TimeNs lo = span.rangeLo, hi = span.rangeHi;
    // GPU metrics per device.
    std::sort(kernelsInSteps.begin(), kernelsInSteps.end(),
              [](const KernelInfo& a, const KernelInfo& b) { return a.start < b.start; });
    const TimeNs wall = std::max<TimeNs>(1, hi - lo);
    for (auto& [device, laneRuns] : kernelRuns) {
        GpuMetrics g;
        g.device = device;
        g.kernelTime = totalLength(unionOfRuns(laneRuns));
        g.utilization = metricSpan ? double(g.kernelTime) / double(metricSpan) : 0;
        g.busyOfWall = double(totalLength(unionOfRuns(gpuWorkRuns[device]))) / double(wall);
        // SM efficiency: sweep kernel starts and ends, integrating min(Σ blocks per SM, 1).
        std::vector<std::pair<TimeNs, double>> edges;
        for (const KernelInfo& k : kernelsInSteps) {
            if (k.device != device) continue;
            edges.emplace_back(k.start, k.blocks);
            edges.emplace_back(k.end, -k.blocks);
        }
        std::sort(edges.begin(), edges.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
        double level = 0, integral = 0;
        for (std::size_t i = 0; i + 1 < edges.size(); ++i) {
            level += edges[i].second;
            integral += std::min(std::max(level, 0.0), 1.0) * double(edges[i + 1].first - edges[i].first);
        }
        g.hasSmData = smData[device];
        g.smEfficiency = metricSpan && g.hasSmData ? integral / double(metricSpan) : 0;
        const auto occ = occupancy[device];
        g.hasOccupancyData = occ.second > 0;
        g.achievedOccupancy = occ.second ? occ.first / double(occ.second) : 0;
        const auto tt = tensorTime[device];
        g.tensorCoreShare = tt.second ? double(tt.first) / double(tt.second) : 0;
        ov.gpus.push_back(g);
    }
}

} // namespace kinetoscope::overview
