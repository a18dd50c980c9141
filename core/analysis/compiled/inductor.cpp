#include "analysis/compiled/inductor.h"

#include "analysis/ops/hosttree.h"

#include <algorithm>
#include <array>
#include <map>
#include <numeric>
#include <unordered_map>

namespace kinetoscope {

std::string_view inductorCategoryName(InductorCategory c) {
    switch (c) {
    case InductorCategory::Pointwise:
        return "triton_pointwise";
    case InductorCategory::Reduction:
        return "triton_reduction";
    case InductorCategory::PersistentReduction:
        return "triton_persistent_reduction";
    case InductorCategory::TritonUnknown:
        return "triton_unknown";
    case InductorCategory::Unknown:
        break;
    }
    return "unknown";
}

InductorCategory inductorCategory(std::string_view name) {
    if (!name.starts_with("triton_")) return InductorCategory::Unknown;
    if (name.starts_with("triton_poi")) return InductorCategory::Pointwise;
    if (name.starts_with("triton_red")) return InductorCategory::Reduction;
    if (name.starts_with("triton_per")) return InductorCategory::PersistentReduction;
    return InductorCategory::TritonUnknown;
}

namespace {

struct Sums {
    std::uint64_t calls = 0;
    TimeNs self = 0;
    EventRef longest;
};

// The report's tables from the GPU work's sums per name.
InductorBreakdown breakdownOf(const TraceStore& store, const std::unordered_map<std::uint32_t, Sums>& byName,
                              TimeNs wall) {
    InductorBreakdown b;
    b.wall = wall;
    std::array<InductorCategoryRow, inductorCategoryCount> rows;
    for (std::size_t c = 0; c < inductorCategoryCount; ++c)
        rows[c].category = InductorCategory(c);
    for (const auto& [id, sums] : byName) {
        const std::string_view name = store.strings().view(StringId(id));
        InductorCategoryRow& row = rows[std::size_t(inductorCategory(name))];
        row.kernels.push_back({std::string(name), sums.calls, sums.self, sums.longest});
        row.total += sums.self;
        b.busy += sums.self;
    }
    for (InductorCategoryRow& row : rows) {
        if (row.kernels.empty()) continue;
        std::sort(row.kernels.begin(), row.kernels.end(),
                  [](const InductorKernel& x, const InductorKernel& y) {
                      return x.self != y.self ? x.self > y.self : x.name < y.name;
                  });
        b.categories.push_back(std::move(row));
    }
    return b;
}

bool isGraphWork(CategoryKind k) {
    return k == CategoryKind::Kernel || k == CategoryKind::Memcpy || k == CategoryKind::Memset;
}

// "CompiledFxGraph <hash>" (forward or backward from the autograd range around it), or the marker's name.
std::string graphName(const TraceStore& store, EventRef call) {
    const Track& t = store.track(call.track);
    std::string name(store.strings().view(t.names[call.index.value]));
    if (!name.starts_with("## Call ")) return name;
    name = name.substr(8, name.size() - 8 - 3); // "## Call " ... " ##"
    for (auto p = t.parentOf(call.index.value); p; p = t.parentOf(*p)) {
        const std::string_view outer = store.strings().view(t.names[*p]);
        if (outer == "CompiledFunction") return name + " (forward)";
        if (outer == "CompiledFunctionBackward") return name + " (backward)";
    }
    return name;
}

} // namespace

InductorBreakdown inductorPerRun(const InductorBreakdown& b, std::uint64_t nruns, TimeNs wallPerRun) {
    if (nruns == 0) nruns = 1;
    const auto perRun = [&](TimeNs t) { return TimeNs((t + TimeNs(nruns) / 2) / TimeNs(nruns)); };
    InductorBreakdown r = b;
    r.wall = wallPerRun > 0 ? wallPerRun : perRun(b.wall);
    r.busy = 0;
    for (InductorCategoryRow& row : r.categories) {
        row.total = 0;
        for (InductorKernel& k : row.kernels) {
            k.self = perRun(k.self);
            k.calls = (k.calls + nruns / 2) / nruns;
            row.total += k.self;
        }
        r.busy += row.total;
    }
    return r;
}

int graphCallRank(std::string_view name) {
    if (name.starts_with("## Call CompiledFxGraph") && name.ends_with("##")) return 2;
    if (name.starts_with("Torch-Compiled Region: ") || name == "CompiledFunction" ||
        name == "CompiledFunctionBackward")
        return 1;
    return 0;
}

std::optional<LaunchInGraphCall> launchInGraphCall(const TraceStore& store, EventRef launchEvent) {
    if (!launchEvent.isValid() || launchEvent.track.value >= store.tracks().size()) return std::nullopt;
    const Track& t = store.track(launchEvent.track);
    const std::uint32_t row = launchEvent.index.value;
    std::optional<std::uint32_t> call;
    int callRank = 0;
    for (auto p = t.parentOf(row); p && callRank < 2; p = t.parentOf(*p))
        if (const int rank = graphCallRank(store.strings().view(t.names[*p])); rank > callRank) {
            call = *p;
            callRank = rank;
        }
    if (!call) return std::nullopt;
    LaunchInGraphCall out;
    out.graphCall = {launchEvent.track, EventIndex(*call)};
    const StringId name = t.names[row];
    const auto before = [&](std::uint32_t r) {
        return t.starts[r] < t.starts[row] || (t.starts[r] == t.starts[row] && r < row);
    };
    for (std::uint32_t d = t.depthOf(*call) + 1; d < t.laneCount(); ++d) {
        const auto [lo, hi] = t.rowsInRange(d, t.starts[*call], t.endOf(*call));
        for (std::uint32_t r = lo; r < hi; ++r)
            if (t.names[r] == name && t.encloses(*call, r)) {
                ++out.count;
                out.ordinal += before(r);
            }
    }
    return out;
}

InductorReport inductorReport(const TraceStore& store, TimeNs from, TimeNs to) {
    InductorReport report;
    const auto startOf = [&](EventRef e) { return store.track(e.track).starts[e.index.value]; };
    std::unordered_map<std::uint32_t, Sums> byName;
    std::vector<std::pair<int, EventRef>> calls; // (rank, call)
    for (std::uint32_t ti = 0; ti < store.tracks().size(); ++ti) {
        const Track& t = store.tracks()[ti];
        const bool gpu = t.kind == TrackKind::GpuStream;
        if (!gpu && t.kind != TrackKind::CpuThread) continue;
        for (std::uint32_t r = 0; r < t.sliceCount(); ++r) {
            if (t.starts[r] < from || t.starts[r] > to) continue;
            if (gpu) {
                if (!isGraphWork(store.categories()[t.categories[r]].kind)) continue;
                Sums& s = byName[t.names[r].value];
                ++s.calls;
                s.self += t.durations[r];
                if (!s.longest.isValid() || t.durations[r] > store.durationOf(s.longest))
                    s.longest = {TrackId(ti), EventIndex(r)};
                report.hasTriton =
                    report.hasTriton || store.strings().view(t.names[r]).starts_with("triton_");
            } else if (const int rank = graphCallRank(store.strings().view(t.names[r]))) {
                calls.push_back({rank, {TrackId(ti), EventIndex(r)}});
            }
        }
    }
    if (!report.hasTriton) return report;
    const TimeNs first = std::max(from, store.minTime()), last = std::min(to, store.maxTime());
    report.trace = breakdownOf(store, byName, std::max<TimeNs>(0, last - first));

    // Inductor's own call ranges when the trace has them, else the markers around compiled code.
    const int best = std::accumulate(calls.begin(), calls.end(), 0,
                                     [](int m, const auto& c) { return std::max(m, c.first); });
    std::erase_if(calls, [&](const auto& c) { return c.first != best; });
    std::sort(calls.begin(), calls.end(),
              [&](const auto& x, const auto& y) { return startOf(x.second) < startOf(y.second); });
    std::map<std::string, std::size_t> graphIndex;
    std::vector<std::unordered_map<std::uint32_t, Sums>> graphSums;
    for (const auto& [rank, call] : calls) {
        const std::string name = graphName(store, call);
        const auto [it, fresh] = graphIndex.try_emplace(name, report.graphs.size());
        if (fresh) {
            CompiledGraph graph;
            graph.name = name;
            report.graphs.push_back(std::move(graph));
            graphSums.emplace_back();
        }
        CompiledGraph& g = report.graphs[it->second];
        ++g.calls;
        g.callEvents.push_back(call);
        TimeNs end = startOf(call) + store.durationOf(call);
        std::unordered_map<std::uint32_t, Sums> callSums;
        for (const LaunchedWork& w : gpuWorkLaunchedWithin(store, call)) {
            const Track& gt = store.track(w.longest.track);
            if (!isGraphWork(store.categories()[gt.categories[w.longest.index.value]].kind)) continue;
            callSums[w.name.value] = {w.count, w.total, w.longest};
            Sums& s = graphSums[it->second][w.name.value];
            s.calls += w.count;
            s.self += w.total;
            if (!s.longest.isValid() || store.durationOf(w.longest) > store.durationOf(s.longest))
                s.longest = w.longest;
            end = std::max(end, w.lastEnd);
        }
        g.breakdown.wall += end - startOf(call);
        g.callBreakdowns.push_back(breakdownOf(store, callSums, end - startOf(call)));
    }
    for (std::size_t i = 0; i < report.graphs.size(); ++i)
        report.graphs[i].breakdown = breakdownOf(store, graphSums[i], report.graphs[i].breakdown.wall);
    return report;
}

} // namespace kinetoscope
