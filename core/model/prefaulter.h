#pragma once

// Pays for first touching large tables on the other core. Writing a fresh page costs a page fault and the
// kernel's zeroing of it; opening a 1 GB snapshot writes about a gigabyte of tables, and in a VM those faults
// cost more than the reading itself. A Prefaulter populates the watched tables from another thread (madvise
// MADV_POPULATE_WRITE, which leaves their contents as they are), just ahead of their writer, so the writer
// mostly finds its pages ready. Only a speed-up: off Linux, before Linux 5.14, or for small tables nothing
// happens and the writer faults as before.

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <thread>
#include <vector>

namespace kinetoscope {

class Prefaulter {
  public:
    // Tables below this size are not watched: a thread costs more than their faults.
    static constexpr std::size_t minimumBytes = std::size_t(16) << 20;
    // How far ahead of its writer a followed table is populated: a bound on memory populated and not written.
    static constexpr std::size_t aheadBytes = std::size_t(32) << 20;

    Prefaulter() = default;
    ~Prefaulter() { stop(); }
    Prefaulter(const Prefaulter&) = delete;
    Prefaulter& operator=(const Prefaulter&) = delete;

    // Watches [data, data + bytes) before start(); returns its slot for written(), or -1 when not watched. A
    // table that will be filled (a vector reserved to its final size, written front to back) is populated
    // whole; one that is only reserved for the most it could hold is `followed`: populated no further than
    // aheadBytes past what written() last said.
    int watch(const void* data, std::size_t bytes, bool followed = false);
    // Starts the thread if any table is watched.
    void start();
    // How many bytes of followed table `slot` its writer has written: cheap, call it now and then.
    void written(int slot, std::size_t bytes) {
        if (slot >= 0) m_tables[std::size_t(slot)].written.store(bytes, std::memory_order_relaxed);
    }
    // Stops populating (what is populated stays); also on destruction.
    void stop();

  private:
    void run();
    struct Table {
        std::uintptr_t begin = 0;
        std::uintptr_t end = 0;
        bool followed = false;
        std::atomic<std::size_t> written{0};
        std::size_t populated = 0; // the thread's own
        Table() = default;
        Table(const Table& o) : begin(o.begin), end(o.end), followed(o.followed), populated(o.populated) {}
    };
    std::vector<Table> m_tables;
    std::atomic<bool> m_stop{false};
    std::thread m_thread;
};

} // namespace kinetoscope
