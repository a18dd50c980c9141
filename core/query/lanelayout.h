#pragma once

#include "model/tracestore.h"
#include "query/derivedtracks.h"
#include "query/hostview.h"

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

// Groups the store's tracks (already in display order), with the derived tracks computed after import, and
// lays them out as rows. Pure arithmetic over the store, shared by the widget, headless rendering and the
// tests; rebuilt when the user collapses a group or hides a track. A derived track of a GPU is shown after
// that GPU's streams, in its group; the others in groups of their own, after the store's.
//
// A thread with a compact view (query/hostview.h) starts compact: one summary lane of its outermost Python
// frames, then its other slices nested among themselves; expanding its Python frames shows every lane as the
// store has them. The compact view's two parts have ids of their own (after the derived tracks); events are
// always the store's (`sourceOf` maps a shown row back), and `rowOf` finds where a store event is drawn.
class LaneLayout {
  public:
    LaneLayout() = default;
    explicit LaneLayout(const TraceStore& store, const DerivedTracks* derived = nullptr,
                        const HostViews* hostViews = nullptr, LaneMetrics metrics = {});

    // Any track shown: the store's, or a derived one (ids from store.tracks().size() on).
    const Track& track(TrackId id) const;
    // The derived track behind an id, or null for the store's own.
    const DerivedTrack* derived(TrackId id) const;
    // The store's event behind a slice as shown (a compact view's row maps to its thread's); others
    // unchanged.
    EventRef sourceOf(EventRef shown) const;
    // The store's track behind a shown track id (a compact view's part -> its thread); others unchanged.
    TrackId sourceTrackOf(TrackId shown) const;
    // The compact view of a store track, or null when it has none.
    const HostView* hostViewOf(TrackId source) const;
    // Whether a thread's Python frames are shown in full (all its lanes) rather than as one summary lane.
    bool pythonExpanded(TrackId source) const;
    void setPythonExpanded(TrackId source, bool expanded);
    // Whether a shown id is the Python summary lane of a compact thread.
    bool isPythonSummary(TrackId shown) const;
    // Views that stack several timelines (compare, distributed) show at most `lanes` lanes of each CPU thread
    // (0: all); the deeper lanes fold away until the thread is opened (its title opens and closes it), and a
    // deeper slice's place (rowOf) is the last lane shown. A compact thread keeps its summary lane and
    // `lanes` - 1 of its other slices.
    void setDepthCap(std::uint32_t lanes);
    std::uint32_t depthCap() const { return m_depthCap; }
    // Lanes of a thread the cap folds away (0 when it shows them all, or is opened).
    std::uint32_t cappedLanes(TrackId source) const;
    bool isUncapped(TrackId source) const;
    // Whether a store event lies in lanes the cap folds away.
    bool foldedByCap(EventRef ref) const;
    // The first screen (issue 52 item 1): the deepest cap (none, 12, 10, ... 3 lanes) under which every GPU
    // stream's lanes end within `page` pixels of the top, else 3; set and returned. Deep CPU stacks (Dynamo's
    // compile annotations, uncompacted threads) pushed the streams off a 1400x900 window.
    std::uint32_t fitGpuStreamsWithin(double page);
    void setUncapped(TrackId source, bool uncapped);
    std::size_t trackCount() const { return m_groupOfTrack.size(); }
    // How a counter lane's values read: bytes for the trace's memory series, a ratio for utilisation.
    CounterUnit counterUnit(TrackId id) const;
    // The columns drawn for a counter lane on an axis (a derived lane folds as it says; the store's by peak).
    void collectColumns(TrackId id, const TimeAxis& axis, std::vector<CounterColumn>& out) const;
    // The value shown for a counter under time t, on an axis: the sample in force, or for a lane that folds
    // by mean, the mean over the pixel column at t.
    std::optional<double> counterValueAt(TrackId id, const TimeAxis& axis, TimeNs t) const;

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
    // The first screen: a process with no work (nothing but instants, Python frames, the profiler's own
    // `Trace` spans and overhead: `Traces`, `Spans`, a tqdm monitor thread) folds to its header, one thin row
    // with its busy bars that a click opens, unless no process has work. The viewer calls it at open; a bare
    // layout keeps every group open.
    void collapseIdleProcesses();
    // How many tracks are hidden (counter lanes without a single non-zero value start hidden: an empty
    // "Memory reserved · CPU" lane says nothing).
    std::size_t hiddenCount() const;
    // Shows only tracks whose title, or whose group's title, contains `text` (case-insensitive); empty: all.
    // Groups left without a track are not shown at all.
    void setTrackFilter(const std::string& text);
    const std::string& trackFilter() const { return m_filter; }
    // Pinned tracks are shown first, in a "Pinned" group, in the order pinned (and not in their own group).
    void setPinned(TrackId track, bool pinned);
    // Whether the Pinned group has its header row (a compact rank pane leaves it out; the group cannot fold).
    void setPinnedHeader(bool shown);
    bool isPinned(TrackId track) const;

