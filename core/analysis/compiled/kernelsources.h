#pragma once

// From a Triton kernel of the trace to its generated code (docs/DEFINITIONS.md, "Compiled models: generated
// code"). The kernel's CPU launch event (a cpu_op named after it) says where Inductor wrote it
// (`kernel_file`, `kernel_hash`) and how it was launched; the code is found there when that file exists on
// this machine, else under a folder the user points at (an Inductor cache or debug folder, searched by the
// cache's relative path, then by content, whatever the files are named), or in compiled modules
// (`output_code.py`) given directly. A compiled module's entry, which says what the kernel fused, wins over a
// bare kernel file's.

#include "analysis/compiled/fxgraph.h"
#include "analysis/compiled/inductorcode.h"
#include "analysis/compiled/provenance.h"
#include "model/tracestore.h"

#include <optional>
#include <string>
#include <vector>

namespace kinetoscope {

// What the launch event's args say; every field is optional (PyTorch versions write different ones).
struct TritonLaunch {
    EventRef event; // the cpu_op named after the kernel, invalid when the trace has none
    std::string kernelFile, kernelHash, kernelBackend, kernelKwargs, grid;
    std::optional<std::int64_t> numWarps, numStages, stream;
    std::optional<double> numGb, flop; // kernel_num_gb, kernel_flop
};
// The first launch event of the kernel named `kernelName` (its name as the trace writes it); what one launch
// event says.
TritonLaunch tritonLaunchOf(const TraceStore& store, std::string_view kernelName);
TritonLaunch tritonLaunchAt(const TraceStore& store, EventRef launchEvent);

struct KernelSource {
    std::string kernel; // the trace's name
    // Its launches' kernel_hash (the stem of its file in Inductor's cache), empty when the trace gives none.
    // A name is unique within one compiled graph only: the forward and backward graphs of one model can both
    // have a `triton_poi_fused__to_copy_6`, two kernels, each found on its own.
    std::string kernelHash;
    std::string file;          // the file it was found in
    std::string foundBy;       // "kernel_file", "cache path", "content", "compiled module"
    InductorKernelSource code; // its entry there (lines, fused ops, FX nodes)
    // The model's lines it computes, when the compiled module sits in TORCH_COMPILE_DEBUG's folder beside its
    // graph's fx_graph_readable.py (fxgraph.h); empty otherwise.
    std::vector<ModelLine> modelLines;
    // Each of its calls in its graph's `call`, in order, with the nodes and model lines of that call, when
    // the debug folder also has Inductor's provenance mappings (provenance.h); empty otherwise. The k-th
    // launch of the kernel within one call of the graph is its k-th call here (inductor.h,
    // launchInGraphCall).
    std::vector<ProvenanceCall> calls;
};
struct KernelSourceSearch {
    std::vector<KernelSource> found;
    // The kernels not found, each with what was looked for ("/tmp/torchinductor_root/mw/cmw…py; mw/cmw…py or
    // triton_poi_… under DIR").
    std::vector<std::pair<std::string, std::string>> missing;
    std::uint64_t filesRead = 0;
    // The source of the kernel `name` whose launch says `hash`; with no hash, or none found for it, the first
    // found of that name.
    const KernelSource* find(std::string_view name, std::string_view hash = {}) const;
};

// Every `triton_*` kernel of the trace (by name), looked for in that order; `folder` and `compiledModules`
// may be empty. Reads only `.py` files up to 64 MiB, at most 100,000 of them under `folder`.
KernelSourceSearch findKernelSources(const TraceStore& store, const std::string& folder,
                                     const std::vector<std::string>& compiledModules);

} // namespace kinetoscope
