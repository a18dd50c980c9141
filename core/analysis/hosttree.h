#pragma once

#include "../model/tracestore.h"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kinetoscope {

// What a host slice is to the operator tables.
enum class HostRole : std::uint8_t {
    None,       // not a host event of the operator tree (Python frames, instants, profiler overhead, ...)
    Operator,   // an ATen or custom operator (cat cpu_op / Operator)
    Annotation, // a range that is not an operator: record_function ranges, ProfilerStep#N, Optimizer.step#..., DataLoader
    Launch,     // a runtime or driver call (cudaLaunchKernel, cudaMemcpyAsync, cuLaunchKernel, ...)
};

// Annotations that older traces write with the operator category.
bool isAnnotationName(std::string_view name);
// The row an annotation is listed under: a trailing "#<digits>" becomes "#*" (ProfilerStep#12 -> ProfilerStep#*).
std::string annotationGroupName(std::string_view name);
HostRole hostRole(const TraceStore& store, const Track& track, std::uint32_t row);

// The host events of one CPU thread (operators, annotations, launches; not Python frames), nested by the one rule of
// docs/DEFINITIONS.md, which is key_averages()' rule: P encloses E when P.start <= E.start < P.end and E.end <= P.end,
// and E's parent is the innermost event that encloses it; of two with the same start and duration, the one earlier
// in the store's order (the file's) is the parent.
struct HostNode {
    std::uint32_t row = 0;
    std::int32_t parent = -1; // index into nodes; parents come before their children
    HostRole role = HostRole::None;
};
std::vector<HostNode> hostTree(const TraceStore& store, const Track& track);

// The operator or annotation that owns a launch call (its innermost enclosing host event that is not itself a launch),
// the one whose device time the call's GPU work is; none for a launch outside any.
std::optional<EventRef> launchingOperator(const TraceStore& store, EventRef launch);
// How long GPU work waited after its launch call returned: max(0, its start − the call's end), as HTA defines it.
TimeNs launchDelay(const TraceStore& store, EventRef gpuWork, EventRef launch);

// The innermost enclosing node of `node` that is not a launch (the operator or annotation a runtime call belongs to).
std::int32_t owningNode(const std::vector<HostNode>& nodes, std::int32_t node);

} // namespace kinetoscope
