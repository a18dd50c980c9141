#include "prefaulter.h"

#ifdef __linux__
#include <sys/mman.h>
#endif

#include <algorithm>
#include <chrono>

namespace kinetoscope {

namespace {
constexpr std::uintptr_t hugePage = std::uintptr_t(2) << 20;
// Each table is populated a step at a time, in turn: small enough that the tables a writer fills side by side
// advance together, large enough for huge pages.
constexpr std::size_t stepBytes = std::size_t(4) << 20;
} // namespace

int Prefaulter::watch(const void* data, std::size_t bytes, bool followed) {
#if defined(__linux__) && defined(MADV_POPULATE_WRITE)
    if (bytes < minimumBytes || m_thread.joinable()) return -1;
    Table t;
    // Whole huge pages inside the table only: its edges may share pages with other allocations.
    const auto begin = reinterpret_cast<std::uintptr_t>(data);
    t.begin = (begin + hugePage - 1) & ~(hugePage - 1);
    t.end = (begin + bytes) & ~(hugePage - 1);
    t.followed = followed;
    if (t.end <= t.begin) return -1;
    m_tables.push_back(t);
    return int(m_tables.size() - 1);
#else
    (void)data;
    (void)bytes;
    (void)followed;
    return -1;
#endif
}

void Prefaulter::start() {
    if (!m_tables.empty() && !m_thread.joinable()) m_thread = std::thread([this] { run(); });
}

void Prefaulter::stop() {
    m_stop.store(true, std::memory_order_relaxed);
    if (m_thread.joinable()) m_thread.join();
}

void Prefaulter::run() {
#if defined(__linux__) && defined(MADV_POPULATE_WRITE)
    while (!m_stop.load(std::memory_order_relaxed)) {
        bool worked = false, left = false;
        for (Table& t : m_tables) {
            const std::size_t size = t.end - t.begin;
            // (Whole huge pages: the next step must start on a page boundary.)
            const std::size_t ahead =
                (t.written.load(std::memory_order_relaxed) + aheadBytes + hugePage - 1) &
                ~std::size_t(hugePage - 1);
            const std::size_t target = t.followed ? std::min(size, ahead) : size;
            left = left || t.populated < size;
            if (t.populated >= target) continue;
            const std::size_t length = std::min(stepBytes, target - t.populated);
            // A failure (no memory, an old kernel) only means the writer faults its pages itself.
            if (madvise(reinterpret_cast<void*>(t.begin + t.populated), length, MADV_POPULATE_WRITE) != 0) {
                t.populated = size;
                continue;
            }
            t.populated += length;
            worked = true;
        }
        if (!left) return;
        if (!worked) std::this_thread::sleep_for(std::chrono::microseconds(200));
    }
#endif
}

} // namespace kinetoscope
