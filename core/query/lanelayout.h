#pragma once

#include "model/tracestore.h"

#include <cstdint>
#include <string>
#include <vector>

namespace kinetoscope {

// One group of tracks shown under a collapsible header: a CPU process (its threads and async tracks),
// a GPU device (its streams), or the counters of a process.
struct LaneGroup {
    enum class Kind { Process, Gpu, Counters };
    Kind kind = Kind::Process;
    std::string title;
    std::vector<TrackId> tracks;
    bool collapsed = false;
};

// One horizontal strip of the timeline.
struct LaneRow {
    enum class Kind { GroupHeader, Slices, Counter };
    Kind kind = Kind::Slices;
    std::uint32_t group = 0;
    TrackId track;           // invalid for headers
    std::uint32_t depth = 0; // lane of the track (Slices)
    double y = 0;            // top, in content coordinates
    double height = 0;
};

struct LaneMetrics {
    double headerHeight = 22;
    double sliceHeight = 18;
    double counterHeight = 40;
    double trackGap = 4; // below the last lane of each track
};

// Groups the store's tracks (already in display order) and lays them out as rows. Pure arithmetic over the
// store, shared by the widget, headless rendering and the tests; rebuilt when the user collapses a group or
// hides a track.
class LaneLayout {
  public:
    LaneLayout() = default;
    explicit LaneLayout(const TraceStore& store, LaneMetrics metrics = {});

    const std::vector<LaneGroup>& groups() const { return m_groups; }
    const std::vector<LaneRow>& rows() const { return m_rows; }
    const LaneMetrics& metrics() const { return m_metrics; }
    double contentHeight() const { return m_contentHeight; }
    // Changes whenever rows move (collapse, hide); caches of drawn geometry compare it.
    std::uint64_t generation() const { return m_generation; }

    void setCollapsed(std::uint32_t group, bool collapsed);
    void setHidden(TrackId track, bool hidden);
    bool isHidden(TrackId track) const;
    void setAllCollapsed(bool collapsed);

    // The name shown for a track: thread name and id, "GPU 0 · NVIDIA H100 · stream 7", a counter's series.
    std::string trackTitle(TrackId track) const;
    // The shorter name shown beside the lane, under its group's header ("stream 7" under "GPU 0 · NVIDIA
    // H100").
    std::string laneTitle(TrackId track) const;
    std::uint32_t groupOf(TrackId track) const { return m_groupOfTrack[track.value]; }

    // Index of the row at content y, or -1.
    int rowAt(double y) const;
    // Rows intersecting [top, bottom) (half-open index range).
    std::pair<std::size_t, std::size_t> rowsBetween(double top, double bottom) const;
    // Where a slice is drawn: its row, or the header of its group when collapsed or its track hidden.
    int rowOf(EventRef ref) const;
    // The first row of a track (its top lane), or -1 when not shown.
    int firstRowOf(TrackId track) const;

  private:
    void relayout();

    const TraceStore* m_store = nullptr;
    LaneMetrics m_metrics;
    std::vector<LaneGroup> m_groups;
    std::vector<std::uint32_t> m_groupOfTrack;
    std::vector<bool> m_hidden;
    std::vector<LaneRow> m_rows;
    std::vector<int> m_firstRowOfTrack; // -1 when hidden or collapsed
    std::vector<int> m_headerRowOfGroup;
    double m_contentHeight = 0;
    std::uint64_t m_generation = 0;
};

// The name shown for a track, wherever it is shown (lane headers, Details): a thread's name and id,
// "GPU 0 · NVIDIA H100 · stream 7", a counter's series.
std::string trackTitle(const TraceStore& store, TrackId track);

} // namespace kinetoscope
