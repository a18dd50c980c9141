#pragma once

// One track of the store: a CPU thread, a GPU stream, an async track or a counter series, as columns.

#include "ids.h"
#include "timeconv.h"

#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

namespace kinetoscope {

enum class TrackKind : std::uint8_t { CpuThread, GpuStream, Async, Counter };

namespace SliceFlag {
enum : std::uint8_t {
    Instant = 1 << 0,      // `i`/`I`/`n`: zero duration by definition
    Overlapping = 1 << 1,  // partially overlaps its enclosing slice; placed on a lane of its own
    BeginEnd = 1 << 2,     // built from a `B`/`E` pair
    Unterminated = 1 << 3, // `B` (or async `b`) that was never closed
    ScopeProcess = 1 << 4, // instant with s:"p"
    ScopeGlobal = 1 << 5,  // instant with s:"g"
};
}

// The args of a slice stay in the source text: offset and length packed in 64 bits
// (40-bit offset: 1 TiB; 24-bit length). Longer args are kept in a side table.
struct ArgsRange {
    std::uint64_t offset = 0;
    std::uint32_t length = 0;
};

// The category of a slice that has none of the store's (a pinned query's row that names no slice).
inline constexpr std::uint16_t noCategory = 0xFFFF;

// One lane-sorted column store per track. Rows are ordered by (depth, start): each depth is a
// contiguous, non-overlapping lane sorted by start (and so by end), which one binary search culls.
class Track {
  public:
    TrackKind kind = TrackKind::CpuThread;
    std::int64_t pid = 0;
    std::int64_t tid = 0;
    StringId pidText; // when the trace wrote pid/tid as strings ("Spans", "stream 7")
    StringId tidText;
    StringId name; // thread_name metadata, or the series name of a counter
    std::int64_t sortIndex = 0;
    bool hasSortIndex = false;

    // Slice columns.
    std::vector<TimeNs> starts;
    std::vector<TimeNs> durations;
    std::vector<StringId> names;
    std::vector<std::uint16_t> categories; // CategoryId values, or noCategory
    std::vector<std::uint8_t> flags;
    std::vector<std::uint64_t> args;      // packed ArgsRange; see TraceStore::argsRange
    std::vector<std::uint32_t> laneBegin; // lane d = rows [laneBegin[d], laneBegin[d+1])
    // Lanes from this one on hold the slices that overlap their enclosing slice, with what they enclose
    // (model/nesting.h); 0 when the track has none.
    std::uint32_t overflowLane = 0;
    // How late a child may end after its parent and still be nested in it: 0, except on the threads of the
    // legacy autograd profiler's traces, whose times are whole microseconds, so that a child rounded to end
    // 1 µs after its parent is still its child (docs/DEFINITIONS.md, "Nesting: one rule").
    TimeNs nestingSlack = 0;
    // The profiler already merged each operator into its same-named parent where that was its only child
    // (key_averages()' _remove_dup_nodes) before writing the file: the legacy autograd profiler exports its
    // deduplicated events, so merging again would take away calls its own tree kept.
    bool duplicatesMerged = false;

    // Counter columns (kind == Counter).
    std::vector<TimeNs> counterTimes;
    std::vector<double> counterValues;

    std::size_t sliceCount() const { return starts.size(); }
    std::size_t laneCount() const { return laneBegin.empty() ? 0 : laneBegin.size() - 1; }
    std::uint32_t depthOf(std::uint32_t row) const;
    TimeNs endOf(std::uint32_t row) const { return starts[row] + durations[row]; }
    // Rows of lane `depth` that intersect [from, to]: a half-open row range.
    std::pair<std::uint32_t, std::uint32_t> rowsInRange(std::uint32_t depth, TimeNs from, TimeNs to) const;
    // The deepest row whose [start, end] contains `t`; invalid when none.
    std::optional<std::uint32_t> deepestAt(TimeNs t) const;
    // Whether `outer` encloses `row` by the one nesting rule of docs/DEFINITIONS.md: outer.start <= row.start
    // < outer.end and row.end <= outer.end + nestingSlack; of two with the same start and duration, the
    // shallower lane encloses.
    bool encloses(std::uint32_t outer, std::uint32_t row) const;
    // The innermost row enclosing `row`, if any: usually on the lane above, but not always (a slice displaced
    // by an overlap, or a lane above that holds only frames that ended before `row` began).
    std::optional<std::uint32_t> parentOf(std::uint32_t row) const;
    // The same for a row whose lane (depthOf) the caller knows (a scan, lane by lane).
    std::optional<std::uint32_t> parentOf(std::uint32_t row, std::uint32_t depth) const;
    // The row of lane `depth` that can enclose a slice starting at `t`: the last one starting at or before it
    // that is not an instant at `t`.
    std::optional<std::uint32_t> candidateOnLane(std::uint32_t depth, TimeNs t) const;
    std::size_t bytesHeld() const;
};

} // namespace kinetoscope
