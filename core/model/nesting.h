#pragma once

// The one lane assignment of slices on a track: a slice goes one lane below the innermost slice still open at
// its start (docs/DEFINITIONS.md, "Nesting: one rule"), and further down while that lane is taken; a slice
// that overlaps its enclosing one goes, with what it encloses, to overflow lanes after the regular ones. Used
// by the store build for every track and by the views that lay out a subset of a track's slices (a thread
// without its Python frames).

#include "timeconv.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <vector>

namespace kinetoscope {

// Overlaps between siblings shorter than this are clock jitter, not concurrency: the later slice stays on the
// earlier one's lane instead of starting a staircase of lanes. Durations are never changed.
constexpr TimeNs nestingJitterTolerance = 1000;
// The sibling overlap a track's lanes allow: the tolerance above, plus its slack (Track::nestingSlack).
inline TimeNs laneOverlapTolerance(TimeNs slack) {
    return nestingJitterTolerance + slack;
}
// Whether a slice [start, end) that starts inside one ending at `outerEnd` ends within it (the nesting rule
// of docs/DEFINITIONS.md): also by up to `slack` (Track::nestingSlack) past that end when it starts at least
// the lane tolerance before it; a later start is a sibling overlapping by rounding, as the lanes place it.
inline bool endsWithin(TimeNs outerEnd, TimeNs start, TimeNs end, TimeNs slack) {
    return end <= outerEnd ||
           (slack > 0 && end <= outerEnd + slack && outerEnd - start >= laneOverlapTolerance(slack));
}

struct NestingCounts {
    std::uint64_t overlapping = 0;  // partially overlap their enclosing slice: moved to the overflow lanes
    std::uint64_t jitter = 0;       // overlapped a sibling by under nestingJitterTolerance: kept on its lane
    std::uint32_t overflowLane = 0; // the first overflow lane of the last call; 0 when it had none
};

namespace nesting_detail {

struct Open {
    TimeNs end;
    std::uint32_t row;
    std::uint16_t depth;
};

// One pass of the rule over the rows of `order` that `keep` accepts, lanes numbered from `firstLane`; writes
// `depth` and returns the number of lanes used. `onPlaced(row, parent, overlapsParent)` sees each row with
// the innermost slice still open at its start (nullptr for none).
template <typename Keep, typename StartOf, typename EndOf, typename OnPlaced>
std::uint32_t placeLanes(const std::vector<std::uint32_t>& order, Keep keep, StartOf startOf, EndOf endOf,
                         std::uint32_t firstLane, std::vector<std::uint16_t>& depth, std::uint64_t& jitter,
                         TimeNs slack, OnPlaced onPlaced) {
    const TimeNs tolerance = laneOverlapTolerance(slack);
    std::vector<TimeNs> laneEnd;
    std::vector<Open> stack;
    for (const std::uint32_t r : order) {
        if (!keep(r)) continue;
        const TimeNs s = startOf(r);
        const TimeNs e = endOf(r);
        while (!stack.empty() && stack.back().end <= s)
            stack.pop_back();
        // A sibling that ends less than the tolerance into this slice, and before it ends, is clock jitter
        // (two timestamps from different clocks, rounding): it has ended, and this slice stays on its lane
        // (three ProfilerSteps are not drawn ever deeper).
        while (!stack.empty() && stack.back().end - s < tolerance && stack.back().end < e) {
            stack.pop_back();
            ++jitter;
        }
        std::size_t d = 0;
        const Open* parent = stack.empty() ? nullptr : &stack.back();
        if (parent) d = std::size_t(parent->depth) + 1;
        onPlaced(r, parent, parent && !endsWithin(parent->end, s, e, slack));
        // (A lane whose last slice ends within the tolerance is free: that slice was let go above. But not
        // for a slice that ends before it: lying inside that slice, it would break the lane's order by end,
        // which one binary search relies on. A slice let go as jitter, then a short one inside it, after its
        // sibling has ended: a fuzzed trace, ../shared/fuzz/import-invariant-1.json.gz.)
        while (d < laneEnd.size() && (laneEnd[d] >= s + tolerance || laneEnd[d] > e))
            ++d;
        if (d + firstLane >= 0xffff) d = 0xfffe - firstLane; // pathological nesting: pile onto the last lane
        if (d >= laneEnd.size()) laneEnd.resize(d + 1, std::numeric_limits<TimeNs>::min());
        laneEnd[d] = std::max(laneEnd[d], e);
        depth[r] = std::uint16_t(d + firstLane);
        stack.push_back({e, r, std::uint16_t(d)});
    }
    return std::uint32_t(laneEnd.size());
}

} // namespace nesting_detail

// Lanes for `order.size()` slices visited in `order` (by start, the longer first at equal starts): returns
// the lane of each, indexed like `order`'s values. `startOf(row)` and `endOf(row)` give a slice's times;
// `onOverlap(row)` is called for each slice that partially overlaps its enclosing one.
//
// A slice that partially overlaps its enclosing one (by 1 µs or more) cannot nest. It and every slice nested
// in it go to overflow lanes after the track's regular ones, laid out by the same rule among themselves, as
// Perfetto does: the regular lanes stay a clean call tree, and no slice is hidden or shortened.
//
// `slack` is the track's Track::nestingSlack: a child ending up to that late still nests, and siblings may
// overlap by the jitter tolerance plus it (whole-microsecond times round both ways).
template <typename StartOf, typename EndOf, typename OnOverlap>
std::vector<std::uint16_t> nestingLanes(const std::vector<std::uint32_t>& order, std::size_t rowCount,
                                        StartOf startOf, EndOf endOf, NestingCounts& counts,
                                        OnOverlap onOverlap, TimeNs slack = 0) {
    using nesting_detail::placeLanes;
    std::vector<std::uint16_t> depth(rowCount);
    std::vector<std::uint8_t> overflow; // sized at the first overlap: 1 for a row of the overflow lanes
    auto all = [](std::uint32_t) { return true; };
    placeLanes(order, all, startOf, endOf, 0, depth, counts.jitter, slack,
               [&](std::uint32_t r, const nesting_detail::Open* parent, bool overlapsParent) {
                   if (overlapsParent) {
                       ++counts.overlapping;
                       onOverlap(r);
                   }
                   if (overlapsParent || (parent && !overflow.empty() && overflow[parent->row])) {
                       if (overflow.empty()) overflow.resize(rowCount);
                       overflow[r] = 1;
                   }
               });
    counts.overflowLane = 0;
    if (overflow.empty()) return depth;
    std::uint64_t ignored = 0;
    auto none = [](std::uint32_t, const nesting_detail::Open*, bool) {};
    const std::uint32_t regular = placeLanes(
        order, [&](std::uint32_t r) { return !overflow[r]; }, startOf, endOf, 0, depth, ignored, slack, none);
    placeLanes(
        order, [&](std::uint32_t r) { return overflow[r] != 0; }, startOf, endOf, regular, depth, ignored,
        slack, none);
    counts.overflowLane = regular;
    return depth;
}

// The first row of each lane (and one past the last) for `depth` per row, and the rows ordered by lane,
// keeping `order` within a lane: a stable counting sort.
inline std::vector<std::uint32_t> rowsByLane(const std::vector<std::uint32_t>& order,
                                             const std::vector<std::uint16_t>& depth,
                                             std::vector<std::uint32_t>& laneBegin) {
    std::uint32_t lanes = 0;
    for (std::uint32_t r : order)
        lanes = std::max<std::uint32_t>(lanes, depth[r] + 1u);
    laneBegin.assign(lanes + 1, 0);
    for (std::uint32_t r : order)
        ++laneBegin[depth[r] + 1];
    for (std::size_t d = 1; d < laneBegin.size(); ++d)
        laneBegin[d] += laneBegin[d - 1];
    std::vector<std::uint32_t> cursor(laneBegin.begin(), laneBegin.end() - 1);
    std::vector<std::uint32_t> byLane(order.size());
    for (std::uint32_t r : order)
        byLane[cursor[depth[r]]++] = r;
    return byLane;
}

} // namespace kinetoscope
