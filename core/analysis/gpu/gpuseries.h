#pragma once

// The GPU's activity over time, for the timeline's derived counter lanes: the same definitions as the
// overview's GPU utilisation and est. SM efficiency (docs/DEFINITIONS.md), as step functions, so that a
// lane's mean over any time bucket is that bucket's figure.

#include "model/tracestore.h"
#include "query/derivedtracks.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace kinetoscope {

struct GpuActivitySeries {
    std::int64_t device = 0;
    // 1 while any kernel runs on the device, else 0; from the trace's start to its end.
    StepSeries utilization;
    // min(Σ blocks per SM of the kernels running, 1); empty when no kernel of the device has grid data.
    StepSeries smEfficiency;
};

// One entry per device that ran kernels, by device id.
std::vector<GpuActivitySeries> gpuActivitySeries(const TraceStore& store);

// The timeline's lanes for them: "GPU utilisation" and "est. SM efficiency", at the top of each GPU's group.
DerivedTracks gpuActivityTracks(const TraceStore& store);

// The bandwidth of each kind of copy a device ran ("Memcpy HtoD", "Memcpy DtoD", ..., "Memset"): each copy
// moves its `bytes` evenly over its duration, and concurrent copies of a kind add up. A lane's mean over a
// time bucket is the bytes moved in it over its length.
struct GpuBandwidthSeries {
    std::int64_t device = 0;
    std::string kind;
    StepSeries bytesPerSecond; // from the trace's start to its end
    double bytes = 0;          // in all
};
// The kind of a copy or memset event from its name: "Memcpy HtoD (Pinned -> Device)" -> "Memcpy HtoD".
std::string copyKind(std::string_view name, CategoryKind kind);
// By device, then kind; copies without a `bytes` argument are left out.
std::vector<GpuBandwidthSeries> gpuBandwidthSeries(const TraceStore& store);
// The timeline's lanes: "<kind> bandwidth" in each GPU's group.
DerivedTracks gpuBandwidthTracks(const TraceStore& store);

} // namespace kinetoscope
