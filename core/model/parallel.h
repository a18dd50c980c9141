#pragma once

// The one way core splits work over two cores (the loaders and builders; the machines we aim at have few).

#include <cstddef>
#include <exception>
#include <thread>
#include <utility>
#include <vector>

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
    // An exception on the other thread (out of memory) is carried back and thrown here, after the join: one
    // escaping a thread's function would end the process, a Python interpreter or the viewer with it.
    std::exception_ptr failed;
    {
        std::jthread other([&] {
            try {
                first();
            } catch (...) {
                failed = std::current_exception();
            }
        }); // joined on the way out, also if `second` throws
        second();
    }
    if (failed) std::rethrow_exception(failed);
}

// Runs `worker` on `threads` threads (this one among them) and returns when all have finished; the first
// exception any of them threw is thrown here once all have.
template <typename Worker> void runOnThreads(unsigned threads, const Worker& worker) {
    std::vector<std::exception_ptr> failed(threads > 1 ? threads - 1 : 0);
    {
        std::vector<std::jthread> pool;
        for (unsigned t = 1; t < threads; ++t)
            pool.emplace_back([&worker, &slot = failed[t - 1]] {
                try {
                    worker();
                } catch (...) {
                    slot = std::current_exception();
                }
            });
        worker();
    }
    for (const std::exception_ptr& e : failed)
        if (e) std::rethrow_exception(e);
}

} // namespace kinetoscope
