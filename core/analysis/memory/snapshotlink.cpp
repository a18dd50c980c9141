#include "analysis/memory/snapshotlink.h"

#include <algorithm>

namespace kinetoscope {

namespace {
// Absolute epoch ns are above this (2001-09-09): a relative trace's times never reach it.
constexpr TimeNs epochFloor = 1'000'000'000'000'000'000;
} // namespace

std::optional<std::int64_t> traceEpochOffset(const TraceStore& store) {
    if (store.minTime() >= epochFloor) return 0;
    if (store.metadata().baseTimeNanoseconds) return *store.metadata().baseTimeNanoseconds;
    return std::nullopt;
}

std::optional<SnapshotTraceLink> linkSnapshotToTrace(const DeviceHistory& history, const TraceStore& store) {
    const std::optional<std::int64_t> offset = traceEpochOffset(store);
    if (!offset) return std::nullopt;
    SnapshotTraceLink link;
    link.epochOffsetNs = *offset;
    for (std::int64_t t : history.timesUs) {
        if (t == noTimeUs) continue;
        ++link.timedEvents;
        const TimeNs at = link.traceTime(t);
        link.eventsInTrace += at >= store.minTime() && at <= store.maxTime();
    }
    if (link.eventsInTrace == 0) return std::nullopt;
    return link;
}

DerivedTrack activeMemoryLane(const MemoryTimeline& timeline, const DeviceHistory& history,
                              const SnapshotTraceLink& link) {
    StepSeries series;
    const auto curve = timeline.curve();
    for (std::size_t i = 0; i < history.size(); ++i) {
        if (history.timesUs[i] == noTimeUs) continue;
        const TimeNs t = link.traceTime(history.timesUs[i]);
        // Events at the same microsecond: the last value after them holds.
        if (!series.times.empty() && series.times.back() >= t) {
            series.values.back() = double(curve[i + 1]);
            continue;
        }
        series.times.push_back(t);
        series.values.push_back(double(curve[i + 1]));
    }
    DerivedTrack lane("Active memory (snapshot, GPU " + std::to_string(history.device) + ")",
                      std::move(series), CounterUnit::Bytes, CounterFold::Peak);
    lane.gpu = history.device;
    lane.groupTitle = "Memory snapshot · GPU " + std::to_string(history.device);
    return lane;
}

std::optional<EventRef> operatorAt(const TraceStore& store, TimeNs t) {
    std::optional<EventRef> best;
    TimeNs bestStart = 0;
    for (std::uint32_t ti = 0; ti < store.tracks().size(); ++ti) {
        const Track& track = store.track(TrackId(ti));
        if (track.kind != TrackKind::CpuThread) continue;
        // This thread's innermost operator at t: the deepest lane holding one. Overflow lanes count too: they
        // nest among themselves, and a slice that overlaps its parent takes its whole subtree there (on real
        // traces, often a whole forward pass).
        std::optional<std::uint32_t> innermost;
        for (std::uint32_t d = 0; d < track.laneCount(); ++d) {
            const auto first = track.starts.begin() + track.laneBegin[d];
            const auto last = track.starts.begin() + track.laneBegin[d + 1];
            const auto it = std::upper_bound(first, last, t);
            if (it == first) continue;
            const auto row = std::uint32_t(it - track.starts.begin()) - 1;
            if (t >= track.endOf(row)) continue;
            if (store.categories()[track.categories[row]].kind == CategoryKind::CpuOp) innermost = row;
        }
        // Across threads, the operator entered last is the one most likely to be allocating.
        if (innermost && (!best || track.starts[*innermost] > bestStart)) {
            best = EventRef{TrackId(ti), EventIndex(*innermost)};
            bestStart = track.starts[*innermost];
        }
    }
    return best;
}

} // namespace kinetoscope
