#pragma once

#include "model/timeconv.h"

#include <utility>
#include <vector>

namespace kinetoscope {

// Sorted, disjoint, half-open time intervals: the set algebra behind the step breakdown and GPU metrics.
using IntervalSet = std::vector<std::pair<TimeNs, TimeNs>>;

// Union of intervals given as runs each sorted by start (a lane's rows are such a run): a heap merge,
// O(n log runs) rather than a sort of everything.
IntervalSet unionOfRuns(const std::vector<IntervalSet>& runs);
IntervalSet unionOf(IntervalSet a, const IntervalSet& b);
IntervalSet subtract(const IntervalSet& a, const IntervalSet& b);
IntervalSet intersect(const IntervalSet& a, const IntervalSet& b);
TimeNs totalLength(const IntervalSet& s);
// Length of `s` inside [from, to).
TimeNs lengthWithin(const IntervalSet& s, TimeNs from, TimeNs to);

} // namespace kinetoscope
