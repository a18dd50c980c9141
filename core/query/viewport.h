#pragma once

#include "model/tracestore.h"
#include "timeaxis.h"

#include <cstdint>
#include <vector>

namespace kinetoscope {

// One box to draw on a lane, in pixels. Runs of slices narrower than the fold width become one
// box (`folded` > 1) so drawing cost follows pixels, not events.
struct SliceBox {
    float x0 = 0;
    float x1 = 0;
    std::uint32_t row = 0;    // the slice drawn (for a fold: the longest of the members it sampled)
    std::uint32_t folded = 1; // number of slices the box stands for
};

// lower_bound over ascending times that probes 1, 2, 4, ... ahead of `first` before a binary search: when the
// answer is usually close (the next fold boundary, the next column's edge), a few neighbouring cache lines
// instead of a full binary search over millions.
const TimeNs* gallopTo(const TimeNs* first, const TimeNs* last, TimeNs value);

// Appends the boxes of lane `depth` of `track` visible on `axis`. Slices wider than `foldPx` are drawn as
// themselves (at least 1 px wide); narrower neighbours that fall within `foldPx` of each other are merged.
// Cost: O(boxes × log n) — after each fold the next slice past the fold is found by binary search.
void collectLaneBoxes(const Track& track, std::uint32_t depth, const TimeAxis& axis, double foldPx,
                      std::vector<SliceBox>& out);

// A counter series decimated to at most one column per pixel: the range of values in the column and the value
// at its end (what an area chart draws).
struct CounterColumn {
    float x = 0;
    double minValue = 0;
    double maxValue = 0;
    double lastValue = 0;
};
// The first time and the least and greatest value of each block of `size` samples of a counter: a zoomed-out
// column holding thousands of samples finds where it ends in the blocks' times and its range in a few blocks
// and two partial ones, instead of reading them all (a whole-trace view of a 1 GB trace's memory counters
// read 11 MB a frame, a millisecond of memory traffic).
struct CounterBlocks {
    static constexpr std::size_t size = 32;
    std::vector<TimeNs> firstTime;
    std::vector<double> min, max;
    std::size_t samples = 0; // of the track they were made from (a live track that grew since is read whole)
    static CounterBlocks of(const Track& track);
};
// Every sample of a column counts (a peak anywhere in it is the column's maximum); with `blocks` (made from
// the same track), whole blocks are read as one.
void collectCounterColumns(const Track& track, const TimeAxis& axis, std::vector<CounterColumn>& out,
                           const CounterBlocks* blocks = nullptr);
// The value of a counter at `t` (the last sample at or before it).
std::optional<double> counterValueAt(const Track& track, TimeNs t);

// The row of lane `depth` under time `t`, or within `slack` ns of it (the nearest wins); for hit testing,
// where a slice narrower than a pixel must still be clickable.
std::optional<std::uint32_t> sliceAt(const Track& track, std::uint32_t depth, TimeNs t, TimeNs slack);

} // namespace kinetoscope
