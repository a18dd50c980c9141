#pragma once

#include "model/tracestore.h"

#include <vector>

namespace kinetoscope {

// The slices of a track that enclose `row`, outermost first: exactly those on its thread at that time, by the
// one nesting rule of docs/DEFINITIONS.md (P encloses E when P.start <= E.start < P.end and E.end <= P.end;
// of two with the same start and duration, the one on the shallower lane). A slice that only overlaps `row`
// does not enclose it, whichever lane the layout gave either of them; the search costs one binary search per
// lane.
std::vector<std::uint32_t> enclosingRows(const Track& track, std::uint32_t row);

} // namespace kinetoscope
