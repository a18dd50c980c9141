#pragma once

#include "analysis/ops/steps.h"
#include "model/tracestore.h"

#include <array>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace kinetoscope {

// Run facts shown at the top of the overview: GPUs, versions and profiler settings found in the metadata.
struct RunFacts {
    std::vector<DeviceProperties> devices;
    std::vector<std::pair<std::string, std::string>> facts; // label -> value, in display order
};
RunFacts runFacts(const TraceStore& store);

// The step-time breakdown categories, in priority order: each takes only time not already claimed
// (FORMAT.md).
enum class BreakdownCategory : std::uint8_t {
    Kernel,
    Memcpy,
    Memset,
    Communication,
    Runtime,
    DataLoader,
    CpuExec,
    Other
};
constexpr std::size_t breakdownCategoryCount = 8;
std::string_view breakdownCategoryName(BreakdownCategory c); // "kernel", "memcpy", ..., "cpu_exec", "other"

struct StepBreakdown {
    StepRange step;
    std::array<TimeNs, breakdownCategoryCount> time{};
    // Communication kernels running while kernels, copies or memsets of a higher priority ran: hidden, so not
    // in time[Communication], which is what is left exposed. Shown beside it (the Kernels tab's communication
    // category is both).
    TimeNs communicationOverlapped = 0;
    // The part of time[Runtime] spent in one-time warm-up calls (overviewfacts.h: a first cudaLaunchKernel
    // loading its module, cuDNN's algorithm search): named apart, never answered as launch overhead.
    TimeNs warmUp = 0;
};

struct GpuMetrics {
    std::int64_t device = 0;
    // The metric span runs from the first step's start to the last step's end, gaps between steps included.
    TimeNs kernelTime = 0;  // union of kernel intervals within the metric span
    double utilization = 0; // kernelTime / metric span
    double busyOfWall = 0;  // union of all GPU work (kernels, memcpy, memset) / trace span
    double smEfficiency =
        0; // ∫ min(Σ blocks per SM of running kernels, 1) dt over the metric span / metric span
    double achievedOccupancy = 0; // Σ occupancy × kernel time clipped to the metric span / Σ that time, in %
    double tensorCoreShare = 0;   // kernel time of tensor-core kernels / kernel time
    bool hasSmData = false;
    bool hasOccupancyData = false;
};

struct Recommendation {
    std::string id; // stable: "dataloader", "low_utilization", "amp", "communication", "memory_capacity",
                    // "launch_bound", "sync_bound", "tiny_kernels", "copy_traffic", "elementwise_fusion",
                    // "queue_full", "queue_empty", "below_peak", "unfused_attention", "channels_last",
                    // "graph_breaks", "recompilation", "compile_in_trace", "max_autotune"
    std::string title;
    std::string evidence; // the numbers that triggered it
    EventRef example;     // where it shows (may be invalid)
    TimeNs from = 0;      // a range to look at: the example's extent when there is one
    TimeNs to = 0;
    // The figures that fired it, each by name (shares are fractions), and the threshold it crossed.
    std::vector<std::pair<std::string, double>> figures;
    std::string exampleName; // the example's name, start and duration, for reports that have no store at hand
    TimeNs exampleStart = 0;
    TimeNs exampleDuration = 0;
    bool exampleOnGpu = false; // the example's time is GPU time (a kernel, copy or memset), else CPU time
};

struct Overview {
    std::vector<StepRange> steps; // the ProfilerSteps, or one step over the range when there are none
    bool syntheticStep = false;   // true when the trace has no ProfilerStep
    TimeNs stepMean = 0, stepMedian = 0, stepMin = 0, stepMax = 0;
    double stepsPerSecond = 0;
    std::vector<StepBreakdown> breakdown;
    std::array<TimeNs, breakdownCategoryCount> breakdownTotal{};
    TimeNs communicationOverlappedTotal = 0;
    TimeNs warmUpTotal = 0; // the steps' warmUp
    EventRef longestWarmUp; // the longest warm-up call in the steps
    std::vector<GpuMetrics> gpus;
    std::vector<Recommendation> recommendations;
    bool compiledModel = false; // the range runs compiled code (torch.compile): the advice speaks to it
    bool cudaGraphs = false;    // and replays CUDA graphs
    // Compile phases (outermost "... (dynamo_timed)" ranges) within the steps: the idle-based advice leaves
    // them out.
    std::vector<std::pair<TimeNs, TimeNs>> compilePhases;
};

// Everything the overview shows for the part of the trace in [from, to] (the whole trace by default).
struct StreamQueue;
// The launch queue's recommendations, added to `ov` once the queues are known (docs/DEFINITIONS.md): a queue
// that is mostly empty (the host launches each kernel just in time: CPU-bound) or often full (GPU-bound), on
// the stream with the most launches.
void addQueueRecommendations(Overview& ov, const std::vector<StreamQueue>& queues);

Overview computeOverview(const TraceStore& store, TimeNs from = INT64_MIN, TimeNs to = INT64_MAX);

struct StepCriticalPath;
// The advice a step's critical path gives (docs/DEFINITIONS.md, "Recommendations"): when GPU communication
// bounds more than a third of it ("communication_on_critical_path"), what the step waits for is the
// collectives, however much of them compute hides elsewhere.
std::optional<Recommendation> criticalPathRecommendation(const StepCriticalPath& path);

// Whether an op or kernel name is a collective communication (NCCL/RCCL/gloo kernels and their host calls).
bool isCommunicationName(std::string_view name);

} // namespace kinetoscope
