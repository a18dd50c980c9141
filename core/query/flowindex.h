#pragma once

#include "model/tracestore.h"

#include <cstdint>
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

} // namespace kinetoscope
