#pragma once

#include "model/tracestore.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <vector>

namespace kinetoscope {

// Finds the flows whose arrow crosses a time window without scanning them all. An arrow runs from the end of
// its source to the start of its target; arrows are bucketed by length (powers of four), each bucket sorted
// by its earlier end, so a window query is one binary search per bucket plus the answers.
class FlowIndex {
  public:
    FlowIndex() = default;
    explicit FlowIndex(const TraceStore& store);

    // Calls `visit(flowIndex)` for every flow whose arrow intersects [from, to]; stops early when it returns
    // false.
    template <typename Visit> void forEachInRange(TimeNs from, TimeNs to, Visit&& visit) const;
    // Returns how many flows intersect [from, to] and calls `visit(flowIndex)` for every `stride`-th of them
    // (in the index's order) without walking the rest: a zoomed-out view's arrows are hundreds of thousands,
    // of which the timeline draws a sample.
    template <typename Visit>
    std::size_t sampleInRange(TimeNs from, TimeNs to, std::size_t stride, Visit&& visit) const;
    // How many flows intersect [from, to] (what forEachInRange would visit): binary searches, and a look at
    // those that start before the window only.
    std::size_t countInRange(TimeNs from, TimeNs to) const {
        return sampleInRange(from, to, std::numeric_limits<std::size_t>::max(), [](std::uint32_t) {});
    }

    static TimeNs arrowStart(const TraceStore& store, const Flow& f) {
        const Track& t = store.track(f.source.track);
        return t.endOf(f.source.index.value);
    }
    static TimeNs arrowEnd(const TraceStore& store, const Flow& f) {
        return store.track(f.target.track).starts[f.target.index.value];
    }

  private:
    struct Entry {
        TimeNs lo;
        TimeNs hi;
        std::uint32_t flow;
    };
    struct Bucket {
        TimeNs maxLength = 0;
        std::vector<Entry> entries; // sorted by lo
    };
    std::vector<Bucket> m_buckets;
};

template <typename Visit> void FlowIndex::forEachInRange(TimeNs from, TimeNs to, Visit&& visit) const {
    for (const Bucket& b : m_buckets) {
        auto it = std::lower_bound(b.entries.begin(), b.entries.end(), from - b.maxLength,
                                   [](const Entry& e, TimeNs v) { return e.lo < v; });
        for (; it != b.entries.end() && it->lo <= to; ++it) {
            if (it->hi < from) continue;
            if (!visit(it->flow)) return;
        }
    }
}

template <typename Visit>
std::size_t FlowIndex::sampleInRange(TimeNs from, TimeNs to, std::size_t stride, Visit&& visit) const {
    stride = std::max<std::size_t>(stride, 1);
    std::size_t count = 0, untilNext = 0; // untilNext: in-range flows to pass before the next visit
    const auto byLo = [](const Entry& e, TimeNs v) { return e.lo < v; };
    for (const Bucket& b : m_buckets) {
        const auto first = std::lower_bound(b.entries.begin(), b.entries.end(), from - b.maxLength, byLo);
        const auto starting = std::lower_bound(first, b.entries.end(), from, byLo);
        const auto last = std::upper_bound(starting, b.entries.end(), to,
                                           [](TimeNs v, const Entry& e) { return v < e.lo; });
        // Those that start before the view cross it only when they end in it or after.
        for (auto it = first; it != starting; ++it) {
            if (it->hi < from) continue;
            ++count;
            if (untilNext == 0) {
                visit(it->flow);
                untilNext = stride;
            }
            --untilNext;
        }
        // Those that start in it all cross it: counted at once, visited by stride.
        const auto n = std::size_t(last - starting);
        count += n;
        // (Stepping by what is left before the end, so that a stride near SIZE_MAX cannot wrap around.)
        if (untilNext >= n) {
            untilNext -= n;
            continue;
        }
        std::size_t i = untilNext;
        while (true) {
            visit(starting[std::ptrdiff_t(i)].flow);
            if (n - i <= stride) {
                untilNext = stride - (n - i);
                break;
            }
            i += stride;
        }
    }
    return count;
}

} // namespace kinetoscope
