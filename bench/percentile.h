#pragma once
// The benchmarks' percentile of timings: the value at rank p·(n−1), rounded to the nearest (0 when empty).

#include <algorithm>
#include <cstddef>
#include <vector>

namespace kinetoscope::bench {

inline double percentile(std::vector<double> v, double p) {
    if (v.empty()) return 0;
    std::sort(v.begin(), v.end());
    return v[std::min(v.size() - 1, std::size_t(p * double(v.size() - 1) + 0.5))];
}

} // namespace kinetoscope::bench
