#pragma once

#include "model/tracestore.h"

#include <climits>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kinetoscope {

// What a host slice is to the operator tables.
enum class HostRole : std::uint8_t {
    None,       // not a host event of the operator tree (Python frames, instants, profiler overhead, ...)
    Operator,   // an ATen or custom operator (cat cpu_op / Operator)
    Annotation, // a range that is not an operator: record_function ranges, ProfilerStep#N,
                // Optimizer.step#..., DataLoader
    Launch,     // a runtime or driver call (cudaLaunchKernel, cudaMemcpyAsync, cuLaunchKernel, ...)
};

// Annotations that older traces write with the operator category.
bool isAnnotationName(std::string_view name);
// The row an annotation is listed under: a trailing "#<digits>" becomes "#*" (ProfilerStep#12 ->
// ProfilerStep#*).
std::string annotationGroupName(std::string_view name);
HostRole hostRole(const TraceStore& store, const Track& track, std::uint32_t row);

// hostRole for every slice of one store, with what it depends on (category kinds, annotation names) decided
// once.
class HostRoles {
  public:
    explicit HostRoles(const TraceStore& store);
    const TraceStore& store() const { return *m_store; }
    HostRole of(const Track& track, std::uint32_t row) const {
        if (track.flags[row] & SliceFlag::Instant) return HostRole::None;
        const HostRole byCategory = m_byCategory[track.categories[row]];
        if (byCategory == HostRole::Operator && m_annotationName[track.names[row].value])
            return HostRole::Annotation;
        return byCategory;
    }

  private:
    const TraceStore* m_store;
    std::vector<HostRole> m_byCategory;
    std::vector<bool> m_annotationName;
};

// The host events of one CPU thread (operators, annotations, launches; not Python frames), nested by the one
// rule of docs/DEFINITIONS.md, which is key_averages()' rule: P encloses E when P.start <= E.start < P.end
// and E.end <= P.end, and E's parent is the innermost event that encloses it; of two with the same start and
// duration, the one earlier in the store's order (the file's) is the parent.
//
// A launch call belongs to the innermost operator or annotation around it, except where the launch carries
// the External id of another one around it: key_averages() follows Kineto's external correlation, and a range
// that does not push its id (a CUDA graph replayed inside "## Call CompiledFxGraph" is CompiledFunction's)
// passes its launches to the operator outside.
//
// The tree keeps a node for each operator and annotation, in time order (start, then longer first, then
// lane), with what its children add up to; launch calls are leaves of it (a driver call inside a runtime call
// at most), so they only count in their parent's children and name the node that owns them.
struct HostNode {
    TimeNs start = 0;
    TimeNs childSum = 0; // summed durations of its direct children, launch calls included
    std::uint32_t row = 0;
    std::int32_t parent = -1; // the enclosing operator or annotation (through a launch call, if ever), or -1
    std::uint32_t childCount = 0; // direct children, launch calls included
    HostRole role = HostRole::None;
    // Filled by the operator tables (summarize), which own the tree: kept here, not in an array beside it,
    // because a trace's threads hold millions of nodes and each array costs its page faults.
    std::int32_t mergedInto =
        -1; // the same-named parent this node is merged into (key_averages' _remove_dup_nodes)
    TimeNs deviceSelf = 0;
    TimeNs deviceSelfTensor = 0;
    TimeNs deviceTotal = 0;
};
struct LaunchOwner {
    std::uint32_t row = 0;
    std::int32_t owner = -1; // the node whose device time the call's GPU work is, or -1
};
struct HostTree {
    std::vector<HostNode> nodes;
    std::vector<LaunchOwner> launches; // by row
    // The node that owns the launch call at `row`, or -1.
    std::int32_t ownerOfLaunch(std::uint32_t row) const;
};
// Only events that intersect [from, to] are nested, with the descendants of those that start in it.
HostTree hostTree(const HostRoles& roles, const Track& track, TimeNs from = INT64_MIN, TimeNs to = INT64_MAX);

// The operator or annotation that owns a launch call (its innermost enclosing host event that is not itself a
// launch), the one whose device time the call's GPU work is; none for a launch outside any.
std::optional<EventRef> launchingOperator(const TraceStore& store, EventRef launch);
// Whether the optimizer step launched a piece of GPU work: its launch call inside an Optimizer.step# range or
// an aten::_foreach_ operator (an optimizer with foreach=True outside such a range). An eager optimizer's
// multi-tensor kernels, which its fused implementation (AdamW(fused=True)) replaces.
bool launchedByOptimizerStep(const TraceStore& store, EventRef gpuWork);
// How long GPU work waited after its launch call returned: max(0, its start − the call's end), as HTA defines
// it.
TimeNs launchDelay(const TraceStore& store, EventRef gpuWork, EventRef launch);

// The GPU work launched inside a host slice (an operator or annotation): of every runtime or driver call on
// its thread within its range, grouped by name, the most total GPU time first; each with its longest event.
struct LaunchedWork {
    StringId name;
    std::uint64_t count = 0;
    TimeNs total = 0;
    EventRef longest;
    TimeNs lastEnd = INT64_MIN; // the end of the last of it
};
std::vector<LaunchedWork> gpuWorkLaunchedWithin(const TraceStore& store, EventRef hostSlice);
// The same over several host slices (every call of an operator), merged per name. A slice inside another of
// them on its thread (a recursive call) adds nothing: its launches are its caller's.
std::vector<LaunchedWork> gpuWorkLaunchedWithin(const TraceStore& store, std::vector<EventRef> hostSlices);
// The GPU work launched inside a host slice, each event, in the order of the calls that launched it.
std::vector<EventRef> gpuWorkInLaunchOrder(const TraceStore& store, EventRef hostSlice);

} // namespace kinetoscope
