#pragma once
// Inductor's provenance mappings (`inductor_provenance_tracking_node_mappings.json`, written beside
// output_code.py in TORCH_COMPILE_DEBUG's folder with INDUCTOR_PROVENANCE=1, PyTorch 2.7 and later). Where
// output_code.py's comments describe a kernel once, its `cppCodeToPost` names each *call* of a kernel in the
// graph's `call` ("triton_poi_fused__to_copy_4:7": the graph's 7th kernel call) with the post-grad FX nodes
// that call computes, and `postToPre` takes those back to the pre-grad (Dynamo) graph's nodes. One kernel
// serving several layers is called once per layer, each call with its own nodes: `linear_1` for the first
// layer's projection, `linear_5` for the second's. Read with the project's JSON parser, never run.

#include "analysis/compiled/fxgraph.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kinetoscope {

// One call of a kernel in its graph's `call`.
struct ProvenanceCall {
    int handle = 0;                     // its place among the graph's kernel calls, from 1
    std::vector<std::string> postNodes; // post-grad FX nodes it computes, as the file lists them
    std::vector<std::string> preNodes;  // their pre-grad nodes, each once, in the order first reached
    std::vector<ModelLine> modelLines;  // the model lines of its post-grad nodes (fx_graph_readable.py)
};

struct InductorProvenance {
    // Each kernel's calls by handle, the kernel as output_code.py names it: `triton_*`, and library calls
    // as written (`extern_kernels.addmm`, `torch.ops.aten._scaled_dot_product_cudnn_attention.default`).
    std::map<std::string, std::vector<ProvenanceCall>, std::less<>> calls;
    std::uint64_t malformed = 0; // entries with no `:N`, or whose nodes are not strings
    const std::vector<ProvenanceCall>* callsOf(std::string_view kernel) const;
};

// nullopt when `json` is not JSON or has no `cppCodeToPost` object; `error` then says why. `graph` (the
// same folder's fx_graph_readable.py, possibly empty) gives each call its model lines.
std::optional<InductorProvenance> parseInductorProvenance(std::string_view json, const FxGraphLines& graph,
                                                          std::string* error = nullptr);

} // namespace kinetoscope
