#pragma once

// Inside analysis: what computeOverview is made of. One pass over the slices of the steps gathers the facts
// (overviewslices.cpp); the breakdown and the GPU metrics are computed from them (overviewmetrics.cpp), and
// the recommendations are a table of rules over both (recommendations.cpp).

#include "analysis/gpu/intervals.h"
#include "analysis/ops/kernelclass.h"
#include "analysis/overview/overview.h"

#include <array>
#include <cstdint>
#include <map>
#include <utility>
#include <vector>

namespace kinetoscope::overview {

// What a name means to the breakdown and the rules, decided once per distinct string rather than per slice.
namespace NameClass {
enum : std::uint8_t { Communication = 1, Sync = 2, Copy = 4, DataLoader = 8, Step = 16, TensorCore = 32 };
}
std::vector<std::uint8_t> classifyNames(const TraceStore& store);

// The steps the overview covers, as the figures measure them.
struct StepSpan {
    IntervalSet set;  // the steps
    TimeNs total = 0; // Σ step durations
    TimeNs lo = 0;    // first step's start
    TimeNs hi = 0;    // last step's end: GPU metrics are measured over [lo, hi], gaps between steps included
    TimeNs rangeLo = 0, rangeHi = 0; // the range asked for, within the trace
};

struct KernelInStep {
    TimeNs start, end;
    double blocks; // blocks per SM, 0 when unknown
    std::int64_t device;
};

// What one pass over the CPU and GPU slices within the steps finds.
struct SliceFacts {
    std::vector<std::uint8_t> nameClass; // by StringId
    // Intervals of each breakdown category, as runs sorted by start (one per lane and category).
    std::array<std::vector<IntervalSet>, breakdownCategoryCount> runs;
    // The communication kernels' runs alone (runs[Communication] holds the CPU's collective ranges too): what
    // compute hides of communication is these under kernels, copies or memsets (communication_overlapped_us).
    std::vector<IntervalSet> gpuCommunicationRuns;
    std::map<std::int64_t, std::vector<IntervalSet>> kernelRuns, gpuWorkRuns; // by device
    std::vector<KernelInStep> kernelsInSteps;
    std::map<std::int64_t, std::pair<double, TimeNs>> occupancy; // device -> (Σ occ × dur, Σ dur with occ)
    std::map<std::int64_t, std::pair<TimeNs, TimeNs>> tensorTime; // device -> (tensor-core time, kernel time)
    std::map<std::int64_t, bool> smData;
    std::array<TimeNs, kernelCategoryCount> categoryTime{};
    std::array<EventRef, kernelCategoryCount> categoryExample{};
    TimeNs elementwiseOptimizerTime =
        0; // elementwise kernels the optimizer step launched (launchedByOptimizerStep)
    EventRef elementwiseOptimizerExample;
    TimeNs totalKernelTime = 0;
    std::uint64_t kernelCount = 0, tinyKernels = 0;
    EventRef tinyExample, longestDataLoader, longestComm, longestSync, longestCopy;
    // Host waits for the GPU (outermost sync calls and ops), and copy and layout ops without the waits inside
    // them: a blocking .to()/.cpu() of a result is a wait, given to sync_bound alone.
    TimeNs syncTime = 0, copyTime = 0;
    TimeNs syncInCopyTime = 0;  // the part of syncTime inside copy ops (aten::to waiting for the GPU)
    EventRef longestSyncInCopy; // the copy op around the longest such wait
};

SliceFacts gatherSliceFacts(const TraceStore& store, const StepSpan& span);
// Each step's time split by category, by priority subtraction (docs/DEFINITIONS.md).
void computeBreakdown(Overview& ov, const SliceFacts& facts, const StepSpan& span);
void computeGpuMetrics(Overview& ov, SliceFacts& facts, const StepSpan& span);
void addRecommendations(const TraceStore& store, Overview& ov, const SliceFacts& facts, const StepSpan& span);

} // namespace kinetoscope::overview
