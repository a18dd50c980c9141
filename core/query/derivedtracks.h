#pragma once

// Counter lanes computed after import (GPU utilisation over time, queue length, a memory snapshot's active
// memory): they live beside the immutable store, owned by the view's model, and are laid out and drawn like
// the store's own counters. Their ids continue the store's: the first derived track is
// TrackId(store.tracks().size()).

#include "model/track.h"
#include "query/timeaxis.h"
#include "query/viewport.h"

#include <cstdint>
#include <string>
#include <vector>

namespace kinetoscope {

enum class CounterUnit : std::uint8_t { Plain, Bytes, Ratio, BytesPerSecond };

// How a lane shows many samples inside one pixel column: the peak (a trace's own counters, so short spikes
// stay visible), or the time-weighted mean over the column (a busy/idle series: the column then shows the
// share of its time spent busy, buckets that follow the zoom).
enum class CounterFold : std::uint8_t { Peak, Mean };

// A step function: each value holds from its time to the next sample's.
struct StepSeries {
    std::vector<TimeNs> times; // ascending
    std::vector<double> values;
};

class DerivedTrack {
  public:
    DerivedTrack(std::string title, StepSeries series, CounterUnit unit, CounterFold fold);
    // A lane of slices computed after import (a query's rows pinned as a track): `slices` is a slice track
    // with its lanes laid out (rows by lane, then start); `sources` gives, row by row, the store's slice each
    // stands for (invalid for none), which a click on it selects.
    DerivedTrack(std::string title, Track slices, std::vector<EventRef> sources);

    // Shown in this GPU's group, after its streams; -1 for a group of its own, titled groupTitle.
    std::int64_t gpu = -1;
    std::string groupTitle;
    // The lane's full scale; 0 to scale to the lane's maximum.
    double fullScale = 0;

    const std::string& title() const { return m_title; }
    const Track& track() const { return m_track; }
    // The store's slice a row of a slice lane stands for (invalid for none, and for a counter lane's).
    EventRef sourceOf(std::uint32_t row) const {
        return row < m_sources.size() ? m_sources[row] : EventRef{};
    }
    CounterUnit unit() const { return m_unit; }
    CounterFold fold() const { return m_fold; }
    // The time-weighted mean over [from, to) (the value at `from` when the range is empty); before the first
    // sample the series counts as 0.
    double meanBetween(TimeNs from, TimeNs to) const;
    // One column per pixel of the axis inside the series' time range, each folded as the track says.
    void collectColumns(const TimeAxis& axis, std::vector<CounterColumn>& out) const;

  private:
    // ∫ value dt up to `t`. With `next` (the first sample past an earlier, smaller t; 0 to start), found by
    // galloping from it, and moved on.
    double integralTo(TimeNs t, std::size_t* next = nullptr) const;

    std::string m_title;
    Track m_track; // a Counter: counterTimes and counterValues
    CounterUnit m_unit;
    CounterFold m_fold;
    std::vector<double> m_integral;  // ∫ value dt from the first sample to each sample
    CounterBlocks m_blocks;          // a Peak lane's, for its zoomed-out columns
    std::vector<EventRef> m_sources; // a slice lane's, by row
};

// Lays out slices given in any order as a slice track: each on the first lane where it overlaps nothing,
// lanes sorted by start. `order` receives, row by row, the index of the input slice it holds.
Track laneSlices(const std::vector<TimeNs>& starts, const std::vector<TimeNs>& durations,
                 std::vector<std::size_t>& order);

// The derived tracks of one view, in the order they were added (their ids follow the store's in that order).
using DerivedTracks = std::vector<DerivedTrack>;

} // namespace kinetoscope
