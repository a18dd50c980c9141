#include "analysis/gpu/intervals.h"

#include <algorithm>
#include <queue>

namespace kinetoscope {

namespace {
void append(IntervalSet& out, TimeNs a, TimeNs b) {
    if (b <= a) return;
    if (!out.empty() && a <= out.back().second)
        out.back().second = std::max(out.back().second, b);
    else
        out.emplace_back(a, b);
}
} // namespace

IntervalSet unionOfRuns(const std::vector<IntervalSet>& runs) {
    std::size_t nonEmpty = 0;
    const IntervalSet* only = nullptr;
    for (const IntervalSet& r : runs)
        if (!r.empty()) {
            ++nonEmpty;
            only = &r;
        }
    if (nonEmpty == 1) { // one run (a stream with one lane, most often): no heap
        IntervalSet out;
        out.reserve(only->size());
        for (const auto& [a, b] : *only)
            append(out, a, b);
        return out;
    }
    using Head = std::pair<TimeNs, std::pair<std::size_t, std::size_t>>; // start, (run, index)
    std::priority_queue<Head, std::vector<Head>, std::greater<>> heap;
    for (std::size_t r = 0; r < runs.size(); ++r) {
        if (!runs[r].empty()) heap.push({runs[r][0].first, {r, 0}});
    }
    IntervalSet out;
    while (!heap.empty()) {
        const auto [start, pos] = heap.top();
        heap.pop();
        const auto& [a, b] = runs[pos.first][pos.second];
        append(out, a, b);
        if (pos.second + 1 < runs[pos.first].size())
            heap.push({runs[pos.first][pos.second + 1].first, {pos.first, pos.second + 1}});
    }
    return out;
}

IntervalSet unionOf(IntervalSet a, const IntervalSet& b) {
    IntervalSet out;
    out.reserve(a.size() + b.size());
    std::size_t i = 0, j = 0;
    while (i < a.size() || j < b.size()) {
        const bool takeA = j == b.size() || (i < a.size() && a[i].first <= b[j].first);
        const auto& iv = takeA ? a[i++] : b[j++];
        append(out, iv.first, iv.second);
    }
    return out;
}

IntervalSet subtract(const IntervalSet& a, const IntervalSet& b) {
    IntervalSet out;
    std::size_t j = 0;
    for (auto [s, e] : a) {
        while (j < b.size() && b[j].second <= s)
            ++j;
        std::size_t k = j;
        TimeNs cur = s;
        while (k < b.size() && b[k].first < e) {
            if (b[k].first > cur) out.emplace_back(cur, b[k].first);
            cur = std::max(cur, b[k].second);
            if (cur >= e) break;
            ++k;
        }
        if (cur < e) out.emplace_back(cur, e);
    }
    return out;
}

IntervalSet intersect(const IntervalSet& a, const IntervalSet& b) {
    IntervalSet out;
    std::size_t i = 0, j = 0;
    while (i < a.size() && j < b.size()) {
        const TimeNs s = std::max(a[i].first, b[j].first);
        const TimeNs e = std::min(a[i].second, b[j].second);
        if (s < e) out.emplace_back(s, e);
        if (a[i].second < b[j].second)
            ++i;
        else
            ++j;
    }
    return out;
}

TimeNs totalLength(const IntervalSet& s) {
    TimeNs total = 0;
    for (const auto& [a, b] : s)
        total += b - a;
    return total;
}

TimeNs lengthWithin(const IntervalSet& s, TimeNs from, TimeNs to) {
    auto it =
        std::lower_bound(s.begin(), s.end(), from, [](const auto& iv, TimeNs v) { return iv.second <= v; });
    TimeNs total = 0;
    for (; it != s.end() && it->first < to; ++it)
        total += std::min(it->second, to) - std::max(it->first, from);
    return total;
}

} // namespace kinetoscope
