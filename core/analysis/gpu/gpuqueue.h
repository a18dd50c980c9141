#pragma once

// The launch queue of each GPU stream, as HTA defines it (docs/DEFINITIONS.md, "GPU idle time and launches"):
// how many operations were launched and have not started yet, over time, and the time the queue spent full.

#include "model/tracestore.h"
#include "query/derivedtracks.h"

#include <vector>

namespace kinetoscope {

// CUDA blocks a launch once a stream holds this many (HTA's CUDA_MAX_LAUNCH_QUEUE_PER_STREAM).
inline constexpr int queueFullLength = 1024;

struct StreamQueue {
    std::int64_t device = 0;
    std::int64_t stream = 0;
    StepSeries length; // +1 at each launch call's start, -1 at its GPU event's start; 0 before the first
    std::uint64_t launches = 0;
    std::int64_t maxLength = 0;
    double meanLength = 0; // time-weighted, from the first change to the last
    TimeNs fullTime = 0;   // with queueFullLength or more waiting
    TimeNs emptyTime = 0;  // with nothing waiting
    TimeNs first = 0;      // the first change
    TimeNs span = 0;       // from the first change to the last
};

// Per GPU stream that received launches (by device, then stream). A launch is a launch call
// (analysis/gpu/gpuidle.h, isLaunchCall) joined to its GPU event; GPU events without one are not counted.
std::vector<StreamQueue> gpuQueues(const TraceStore& store);

// The timeline's lanes: "Launch queue · stream N" at the top of each GPU's group, the peak per pixel column;
// for a stream whose queue ever held queueFullLength, also "Launch queue full · stream N", the share of each
// pixel column's time it was full.
DerivedTracks gpuQueueTracks(const TraceStore& store);

} // namespace kinetoscope
