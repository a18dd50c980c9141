#pragma once

#include "model/tracestore.h"

#include <string>
#include <vector>

namespace kinetoscope {

// What Perfetto's area selection shows: the slices of some tracks that intersect a time range, grouped by
// name. Durations are clipped to the range, so the totals add up to time spent inside the selection; self
// time is the clipped duration minus the clipped durations of direct children.
struct AreaSummaryRow {
    StringId name;
    std::uint64_t count = 0;
    TimeNs total = 0;
    TimeNs self = 0;
    TimeNs maxDuration = 0; // unclipped, the longest single slice
};

struct AreaSummary {
    std::vector<AreaSummaryRow> rows; // by total descending
    std::uint64_t sliceCount = 0;
    TimeNs from = 0;
    TimeNs to = 0;
};

AreaSummary summarizeArea(const TraceStore& store, const std::vector<TrackId>& tracks, TimeNs from,
                          TimeNs to);

} // namespace kinetoscope
