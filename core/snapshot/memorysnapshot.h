#pragma once

// A CUDA caching-allocator snapshot (`torch.cuda.memory._dump_snapshot`), per device: the allocator's trace
// events with their stacks, the segments and blocks at snapshot time, the allocator settings and the external
// annotations. Frames and stacks are interned: a snapshot repeats the same stacks thousands of times.
// Immutable once built; the figures over it are in analysis/memory/snapshotreport.h.

#include "model/stringpool.h"

#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace kinetoscope {

enum class AllocatorAction : std::uint8_t {
    Alloc,
    FreeRequested,
    FreeCompleted,
    SegmentAlloc,
    SegmentFree,
    SegmentMap,
    SegmentUnmap,
    Snapshot,
    Oom,
    Other, // an action this reader does not know: kept, counted under its name
};
std::string_view allocatorActionName(AllocatorAction a);

enum class BlockState : std::uint8_t { ActiveAllocated, ActivePendingFree, Inactive, Other };

constexpr std::int64_t noTimeUs = std::numeric_limits<std::int64_t>::min();
// The largest size a snapshot's allocation, block or segment may have: 1 TiB (no GPU has more memory).
constexpr std::int64_t maxSnapshotBytes = std::int64_t(1) << 40;

struct SnapshotFrame {
    StringId name;
    StringId filename;
    std::int64_t line = 0;
    bool operator==(const SnapshotFrame&) const = default;
};

// One device's trace events, as columns in file order.
struct DeviceHistory {
    std::int64_t device = 0;
    std::vector<AllocatorAction> actions;
    std::vector<StringId> actionNames; // the action as written (for Other)
    std::vector<std::uint64_t> addrs;  // for an oom event, the bytes the device had free (its `device_free`)
    std::vector<std::int64_t> sizes;
    std::vector<std::int64_t> streams;
    std::vector<std::int64_t> timesUs; // noTimeUs where the file has none (older files)
    std::vector<std::uint32_t> stacks;
    std::size_t size() const { return actions.size(); }
    void reserve(std::size_t n) {
        actions.reserve(n);
        actionNames.reserve(n);
        addrs.reserve(n);
        sizes.reserve(n);
        streams.reserve(n);
        timesUs.reserve(n);
        stacks.reserve(n);
    }
    // Calls f(data, capacity in bytes) for each column.
    template <typename F> void forEachColumn(F f) const {
        auto each = [&](const auto& column) { f(column.data(), column.capacity() * sizeof(column[0])); };
        each(actions);
        each(actionNames);
        each(addrs);
        each(sizes);
        each(streams);
        each(timesUs);
        each(stacks);
    }
};

struct SnapshotBlock {
    std::uint64_t address = 0;
    std::int64_t size = 0;
    std::int64_t requestedSize = 0;
    BlockState state = BlockState::Other;
    StringId stateName;
    std::uint32_t stack = 0;
};

struct SnapshotSegment {
    std::int64_t device = 0;
    std::uint64_t address = 0;
    std::int64_t totalSize = 0;
    std::int64_t allocatedSize = 0;
    std::int64_t activeSize = 0;
    std::int64_t requestedSize = 0;
    std::int64_t stream = 0;
    StringId segmentType; // "large", "small"
    bool isExpandable = false;
    // segment_pool_id: (0, 0) the default pool; otherwise a private pool (a CUDA graph's, a MemPool's).
    std::pair<std::int64_t, std::int64_t> poolId{0, 0};
    bool privatePool() const { return poolId.first != 0 || poolId.second != 0; }
    std::uint32_t stack = 0;
    std::uint32_t firstBlock = 0; // blocks [firstBlock, firstBlock + blockCount) of MemorySnapshot::blocks
    std::uint32_t blockCount = 0;
};

struct ExternalAnnotation {
    std::int64_t device = 0;
    std::int64_t timeUs = noTimeUs;
    StringId stage; // "START", "END"
    StringId name;
};

struct SnapshotStats {
    std::uint64_t malformedEvents = 0;   // trace entries that are not dicts with an action
    std::uint64_t malformedSegments = 0; // segments or blocks missing what they need
    // Sizes below 0 or above maxSnapshotBytes, read as 0: no allocation is that large, and the sums over them
    // (the active-memory curve, the stacked bands) must not overflow.
    std::uint64_t sizesOutOfRange = 0;
};

class MemorySnapshot {
  public:
    StringPool strings;
    std::vector<SnapshotFrame> frames;
    // Stack s is frames[stackFrames[stackBegin[s]] ...], innermost first as in the file; stack 0 is empty.
    std::vector<std::uint32_t> stackBegin{0, 0};
    std::vector<std::uint32_t> stackFrames;
    std::vector<SnapshotSegment> segments;
    std::vector<SnapshotBlock> blocks;
    std::vector<DeviceHistory> devices; // devices with events or segments, by device number
    std::vector<std::pair<std::string, std::string>> allocatorSettings; // key, value as Python would print it
    std::vector<ExternalAnnotation> annotations;
    bool hasTrace = false; // false for the old bare list of segments
    SnapshotStats stats;
    std::string sourcePath;
    std::uint64_t fileBytes = 0;
    // Read only up to byte `readBytes` of the (inflated) pickle: a preview of a large file, or what a
    // truncated or damaged one held before its fault (SnapshotLoadResult::error says which). Its trace is
    // then the first events only, and the segments, the allocator's state at an end this read did not reach,
    // say nothing of what was alive before the trace (analysis/memory/snapshotreport.h).
    bool partial = false;
    std::uint64_t readBytes = 0;

    std::size_t stackCount() const { return stackBegin.size() - 1; }
    std::span<const std::uint32_t> stack(std::uint32_t s) const {
        return {stackFrames.data() + stackBegin[s], stackBegin[s + 1] - stackBegin[s]};
    }
    const DeviceHistory* device(std::int64_t d) const;
};

} // namespace kinetoscope
