#pragma once

// The chain of CPU ops, launches and GPU work that bounds a step, as HTA's lightweight critical-path analysis
// builds it (docs/DEFINITIONS.md, "Critical path"): every op, runtime call and GPU event of the window is a
// start and an end point; edges join them along each thread's call stack, from a launch to its GPU event,
// from one GPU event to the next on a stream and across synchronisations. The longest path through that
// graph is what the step could not have been shorter than without making one of its pieces faster.

#include "model/tracestore.h"

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kinetoscope {

enum class PathEdgeKind : std::uint8_t {
    Operator,          // within one op, call or GPU event (or between nested ones on a thread)
    Dependency,        // from one top-level op to the next on a thread, or along the CUDA runtime lock: 0
    LaunchDelay,       // from a launch call's start to its GPU event's start, when the stream was empty
    KernelKernelDelay, // from one GPU event's end to the next one's start on a stream
    Sync,              // GPU event → the CPU call that waited for it, or to the GPU event that waited: 0
};
std::string_view pathEdgeKindName(PathEdgeKind kind);

// What bounds each piece of the path, HTA's categories; the index into CriticalPath::bound.
enum class BoundBy : std::uint8_t {
    Cpu,
    GpuCompute,
    GpuCommunication,
    LaunchDelay,
    KernelKernelDelay,
    DataLoading, // the time of a DataLoader range (enumerate(DataLoader)#...) outside the ops it holds
    None,        // the weightless edges: dependencies and synchronisations
};
inline constexpr std::size_t boundByCount = std::size_t(BoundBy::None) + 1;
std::string_view boundByName(BoundBy bound);  // "cpu", "gpu_compute", ... as the JSON names them
std::string_view boundByTitle(BoundBy bound); // "CPU", "GPU compute", ... as the text and the viewer say it

struct CriticalPathEdge {
    EventRef from, to;      // the events whose start or end the edge joins
    bool fromStart = false; // the edge leaves `from`'s start (else its end)
    bool toStart = false;   // and enters `to`'s start (else its end)
    PathEdgeKind kind = PathEdgeKind::Operator;
    TimeNs weight = 0;   // what it adds to the path
    EventRef attributed; // the event whose time this is (operator and kernel-kernel edges), else invalid
    BoundBy bound = BoundBy::None;
};

struct CriticalPath {
    TimeNs from = 0, to = 0; // the window: ops and launch calls that start in it, and what they launched
    TimeNs length = 0;       // the sum of the path's weights
    std::vector<CriticalPathEdge> edges; // in path order
    std::vector<EventRef> events;        // each event the path touches once, in path order
    std::array<TimeNs, boundByCount> bound{};
    std::uint32_t syncs = 0;      // synchronisation edges crossed
    std::uint32_t graphNodes = 0; // the graph it was found in
    std::uint32_t graphEdges = 0;
    std::uint32_t brokenCycles = 0; // edges dropped because they closed a cycle (clock skew); HTA gives up
    bool threadsMerged = false;     // the backward thread's ops were joined to the forward thread's
    // A trace without cuda_sync events (before PyTorch 2.1): the waits of blocking calls, inferred from the
    // GPU work that ended while they ran (HTA leaves them out).
    std::uint32_t inferredSyncs = 0;
};

// The critical path of the ops and launch calls that start in [from, to] (a step: its ProfilerStep range on
// the CPU, as HTA clips it). Empty (length 0, no edges) when the window holds no ops. `inferWaits`: in a
// trace without cuda_sync events, link each blocking call to the GPU work it waited for (HTA does not; the
// tests turn it off to compare with HTA edge by edge).
// `dataLoading`: the DataLoader's ranges are nodes of the path, their time outside their ops bound by data
// loading (HTA's `data_load_events=["DataLoader"]`; by default HTA leaves them out, and a step that waits for
// its next batch had a path half its length that never said so). The tests turn both off to compare with
// HTA's defaults edge by edge.
struct CriticalPathOptions {
    bool inferWaits = true;
    bool dataLoading = true;
};
CriticalPath criticalPath(const TraceStore& store, TimeNs from, TimeNs to, CriticalPathOptions options = {});

// One step's critical path as the report carries it, its events named.
struct PathEventRow {
    EventRef ref;
    std::string name;
    bool gpu = false;
    std::int64_t pid = 0, tid = 0;
    TimeNs start = 0, duration = 0;
};
struct StepCriticalPath {
    std::string step; // stepLabel's name for it
    TimeNs stepStart = 0, stepEnd = 0;
    CriticalPath path;
    std::vector<PathEventRow> events; // parallel to path.events
    // The index in `events` of each edge's ends.
    std::vector<std::pair<std::uint32_t, std::uint32_t>> edgeEvents;
};

struct StepRange;
// The critical path of one step (steps.h), its events named.
StepCriticalPath criticalPathOfStep(const TraceStore& store, const StepRange& step);
// The critical path of the step that overlaps [from, to] most (for a point, the step there or the nearest);
// in a trace without ProfilerStep ranges, of its one activity step.
StepCriticalPath criticalPathAt(const TraceStore& store, TimeNs from, TimeNs to);
// The critical path of ProfilerStep#`number`, or without a number of the step of median length (the shorter
// of the two middle ones); a trace without ProfilerStep ranges is one activity step. nullopt, with `error`
// naming the steps there are, when there is no such step.
std::optional<StepCriticalPath> stepCriticalPath(const TraceStore& store, std::optional<std::int64_t> number,
                                                 std::string& error);

} // namespace kinetoscope
