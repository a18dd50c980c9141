#pragma once

#include "model/tracestore.h"

#include <string>
#include <vector>

namespace kinetoscope {

// What Perfetto's area selection shows: the slices of some tracks that intersect a time range, grouped by
// name. Durations are clipped to the range, so the totals add up to time spent inside the selection; self
// time is the clipped duration minus the clipped durations of direct children (query/selftime.h: one
// definition of self time everywhere). What a row stands for: one slice name (Perfetto's default), one
// category (`cat`), or one track.
enum class AreaGrouping { Name, Category, Track };

struct AreaSummaryRow {
    StringId name; // the slice name, or the category's name (invalid when grouped by track)
    TrackId track; // when grouped by track
    std::uint64_t count = 0;
    TimeNs total = 0;
    TimeNs self = 0;
    TimeNs maxDuration = 0; // unclipped, the longest single slice
};

struct AreaSummary {
    AreaGrouping grouping = AreaGrouping::Name;
    std::vector<AreaSummaryRow> rows; // by total descending
    std::uint64_t sliceCount = 0;
    TimeNs from = 0;
    TimeNs to = 0;
};

AreaSummary summarizeArea(const TraceStore& store, const std::vector<TrackId>& tracks, TimeNs from, TimeNs to,
                          AreaGrouping grouping = AreaGrouping::Name);

} // namespace kinetoscope
