#pragma once

#include "../model/tracestore.h"

#include <cstddef>

namespace kinetoscope {

// Kineto records allocator activity as `[memory]` instant events whose args carry the running totals
// ("Total Allocated", "Total Reserved") per device ("Device Type", "Device Id"). This turns them into counter
// tracks ("Memory allocated · GPU 0", "Memory reserved · GPU 0") so the timeline draws them as area charts.
// Args are decoded here, once, for the memory events only. Returns the number of tracks added (appended after
// the existing tracks, which keeps counters last in display order).
std::size_t addMemoryCounterTracks(TraceStore& store);

} // namespace kinetoscope
