// libFuzzer target: the memory-snapshot reader on arbitrary bytes (our own pickle reader, then the snapshot
// model and every figure over it), read whole and, as a preview is, cut at half its length. Every input must
// load or stop with a one-line error; nothing may read out of bounds, allocate without bound or run code; a
// loaded snapshot must satisfy its invariants (every stack, frame and block index in range) and its reports
// must be written.
#include "analysis/memory/allocatorstate.h"
#include "analysis/memory/memorytimeline.h"
#include "analysis/memory/snapshotreport.h"
#include "analysis/report/snapshotformat.h"
#include "snapshot/snapshotloader.h"

#include <algorithm>
#include <cstdint>
#include <cstdlib>

using namespace kinetoscope;

namespace {

void check(bool ok) {
    if (!ok) std::abort();
}

void checkLoad(const SnapshotLoadResult& r, std::size_t size);

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view bytes(reinterpret_cast<const char*>(data), size);
    checkLoad(loadSnapshotBytes(bytes), size);
    // A preview of the first half: the document cut there, closed as the opcodes to come would have.
    SnapshotLoadOptions half;
    half.stopAtBytes = size / 2;
    if (half.stopAtBytes > 2) checkLoad(loadSnapshotBytes(bytes, "<memory>", half), size);
    return 0;
}

namespace {

void checkLoad(const SnapshotLoadResult& r, std::size_t size) {
    check(r.error.find('\n') == std::string::npos);
    check(!r.errorHasOffset || r.errorOffset <= size);
    if (!r.ok()) {
        check(!r.error.empty());
        return;
    }
    const MemorySnapshot& s = *r.snapshot;
    // Opened despite an error: only with what came before it.
    check(r.error.empty() || (s.partial && s.readBytes <= size));
    check(s.stackBegin.size() >= 2 && s.stackBegin.back() == s.stackFrames.size());
    for (std::uint32_t f : s.stackFrames)
        check(f < s.frames.size());
    for (const SnapshotSegment& seg : s.segments)
        check(std::size_t(seg.firstBlock) + seg.blockCount <= s.blocks.size() && seg.stack < s.stackCount());
    for (const SnapshotBlock& b : s.blocks)
        check(b.stack < s.stackCount());
    for (const DeviceHistory& h : s.devices) {
        check(h.actionNames.size() == h.size() && h.addrs.size() == h.size() && h.sizes.size() == h.size() &&
              h.streams.size() == h.size() && h.timesUs.size() == h.size() && h.stacks.size() == h.size());
        for (std::uint32_t st : h.stacks)
            check(st < s.stackCount());
        check(activeMemoryCurve(s, h).size() == h.size() + 1);
    }
    // The snapshot tab's figures: each device's timeline (bands, a small raster over all of it and a deep
    // one), the allocator state at three moments, the groups by stack and the annotations open at a time.
    for (const DeviceHistory& h : s.devices) {
        const MemoryTimeline t(s, h, 4096);
        const std::int64_t n = t.eventCount();
        const std::int64_t top = std::max<std::int64_t>(1, t.maxActive(-1, n - 1));
        const MemoryTimeline::Raster whole = t.raster(-1, n - 1, top, 17, 9);
        check(whole.cells.size() == 17 * 9);
        for (std::int32_t c : whole.cells)
            check(c == MemoryTimeline::emptyCell ||
                  std::size_t(MemoryTimeline::sampleOf(c)) < t.allocations().size());
        check(t.raster(n / 2, n / 2, top, 5, 7).cells.size() == 35);
        check(t.bandsIn(n / 2, 0, top).size() <= t.allocations().size());
        for (std::int64_t m : {std::int64_t(-1), n / 2, n - 1}) {
            const AllocatorState state = allocatorStateAfter(s, h, m);
            check(state.fragmentation >= 0 && state.fragmentation <= 1);
        }
        std::vector<const AllocationLifetime*> alive;
        for (const AllocationLifetime& a : t.allocations())
            alive.push_back(&a);
        for (const StackGroup& g : groupByStack(s, alive, 3))
            check(g.frames.size() <= 3 && g.exampleStack < s.stackCount());
        if (n > 0 && h.timesUs.front() != noTimeUs) (void)openAnnotations(s, h.device, h.timesUs.front());
    }
    SnapshotReportOptions options;
    options.top = 3;
    if (!s.devices.empty() && s.devices.front().size() > 0)
        options.atTimeUs = s.devices.front().timesUs.front();
    const SnapshotReport report = snapshotReport(s, options);
    check(!snapshotReportJson(s, report).empty());
    check(!snapshotReportText(s, report).empty() || report.devices.empty());
}

} // namespace
