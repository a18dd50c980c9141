#pragma once

// How close to the hardware each operator runs: its FLOPs and bytes (perfmodel.h) over the GPU time of the
// work it launched, against the GPU's peaks (gpupeaks.h). docs/DEFINITIONS.md, "Roofline".

#include "analysis/roofline/gpupeaks.h"
#include "model/tracestore.h"

#include <climits>
#include <optional>
#include <string>
#include <vector>

namespace kinetoscope {

enum class RooflineBound : std::uint8_t { Unknown, Compute, Memory };

// One operator name + input shapes + input dtypes.
struct PerfModelRow {
    std::string name;
    std::string inputDims;  // "Input Dims", minified JSON
    std::string inputTypes; // "Input type", minified JSON
    OpFamily family = OpFamily::Elementwise;
    ComputeType compute = ComputeType::FP32;
    double m = 0, n = 0, k = 0; // OpCost's
    std::uint64_t count = 0;
    double flops = 0; // over all calls
    double bytes = 0;
    // Over all calls, each call's GPU work (kernels, copies, memsets launched under it or its descendants)
    // with overlaps merged.
    TimeNs deviceUnion = 0;
    EventRef example;    // the longest call (CPU)
    EventRef gpuExample; // the longest GPU event its calls launched
    // From the GPU's peaks; none for an unknown GPU or a type it lacks.
    std::optional<double> peakTflops;
    std::optional<double> peakTbps;

    std::optional<double> tflops() const; // achieved; none without GPU time
    std::optional<double> tbps() const;
    std::optional<double> intensity() const; // FLOPs per byte
    RooflineBound bound() const;             // compute when the intensity reaches the ridge
    // Achieved over the peak that bounds it (FLOP/s when compute-bound, bytes/s when memory-bound).
    std::optional<double> peakFraction() const;
    // The GPU time that running at that peak would save.
    std::optional<TimeNs> headroom() const;
};

// GPU time under operators the model does not know or cannot read (no shapes), by the innermost operator or
// annotation that launched it.
struct NotModelledRow {
    std::string name;
    std::uint64_t count = 0; // GPU events
    TimeNs gpuTime = 0;      // summed durations
    EventRef example;        // the longest GPU event
};

struct PerfModelReport {
    std::string deviceName;                  // the trace's first GPU (deviceProperties)
    const GpuPeaks* peaks = nullptr;         // none: an unknown GPU, no % of peak
    std::vector<PerfModelRow> rows;          // by device time, descending
    std::vector<NotModelledRow> notModelled; // by GPU time, descending
    TimeNs gpuTime = 0;                      // all GPU work starting in the range, summed
    TimeNs modelledGpuTime = 0;              // the part of it under a modelled call
    std::uint64_t modelledCalls = 0;
    std::uint64_t unreadableCalls = 0; // modelled names whose shapes did not fit the op (left out)
    bool hasShapes = false;            // some operator carried "Input Dims"
    double coverage() const { return gpuTime ? double(modelledGpuTime) / double(gpuTime) : 0; }
};

// Operator calls that start in [from, to], and GPU work that starts there. A modelled call inside another
// that launched the same GPU work (aten::batch_norm around aten::cudnn_batch_norm) is the outer call's work
// and is not counted again.
PerfModelReport perfModel(const TraceStore& store, TimeNs from = INT64_MIN, TimeNs to = INT64_MAX);

const char* boundName(RooflineBound bound); // "compute", "memory", or nullptr

struct Recommendation;
// Advice when a large GEMM or attention runs far below its peak: the op, its shape, and the likely cause
// (FP32 without tensor cores, dimensions that are not multiples of 8 or 16, a tiny batch).
std::vector<Recommendation> perfModelRecommendations(const TraceStore& store, const PerfModelReport& report);

} // namespace kinetoscope
