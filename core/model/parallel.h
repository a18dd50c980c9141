#pragma once

// The one way core splits work over two cores (the loaders and builders; the machines we aim at have few).

#include <cstddef>
#include <thread>
#include <utility>

namespace kinetoscope {

// From this many events, slices or rows on, splitting a step over two cores pays for starting a thread; below
// it (most files, and every fuzz input) the step's parts run in turn.
inline constexpr std::size_t parallelThreshold = std::size_t(1) << 16;
// Sorting two halves and merging them pays only for much longer runs.
inline constexpr std::size_t parallelSortThreshold = std::size_t(1) << 20;

// Runs `first` on a thread of its own and `second` on this one when `parallel`, otherwise `first` then
// `second`; returns once both are done. The two must not depend on each other.
template <typename First, typename Second>
void parallelInvoke(bool parallel, First&& first, Second&& second) {
    if (!parallel) {
        first();
        second();
        return;
    }
    std::jthread other(std::forward<First>(first)); // joined on the way out, also if `second` throws
    second();
}

} // namespace kinetoscope
