#pragma once

// Allocator activity: Kineto records it as `[memory]` instant events whose args carry the running totals
// ("Total Allocated", "Total Reserved") per device ("Device Type", "Device Id"). The store build turns them
// into counter tracks ("Memory allocated · GPU 0", "Memory reserved · GPU 0"), so the timeline draws them as
// area charts and every program sees the same store; the memory analyses read the same series.

#include "model/tracestore.h"

#include <cstdint>
#include <map>
#include <optional>
#include <tuple>
#include <vector>

namespace kinetoscope {

struct AllocatedSample {
    TimeNs t;
    double allocated;
    std::optional<double> reserved;
    EventRef ref; // the [memory] event
};
struct AllocatedSeries {
    std::vector<AllocatedSample> samples; // in time order
    bool relative = false; // running sum of "Bytes" from the trace's start: no "Total Allocated"
};

// The allocated (and reserved) memory over time per (pid, device type, device id), from `[memory]` events.
// Kineto writes running totals; PyTorch before 1.10 wrote only each event's "Bytes" (positive for an
// allocation, negative for a free), from which the total is a running sum that starts at 0 at the trace's
// start: the memory held before the profiler started is not in the trace. Args are read here, for the memory
// events only.
std::map<std::tuple<std::int64_t, std::int64_t, std::int64_t>, AllocatedSeries>
allocatedSeries(const TraceStore& store);
// The same, over a store still being built.
std::map<std::tuple<std::int64_t, std::int64_t, std::int64_t>, AllocatedSeries>
allocatedSeries(const TraceStoreParts& store);

// The store build's last step: appends a counter track per series (and one for reserved memory when the trace
// has it), after every other track, which keeps counters last in display order. Returns how many it added.
std::size_t appendMemoryCounterTracks(TraceStoreParts& store);

} // namespace kinetoscope
