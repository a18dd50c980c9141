#pragma once

// The one lane assignment of slices on a track: a slice goes one lane below the innermost slice still open at
// its start (docs/DEFINITIONS.md, "Nesting: one rule"), and further down while that lane is taken. Used by
// the store build for every track and by the views that lay out a subset of a track's slices (a thread
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

struct NestingCounts {
    std::uint64_t overlapping = 0; // partially overlap their enclosing slice: placed a lane below
    std::uint64_t jitter = 0;      // overlapped a sibling by under nestingJitterTolerance: kept on its lane
};

// Lanes for `order.size()` slices visited in `order` (by start, the longer first at equal starts): returns
// the lane of each, indexed like `order`'s values. `startOf(row)` and `endOf(row)` give a slice's times;
// `onOverlap(row)` is called for each slice that partially overlaps its enclosing one.
template <typename StartOf, typename EndOf, typename OnOverlap>
std::vector<std::uint16_t> nestingLanes(const std::vector<std::uint32_t>& order, std::size_t rowCount,
                                        StartOf startOf, EndOf endOf, NestingCounts& counts,
                                        OnOverlap onOverlap) {
    std::vector<std::uint16_t> depth(rowCount);
    std::vector<TimeNs> laneEnd;
    struct Open {
        TimeNs end;
        std::uint16_t depth;
    };
    std::vector<Open> stack;
    for (const std::uint32_t r : order) {
        const TimeNs s = startOf(r);
        const TimeNs e = endOf(r);
        while (!stack.empty() && stack.back().end <= s)
            stack.pop_back();
        // A sibling that ends less than the tolerance into this slice, and before it ends, is clock jitter
        // (two timestamps from different clocks, rounding): it has ended, and this slice stays on its lane
        // (three ProfilerSteps are not drawn ever deeper).
        while (!stack.empty() && stack.back().end - s < nestingJitterTolerance && stack.back().end < e) {
            stack.pop_back();
            ++counts.jitter;
        }
        std::size_t d = 0;
        if (!stack.empty()) {
            d = std::size_t(stack.back().depth) + 1;
            if (stack.back().end < e) {
                ++counts.overlapping;
                onOverlap(r);
            }
        }
        // (A lane whose last slice ends within the tolerance is free: that slice was let go above.)
        while (d < laneEnd.size() && laneEnd[d] >= s + nestingJitterTolerance)
            ++d;
        if (d >= 0xffff) d = 0xfffe; // pathological nesting: pile onto the last lane
        if (d >= laneEnd.size()) laneEnd.resize(d + 1, std::numeric_limits<TimeNs>::min());
        laneEnd[d] = std::max(laneEnd[d], e);
        depth[r] = std::uint16_t(d);
        stack.push_back({e, std::uint16_t(d)});
    }
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
