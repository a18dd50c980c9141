#pragma once
// Two compiles of one model, kernel by kernel (docs/DEFINITIONS.md, "Two compiles compared"). Inductor
// numbers its kernels within each graph (`triton_poi_fused__to_copy_4`), so one change early in a model
// renumbers every later kernel, and names repeat: several kernels of one stem in a graph, and the forward and
// backward graphs each with a `triton_poi_fused__to_copy_6` of its own. A name alone does not say which
// kernel of the other compile is the same one; its place does. Each graph of A is paired with the graph of B
// in the same place (the k-th forward with the k-th forward, and so on), the Triton launches of one call of
// each are aligned (the longest common subsequence, two launches agreeing when their names agree but for the
// number), and a kernel of A is the kernel of B it was aligned with most often.

#include "analysis/compiled/inductor.h"
#include "model/tracestore.h"

#include <string>
#include <vector>

namespace kinetoscope {

// "triton_poi_fused_add_mul" of "triton_poi_fused_add_mul_3": a generated kernel's name without the index
// Inductor numbers it by within its graph; empty for a name that is not a Triton kernel's.
std::string tritonKernelStem(std::string_view name);

// A Triton kernel of one compiled graph of A that is, in B, the kernel `nameB` (another name: its number
// moved), with A's launches of it in that graph, over all the graph's calls.
struct CompiledKernelMatch {
    std::string graphA, graphB; // the two graphs' names (inductor.h's CompiledGraph)
    std::string nameA, nameB;
    std::uint64_t countA = 0;
    TimeNs deviceA = 0; // their summed durations
};

// Only the kernels whose names differ; a kernel aligned with one of its own name is not listed.
std::vector<CompiledKernelMatch> matchCompiledKernels(const TraceStore& a, const InductorReport& reportA,
                                                      const TraceStore& b, const InductorReport& reportB);

} // namespace kinetoscope
