#pragma once

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

namespace kinetoscope {

// Sorts `v` by `less`, whose first criterion must be the unsigned 64-bit `key(element)`. An LSD radix sort on
// the 11-bit digits of the key that vary between elements (ids and packed event refs vary in few of them: two
// or three passes), then each run of equal keys is sorted by `less`. Several times faster than std::sort on
// the importer's large tables; small ones take std::sort.
template <typename T, typename Key, typename Less> void radixSort(std::vector<T>& v, Key key, Less less) {
    if (v.size() < 4096) {
        std::sort(v.begin(), v.end(), less);
        return;
    }
    std::uint64_t anySet = 0, allSet = ~std::uint64_t(0);
    for (const T& e : v) {
        const std::uint64_t k = key(e);
        anySet |= k, allSet &= k;
    }
    const std::uint64_t varying = anySet ^ allSet;
    constexpr int digitBits = 11;
    constexpr std::uint64_t digitMask = (std::uint64_t(1) << digitBits) - 1;
    std::vector<T> other(v.size());
    std::vector<std::size_t> start(std::size_t(1) << digitBits);
    for (int shift = 0; shift < 64; shift += digitBits) {
        if (((varying >> shift) & digitMask) == 0) continue; // every key has the same digit here
        std::fill(start.begin(), start.end(), 0);
        for (const T& e : v)
            ++start[(key(e) >> shift) & digitMask];
        std::size_t sum = 0;
        for (std::size_t& n : start)
            sum += std::exchange(n, sum);
        for (const T& e : v)
            other[start[(key(e) >> shift) & digitMask]++] = e;
        v.swap(other);
    }
    for (std::size_t i = 0; i < v.size();) {
        std::size_t j = i + 1;
        const std::uint64_t k = key(v[i]);
        while (j < v.size() && key(v[j]) == k)
            ++j;
        if (j - i > 1) std::sort(v.begin() + std::ptrdiff_t(i), v.begin() + std::ptrdiff_t(j), less);
        i = j;
    }
}

} // namespace kinetoscope
