#pragma once

// Allocator activity: Kineto records it as `[memory]` instant events whose args carry the running totals
// ("Total Allocated", "Total Reserved") per device ("Device Type", "Device Id"). The store build turns them
// into counter tracks ("Memory allocated · GPU 0", "Memory reserved · GPU 0"), so the timeline draws them as
// area charts and every program sees the same store; the memory analyses read the same series.

#include "model/tracestore.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string_view>
#include <tuple>
#include <vector>

namespace kinetoscope {

struct AllocatedSample {
    TimeNs t;
    double allocated;
    std::optional<double> reserved;
    EventRef ref; // the [memory] event
};
struct AllocatedSeries {
    std::vector<AllocatedSample> samples; // in time order
    bool relative = false; // running sum of "Bytes" from the trace's start: no "Total Allocated"
};

// The allocated (and reserved) memory over time per (pid, device type, device id), from `[memory]` events.
// Kineto writes running totals; PyTorch before 1.10 wrote only each event's "Bytes" (positive for an
// allocation, negative for a free), from which the total is a running sum that starts at 0 at the trace's
// start: the memory held before the profiler started is not in the trace. Args are read here, for the memory
// events only.
using MemorySeriesByDevice = std::map<std::tuple<std::int64_t, std::int64_t, std::int64_t>, AllocatedSeries>;
MemorySeriesByDevice allocatedSeries(const TraceStore& store);

// What a `[memory]` event's args say, as the series read them.
struct MemoryEventArgs {
    std::int64_t deviceType = -1, deviceId = -1;
    std::optional<double> allocated, reserved, bytes; // "Total Allocated", "Total Reserved", "Bytes"
};
MemoryEventArgs readMemoryEventArgs(std::string_view argsText);
// Those args read by the parser while the event's bytes were at hand, by the args' offset in the source text
// (ascending): the build then need not fault the file's pages back in to read them again. 32 bytes an event
// (a 1 GB inference trace has 460,000).
struct ParsedMemoryArgs {
    std::uint64_t argsOffset = 0;
    double value = 0;    // "Total Allocated", or "Bytes" when it has none
    double reserved = 0; // "Total Reserved"
    std::int16_t deviceType = -1, deviceId = -1;
    enum class Kind : std::uint8_t { Neither, Allocated, AllocatedAndReserved, Bytes } kind = Kind::Neither;

    // Nothing when a device number does not fit (the build then reads the text).
    static std::optional<ParsedMemoryArgs> of(std::uint64_t argsOffset, const MemoryEventArgs& args);
    MemoryEventArgs args() const;
};

// The series the store build turns into counter tracks, read from the store being built (its tracks sorted
// and ordered) without changing it, so that it can run beside the build's other readers. `parsed`: the args
// the parser read, in pieces (one a parsed chunk, in source order; a [memory] event not among them is read
// from its text), kept in the parser's pieces: one vector of them all would be a second copy at the load's
// peak.
MemorySeriesByDevice memoryCounterSeries(const TraceStoreParts& store,
                                         const std::vector<std::vector<ParsedMemoryArgs>>& parsed);
// The store build's last step: appends a counter track per series (and one for reserved memory when the trace
// has it), after every other track, which keeps counters last in display order. Returns how many it added.
std::size_t appendMemoryCounterTracks(TraceStoreParts& store, const MemorySeriesByDevice& series);

} // namespace kinetoscope
