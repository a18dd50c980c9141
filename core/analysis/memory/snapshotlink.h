#pragma once

// A memory snapshot and a trace of the same run, aligned by wall clock (docs/DEFINITIONS.md, "Memory
// snapshots"): a snapshot's `time_us` is epoch microseconds; a trace's time is epoch nanoseconds when its
// `ts` are absolute (old Kineto), or nanoseconds after `baseTimeNanoseconds` (Kineto since 2024). Once
// aligned, the snapshot's active-memory curve becomes a counter lane of the trace (a derived track, beside
// the immutable store) and each allocation can name the operator that was running when it was made.

#include "analysis/memory/memorytimeline.h"
#include "model/tracestore.h"
#include "query/derivedtracks.h"

#include <optional>

namespace kinetoscope {

// Trace time t is epoch nanoseconds t + offset; nullopt when the trace has no wall clock (relative `ts`
// without `baseTimeNanoseconds`).
std::optional<std::int64_t> traceEpochOffset(const TraceStore& store);

struct SnapshotTraceLink {
    std::int64_t epochOffsetNs = 0; // the trace's traceEpochOffset
    // The snapshot's events with a time, and how many of them fall inside the trace's span.
    std::uint64_t timedEvents = 0;
    std::uint64_t eventsInTrace = 0;
    // A snapshot time (epoch µs) on the trace's clock.
    TimeNs traceTime(std::int64_t timeUs) const { return timeUs * 1000 - epochOffsetNs; }
};

// The link when both have wall clocks and overlap in time; nullopt otherwise (no times, or disjoint runs).
std::optional<SnapshotTraceLink> linkSnapshotToTrace(const DeviceHistory& history, const TraceStore& store);

// The active-memory curve on the trace's clock: a step at each timed event (events without a time are
// skipped), in bytes, to be shown as a counter lane of the trace.
DerivedTrack activeMemoryLane(const MemoryTimeline& timeline, const DeviceHistory& history,
                              const SnapshotTraceLink& link);

// The operator running at trace time t: on each CPU thread the innermost cpu_op slice containing t, and of
// those the one entered last.
std::optional<EventRef> operatorAt(const TraceStore& store, TimeNs t);

} // namespace kinetoscope
