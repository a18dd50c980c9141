// libFuzzer target: the memory-snapshot reader on arbitrary bytes (our own pickle reader, then the snapshot
// model and every figure over it). Every input must load or stop with a one-line error; nothing may read out
// of bounds, allocate without bound or run code; a loaded snapshot must satisfy its invariants (every stack,
// frame and block index in range) and its reports must be written.
#include "analysis/snapshotreport.h"
#include "snapshot/snapshotloader.h"

#include <cstdint>
#include <cstdlib>

using namespace kinetoscope;

namespace {
void check(bool ok) {
    if (!ok) std::abort();
}
} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const SnapshotLoadResult r =
        loadSnapshotBytes(std::string_view(reinterpret_cast<const char*>(data), size));
    if (!r.ok()) {
        check(!r.error.empty() && r.error.find('\n') == std::string::npos);
        check(!r.errorHasOffset || r.errorOffset <= size);
        return 0;
    }
    const MemorySnapshot& s = *r.snapshot;
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
    SnapshotReportOptions options;
    options.top = 3;
    if (!s.devices.empty() && s.devices.front().size() > 0)
        options.atTimeUs = s.devices.front().timesUs.front();
    const SnapshotReport report = snapshotReport(s, options);
    check(!snapshotReportJson(s, report).empty());
    check(!snapshotReportText(s, report).empty() || report.devices.empty());
    return 0;
}
