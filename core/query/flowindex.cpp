#include "flowindex.h"

#include <algorithm>
#include <bit>

namespace kinetoscope {

FlowIndex::FlowIndex(const TraceStore& store) {
    for (std::uint32_t i = 0; i < store.flows().size(); ++i) {
        const Flow& f = store.flows()[i];
        TimeNs a = arrowStart(store, f);
        TimeNs b = arrowEnd(store, f);
        if (b < a) std::swap(a, b);
        const std::uint64_t length = std::uint64_t(b - a);
        const std::size_t bucket = length == 0 ? 0 : (std::bit_width(length) + 1) / 2; // powers of four
        if (m_buckets.size() <= bucket) m_buckets.resize(bucket + 1);
        m_buckets[bucket].entries.push_back({a, b, i});
        m_buckets[bucket].maxLength = std::max<TimeNs>(m_buckets[bucket].maxLength, b - a);
    }
    for (Bucket& b : m_buckets) {
        std::sort(b.entries.begin(), b.entries.end(),
                  [](const Entry& x, const Entry& y) { return x.lo < y.lo; });
    }
    std::erase_if(m_buckets, [](const Bucket& b) { return b.entries.empty(); });
}

} // namespace kinetoscope
