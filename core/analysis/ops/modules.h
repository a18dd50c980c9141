#pragma once

#include "model/tracestore.h"

#include <string>
#include <vector>

namespace kinetoscope {

// The nn.Module tree, from the `nn.Module: Name_N` python_function frames that
// torch.profiler(with_stack=True) records: occurrences with the same path (root → module) merge into one
// node.
struct ModuleNode {
    std::string name; // "Qwen2DecoderLayer_3"
    int parent = -1;  // index into the node list
    std::vector<int> children;
    std::uint64_t occurrences = 0;
    TimeNs hostTotal = 0;   // sum of the frames' durations
    TimeNs hostSelf = 0;    // minus the child modules' frames
    TimeNs deviceSelf = 0;  // GPU time of work launched inside it but outside its child modules
    TimeNs deviceTotal = 0; // GPU time of work launched inside it
    EventRef example;       // the longest frame
};

struct ModuleTree {
    std::vector<ModuleNode> nodes; // roots first within each parent; children ordered by host total
    std::vector<int> roots;
};

// Modules whose frames start in [from, to]. Empty when the trace has no module frames.
ModuleTree moduleTree(const TraceStore& store, TimeNs from = INT64_MIN, TimeNs to = INT64_MAX);

} // namespace kinetoscope
