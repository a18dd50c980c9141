#include "analysis/gpu/criticalpath.h"

#include "analysis/gpu/criticalpathgraph.h"
#include "analysis/ops/kernelclass.h"
#include "analysis/ops/steps.h"

#include <algorithm>
#include <charconv>
#include <unordered_map>
#include <unordered_set>

namespace kinetoscope {

std::string_view pathEdgeKindName(PathEdgeKind kind) {
    switch (kind) {
    case PathEdgeKind::Operator:
        return "operator";
    case PathEdgeKind::Dependency:
        return "dependency";
    case PathEdgeKind::LaunchDelay:
        return "launch_delay";
    case PathEdgeKind::KernelKernelDelay:
        return "kernel_kernel_delay";
    case PathEdgeKind::Sync:
        return "sync";
    }
    return "operator";
}

std::string_view boundByName(BoundBy bound) {
    switch (bound) {
    case BoundBy::Cpu:
        return "cpu";
    case BoundBy::GpuCompute:
        return "gpu_compute";
    case BoundBy::GpuCommunication:
        return "gpu_communication";
    case BoundBy::LaunchDelay:
        return "launch_delay";
    case BoundBy::KernelKernelDelay:
        return "kernel_kernel_delay";
    case BoundBy::DataLoading:
        return "data_loading";
    case BoundBy::None:
        return "none";
    }
    return "none";
}

std::string_view boundByTitle(BoundBy bound) {
    switch (bound) {
    case BoundBy::Cpu:
        return "CPU";
    case BoundBy::GpuCompute:
        return "GPU compute";
    case BoundBy::GpuCommunication:
        return "GPU communication";
    case BoundBy::LaunchDelay:
        return "launch delay";
    case BoundBy::KernelKernelDelay:
        return "kernel-kernel delay";
    case BoundBy::DataLoading:
        return "data loading";
    case BoundBy::None:
        return "none";
    }
    return "none";
}

namespace {

struct Adjacency {
    std::vector<std::uint32_t> begin; // per node, into `edges`
    std::vector<std::uint32_t> edges; // edge indices, each node's in the order they were added
};

// Edges grouped by one end, keeping the order they were added (a stable counting sort).
Adjacency adjacency(const CpGraph& g, bool byTarget) {
    Adjacency a;
    a.begin.assign(g.nodes.size() + 1, 0);
    for (const CpGraph::Edge& e : g.edges)
        ++a.begin[(byTarget ? e.to : e.from) + 1];
    for (std::size_t n = 0; n < g.nodes.size(); ++n)
        a.begin[n + 1] += a.begin[n];
    a.edges.resize(g.edges.size());
    std::vector<std::uint32_t> fill(a.begin.begin(), a.begin.end() - 1);
    for (std::uint32_t i = 0; i < g.edges.size(); ++i)
        a.edges[fill[byTarget ? g.edges[i].to : g.edges[i].from]++] = i;
    return a;
}

// Kahn's algorithm, first in first out, seeded in the order the graph met its nodes and following each
// node's edges in the order they were added: the order networkx's topological_sort gives, so that ties
// between equally long paths go the same way as HTA's. Nodes left over lie on a cycle.
std::vector<std::uint32_t> topologicalOrder(const CpGraph& g, const Adjacency& out,
                                            const std::vector<bool>& dropped) {
    std::vector<std::uint32_t> indegree(g.nodes.size(), 0);
    for (std::uint32_t i = 0; i < g.edges.size(); ++i)
        if (!dropped[i]) ++indegree[g.edges[i].to];
    std::vector<std::uint32_t> order;
    order.reserve(g.nodesByFirstEdge.size());
    for (std::uint32_t n : g.nodesByFirstEdge)
        if (indegree[n] == 0) order.push_back(n);
    for (std::size_t i = 0; i < order.size(); ++i)
        for (std::uint32_t k = out.begin[order[i]]; k < out.begin[order[i] + 1]; ++k) {
            const std::uint32_t e = out.edges[k];
            if (!dropped[e] && --indegree[g.edges[e].to] == 0) order.push_back(g.edges[e].to);
        }
    return order;
}

BoundBy boundOf(const TraceStore& store, const CpGraph::Edge& e) {
    switch (e.kind) {
    case PathEdgeKind::LaunchDelay:
        return BoundBy::LaunchDelay;
    case PathEdgeKind::KernelKernelDelay:
        return BoundBy::KernelKernelDelay;
    case PathEdgeKind::Dependency:
    case PathEdgeKind::Sync:
        return BoundBy::None;
    case PathEdgeKind::Operator:
        break;
    }
    if (!e.attributed.isValid()) return BoundBy::None;
    if (store.track(e.attributed.track).kind != TrackKind::GpuStream)
        return isDataLoaderRange(store.nameOf(e.attributed)) ? BoundBy::DataLoading : BoundBy::Cpu;
    return kernelCategory(store.nameOf(e.attributed)) == KernelCategory::Communication
               ? BoundBy::GpuCommunication
               : BoundBy::GpuCompute;
}

} // namespace

CriticalPath criticalPath(const TraceStore& store, TimeNs from, TimeNs to, CriticalPathOptions options) {
    CriticalPath path;
    path.from = from;
    path.to = to;
    const CpGraph g = buildCriticalPathGraph(store, from, to, options);
    path.threadsMerged = g.threadsMerged;
    path.inferredSyncs = g.inferredSyncs;
    path.graphNodes = std::uint32_t(g.nodesByFirstEdge.size());
    path.graphEdges = std::uint32_t(g.edges.size());
    if (g.edges.empty()) return path;

    const Adjacency in = adjacency(g, true);
    const Adjacency out = adjacency(g, false);
    std::vector<bool> dropped(g.edges.size(), false);
    std::vector<std::uint32_t> order = topologicalOrder(g, out, dropped);
    if (order.size() < g.nodesByFirstEdge.size()) {
        // A cycle: clocks that disagree made something end before what it waits for. Every cycle has an edge
        // that goes back in time order; dropping those among the nodes left over breaks them all.
        std::vector<bool> placed(g.nodes.size(), false);
        for (std::uint32_t n : order)
            placed[n] = true;
        for (std::uint32_t i = 0; i < g.edges.size(); ++i)
            if (!placed[g.edges[i].from] && !placed[g.edges[i].to] && g.edges[i].from > g.edges[i].to) {
                dropped[i] = true;
                ++path.brokenCycles;
            }
        order = topologicalOrder(g, out, dropped);
    }

    // The longest distance to each node, and the edge it came by (the first of equals).
    constexpr std::uint32_t none = UINT32_MAX;
    std::vector<TimeNs> dist(g.nodes.size(), 0);
    std::vector<std::uint32_t> via(g.nodes.size(), none);
    for (std::uint32_t v : order)
        for (std::uint32_t k = in.begin[v]; k < in.begin[v + 1]; ++k) {
            const std::uint32_t e = in.edges[k];
            if (dropped[e]) continue;
            const TimeNs d = dist[g.edges[e].from] + g.edges[e].weight;
            if (via[v] == none || d > dist[v]) {
                dist[v] = d;
                via[v] = e;
            }
        }
    std::uint32_t end = order.front();
    for (std::uint32_t v : order)
        if (dist[v] > dist[end]) end = v;
    path.length = dist[end];

    std::vector<std::uint32_t> edges;
    for (std::uint32_t v = end; via[v] != none; v = g.edges[via[v]].from)
        edges.push_back(via[v]);
    std::reverse(edges.begin(), edges.end());
    std::unordered_set<std::uint64_t> seen;
    auto addEvent = [&](std::uint32_t node) {
        const EventRef ref = g.events[g.nodes[node].event].ref;
        if (seen.insert(packRef(ref)).second) path.events.push_back(ref);
    };
    for (std::uint32_t i : edges) {
        const CpGraph::Edge& e = g.edges[i];
        const CpGraph::Node& u = g.nodes[e.from];
        const CpGraph::Node& v = g.nodes[e.to];
        CriticalPathEdge pe{
            g.events[u.event].ref, g.events[v.event].ref, u.isStart, v.isStart, e.kind, e.weight,
            e.attributed,          boundOf(store, e)};
        path.bound[std::size_t(pe.bound)] += pe.weight;
        if (e.kind == PathEdgeKind::Sync) ++path.syncs;
        addEvent(e.from);
        addEvent(e.to);
        path.edges.push_back(pe);
    }
    return path;
}

namespace {

// N of "ProfilerStep#N"; nullopt for another name.
std::optional<std::int64_t> stepNumber(std::string_view name) {
    const std::size_t hash = name.rfind('#');
    if (hash == std::string_view::npos) return std::nullopt;
    std::int64_t n = 0;
    const char* end = name.data() + name.size();
    const auto [ptr, ec] = std::from_chars(name.data() + hash + 1, end, n);
    if (ec != std::errc() || ptr != end) return std::nullopt;
    return n;
}

// A trace without ProfilerStep ranges: its activity step, with HTA's whole-trace window (every op, whatever
// the activity step leaves out).
StepRange wholeTraceStep(const TraceStore& store) {
    StepRange step = activityStep(store, store.minTime(), store.maxTime());
    // The path runs over the whole trace (host work before the first operator included, a 2 s cudaMalloc of
    // an Nsight export): its share is of the whole trace, not of the activity step (which read 32,899%).
    step.start = step.cpuStart = store.minTime();
    step.end = step.cpuEnd = store.maxTime();
    return step;
}

} // namespace

StepCriticalPath criticalPathAt(const TraceStore& store, TimeNs from, TimeNs to) {
    const std::vector<StepRange> steps = findSteps(store);
    if (steps.empty()) return criticalPathOfStep(store, wholeTraceStep(store));
    // The most overlap; for a point or no overlap at all, the nearest step.
    auto overlap = [&](const StepRange& s) { return std::min(s.end, to) - std::max(s.start, from); };
    const StepRange* best = &steps.front();
    for (const StepRange& s : steps)
        if (overlap(s) > overlap(*best)) best = &s;
    return criticalPathOfStep(store, *best);
}

std::optional<StepCriticalPath> stepCriticalPath(const TraceStore& store, std::optional<std::int64_t> number,
                                                 std::string& error) {
    const std::vector<StepRange> steps = findSteps(store);
    std::optional<StepRange> step;
    if (steps.empty()) {
        if (number) {
            error = "the trace has no ProfilerStep ranges";
            return std::nullopt;
        }
        step = wholeTraceStep(store);
    } else if (number) {
        for (const StepRange& s : steps)
            if (stepNumber(store.strings().view(s.name)) == number) step = s;
        if (!step) {
            error = "no ProfilerStep#" + std::to_string(*number) + "; the trace has " +
                    std::string(store.strings().view(steps.front().name));
            if (steps.size() > 1) error += " to " + std::string(store.strings().view(steps.back().name));
            return std::nullopt;
        }
    } else {
        std::vector<StepRange> byLength = steps;
        std::stable_sort(byLength.begin(), byLength.end(), [](const StepRange& a, const StepRange& b) {
            return a.end - a.start < b.end - b.start;
        });
        step = byLength[(byLength.size() - 1) / 2];
    }
    return criticalPathOfStep(store, *step);
}

StepCriticalPath criticalPathOfStep(const TraceStore& store, const StepRange& step) {
    StepCriticalPath out;
    out.step = stepLabel(store, step);
    out.stepStart = step.start;
    out.stepEnd = step.end;
    out.path = criticalPath(store, step.cpuStart, step.cpuEnd);
    std::unordered_map<std::uint64_t, std::uint32_t> index;
    for (EventRef ref : out.path.events) {
        const Track& track = store.track(ref.track);
        index.emplace(packRef(ref), std::uint32_t(out.events.size()));
        out.events.push_back({ref, std::string(store.nameOf(ref)), track.kind == TrackKind::GpuStream,
                              track.pid, track.tid, track.starts[ref.index.value],
                              track.durations[ref.index.value]});
    }
    for (const CriticalPathEdge& e : out.path.edges)
        out.edgeEvents.emplace_back(index.at(packRef(e.from)), index.at(packRef(e.to)));
    return out;
}

} // namespace kinetoscope
