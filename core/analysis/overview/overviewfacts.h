#pragma once

#include <optional>
#include <unordered_map>

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

// One-time first calls: a runtime or driver call that takes 1 ms or more and 20 times its name's median is
// warm-up when it launches (the breakdown asks of launch calls only, the advice of a gap's launch) (CUDA's
// lazy module loading, cuDNN's algorithm search, a first JIT): a 675 ms cudaLaunchKernel inside a run's first
// cuDNN convolution, 628 ms in the particle transformer's first forward. No launch setting shortens it, and
// profiling after warm-up steps leaves it out.
inline constexpr TimeNs warmUpCallMinimum = 1'000'000;
inline constexpr TimeNs warmUpCallRatio = 20;
class WarmUpCalls {
  public:
    explicit WarmUpCalls(const TraceStore& store) : m_store(store) {}
    bool contains(EventRef call); // gathers the medians the first time a call is long enough to ask
  private:
    const TraceStore& m_store;
    std::optional<std::unordered_map<std::uint32_t, TimeNs>>
        m_median; // per name, of every runtime/driver call
};

// Each step's time split by category, by priority subtraction (docs/DEFINITIONS.md), and the runtime's part
// that is one-time warm-up.
void computeBreakdown(const TraceStore& store, Overview& ov, const SliceFacts& facts, const StepSpan& span);
void computeGpuMetrics(Overview& ov, SliceFacts& facts, const StepSpan& span);
void addRecommendations(const TraceStore& store, Overview& ov, const SliceFacts& facts, const StepSpan& span);

} // namespace kinetoscope::overview
