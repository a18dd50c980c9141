// Store build, flows: flow halves sorted, paired and bound to the slices that enclose them; the correlation
// and External-id tables that join launches to GPU work.
#include "storebuild.h"

#include "model/parallel.h"

#include <numeric>
#include <tuple>

namespace kinetoscope::storebuild {

std::optional<std::uint32_t> StoreBuild::nextStarting(const Track& t, TimeNs ts) const {
    std::optional<std::uint32_t> best;
    for (std::uint32_t d = 0; d < t.laneCount(); ++d) {
        const auto first = t.starts.begin() + t.laneBegin[d];
        const auto last = t.starts.begin() + t.laneBegin[d + 1];
        auto it = std::lower_bound(first, last, ts);
        while (it != last && (t.flags[it - t.starts.begin()] & SliceFlag::Instant))
            ++it;
        if (it == last) continue;
        const auto row = std::uint32_t(it - t.starts.begin());
        if (!best || t.starts[row] < t.starts[*best]) best = row;
    }
    return best;
}

// Sorting the flow halves by id and pairing them needs no slice: done on a second core while the tracks
// are sorted (pairFlows), then resolveFlows binds the paired ends to slices. Orders the flow halves by
// (category, name, idText, id, ts, offset). Traces have a handful of (category, name, idText) groups: the
// groups are ranked, then small keys are radix-sorted by id and bucketed by group, and the halves (72
// bytes each) are moved once. Several times faster than sorting the halves themselves.
void StoreBuild::sortFlowHalves() {
    auto less = [](const PendingFlow& a, const PendingFlow& b) {
        return std::tie(a.flow.category, a.flow.name, a.flow.idText, a.flow.id, a.flow.ts, a.flow.offset) <
               std::tie(b.flow.category, b.flow.name, b.flow.idText, b.flow.id, b.flow.ts, b.flow.offset);
    };
    using Group = std::tuple<std::uint16_t, std::uint32_t, std::uint32_t>; // category, name, idText
    auto groupOf = [](const PendingFlow& f) { return Group(f.flow.category, f.flow.name, f.flow.idText); };
    std::vector<Group> groups;
    for (const PendingFlow& f : m_flows) {
        const Group g = groupOf(f);
        if (!groups.empty() && groups.back() == g) continue;
        if (std::find(groups.begin(), groups.end(), g) != groups.end()) continue;
        groups.push_back(g);
        if (groups.size() > 64) break;
    }
    if (m_flows.size() < 4096 || groups.size() > 64) {
        std::sort(m_flows.begin(), m_flows.end(), less);
        return;
    }
    std::sort(groups.begin(), groups.end());
    struct Key {
        std::uint64_t id;
        std::uint32_t group;
        std::uint32_t index;
    };
    std::vector<Key> keys(m_flows.size());
    std::size_t last = 0;
    for (std::uint32_t i = 0; i < m_flows.size(); ++i) {
        const Group g = groupOf(m_flows[i]);
        if (groups[last] != g)
            last = std::size_t(std::lower_bound(groups.begin(), groups.end(), g) - groups.begin());
        keys[i] = {m_flows[i].flow.id, std::uint32_t(last), i};
    }
    radixSort(
        keys, [](const Key& k) { return k.id; },
        [&](const Key& a, const Key& b) {
            if (a.group != b.group) return a.group < b.group;
            return less(m_flows[a.index], m_flows[b.index]);
        });
    // Stable bucketing by group keeps the (id, ts, offset) order within each.
    std::vector<std::size_t> start(groups.size() + 1, 0);
    for (const Key& k : keys)
        ++start[k.group + 1];
    std::partial_sum(start.begin(), start.end(), start.begin());
    std::vector<PendingFlow> sorted(m_flows.size());
    for (const Key& k : keys)
        sorted[start[k.group]++] = m_flows[k.index];
    m_flows.swap(sorted);
}

void StoreBuild::pairFlows() {
    ImportStats& stats = m_store.stats;
    sortFlowHalves();
    auto sameKey = [](const ParsedFlow& a, const ParsedFlow& b) {
        return a.category == b.category && a.name == b.name && a.idText == b.idText && a.id == b.id;
    };
    // Pair the halves first, so that only ends that have a partner are bound to slices (real traces
    // carry hundreds of thousands of orphan ends).
    std::vector<std::pair<std::uint32_t, std::uint32_t>>& pairs = m_flowPairs;
    std::int64_t pending = -1;
    for (std::size_t i = 0; i < m_flows.size(); ++i) {
        const char ph = m_flows[i].flow.phase;
        if (ph == 's') {
            if (pending >= 0) ++stats.flowStartsUnmatched;
            pending = std::int64_t(i);
        } else if (pending < 0) {
            ++stats.flowEndsUnmatched;
            if (ph == 't') pending = std::int64_t(i);
        } else {
            pairs.emplace_back(std::uint32_t(pending), std::uint32_t(i));
            pending = ph == 't' ? std::int64_t(i) : -1;
        }
        if (i + 1 == m_flows.size() || !sameKey(m_flows[i].flow, m_flows[i + 1].flow)) {
            if (pending >= 0) ++stats.flowStartsUnmatched;
            pending = -1;
        }
    }
}

// Binds flow ends of one track, given in time order, to the deepest slice containing their time, exactly
// as Track::deepestAt answers it (instants skipped; every lane tried, since a slice displaced by an
// overlap can sit below a gap): each lane keeps a pointer to its first row starting after the current
// time.
void StoreBuild::sweepEnclosing(std::uint32_t trackIndex, const std::uint32_t* first,
                                const std::uint32_t* last) {
    if (first == last) return;
    const Track& t = m_store.tracks[trackIndex];
    const std::size_t lanes = t.laneCount();
    // Per lane: the first row starting after the current time, and the last slice (not an instant) before
    // it, kept as the pointer moves, so a run of instants is walked once per track, not once per flow end.
    constexpr std::uint32_t none = UINT32_MAX;
    std::vector<std::uint32_t> next(lanes), lastSlice(lanes, none);
    const TimeNs t0 = m_flows[*first].flow.ts;
    for (std::size_t d = 0; d < lanes; ++d) {
        const std::uint32_t lo = t.laneBegin[d];
        next[d] =
            std::uint32_t(std::upper_bound(t.starts.begin() + lo, t.starts.begin() + t.laneBegin[d + 1], t0) -
                          t.starts.begin());
        for (std::uint32_t q = next[d]; q > lo; --q)
            if (!(t.flags[q - 1] & SliceFlag::Instant)) {
                lastSlice[d] = q - 1;
                break;
            }
    }
    for (const std::uint32_t* p = first; p != last; ++p) {
        PendingFlow& pf = m_flows[*p];
        const TimeNs ts = pf.flow.ts;
        std::optional<std::uint32_t> found;
        for (std::size_t d = 0; d < lanes; ++d) {
            const std::uint32_t hi = t.laneBegin[d + 1];
            std::uint32_t& n = next[d];
            for (; n < hi && t.starts[n] <= ts; ++n)
                if (!(t.flags[n] & SliceFlag::Instant)) lastSlice[d] = n;
            const std::uint32_t row = lastSlice[d];
            if (row != none && (ts < t.endOf(row) || ts == t.starts[row])) found = row;
        }
        if (found) pf.bound = EventRef{TrackId(trackIndex), EventIndex(*found)};
        pf.tried = true;
    }
}

void StoreBuild::resolveFlows() {
    ImportStats& stats = m_store.stats;
    const std::vector<std::pair<std::uint32_t, std::uint32_t>>& pairs = m_flowPairs;
    auto bind = [&](PendingFlow& pf) -> EventRef {
        if (pf.tried) return pf.bound;
        pf.tried = true;
        auto it = m_threadTracks.find(pf.thread);
        if (it == m_threadTracks.end()) return {};
        const Track& t = m_store.tracks[it->second];
        const auto row = pf.flow.bindEnclosing ? t.deepestAt(pf.flow.ts) : nextStarting(t, pf.flow.ts);
        if (row) pf.bound = EventRef{TrackId(it->second), EventIndex(*row)};
        return pf.bound;
    };
    // Bind every end that has a partner once. Ends that bind to their enclosing slice (nearly all) are
    // grouped by track and taken in time order, so each lane is walked once with a pointer
    // (sweepEnclosing) instead of a binary search per lane per end; the pieces run on two threads.
    {
        std::vector<std::uint32_t> ends;
        ends.reserve(pairs.size() * 2);
        for (const auto& [from, to] : pairs) {
            ends.push_back(from);
            ends.push_back(to);
        }
        std::sort(ends.begin(), ends.end());
        ends.erase(std::unique(ends.begin(), ends.end()), ends.end());
        std::vector<std::vector<std::uint32_t>> byTrack(m_store.tracks.size());
        std::vector<std::uint32_t> nextStartingEnds;
        const GlobalThread* cachedKey[2] = {nullptr, nullptr};
        std::uint32_t cachedTrack[2] = {0, 0};
        for (const std::uint32_t e : ends) {
            const PendingFlow& pf = m_flows[e];
            if (!pf.flow.bindEnclosing) {
                nextStartingEnds.push_back(e);
                continue;
            }
            // Launch flows alternate between a CPU thread and a GPU stream: remember the last two
            // lookups.
            std::uint32_t track;
            if (cachedKey[0] && *cachedKey[0] == pf.thread) {
                track = cachedTrack[0];
            } else if (cachedKey[1] && *cachedKey[1] == pf.thread) {
                track = cachedTrack[1];
            } else {
                auto it = m_threadTracks.find(pf.thread);
                if (it == m_threadTracks.end()) continue;
                track = it->second;
                cachedKey[1] = cachedKey[0];
                cachedTrack[1] = cachedTrack[0];
                cachedKey[0] = &pf.thread;
                cachedTrack[0] = track;
            }
            byTrack[track].push_back(e);
        }
        struct Piece {
            std::uint32_t track;
            std::size_t begin, end;
        };
        std::vector<Piece> pieces;
        for (std::uint32_t t = 0; t < byTrack.size(); ++t) {
            std::vector<std::uint32_t>& list = byTrack[t];
            if (list.empty()) continue;
            auto byTime = [&](std::uint32_t a, std::uint32_t b) {
                return m_flows[a].flow.ts < m_flows[b].flow.ts;
            };
            sortFewRuns(list, byTime);
            if (list.size() >= parallelThreshold) {
                pieces.push_back({t, 0, list.size() / 2});
                pieces.push_back({t, list.size() / 2, list.size()});
            } else {
                pieces.push_back({t, 0, list.size()});
            }
        }
        // Two workers take pieces, biggest first, each keeping to the lighter load.
        std::sort(pieces.begin(), pieces.end(),
                  [](const Piece& a, const Piece& b) { return a.end - a.begin > b.end - b.begin; });
        std::vector<Piece> work[2];
        std::size_t load[2] = {0, 0};
        for (const Piece& piece : pieces) {
            const int w = load[0] <= load[1] ? 0 : 1;
            work[w].push_back(piece);
            load[w] += piece.end - piece.begin;
        }
        auto runWork = [&](int w) {
            for (const Piece& piece : work[w]) {
                const std::vector<std::uint32_t>& list = byTrack[piece.track];
                sweepEnclosing(piece.track, list.data() + piece.begin, list.data() + piece.end);
            }
        };
        parallelInvoke(
            load[0] + load[1] >= parallelThreshold, [&] { runWork(1); }, [&] { runWork(0); });
        for (const std::uint32_t e : nextStartingEnds)
            bind(m_flows[e]);
    }
    std::vector<FlowKind> kindOfCategory;
    for (const Category& c : m_store.categories)
        kindOfCategory.push_back(flowKindOf(m_store.strings.view(c.name)));
    std::vector<Flow> flows;
    flows.reserve(pairs.size());
    for (const auto& [from, to] : pairs) {
        const EventRef source = bind(m_flows[from]);
        const EventRef target = bind(m_flows[to]);
        if (!source.isValid() || !target.isValid()) {
            ++stats.flowsUnbound;
            continue;
        }
        const std::uint16_t category = m_flows[to].flow.category;
        const StringId cat = m_store.categories[category].name;
        flows.push_back({source, target, kindOfCategory[category], cat});
    }
    m_flows.clear();
    m_flows.shrink_to_fit();
    m_flowPairs = {};
    m_store.flows = std::move(flows);
}

void StoreBuild::buildCorrelationIndex() {
    for (const PendingIds& p : m_pendingIds) {
        const EventRef ref{TrackId(p.track), EventIndex(p.row)};
        const CategoryKind kind = m_store.categoryOf(ref).kind;
        if (p.ids.hasCorrelation) {
            if (isLaunchCategory(kind))
                m_store.launchByCorrelation.push_back({p.ids.correlation, ref});
            else if (isGpuCategory(kind))
                m_store.gpuByCorrelation.push_back({p.ids.correlation, ref});
        }
        if (p.ids.hasExternalId) m_store.byExternalId.push_back({p.ids.externalId, ref});
    }
    m_pendingIds.clear();
    m_pendingIds.shrink_to_fit();
    // Ids grow with time on each thread and the entries come track by track: usually a few ascending
    // runs.
    sortById(m_store.launchByCorrelation);
    sortById(m_store.gpuByCorrelation);
    sortById(m_store.byExternalId);
}

void StoreBuild::linkLaunchesByCorrelation() {
    // Launch -> GPU work by correlation id. This also keeps the links whose ac2g flow lost a half.
    // Slices that already have a launch flow, one bit per slice (rows of track t start at firstRow[t]).
    std::vector<std::size_t> firstRow(m_store.tracks.size() + 1, 0);
    for (std::size_t t = 0; t < m_store.tracks.size(); ++t)
        firstRow[t + 1] = firstRow[t] + m_store.tracks[t].sliceCount();
    std::vector<bool> linked(firstRow.back());
    for (const Flow& f : m_store.flows)
        if (f.kind == FlowKind::Launch) linked[firstRow[f.target.track.value] + f.target.index.value] = true;
    const StringId cat = m_store.strings.intern("ac2g");
    const auto& launches = m_store.launchByCorrelation;
    std::size_t li = 0;
    for (const CorrelationEntry& g : m_store.gpuByCorrelation) {
        while (li < launches.size() && launches[li].id < g.id)
            ++li;
        if (li == launches.size() || launches[li].id != g.id) continue;
        if (linked[firstRow[g.ref.track.value] + g.ref.index.value]) continue;
        m_store.flows.push_back({launches[li].ref, g.ref, FlowKind::Launch, cat});
    }
    radixSort(
        m_store.flows, [](const Flow& f) { return packRef(f.source); },
        [](const Flow& a, const Flow& b) {
            return std::tie(a.source, a.target) < std::tie(b.source, b.target);
        });
    m_store.flows.erase(std::unique(m_store.flows.begin(), m_store.flows.end(),
                                    [](const Flow& a, const Flow& b) {
                                        return a.source == b.source && a.target == b.target &&
                                               a.kind == b.kind;
                                    }),
                        m_store.flows.end());
    m_store.indexFlows();
}

} // namespace kinetoscope::storebuild