    // The name shown for a track: thread name and id, "GPU 0 · NVIDIA H100 · stream 7", a counter's series.
    std::string trackTitle(TrackId track) const;
    // The shorter name shown beside the lane, under its group's header ("stream 7" under "GPU 0 · NVIDIA
    // H100"); a pinned stream, under no device header, keeps its device ("GPU 0 · stream 7").
    std::string laneTitle(TrackId track) const;
    std::uint32_t groupOf(TrackId track) const { return m_groupOfTrack[track.value]; }

    // Index of the row at content y, or -1.
    int rowAt(double y) const;
    // The row at content y, or in a gap the row above it (the first row above them all, the last below): what
    // a drag across rows reaches wherever the pointer is; -1 only without rows.
    int rowNear(double y) const;
    // Rows intersecting [top, bottom) (half-open index range).
    std::pair<std::size_t, std::size_t> rowsBetween(double top, double bottom) const;
    // Where a slice is drawn: its row, or the header of its group when collapsed or its track hidden.
    int rowOf(EventRef ref) const;
    // The first row of a track (its top lane), or -1 when not shown.
    int firstRowOf(TrackId track) const;

  private:
    void relayout();

    void addToGroup(std::uint32_t group, TrackId id);
    void layGroup(std::uint32_t group, bool pinnedSection, double& y);
    void layTrack(std::uint32_t group, TrackId id, double& y);
    bool passesFilter(TrackId id, const LaneGroup& group) const;

    // The compact view and part (python or host) behind a shown id beyond the derived tracks.
    const HostView* shownPart(TrackId id, bool& python) const;
    TrackId pythonIdOf(std::size_t view) const { return TrackId(std::uint32_t(m_firstViewId + 2 * view)); }
    TrackId hostIdOf(std::size_t view) const { return TrackId(std::uint32_t(m_firstViewId + 2 * view + 1)); }

    const TraceStore* m_store = nullptr;
    const DerivedTracks* m_derived = nullptr;
    const HostViews* m_hostViews = nullptr;
    std::size_t m_firstViewId = 0;      // the first compact view's Python id
    std::vector<bool> m_pythonExpanded; // by compact view
    LaneMetrics m_metrics;
    std::vector<LaneGroup> m_groups;
    std::vector<std::uint32_t> m_groupOfTrack;
    std::vector<bool> m_hidden;
    std::vector<CounterBlocks> m_counterBlocks; // by store track (empty but for counters)
    std::string m_filter;                       // lower case
    std::uint32_t m_pinnedGroup = ~0u;          // index in m_groups once something is pinned
    std::uint32_t m_depthCap = 0;
    bool m_pinnedHeader = true;
    std::vector<bool> m_uncapped; // by store track
    std::vector<LaneRow> m_rows;
    std::vector<int> m_firstRowOfTrack; // -1 when hidden or collapsed
    std::vector<int> m_headerRowOfGroup;
    double m_contentHeight = 0;
    std::uint64_t m_generation = 0;
};

// The name shown for a track, wherever it is shown (lane headers, Details): a thread's name and id,
// "GPU 0 · NVIDIA H100 · stream 7", a counter's series.
std::string trackTitle(const TraceStore& store, TrackId track);
// A track's pid and tid as the trace wrote them: the text when it was a string ("stream 7"), else the number;
// a negative 32-bit thread id reads as the unsigned id it is.
std::string processIdText(const TraceStore& store, const Track& track);
// A GPU stream lane's own title: "stream 7", or "context and event syncs" for the syncs on no stream (tid
// -1).
std::string streamTitle(const TraceStore& store, const Track& track);
std::string threadIdText(const TraceStore& store, const Track& track);

} // namespace kinetoscope
