#include "lanelayout.h"
#include "model/textformat.h"

#include <algorithm>
#include <cctype>
#include <climits>
#include <cmath>

namespace kinetoscope {

namespace {

std::string idText(const TraceStore& store, StringId text, std::int64_t id) {
    if (text.isValid() && !store.strings().view(text).empty()) return std::string(store.strings().view(text));
    return std::to_string(id);
}

LaneGroup::Kind groupKindOf(const Track& t) {
    switch (t.kind) {
    case TrackKind::GpuStream:
        return LaneGroup::Kind::Gpu;
    case TrackKind::Counter:
        return LaneGroup::Kind::Counters;
    default:
        return LaneGroup::Kind::Process;
    }
}

const DeviceProperties* deviceOf(const TraceStore& store, std::int64_t id) {
    for (const DeviceProperties& d : store.metadata().devices) {
        if (d.id == id) return &d;
    }
    return nullptr;
}
} // namespace

LaneLayout::LaneLayout(const TraceStore& store, const DerivedTracks* derived, const HostViews* hostViews,
                       LaneMetrics metrics)
    : m_store(&store), m_derived(derived && !derived->empty() ? derived : nullptr),
      m_hostViews(hostViews && !hostViews->views.empty() ? hostViews : nullptr), m_metrics(metrics) {
    const std::size_t derivedCount = m_derived ? m_derived->size() : 0;
    const std::size_t viewCount = m_hostViews ? m_hostViews->views.size() : 0;
    m_firstViewId = store.tracks().size() + derivedCount;
    m_pythonExpanded.assign(viewCount, false);
    m_groupOfTrack.assign(m_firstViewId + 2 * viewCount, 0);
    m_hidden.assign(m_firstViewId + 2 * viewCount, false);
    m_counterBlocks.resize(store.tracks().size());
    for (std::uint32_t i = 0; i < store.tracks().size(); ++i) {
        const Track& t = store.tracks()[i];
        if (t.kind == TrackKind::Counter) m_counterBlocks[i] = CounterBlocks::of(t);
        const LaneGroup::Kind kind = groupKindOf(t);
        bool startNew = m_groups.empty() || m_groups.back().kind != kind;
        if (!startNew) {
            const Track& prev = store.track(m_groups.back().tracks.back());
            startNew = prev.pid != t.pid || prev.pidText != t.pidText;
        }
        if (startNew) {
            LaneGroup g;
            g.kind = kind;
            const std::string pid = idText(store, t.pidText, t.pid);
            const ProcessInfo* proc = store.process(t.pid);
            const std::string procName =
                proc && proc->name.isValid() ? std::string(store.strings().view(proc->name)) : "";
            if (kind == LaneGroup::Kind::Gpu) {
                const DeviceProperties* dev = deviceOf(store, t.pid);
                g.title = "GPU " + pid + (dev && !dev->name.empty() ? " · " + dev->name : "");
            } else if (kind == LaneGroup::Kind::Counters) {
                g.title = "Counters · " + (procName.empty() ? "process " + pid : procName + " (" + pid + ")");
            } else {
                g.title = procName.empty() ? "process " + pid : procName + " (" + pid + ")";
            }
            m_groups.push_back(std::move(g));
        }
        addToGroup(std::uint32_t(m_groups.size() - 1), TrackId(i));
    }
    // Derived lanes: a GPU's after its streams (what they are derived from, and what the first screen must
    // show), in the order given; the rest in groups of their own.
    for (std::uint32_t i = 0; i < derivedCount; ++i) {
        const DerivedTrack& d = (*m_derived)[i];
        const TrackId id(std::uint32_t(store.tracks().size() + i));
        auto gpuGroup = m_groups.end();
        if (d.gpu >= 0) {
            gpuGroup = std::find_if(m_groups.begin(), m_groups.end(), [&](const LaneGroup& g) {
                return g.kind == LaneGroup::Kind::Gpu && !g.tracks.empty() &&
                       store.track(g.tracks[0]).pid == d.gpu;
            });
        }
        if (gpuGroup != m_groups.end()) {
            addToGroup(std::uint32_t(gpuGroup - m_groups.begin()), id);
            continue;
        }
        if (m_groups.empty() || m_groups.back().kind != LaneGroup::Kind::Counters ||
            m_groups.back().title != d.groupTitle ||
            m_groups.back().tracks.back().value < store.tracks().size()) {
            LaneGroup g;
            g.kind = LaneGroup::Kind::Counters;
            g.title = d.groupTitle;
            m_groups.push_back(std::move(g));
        }
        addToGroup(std::uint32_t(m_groups.size() - 1), id);
    }
    // A counter lane without a single non-zero value starts hidden ("Memory reserved · CPU, max 0 B").
    for (std::uint32_t i = 0; i < store.tracks().size(); ++i) {
        const Track& t = store.tracks()[i];
        if (t.kind == TrackKind::Counter &&
            std::all_of(t.counterValues.begin(), t.counterValues.end(), [](double v) { return v == 0; }))
            m_hidden[i] = true;
    }
    // A compact view's parts live in their thread's group (shown in its place, not listed in the group).
    for (std::size_t v = 0; v < viewCount; ++v) {
        const std::uint32_t group = m_groupOfTrack[m_hostViews->views[v].source.value];
        m_groupOfTrack[pythonIdOf(v).value] = group;
        m_groupOfTrack[hostIdOf(v).value] = group;
    }
    relayout();
}

const HostView* LaneLayout::shownPart(TrackId id, bool& python) const {
    if (!m_hostViews || id.value < m_firstViewId) return nullptr;
    const std::size_t offset = id.value - m_firstViewId;
    if (offset / 2 >= m_hostViews->views.size()) return nullptr;
    python = offset % 2 == 0;
    return &m_hostViews->views[offset / 2];
}

EventRef LaneLayout::sourceOf(EventRef shown) const {
    // A pinned query's slice stands for the store's slice its row named, if any.
    if (const DerivedTrack* d = derived(shown.track))
        return shown.isValid() ? d->sourceOf(shown.index.value) : shown;
    bool python = false;
    const HostView* v = shownPart(shown.track, python);
    if (!v || !shown.isValid()) return shown;
    const std::vector<std::uint32_t>& rows = python ? v->pythonRows : v->hostRows;
    return {v->source, EventIndex(rows[shown.index.value])};
}

TrackId LaneLayout::sourceTrackOf(TrackId shown) const {
    bool python = false;
    const HostView* v = shownPart(shown, python);
    return v ? v->source : shown;
}

const HostView* LaneLayout::hostViewOf(TrackId source) const {
    return m_hostViews ? m_hostViews->of(source) : nullptr;
}

bool LaneLayout::pythonExpanded(TrackId source) const {
    const HostView* v = hostViewOf(source);
    return v && m_pythonExpanded[std::size_t(v - m_hostViews->views.data())];
}

void LaneLayout::setPythonExpanded(TrackId source, bool expanded) {
    const HostView* v = hostViewOf(sourceTrackOf(source));
    if (!v) return;
    const std::size_t index = std::size_t(v - m_hostViews->views.data());
    if (m_pythonExpanded[index] == expanded) return;
    m_pythonExpanded[index] = expanded;
    relayout();
}

bool LaneLayout::isPythonSummary(TrackId shown) const {
    bool python = false;
    return shownPart(shown, python) && python;
}

void LaneLayout::addToGroup(std::uint32_t group, TrackId id) {
    m_groups[group].tracks.push_back(id);
    m_groupOfTrack[id.value] = group;
}

const Track& LaneLayout::track(TrackId id) const {
    bool python = false;
    if (const HostView* v = shownPart(id, python)) return python ? v->python : v->host;
    if (const DerivedTrack* d = derived(id)) return d->track();
    return m_store->track(id);
}

const DerivedTrack* LaneLayout::derived(TrackId id) const {
    if (!m_derived || id.value < m_store->tracks().size() || id.value >= m_firstViewId) return nullptr;
    return &(*m_derived)[id.value - m_store->tracks().size()];
}

CounterUnit LaneLayout::counterUnit(TrackId id) const {
    if (const DerivedTrack* d = derived(id)) return d->unit();
    const Track& t = m_store->track(id);
    return t.name.isValid() && m_store->strings().view(t.name).starts_with("Memory ") ? CounterUnit::Bytes
                                                                                      : CounterUnit::Plain;
}

void LaneLayout::collectColumns(TrackId id, const TimeAxis& axis, std::vector<CounterColumn>& out) const {
    if (const DerivedTrack* d = derived(id))
        d->collectColumns(axis, out);
    else
        collectCounterColumns(m_store->track(id), axis, out,
                              id.value < m_counterBlocks.size() ? &m_counterBlocks[id.value] : nullptr);
}

std::optional<double> LaneLayout::counterValueAt(TrackId id, const TimeAxis& axis, TimeNs t) const {
    const DerivedTrack* d = derived(id);
    if (!d || d->fold() == CounterFold::Peak) return kinetoscope::counterValueAt(track(id), t);
    const auto& times = d->track().counterTimes;
    if (times.empty() || t < times.front() || t > times.back()) return std::nullopt;
    const double column = std::floor(axis.xOf(t));
    return d->meanBetween(std::max(times.front(), axis.timeAt(column)),
                          std::min(times.back(), axis.timeAt(column + 1)));
}

std::string LaneLayout::laneTitle(TrackId id) const {
    if (const DerivedTrack* d = derived(id)) return d->title();
    id = sourceTrackOf(id);
    const Track& t = m_store->track(id);
    if (t.kind != TrackKind::GpuStream) return trackTitle(id);
    // Under its device's group header a stream lane needs only the stream; in the Pinned group no header
    // names the device, so the lane keeps it (and drops only the model name).
    const std::string stream = streamTitle(*m_store, t);
    return isPinned(id) ? "GPU " + idText(*m_store, t.pidText, t.pid) + " · " + stream : stream;
}

std::string LaneLayout::trackTitle(TrackId id) const {
    if (const DerivedTrack* d = derived(id)) {
        const std::uint32_t g = m_groupOfTrack[id.value];
        return m_groups[g].title + " · " + d->title();
    }
    return kinetoscope::trackTitle(*m_store, sourceTrackOf(id));
}

std::string streamTitle(const TraceStore& store, const Track& track) {
    // Context and event synchronizations have no stream: Kineto (and our capture) write them on tid -1.
    if (track.tid == -1 && !(track.tidText.isValid() && !store.strings().view(track.tidText).empty()))
        return "context and event syncs";
    // Kineto names GPU "threads" "stream 7"; others write only the number.
    const std::string tid = idText(store, track.tidText, track.tid);
    return tid.rfind("stream", 0) == 0 ? tid : "stream " + tid;
}

std::string processIdText(const TraceStore& store, const Track& track) {
    return idText(store, track.pidText, track.pid);
}

std::string threadIdText(const TraceStore& store, const Track& track) {
    // Kineto writes a thread id as a signed 32-bit number, negative when its top bit is set: the OS's id is
    // the unsigned one ("thread 3745515072", not "thread -549452224").
    if (!(track.tidText.isValid() && !store.strings().view(track.tidText).empty()) && track.tid < 0 &&
        track.tid >= std::int64_t(INT32_MIN))
        return std::to_string(std::uint32_t(track.tid));
    return idText(store, track.tidText, track.tid);
}

std::string trackTitle(const TraceStore& store, TrackId id) {
    const Track& t = store.track(id);
    const std::string tid = threadIdText(store, t);
    std::string name = t.name.isValid() ? std::string(store.strings().view(t.name)) : "";
    // Kineto names a thread without a name of its own "thread 4242 ()": the empty parentheses say nothing.
    if (name.ends_with(" ()")) name.resize(name.size() - 3);
    switch (t.kind) {
    case TrackKind::GpuStream: {
        const DeviceProperties* dev = deviceOf(store, t.pid);
        std::string title = "GPU " + idText(store, t.pidText, t.pid);
        if (dev && !dev->name.empty()) title += " · " + dev->name;
        title += " · " + streamTitle(store, t);
        return title;
    }
    case TrackKind::Counter:
    case TrackKind::Async:
        return name.empty() ? tid : name;
    case TrackKind::CpuThread:
        break;
    }
    if (name.empty()) return "thread " + tid;
    // Kineto already writes "thread 4242 (python)"; don't repeat the id.
    if (name.find(tid) != std::string::npos) return name;
    return name + " (" + tid + ")";
}

void LaneLayout::setCollapsed(std::uint32_t group, bool collapsed) {
    if (group >= m_groups.size() || m_groups[group].collapsed == collapsed) return;
    m_groups[group].collapsed = collapsed;
    relayout();
}

void LaneLayout::setAllCollapsed(bool collapsed) {
    for (LaneGroup& g : m_groups)
        g.collapsed = collapsed;
    relayout();
}

namespace {
bool isIdleSlice(const TraceStore& store, const Track& t, std::size_t r) {
    if (t.flags[r] & SliceFlag::Instant) return true;
    switch (store.categories()[t.categories[r]].kind) {
    case CategoryKind::PythonFunction:
    case CategoryKind::Trace:
    case CategoryKind::Overhead:
    case CategoryKind::CpuInstant:
        return true;
    default: // Other is work: plain Chrome traces write categories of their own
        return false;
    }
}
} // namespace

void LaneLayout::collapseIdleProcesses() {
    std::vector<std::uint32_t> idle;
    bool anyWork = false;
    for (std::uint32_t g = 0; g < m_groups.size(); ++g) {
        const LaneGroup& group = m_groups[g];
        if (g == m_pinnedGroup || group.kind != LaneGroup::Kind::Process) {
            anyWork = anyWork || group.kind == LaneGroup::Kind::Gpu;
            continue;
        }
        bool work = false;
        for (std::size_t i = 0; i < group.tracks.size() && !work; ++i) {
            if (group.tracks[i].value >= m_store->tracks().size()) {
                work = true; // a derived lane of its own
                break;
            }
            const Track& t = m_store->track(group.tracks[i]);
            for (std::size_t r = 0; r < t.sliceCount() && !work; ++r)
                work = !isIdleSlice(*m_store, t, r);
        }
        anyWork = anyWork || work;
        if (!work) idle.push_back(g);
    }
    if (!anyWork || idle.empty()) return;
    for (std::uint32_t g : idle)
        m_groups[g].collapsed = true;
    // Folded, they go after the last GPU: the processes with work and every GPU stream come first.
    std::uint32_t lastGpu = ~0u;
    for (std::uint32_t g = 0; g < m_groups.size(); ++g)
        if (m_groups[g].kind == LaneGroup::Kind::Gpu) lastGpu = g;
    if (lastGpu != ~0u) {
        // New position -> old index: the groups up to the last GPU but the folded ones, the folded ones, the
        // rest.
        std::vector<bool> isIdle(m_groups.size(), false);
        for (std::uint32_t g : idle)
            isIdle[g] = true;
        std::vector<std::uint32_t> order;
        for (std::uint32_t g = 0; g <= lastGpu; ++g)
            if (!isIdle[g]) order.push_back(g);
        order.insert(order.end(), idle.begin(), idle.end());
        for (std::uint32_t g = lastGpu + 1; g < m_groups.size(); ++g)
            if (!isIdle[g]) order.push_back(g);
        std::vector<std::uint32_t> newIndex(m_groups.size());
        std::vector<LaneGroup> groups;
        groups.reserve(m_groups.size());
        for (std::uint32_t n = 0; n < order.size(); ++n) {
            newIndex[order[n]] = n;
            groups.push_back(std::move(m_groups[order[n]]));
        }
        m_groups = std::move(groups);
        for (std::uint32_t& g : m_groupOfTrack)
            g = newIndex[g];
        if (m_pinnedGroup < newIndex.size()) m_pinnedGroup = newIndex[m_pinnedGroup];
    }
    relayout();
}

void LaneLayout::setHidden(TrackId track, bool hidden) {
    track = sourceTrackOf(track);
    if (track.value >= m_hidden.size() || m_hidden[track.value] == hidden) return;
    m_hidden[track.value] = hidden;
    relayout();
}

bool LaneLayout::isHidden(TrackId track) const {
    track = sourceTrackOf(track);
    return track.value < m_hidden.size() && m_hidden[track.value];
}

void LaneLayout::layTrack(std::uint32_t g, TrackId id, double& y) {
    const Track& t = track(id);
    m_firstRowOfTrack[id.value] = int(m_rows.size());
    if (const HostView* v = hostViewOf(id); v && !pythonExpanded(id)) {
        // Compact: the Python summary lane, then the thread's other slices.
        const std::size_t view = std::size_t(v - m_hostViews->views.data());
        m_firstRowOfTrack[pythonIdOf(view).value] = int(m_rows.size());
        m_rows.push_back({LaneRow::Kind::Slices, g, pythonIdOf(view), 0, y, m_metrics.sliceHeight});
        y += m_metrics.sliceHeight;
        // A thread of nothing but Python frames has no host lane: its one row is the summary.
        if (v->host.laneCount() > 0) m_firstRowOfTrack[hostIdOf(view).value] = int(m_rows.size());
        const std::uint32_t hostLanes = std::uint32_t(v->host.laneCount()) - cappedLanes(id);
        for (std::uint32_t d = 0; d < hostLanes; ++d) {
            m_rows.push_back({LaneRow::Kind::Slices, g, hostIdOf(view), d, y, m_metrics.sliceHeight});
            y += m_metrics.sliceHeight;
        }
    } else if (t.kind == TrackKind::Counter) {
        m_rows.push_back({LaneRow::Kind::Counter, g, id, 0, y, m_metrics.counterHeight});
        y += m_metrics.counterHeight;
    } else {
        const std::uint32_t lanes =
            std::max<std::uint32_t>(1, std::uint32_t(t.laneCount())) - cappedLanes(id);
        for (std::uint32_t d = 0; d < lanes; ++d) {
            m_rows.push_back({LaneRow::Kind::Slices, g, id, d, y, m_metrics.sliceHeight});
            y += m_metrics.sliceHeight;
        }
    }
    y += m_metrics.trackGap;
}

void LaneLayout::layGroup(std::uint32_t g, bool pinnedSection, double& y) {
    const LaneGroup& group = m_groups[g];
    std::vector<TrackId> shown;
    bool allPinned = !group.tracks.empty();
    for (TrackId id : group.tracks) {
        const bool pinned = isPinned(id);
        allPinned = allPinned && pinned;
        if (m_hidden[id.value] || (pinned && !pinnedSection) || !passesFilter(id, group)) continue;
        shown.push_back(id);
    }
    // A group the filter empties, or whose tracks are all pinned, has nothing to show: no header either.
    if (shown.empty() && (!m_filter.empty() || (allPinned && !pinnedSection))) return;
    // The Pinned group without its header row where the pane says whose streams they are (compact panes).
    if (!pinnedSection || m_pinnedHeader) {
        m_headerRowOfGroup[g] = int(m_rows.size());
        m_rows.push_back({LaneRow::Kind::GroupHeader, g, TrackId(), 0, y, m_metrics.headerHeight});
        y += m_metrics.headerHeight;
        if (group.collapsed) return;
    }
    for (TrackId id : shown)
        layTrack(g, id, y);
}

bool LaneLayout::passesFilter(TrackId id, const LaneGroup& group) const {
    if (m_filter.empty()) return true;
    auto contains = [&](std::string_view text) {
        return asciiLower(text).find(m_filter) != std::string::npos;
    };
    return contains(group.title) || contains(trackTitle(id));
}

void LaneLayout::relayout() {
    m_rows.clear();
    m_firstRowOfTrack.assign(m_groupOfTrack.size(), -1);
    m_headerRowOfGroup.assign(m_groups.size(), -1);
    double y = 0;
    if (m_pinnedGroup < m_groups.size() && !m_groups[m_pinnedGroup].tracks.empty())
        layGroup(m_pinnedGroup, true, y);
    for (std::uint32_t g = 0; g < m_groups.size(); ++g)
        if (g != m_pinnedGroup) layGroup(g, false, y);
    m_contentHeight = y;
    ++m_generation;
}

void LaneLayout::setPinnedHeader(bool shown) {
    if (shown == m_pinnedHeader) return;
    m_pinnedHeader = shown;
    relayout();
}

void LaneLayout::setDepthCap(std::uint32_t lanes) {
    if (lanes == m_depthCap) return;
    m_depthCap = lanes;
    relayout();
}

std::uint32_t LaneLayout::cappedLanes(TrackId source) const {
    if (m_depthCap == 0 || source.value >= m_store->tracks().size() || isUncapped(source)) return 0;
    const Track& t = m_store->track(source);
    if (t.kind != TrackKind::CpuThread) return 0;
    // A compact thread: its summary lane, then at most cap - 1 lanes of its other slices (Dynamo's compile
    // stack runs 17 deep there). Its Python frames shown in full: all lanes, as the user asked.
    if (const HostView* v = hostViewOf(source)) {
        if (pythonExpanded(source)) return 0;
        const std::uint32_t keep = std::max<std::uint32_t>(1, m_depthCap - 1);
        return v->host.laneCount() > keep ? std::uint32_t(v->host.laneCount()) - keep : 0;
    }
    return t.laneCount() > m_depthCap ? std::uint32_t(t.laneCount()) - m_depthCap : 0;
}

bool LaneLayout::foldedByCap(EventRef ref) const {
    ref = sourceOf(ref);
    const std::uint32_t capped = cappedLanes(ref.track);
    if (capped == 0) return false;
    if (const HostView* v = hostViewOf(ref.track)) {
        const std::uint32_t shown = v->shownRowOf[ref.index.value];
        if (shown == HostView::noRow || (shown & HostView::pythonBit)) return false;
        return v->host.depthOf(shown) >= v->host.laneCount() - capped;
    }
    const Track& t = m_store->track(ref.track);
    return t.depthOf(ref.index.value) >= t.laneCount() - capped;
}

std::uint32_t LaneLayout::fitGpuStreamsWithin(double page) {
    // The bottom of the last GPU stream's lanes (or of its group's header when folded) under a cap.
    const auto gpuBottom = [&] {
        double bottom = 0;
        for (const LaneRow& r : m_rows)
            if (r.track.isValid() && r.track.value < m_store->tracks().size() &&
                m_store->track(r.track).kind == TrackKind::GpuStream)
                bottom = std::max(bottom, r.y + r.height);
        return bottom;
    };
    for (const std::uint32_t cap : {0u, 12u, 10u, 8u, 6u, 5u, 4u, 3u}) {
        m_depthCap = cap;
        relayout();
        if (gpuBottom() <= page) return cap;
    }
    // Not even three lanes a thread make room (many streams): three, and the rest scrolls.
    return m_depthCap;
}

bool LaneLayout::isUncapped(TrackId source) const {
    return source.value < m_uncapped.size() && m_uncapped[source.value];
}

void LaneLayout::setUncapped(TrackId source, bool uncapped) {
    source = sourceTrackOf(source);
    if (source.value >= m_store->tracks().size() || isUncapped(source) == uncapped) return;
    m_uncapped.resize(m_store->tracks().size(), false);
    m_uncapped[source.value] = uncapped;
    relayout();
}

std::size_t LaneLayout::hiddenCount() const {
    return std::size_t(std::count(m_hidden.begin(), m_hidden.end(), true));
}

void LaneLayout::setTrackFilter(const std::string& text) {
    std::string lower = asciiLower(text);
    if (lower == m_filter) return;
    m_filter = std::move(lower);
    relayout();
}

bool LaneLayout::isPinned(TrackId track) const {
    track = sourceTrackOf(track);
    if (m_pinnedGroup >= m_groups.size()) return false;
    const std::vector<TrackId>& pinned = m_groups[m_pinnedGroup].tracks;
    return std::find(pinned.begin(), pinned.end(), track) != pinned.end();
}

void LaneLayout::setPinned(TrackId track, bool pinned) {
    track = sourceTrackOf(track);
    if (track.value >= m_groupOfTrack.size() || isPinned(track) == pinned) return;
    if (m_pinnedGroup >= m_groups.size()) {
        LaneGroup g;
        g.kind = LaneGroup::Kind::Process;
        g.title = "Pinned";
        m_pinnedGroup = std::uint32_t(m_groups.size());
        m_groups.push_back(std::move(g));
    }
    std::vector<TrackId>& list = m_groups[m_pinnedGroup].tracks;
    if (pinned)
        list.push_back(track);
    else
        list.erase(std::find(list.begin(), list.end(), track));
    relayout();
}

int LaneLayout::rowAt(double y) const {
    if (m_rows.empty() || y < 0) return -1;
    auto it =
        std::upper_bound(m_rows.begin(), m_rows.end(), y, [](double v, const LaneRow& r) { return v < r.y; });
    if (it == m_rows.begin()) return -1;
    --it;
    if (y >= it->y + it->height) return -1; // in a gap
    return int(it - m_rows.begin());
}

int LaneLayout::rowNear(double y) const {
    if (m_rows.empty()) return -1;
    auto it =
        std::upper_bound(m_rows.begin(), m_rows.end(), y, [](double v, const LaneRow& r) { return v < r.y; });
    return it == m_rows.begin() ? 0 : int(it - m_rows.begin()) - 1;
}

std::pair<std::size_t, std::size_t> LaneLayout::rowsBetween(double top, double bottom) const {
    auto first = std::upper_bound(m_rows.begin(), m_rows.end(), top,
                                  [](double v, const LaneRow& r) { return v < r.y + r.height; });
    auto last =
        std::lower_bound(first, m_rows.end(), bottom, [](const LaneRow& r, double v) { return r.y < v; });
    return {std::size_t(first - m_rows.begin()), std::size_t(last - m_rows.begin())};
}

int LaneLayout::rowOf(EventRef ref) const {
    if (!ref.isValid() || ref.track.value >= m_firstRowOfTrack.size()) return -1;
    ref = sourceOf(ref);
    const int first = m_firstRowOfTrack[ref.track.value];
    if (first < 0) return m_headerRowOfGroup[m_groupOfTrack[ref.track.value]];
    if (const HostView* v = hostViewOf(ref.track); v && !pythonExpanded(ref.track)) {
        // Compact: a Python frame is drawn in the summary lane (the outermost there, the rest under it).
        const std::uint32_t shown = v->shownRowOf[ref.index.value];
        if (shown == HostView::noRow || (shown & HostView::pythonBit)) return first;
        // Under a depth cap, a deeper slice is drawn on the last lane shown.
        const int hostLanes = int(v->host.laneCount()) - int(cappedLanes(ref.track));
        return first + 1 + std::min(int(v->host.depthOf(shown)), std::max(0, hostLanes - 1));
    }
    const Track& t = track(ref.track);
    if (t.kind == TrackKind::Counter) return first;
    // Under a depth cap, a deeper slice is drawn on the last lane shown.
    const int shownLanes = std::max(1, int(t.laneCount()) - int(cappedLanes(ref.track)));
    return first + std::min(int(t.depthOf(ref.index.value)), shownLanes - 1);
}

int LaneLayout::firstRowOf(TrackId track) const {
    return track.value < m_firstRowOfTrack.size() ? m_firstRowOfTrack[track.value] : -1;
}

} // namespace kinetoscope
