#include "analysis/memory/allocatorstate.h"

#include <algorithm>
#include <iterator>
#include <map>
#include <unordered_map>

namespace kinetoscope {

namespace {

struct Range {
    std::int64_t size = 0;
    std::int64_t stream = 0;
    bool expandable = false;
    std::pair<std::int64_t, std::int64_t> poolId{0, 0};
};
using Ranges = std::map<std::uint64_t, Range>; // by address

// Removes [addr, addr + size) from the ranges, splitting one that holds it (an expandable segment's mapping
// undone).
void removeRange(Ranges& ranges, std::uint64_t addr, std::int64_t size) {
    auto it = ranges.upper_bound(addr);
    if (it == ranges.begin()) return;
    --it;
    const std::uint64_t start = it->first;
    const Range r = it->second;
    const std::uint64_t end = start + std::uint64_t(r.size);
    if (addr >= end) return;
    ranges.erase(it);
    if (addr > start) ranges[start] = {std::int64_t(addr - start), r.stream, r.expandable, r.poolId};
    const std::uint64_t cut = std::min(end, addr + std::uint64_t(size));
    if (cut < end) ranges[cut] = {std::int64_t(end - cut), r.stream, r.expandable, r.poolId};
}

} // namespace

AllocatorState allocatorStateAfter(const MemorySnapshot& snapshot, const DeviceHistory& h,
                                   std::int64_t afterEvent) {
    AllocatorState state;
    state.afterEvent = afterEvent;
    Ranges ranges;
    std::unordered_map<std::uint64_t, StateBlock> blocks;
    for (const SnapshotSegment& s : snapshot.segments) {
        if (s.device != h.device) continue;
        ranges[s.address] = {s.totalSize, s.stream, s.isExpandable, s.poolId};
        for (std::uint32_t b = s.firstBlock; b < s.firstBlock + s.blockCount; ++b) {
            const SnapshotBlock& block = snapshot.blocks[b];
            if (block.state == BlockState::ActiveAllocated || block.state == BlockState::ActivePendingFree)
                blocks[block.address] = {block.address, block.size,
                                         block.state == BlockState::ActivePendingFree, block.stack};
        }
    }
    // Undo the events after the moment, newest first.
    for (auto i = std::int64_t(h.size()) - 1; i > afterEvent; --i) {
        const auto k = std::size_t(i);
        const std::uint64_t addr = h.addrs[k];
        switch (h.actions[k]) {
        case AllocatorAction::Alloc:
            blocks.erase(addr);
            break;
        case AllocatorAction::FreeRequested:
            if (const auto it = blocks.find(addr); it != blocks.end()) it->second.pendingFree = false;
            break;
        case AllocatorAction::FreeCompleted:
            blocks[addr] = {addr, h.sizes[k], true, h.stacks[k]};
            break;
        case AllocatorAction::SegmentAlloc:
            ranges.erase(addr);
            break;
        case AllocatorAction::SegmentFree:
            ranges[addr] = {h.sizes[k], h.streams[k], false, {0, 0}};
            break;
        case AllocatorAction::SegmentMap:
            removeRange(ranges, addr, h.sizes[k]);
            break;
        case AllocatorAction::SegmentUnmap:
            ranges[addr] = {h.sizes[k], h.streams[k], true, {0, 0}};
            break;
        default:
            break;
        }
    }
    state.segments.reserve(ranges.size());
    for (const auto& [addr, r] : ranges) {
        StateSegment s;
        s.address = addr;
        s.size = r.size;
        s.stream = r.stream;
        s.expandable = r.expandable;
        s.poolId = r.poolId;
        state.segments.push_back(std::move(s));
    }
    for (const auto& [addr, block] : blocks) {
        auto it = std::upper_bound(state.segments.begin(), state.segments.end(), addr,
                                   [](std::uint64_t a, const StateSegment& s) { return a < s.address; });
        if (it == state.segments.begin() ||
            addr >= std::prev(it)->address + std::uint64_t(std::prev(it)->size)) {
            ++state.unplacedBlocks;
            state.unplacedBytes += block.size;
            state.activeBytes += block.size;
            if (block.pendingFree) state.pendingBytes += block.size;
            continue;
        }
        std::prev(it)->blocks.push_back(block);
    }
    for (StateSegment& s : state.segments) {
        std::sort(s.blocks.begin(), s.blocks.end(),
                  [](const StateBlock& a, const StateBlock& b) { return a.address < b.address; });
        std::uint64_t at = s.address;
        std::int64_t segmentFree = 0;
        // Free bytes are the gaps themselves, so that the largest never exceeds them, even where a damaged
        // file's blocks overlap or run past their segment (found by fuzz_pickle).
        auto gap = [&](std::uint64_t from, std::uint64_t to) {
            s.largestFree = std::max(s.largestFree, std::int64_t(to - from));
            segmentFree += std::int64_t(to - from);
        };
        for (const StateBlock& b : s.blocks) {
            if (b.address > at) gap(at, b.address);
            at = std::max(at, b.address + std::uint64_t(b.size));
            s.activeBytes += b.size;
            if (b.pendingFree) s.pendingBytes += b.size;
        }
        const std::uint64_t end = s.address + std::uint64_t(s.size);
        if (end > at) gap(at, end);
        state.freeBytes += segmentFree;
        state.reservedBytes += s.size;
        state.activeBytes += s.activeBytes;
        state.pendingBytes += s.pendingBytes;
        state.largestFree = std::max(state.largestFree, s.largestFree);
        if (s.blocks.empty()) {
            ++state.cachedIdleSegments;
            state.cachedIdleBytes += segmentFree;
        } else {
            state.freeInUseBytes += segmentFree;
            state.largestFreeInUse = std::max(state.largestFreeInUse, s.largestFree);
        }
    }
    if (state.freeInUseBytes > 0)
        state.fragmentation = 1.0 - double(state.largestFreeInUse) / double(state.freeInUseBytes);
    return state;
}

} // namespace kinetoscope
