#include "analysis/memory/snapshotreport.h"

#include "model/prefaulter.h"

#include "analysis/memory/addressmap.h"
#include "model/jsonwriter.h"
#include "model/textformat.h"

#include <algorithm>
#include <iterator>
#include <map>
#include <unordered_map>

namespace kinetoscope {

std::vector<AllocationLifetime> allocationLifetimes(const MemorySnapshot& snapshot, const DeviceHistory& h,
                                                    const std::atomic<bool>* cancel) {
    std::vector<AllocationLifetime> out;
    AddressMap open; // addr -> its lifetime in `out`
    const auto n = std::int64_t(h.size());
    // Reserved for the most there can be, an entry per alloc and per free and one for each block (a large
    // snapshot's lifetimes otherwise grow through a dozen copies); what is not written costs no memory.
    std::size_t most = snapshot.blocks.size() + 64;
    for (const AllocatorAction a : h.actions)
        most += a == AllocatorAction::Alloc || a == AllocatorAction::FreeCompleted;
    out.reserve(most);
    Prefaulter prefaulter; // its pages made ready on the other core
    const int slot = prefaulter.watch(out.data(), out.capacity() * sizeof(AllocationLifetime), true);
    prefaulter.start();
    for (std::int64_t i = 0; i < n; ++i) {
        const std::size_t k = std::size_t(i);
        if ((k & 0xffff) == 0) {
            prefaulter.written(slot, out.size() * sizeof(AllocationLifetime));
            if (cancel && cancel->load(std::memory_order_relaxed)) return out;
        }
        if (h.actions[k] == AllocatorAction::Alloc) {
            // An address allocated again without a free in between: the first ends here.
            if (const std::uint32_t* life = open.find(h.addrs[k])) out[*life].end = i;
            open.set(h.addrs[k], std::uint32_t(out.size()));
            out.push_back({i, n, h.addrs[k], h.sizes[k], h.stacks[k]});
        } else if (h.actions[k] == AllocatorAction::FreeCompleted) {
            if (const std::uint32_t* life = open.find(h.addrs[k])) {
                out[*life].end = i;
                open.erase(h.addrs[k]);
            } else {
                out.push_back(
                    {-1, i, h.addrs[k], h.sizes[k], h.stacks[k]}); // allocated before the trace began
            }
        }
    }
    // Blocks active at snapshot time that no alloc in the trace accounts for were allocated before it began
    // (not in a partial snapshot: an alloc in the part not read may account for them).
    for (const SnapshotSegment& s : snapshot.segments) {
        if (snapshot.partial) break;
        if (s.device != h.device) continue;
        for (std::uint32_t b = s.firstBlock; b < s.firstBlock + s.blockCount; ++b) {
            const SnapshotBlock& block = snapshot.blocks[b];
            // Its requested size, as an alloc event records it (and as memory_viz sizes these blocks); the
            // block's own size is rounded up by the allocator.
            if (block.state == BlockState::ActiveAllocated && !open.contains(block.address))
                out.push_back({-1, n, block.address,
                               block.requestedSize > 0 ? block.requestedSize : block.size, block.stack});
        }
    }
    return out;
}

namespace {

std::int64_t allocatedBytes(const MemorySnapshot& snapshot, std::int64_t device) {
    std::int64_t total = 0;
    for (const SnapshotSegment& s : snapshot.segments)
        if (s.device == device)
            for (std::uint32_t b = s.firstBlock; b < s.firstBlock + s.blockCount; ++b)
                if (snapshot.blocks[b].state == BlockState::ActiveAllocated) total += snapshot.blocks[b].size;
    return total;
}

LiveAllocations liveAfter(const DeviceHistory& h, const std::vector<AllocationLifetime>& lifetimes,
                          const std::vector<std::int64_t>& curve, std::int64_t event, std::size_t top) {
    LiveAllocations live;
    live.afterEvent = event;
    // Before the first event the moment is the first event's time: nothing happened in between.
    const std::size_t at = std::size_t(std::max<std::int64_t>(event, 0));
    if (at < h.size() && h.timesUs[at] != noTimeUs) live.timeUs = h.timesUs[at];
    live.activeBytes = curve[std::size_t(event + 1)];
    for (const AllocationLifetime& a : lifetimes)
        if (a.aliveAfter(event)) live.allocations.push_back(a);
    std::stable_sort(
        live.allocations.begin(), live.allocations.end(),
        [](const AllocationLifetime& a, const AllocationLifetime& b) { return a.size > b.size; });
    if (live.allocations.size() > top) live.allocations.resize(top);
    return live;
}

} // namespace

namespace {

bool isPythonFrame(const MemorySnapshot& s, std::uint32_t frame) {
    const std::string_view file = s.strings.view(s.frames[frame].filename);
    return file.size() > 3 && file.substr(file.size() - 3) == ".py";
}

} // namespace

// The frame a reader wants first: the innermost Python frame (the C++ unwinder's own frames come first in the
// file and say nothing about who allocated).
std::string allocationSite(const MemorySnapshot& s, std::uint32_t stack) {
    const auto frames = s.stack(stack);
    if (frames.empty()) return "(no stack)";
    for (std::uint32_t f : frames) {
        if (!isPythonFrame(s, f)) continue;
        const SnapshotFrame& frame = s.frames[f];
        return std::string(s.strings.view(frame.name)) + " (" + std::string(s.strings.view(frame.filename)) +
               ":" + std::to_string(frame.line) + ")";
    }
    return std::string(s.strings.view(s.frames[frames.front()].name));
}

std::vector<std::string_view> openAnnotations(const MemorySnapshot& snapshot, std::int64_t device,
                                              std::int64_t timeUs) {
    std::vector<std::string_view> open;
    for (const ExternalAnnotation& a : snapshot.annotations) {
        if (a.device != device || a.timeUs == noTimeUs || a.timeUs > timeUs) continue;
        const std::string_view name = snapshot.strings.view(a.name);
        const std::string_view stage = snapshot.strings.view(a.stage);
        if (stage == "START") {
            open.push_back(name);
        } else if (stage == "END") {
            // Ranges close innermost first; an END without its START closes nothing.
            const auto it = std::find(open.rbegin(), open.rend(), name);
            if (it != open.rend()) open.erase(std::next(it).base());
        }
    }
    return open;
}

std::vector<StackGroup> groupByStack(const MemorySnapshot& snapshot,
                                     const std::vector<const AllocationLifetime*>& allocations,
                                     std::size_t depth) {
    std::map<std::vector<std::uint32_t>, StackGroup> groups;
    std::unordered_map<std::uint32_t, std::vector<std::uint32_t>> keyOfStack; // stacks repeat: key them once
    for (const AllocationLifetime* a : allocations) {
        auto [it, fresh] = keyOfStack.try_emplace(a->stack);
        if (fresh) {
            const auto frames = snapshot.stack(a->stack);
            for (std::uint32_t f : frames)
                if (isPythonFrame(snapshot, f) && it->second.size() < depth) it->second.push_back(f);
            if (it->second.empty())
                it->second.assign(frames.begin(),
                                  frames.begin() + std::ptrdiff_t(std::min(depth, frames.size())));
        }
        StackGroup& g = groups[it->second];
        ++g.count;
        g.bytes += a->size;
        if (a->size > g.largest || g.count == 1) {
            g.largest = a->size;
            g.exampleStack = a->stack;
        }
    }
    std::vector<StackGroup> out;
    out.reserve(groups.size());
    for (auto& [key, g] : groups) {
        g.frames = key;
        out.push_back(std::move(g));
    }
    std::stable_sort(out.begin(), out.end(),
                     [](const StackGroup& a, const StackGroup& b) { return a.bytes > b.bytes; });
    return out;
}

std::vector<std::int64_t> activeMemoryCurve(const MemorySnapshot& snapshot, const DeviceHistory& h) {
    std::int64_t start = 0;
    if (snapshot.partial) {
        // Only what the events read show was alive before them: the allocations they free unallocated.
        for (const AllocationLifetime& life : allocationLifetimes(snapshot, h))
            if (life.begin < 0) start += life.size;
    } else {
        start = allocatedBytes(snapshot, h.device);
        for (std::size_t i = 0; i < h.size(); ++i) {
            if (h.actions[i] == AllocatorAction::Alloc) start -= h.sizes[i];
            if (h.actions[i] == AllocatorAction::FreeCompleted) start += h.sizes[i];
        }
    }
    std::vector<std::int64_t> curve;
    curve.reserve(h.size() + 1);
    curve.push_back(start);
    std::int64_t v = start;
    for (std::size_t i = 0; i < h.size(); ++i) {
        if (h.actions[i] == AllocatorAction::Alloc) v += h.sizes[i];
        if (h.actions[i] == AllocatorAction::FreeCompleted) v -= h.sizes[i];
        curve.push_back(v);
    }
    return curve;
}

SnapshotReport snapshotReport(const MemorySnapshot& snapshot, const SnapshotReportOptions& options) {
    SnapshotReport report;
    for (const DeviceHistory& h : snapshot.devices) {
        DeviceMemoryReport d;
        d.device = h.device;
        std::uint64_t known[int(AllocatorAction::Other)] = {};
        std::map<std::string, std::uint64_t> others;
        for (std::size_t i = 0; i < h.size(); ++i) {
            if (h.actions[i] == AllocatorAction::Other)
                ++others[std::string(snapshot.strings.view(h.actionNames[i]))];
            else
                ++known[int(h.actions[i])];
        }
        for (int a = 0; a < int(AllocatorAction::Other); ++a)
            if (known[a])
                d.events.emplace_back(std::string(allocatorActionName(AllocatorAction(a))), known[a]);
        for (const auto& [name, n] : others)
            d.events.emplace_back(name, n);
        for (const SnapshotSegment& s : snapshot.segments) {
            if (s.device != h.device) continue;
            ++d.segments;
            d.reservedBytes += s.totalSize;
        }
        d.allocatedBytes = allocatedBytes(snapshot, h.device);
        d.historyRecorded = snapshot.hasTrace && h.size() > 0;
        // Without events the snapshot's moment is the one known (its curve is that one point); a partial read
        // knows no moment at all (the segments, at the end, were not reached).
        if (d.historyRecorded || !snapshot.partial) {
            const std::vector<std::int64_t> curve = activeMemoryCurve(snapshot, h);
            const auto peakAt = std::max_element(curve.begin(), curve.end()); // the first of equal maxima
            d.peakActiveBytes = *peakAt;
            const std::vector<AllocationLifetime> lifetimes = allocationLifetimes(snapshot, h);
            d.peak = liveAfter(h, lifetimes, curve, std::int64_t(peakAt - curve.begin()) - 1, options.top);
            if (options.atTimeUs) {
                // After the last event at or before the time (events are in time order); before the first if
                // none.
                std::int64_t last = -1;
                for (std::size_t i = 0;
                     i < h.size() && h.timesUs[i] != noTimeUs && h.timesUs[i] <= *options.atTimeUs; ++i)
                    last = std::int64_t(i);
                d.liveAt = liveAfter(h, lifetimes, curve, last, options.top);
                d.liveAt->timeUs = *options.atTimeUs;
            }
        }
        report.devices.push_back(std::move(d));
    }
    return report;
}

} // namespace kinetoscope
