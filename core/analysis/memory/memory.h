#pragma once

#include "model/tracestore.h"

#include <cstddef>
#include <map>
#include <optional>
#include <vector>

namespace kinetoscope {

struct MemoryPeak {
    double allocated = 0; // bytes
    double reserved = 0;
    EventRef at; // the [memory] event at the allocated peak
    bool relative =
        false; // allocated is the change since the trace's start (no "Total Allocated": PyTorch < 1.10)
    bool hasReserved = false; // the trace gives "Total Reserved"
};
// Peaks of "Total Allocated" / "Total Reserved" per device (GPU index; CPU is -1), from `[memory]` events;
// for traces that give only each event's "Bytes" (PyTorch < 1.10), of their running sum from the trace's
// start.
std::map<std::int64_t, MemoryPeak> memoryPeaks(const TraceStore& store, TimeNs from = INT64_MIN,
                                               TimeNs to = INT64_MAX);

// One allocation and, when the trace has it, its free (matched by device and address).
struct MemoryBlock {
    std::int64_t device = -1;
    std::uint64_t address = 0;
    double bytes = 0;
    TimeNs allocatedAt = 0;
    std::optional<TimeNs> freedAt;
    EventRef allocation;
    EventRef free;
    std::optional<std::uint32_t> operatorName; // StringId of the innermost op around the allocation
    bool paired =
        true; // false when the trace gives no address (PyTorch < 1.10): its free, if any, is unknown
};

struct MemoryOperatorRow {
    StringId name;
    std::uint64_t allocations = 0;
    double allocatedBytes = 0;   // sum of allocation sizes
    double sizeIncrease = 0;     // allocations minus frees inside the op (and its children)
    double selfSizeIncrease = 0; // allocations minus frees directly inside the op
    std::uint64_t calls = 0;     // occurrences that allocated or freed
};

struct MemoryAnalysis {
    std::map<std::int64_t, MemoryPeak> peaks;
    std::vector<MemoryBlock> blocks;     // by allocation time
    std::uint64_t unmatchedFrees = 0;    // frees of addresses never seen allocated
    std::uint64_t frees = 0;             // all frees in scope
    std::uint64_t unaddressedEvents = 0; // allocations and frees with no address (PyTorch < 1.10), not paired
    std::vector<MemoryOperatorRow> operators; // by allocated bytes, descending
    std::vector<EventRef> outOfMemory;        // `[OutOfMemory]` events
};
MemoryAnalysis analyzeMemory(const TraceStore& store, TimeNs from = INT64_MIN, TimeNs to = INT64_MAX);

} // namespace kinetoscope
