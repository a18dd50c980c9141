#pragma once

// TorchInductor's generated code, read as text (never run, never imported): a compiled module
// (`output_code.py`, from TORCH_LOGS=output_code, TORCH_COMPILE_DEBUG=1's debug folder or the log's "Compiled
// module path:") or one of its kernel files (a `.py` of Inductor's cache holding one Triton kernel). For each
// Triton kernel: where its source lies, what it fused (FX nodes, ATen ops, the node-to-ATen mapping, the
// graph fragment), its launch in the module's `call`, and what its `inductor_meta` says (bytes, FLOPs). Every
// PyTorch version's comments are optional: 2.0's `# Original ATen: aten.x, aten.y`, 2.1–2.3's
// `# Source Nodes: [...], Original ATen: [...]`, 2.4's `# Topologically Sorted Source Nodes: [...]` with its
// mapping and graph fragment (docs/DEFINITIONS.md, "Compiled models: generated code").

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace kinetoscope {

struct InductorKernelSource {
    std::string name;       // the name the trace's kernel and launch event carry (the module's variable)
    std::string kernelPath; // `# kernel path:` (the kernel's file in Inductor's cache), or empty
    std::vector<std::string> fxNodes; // Source Nodes: the FX graph's nodes it computes
    std::vector<std::string> atenOps; // Original ATen
    std::vector<std::pair<std::string, std::string>> nodeToAten; // "x_2" -> "amax, div, exp"
    std::vector<std::string> graphFragment;                      // the FX nodes' lines, as written
    std::string heuristic; // pointwise, reduction, persistent_reduction, template, ... (empty when unknown)
    std::optional<double> numGb; // inductor_meta's kernel_num_gb
    std::optional<double> flop;  // inductor_meta's kernel_flop
    std::string launch;          // its first launch in `call`, as written (grid, warps, stages)
    // Its source: the Triton code's lines, 1-based and inclusive, and their bytes.
    int firstLine = 0, lastLine = 0;
    std::size_t sourceBegin = 0, sourceEnd = 0;
};

struct InductorCode {
    std::vector<InductorKernelSource> kernels; // in file order
    std::vector<std::string> externKernels; // extern_kernels.* calls in `call` (library GEMMs, convolutions)
    bool isKernelFile = false;              // one kernel of Inductor's cache rather than a compiled module
    std::uint64_t malformed = 0;            // kernel definitions whose source never closes, and the like
    const InductorKernelSource* find(std::string_view kernelName) const;
};

InductorCode parseInductorCode(std::string_view text);

} // namespace kinetoscope
