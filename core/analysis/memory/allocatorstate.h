#pragma once

// The caching allocator's state at a chosen moment of a snapshot's trace: its segments and the blocks in
// them, replayed backwards from the segments the file holds (what they were at snapshot time), as
// memory_viz's allocator-state view does. Free space is what a segment holds outside its active blocks: the
// allocator merges neighbouring free blocks, so each gap is one free block. docs/DEFINITIONS.md, "Memory
// snapshots", defines the fragmentation figures.

#include "snapshot/memorysnapshot.h"

#include <cstdint>
#include <utility>
#include <vector>

namespace kinetoscope {

struct StateBlock {
    std::uint64_t address = 0;
    std::int64_t size = 0;
    bool pendingFree = false; // freed by the program, waiting for its stream's uses to finish
    std::uint32_t stack = 0;
};

struct StateSegment {
    std::uint64_t address = 0;
    std::int64_t size = 0;
    std::int64_t stream = 0;
    bool expandable = false; // a mapped range of an expandable segment
    // Its memory pool (segment_pool_id): (0, 0) the default one; a private pool of a CUDA graph's capture or
    // a MemPool otherwise. Known for the segments the file holds; one the replay brings back is (0, 0).
    std::pair<std::int64_t, std::int64_t> poolId{0, 0};
    std::vector<StateBlock> blocks; // by address
    std::int64_t activeBytes = 0;   // blocks, pending ones included
    std::int64_t pendingBytes = 0;
    std::int64_t largestFree = 0; // the largest gap between blocks
};

struct AllocatorState {
    std::int64_t afterEvent = -1;
    std::vector<StateSegment> segments; // by address
    std::int64_t reservedBytes = 0;
    std::int64_t activeBytes = 0; // allocated, pending frees included (the active-memory curve's figure)
    std::int64_t pendingBytes = 0;
    std::int64_t freeBytes = 0;   // the segments' bytes outside their blocks: reserved − active
    std::int64_t largestFree = 0; // the largest free block of any segment
    // Free memory is of two kinds. Whole segments that hold no block are cached: the allocator reuses them
    // for any request that fits, and empty_cache() gives them back to the driver. The gaps between the blocks
    // of segments in use are what users mean by fragmentation (Wedsonlin's training snapshot: 82 % of its
    // free memory is idle segments, which the earlier figure over every segment read as 98.6 %
    // fragmentation).
    std::int64_t cachedIdleBytes = 0; // segments without a block
    std::uint64_t cachedIdleSegments = 0;
    std::int64_t freeInUseBytes = 0; // gaps inside segments that hold a block: freeBytes − cachedIdleBytes
    std::int64_t largestFreeInUse = 0; // the largest of those gaps
    // 1 − largest free block / free bytes, inside segments in use: 0 when that free memory is one block, near
    // 1 when it is in crumbs no large request can use.
    double fragmentation = 0;
    std::uint64_t unplacedBlocks = 0; // blocks whose address lies in no segment (a trace that began late)
    std::int64_t unplacedBytes = 0;   // counted in activeBytes
};

// The state just after event `afterEvent` of `history` (-1: before the first).
AllocatorState allocatorStateAfter(const MemorySnapshot& snapshot, const DeviceHistory& history,
                                   std::int64_t afterEvent);

} // namespace kinetoscope
