#pragma once

// A query's rows pinned on the timeline as a lane of slices (Perfetto's debug tracks): what a result with
// `ts` and `dur` columns becomes.

#include "query/derivedtracks.h"
#include "sql/tracedatabase.h"

#include <optional>
#include <string>

namespace kinetoscope::sql {

// Each row with an integer `ts` and a `dur` of 0 or more (NULL: an instant) becomes a slice, laid out on as
// many lanes as its rows overlap. A row that names a slice (sliceIdColumn) takes that slice's name and
// colour, and a click on it selects that slice; otherwise its `name` column names it where the trace has the
// name. nullopt, with `why`, for a result without `ts` and `dur`, or without a row that has them.
std::optional<DerivedTrack> queryTrack(const TraceDatabase& db, const QueryResult& result, std::string title,
                                       std::string& why);

} // namespace kinetoscope::sql
