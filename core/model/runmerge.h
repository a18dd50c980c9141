#pragma once

#include <algorithm>
#include <cstddef>
#include <vector>

namespace kinetoscope {

// Sorts `v` by merging its ascending runs, pairwise, when it has at most `maxRuns` of them (data nearly in
// order, as most of a trace is: Kineto writes events nearly in time order) and returns true; leaves it alone
// otherwise.
template <typename T, typename Less> bool mergeFewRuns(std::vector<T>& v, Less less, std::size_t maxRuns) {
    std::vector<std::size_t> runs{0};
    for (std::size_t i = 1; i < v.size() && runs.size() <= maxRuns; ++i)
        if (less(v[i], v[i - 1])) runs.push_back(i);
    if (runs.size() > maxRuns) return false;
    runs.push_back(v.size());
    while (runs.size() > 2) {
        std::vector<std::size_t> merged;
        for (std::size_t i = 0; i + 1 < runs.size(); i += 2) {
            merged.push_back(runs[i]);
            if (i + 2 < runs.size())
                std::inplace_merge(v.begin() + std::ptrdiff_t(runs[i]),
                                   v.begin() + std::ptrdiff_t(runs[i + 1]),
                                   v.begin() + std::ptrdiff_t(runs[i + 2]), less);
            else
                merged.push_back(runs[i + 1]); // an odd run out waits for the next pass
        }
        if (runs.size() % 2 == 1) merged.push_back(runs.back());
        runs = std::move(merged);
    }
    return true;
}

} // namespace kinetoscope
