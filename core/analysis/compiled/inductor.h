#pragma once

// TorchInductor's own kernel breakdown (docs/DEFINITIONS.md, "Compiled models"): the table PyTorch's
// `parse_profile_event_list` (torch/_inductor/wrapper_benchmark.py) prints for a compiled module profiled
// with
// `-p`, on any trace or range and on each compiled graph. The GPU work (kernels, copies, memsets) by category
// from its name, each category's kernels by self device time with their calls, as shares of the wall time.

#include "analysis/compiled/kernelsources.h"
#include "model/tracestore.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kinetoscope {

// Inductor's categories, in the order its report prints them.
enum class InductorCategory : std::uint8_t {
    Pointwise,           // triton_poi*
    Reduction,           // triton_red*
    PersistentReduction, // triton_per*
    TritonUnknown,       // any other triton_* (templates, foreach, ...)
    Unknown,             // everything else: library GEMMs and convolutions, copies, memsets, eager kernels
};
inline constexpr std::size_t inductorCategoryCount = 5;
// "triton_pointwise", ..., "unknown": Inductor's names.
std::string_view inductorCategoryName(InductorCategory c);
InductorCategory inductorCategory(std::string_view gpuWorkName);

struct InductorKernel {
    std::string name; // as the trace writes it
    std::uint64_t calls = 0;
    TimeNs self = 0;  // summed durations: a GPU event's self device time is its duration
    EventRef longest; // its longest event, where the viewer jumps
};
struct InductorCategoryRow {
    InductorCategory category = InductorCategory::Unknown;
    TimeNs total = 0;
    std::vector<InductorKernel> kernels; // by self time, descending (then by name)
};
struct InductorBreakdown {
    TimeNs wall = 0;                             // the figures' denominator
    TimeNs busy = 0;                             // the summed self time of every category
    std::vector<InductorCategoryRow> categories; // the categories present, in Inductor's order
    // Device time over wall time, in percent (over 100 when streams overlap, as in Inductor's report).
    double busyPercent() const { return wall > 0 ? 100.0 * double(busy) / double(wall) : 0.0; }
    double percentOf(TimeNs t) const { return wall > 0 ? 100.0 * double(t) / double(wall) : 0.0; }
    // Of the GPU's work: where the wall is mostly compilation, a share of it reads 0.04 % for the model's
    // heaviest kernel; its share of the device time says what it costs.
    double percentOfBusy(TimeNs t) const { return busy > 0 ? 100.0 * double(t) / double(busy) : 0.0; }
};

// One compiled graph over all its calls.
struct CompiledGraph {
    std::string name; // "CompiledFxGraph <hash>", with " (forward)" or " (backward)" when the trace tells
    std::uint64_t calls = 0;
    std::vector<EventRef> callEvents;              // the CPU ranges of its calls, in time order
    InductorBreakdown breakdown;                   // wall: the sum of its calls' walls
    std::vector<InductorBreakdown> callBreakdowns; // each call's, parallel to callEvents
};

struct InductorReport {
    bool hasTriton = false;            // the range has a triton_* kernel: without one there is no report
    InductorBreakdown trace;           // the whole range; wall: from its first to its last event
    std::vector<CompiledGraph> graphs; // by first call
    // Each Triton kernel's generated code, when the caller looked for it (summary --inductor-dir,
    // --output-code).
    std::optional<KernelSourceSearch> sources;
};

// The breakdown as Inductor's script prints it for a profile of `nruns` runs of a compiled module
// (compiled_module_profile.json, written by `python output_code.py -p`) whose wall time per run, measured
// without the profiler, was `wallPerRun` (the script prints both): each kernel's self time and calls divided
// by nruns (calls rounded to whole ones), every share taken of that wall time.
InductorBreakdown inductorPerRun(const InductorBreakdown& b, std::uint64_t nruns, TimeNs wallPerRun);

// What kind of compiled-graph call range a CPU slice's name makes it: 2 for Inductor's own call ranges
// (`## Call CompiledFxGraph <hash> ##`), 1 for the older markers that stand in for them in traces without
// those
// (`Torch-Compiled Region: N/M`, `CompiledFunction`, `CompiledFunctionBackward`), 0 for neither. A trace's
// graph calls are the ranges of the highest rank it has.
int graphCallRank(std::string_view name);

// Where a kernel's CPU launch event sits in its compiled graph's call: the innermost enclosing graph call
// (Inductor's own range first, else an older marker), and which of that call's launches of the same kernel
// it is (from 0) of how many. A kernel serving several layers is launched once per layer in each call, in
// the order of the graph's `call`, which is what Inductor's provenance numbers (provenance.h).
struct LaunchInGraphCall {
    EventRef graphCall;
    std::size_t ordinal = 0, count = 0;
};
std::optional<LaunchInGraphCall> launchInGraphCall(const TraceStore& store, EventRef launchEvent);

// Over [from, to] (GPU work that starts in it; graph calls that start in it). A graph call is a CPU
// `## Call CompiledFxGraph <hash> ##` range, or in traces without those a `Torch-Compiled Region: N/M`,
// `CompiledFunction` or `CompiledFunctionBackward` range; its GPU work is what the launch calls inside it
// launched, its wall from its start to the end of the last of that work (or its own end, if later).
InductorReport inductorReport(const TraceStore& store, TimeNs from = INT64_MIN, TimeNs to = INT64_MAX);

} // namespace kinetoscope
