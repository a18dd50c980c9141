#pragma once

// Figures over a CUDA memory snapshot, per device (docs/DEFINITIONS.md, "Memory snapshots"): event counts,
// segments and their bytes, allocation lifetimes, the active-memory curve and its peak, what is alive at the
// peak or at a chosen time. `kinetoscope-cli memory` prints them; the snapshot views draw the same.

#include "snapshot/memorysnapshot.h"

#include <atomic>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kinetoscope {

// One allocation from its alloc to its free_completed. An allocation made before the trace began (freed in
// it, or still active in the segments) begins at -1; one never freed ends at the event count.
struct AllocationLifetime {
    std::int64_t begin = -1; // index of its alloc event, or -1
    std::int64_t end = 0;    // index of its free_completed event, or the number of events
    std::uint64_t addr = 0;
    std::int64_t size = 0;
    std::uint32_t stack =
        0; // the alloc's stack; the free's or the block's when the alloc is not in the trace
    bool aliveAfter(std::int64_t event) const { return begin <= event && event < end; }
};

// Stops early (an incomplete list, to be dropped) once `cancel` is set.
std::vector<AllocationLifetime> allocationLifetimes(const MemorySnapshot& snapshot,
                                                    const DeviceHistory& history,
                                                    const std::atomic<bool>* cancel = nullptr);

// Active bytes before the first event and after each: starts at allocated − Σ alloc + Σ free_completed, then
// + size at each alloc, − size at each free_completed. curve[0] is the start, curve[i + 1] after event i.
std::vector<std::int64_t> activeMemoryCurve(const MemorySnapshot& snapshot, const DeviceHistory& history);

struct LiveAllocations {
    std::int64_t afterEvent = -1; // the moment: after this event (-1: before the first)
    std::optional<std::int64_t> timeUs;
    std::int64_t activeBytes = 0;
    std::vector<AllocationLifetime> allocations; // largest first, at most the asked number
};

struct DeviceMemoryReport {
    std::int64_t device = 0;
    std::vector<std::pair<std::string, std::uint64_t>>
        events; // by action: the known ones in order, then others
    std::uint64_t segments = 0;
    std::int64_t reservedBytes = 0;  // Σ segments' total_size
    std::int64_t allocatedBytes = 0; // Σ blocks in state active_allocated
    // False when the snapshot holds no allocator event for the device (dumped without
    // _record_memory_history, as vLLM's are, or the old bare list of segments): the only moment known is the
    // snapshot's own, and the peak figures below are that moment's (what was allocated then, by size).
    bool historyRecorded = false;
    std::optional<std::int64_t> peakActiveBytes;
    std::optional<LiveAllocations> peak; // the first moment the curve reaches its maximum
    std::optional<LiveAllocations> liveAt;
};

struct SnapshotReport {
    std::vector<DeviceMemoryReport> devices;
};

struct SnapshotReportOptions {
    std::size_t top = 10;
    std::optional<std::int64_t> atTimeUs; // also what is alive at this time (epoch µs, as the file's time_us)
};

// Allocations grouped by where they were made: the first `depth` Python frames of their stacks (all frames
// where a stack has none), largest total first. Answers "who holds the memory".
struct StackGroup {
    std::vector<std::uint32_t> frames; // the key, innermost first
    std::uint32_t exampleStack = 0;    // the whole stack of the group's largest allocation
    std::uint64_t count = 0;
    std::int64_t bytes = 0;
    std::int64_t largest = 0;
};
std::vector<StackGroup> groupByStack(const MemorySnapshot& snapshot,
                                     const std::vector<const AllocationLifetime*>& allocations,
                                     std::size_t depth = 3);
// The innermost Python frame as "name (file:line)", or the innermost frame's name without one.
std::string allocationSite(const MemorySnapshot& snapshot, std::uint32_t stack);

// The external annotations (record_function ranges the snapshot recorded) open on a device at a time (epoch
// µs), outermost first: each START at or before it whose END comes after it.
std::vector<std::string_view> openAnnotations(const MemorySnapshot& snapshot, std::int64_t device,
                                              std::int64_t timeUs);

SnapshotReport snapshotReport(const MemorySnapshot& snapshot, const SnapshotReportOptions& options = {});

} // namespace kinetoscope
