#include "lanelayout.h"

#include <algorithm>
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

LaneLayout::LaneLayout(const TraceStore& store, const DerivedTracks* derived, LaneMetrics metrics)
    : m_store(&store), m_derived(derived && !derived->empty() ? derived : nullptr), m_metrics(metrics) {
    const std::size_t derivedCount = m_derived ? m_derived->size() : 0;
    m_groupOfTrack.assign(store.tracks().size() + derivedCount, 0);
    m_hidden.assign(store.tracks().size() + derivedCount, false);
    for (std::uint32_t i = 0; i < store.tracks().size(); ++i) {
        const Track& t = store.tracks()[i];
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
    // Derived lanes: a GPU's at the top of its group, in the order given; the rest in groups of their own.
    std::vector<std::vector<TrackId>> onTop(m_groups.size());
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
            onTop[std::size_t(gpuGroup - m_groups.begin())].push_back(id);
            m_groupOfTrack[id.value] = std::uint32_t(gpuGroup - m_groups.begin());
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
    for (std::size_t g = 0; g < onTop.size(); ++g)
        m_groups[g].tracks.insert(m_groups[g].tracks.begin(), onTop[g].begin(), onTop[g].end());
    relayout();
}

void LaneLayout::addToGroup(std::uint32_t group, TrackId id) {
    m_groups[group].tracks.push_back(id);
    m_groupOfTrack[id.value] = group;
}

const Track& LaneLayout::track(TrackId id) const {
    if (const DerivedTrack* d = derived(id)) return d->track();
    return m_store->track(id);
}

const DerivedTrack* LaneLayout::derived(TrackId id) const {
    if (!m_derived || id.value < m_store->tracks().size()) return nullptr;
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
        collectCounterColumns(m_store->track(id), axis, out);
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
    const Track& t = m_store->track(id);
    if (t.kind != TrackKind::GpuStream) return trackTitle(id);
    // Under its device's group header a stream lane needs only the stream.
    const std::string tid = idText(*m_store, t.tidText, t.tid);
    return tid.rfind("stream", 0) == 0 ? tid : "stream " + tid;
}

std::string LaneLayout::trackTitle(TrackId id) const {
    if (const DerivedTrack* d = derived(id)) {
        const std::uint32_t g = m_groupOfTrack[id.value];
        return m_groups[g].title + " · " + d->title();
    }
    return kinetoscope::trackTitle(*m_store, id);
}

std::string trackTitle(const TraceStore& store, TrackId id) {
    const Track& t = store.track(id);
    const std::string tid = idText(store, t.tidText, t.tid);
    const std::string name = t.name.isValid() ? std::string(store.strings().view(t.name)) : "";
    switch (t.kind) {
    case TrackKind::GpuStream: {
        const DeviceProperties* dev = deviceOf(store, t.pid);
        std::string title = "GPU " + idText(store, t.pidText, t.pid);
        if (dev && !dev->name.empty()) title += " · " + dev->name;
        // Kineto names GPU "threads" "stream 7"; others write only the number.
        title += " · " + (tid.rfind("stream", 0) == 0 ? tid : "stream " + tid);
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

void LaneLayout::setHidden(TrackId track, bool hidden) {
    if (track.value >= m_hidden.size() || m_hidden[track.value] == hidden) return;
    m_hidden[track.value] = hidden;
    relayout();
}

bool LaneLayout::isHidden(TrackId track) const {
    return track.value < m_hidden.size() && m_hidden[track.value];
}

void LaneLayout::relayout() {
    m_rows.clear();
    m_firstRowOfTrack.assign(m_groupOfTrack.size(), -1);
    m_headerRowOfGroup.assign(m_groups.size(), -1);
    double y = 0;
    for (std::uint32_t g = 0; g < m_groups.size(); ++g) {
        const LaneGroup& group = m_groups[g];
        m_headerRowOfGroup[g] = int(m_rows.size());
        m_rows.push_back({LaneRow::Kind::GroupHeader, g, TrackId(), 0, y, m_metrics.headerHeight});
        y += m_metrics.headerHeight;
        if (group.collapsed) continue;
        for (TrackId id : group.tracks) {
            if (m_hidden[id.value]) continue;
            const Track& t = track(id);
            m_firstRowOfTrack[id.value] = int(m_rows.size());
            if (t.kind == TrackKind::Counter) {
                m_rows.push_back({LaneRow::Kind::Counter, g, id, 0, y, m_metrics.counterHeight});
                y += m_metrics.counterHeight;
            } else {
                const std::uint32_t lanes = std::max<std::uint32_t>(1, std::uint32_t(t.laneCount()));
                for (std::uint32_t d = 0; d < lanes; ++d) {
                    m_rows.push_back({LaneRow::Kind::Slices, g, id, d, y, m_metrics.sliceHeight});
                    y += m_metrics.sliceHeight;
                }
            }
            y += m_metrics.trackGap;
        }
    }
    m_contentHeight = y;
    ++m_generation;
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

std::pair<std::size_t, std::size_t> LaneLayout::rowsBetween(double top, double bottom) const {
    auto first = std::upper_bound(m_rows.begin(), m_rows.end(), top,
                                  [](double v, const LaneRow& r) { return v < r.y + r.height; });
    auto last =
        std::lower_bound(first, m_rows.end(), bottom, [](const LaneRow& r, double v) { return r.y < v; });
    return {std::size_t(first - m_rows.begin()), std::size_t(last - m_rows.begin())};
}

int LaneLayout::rowOf(EventRef ref) const {
    if (!ref.isValid() || ref.track.value >= m_firstRowOfTrack.size()) return -1;
    const int first = m_firstRowOfTrack[ref.track.value];
    if (first < 0) return m_headerRowOfGroup[m_groupOfTrack[ref.track.value]];
    const Track& t = track(ref.track);
    if (t.kind == TrackKind::Counter) return first;
    return first + int(t.depthOf(ref.index.value));
}

int LaneLayout::firstRowOf(TrackId track) const {
    return track.value < m_firstRowOfTrack.size() ? m_firstRowOfTrack[track.value] : -1;
}

} // namespace kinetoscope
