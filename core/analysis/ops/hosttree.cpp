#include "analysis/ops/hosttree.h"

#include "model/argscan.h"
#include "model/nesting.h"
#include "model/radixsort.h"
#include "model/runmerge.h"

#include <algorithm>
#include <cctype>
#include <numeric>
#include <unordered_map>

namespace kinetoscope {

bool isAnnotationName(std::string_view n) {
    return n.starts_with("ProfilerStep#") || n.starts_with("Optimizer.step#") ||
           n.starts_with("Optimizer.zero_grad#") || n.starts_with("enumerate(DataLoader)#") ||
           n.starts_with("enumerate(DataPipe)#");
}

std::string annotationGroupName(std::string_view name) {
    const std::size_t hash = name.rfind('#');
    if (hash == std::string_view::npos || hash + 1 == name.size()) return std::string(name);
    for (std::size_t i = hash + 1; i < name.size(); ++i)
        if (!std::isdigit(static_cast<unsigned char>(name[i]))) return std::string(name);
    return std::string(name.substr(0, hash + 1)) + "*";
}

namespace {
// The role a category gives (a CpuOp named like an annotation is one: HostRoles::of).
HostRole roleOfKind(CategoryKind kind) {
    if (!isHostEventKind(kind)) return HostRole::None;
    if (kind == CategoryKind::CpuOp) return HostRole::Operator;
    if (kind == CategoryKind::UserAnnotation) return HostRole::Annotation;
    return HostRole::Launch; // runtime and driver calls
}
} // namespace

HostRole hostRole(const TraceStore& store, const Track& track, std::uint32_t row) {
    if (track.flags[row] & SliceFlag::Instant) return HostRole::None;
    const HostRole role = roleOfKind(store.categories()[track.categories[row]].kind);
    return role == HostRole::Operator && isAnnotationName(store.strings().view(track.names[row]))
               ? HostRole::Annotation
               : role;
}

HostRoles::HostRoles(const TraceStore& store)
    : m_store(&store), m_annotationName(store.strings().size(), false) {
    for (const Category& c : store.categories())
        m_byCategory.push_back(roleOfKind(c.kind));
    for (std::uint32_t i = 0; i < store.strings().size(); ++i)
        m_annotationName[i] = isAnnotationName(store.strings().view(StringId(i)));
}

namespace {
// The node among `owner` and its ancestors that carries the External id of the launch call at `row`
// (hosttree.h says why); `owner` when none does. Asked only for launches directly inside an annotation: few,
// so the args are read for them alone.
std::int32_t ownerByExternalId(const HostRoles& roles, const Track& track, std::uint32_t row,
                               const std::vector<HostNode>& nodes, std::int32_t owner) {
    const TraceStore& store = roles.store();
    const auto trackIndex = static_cast<std::uint32_t>(&track - store.tracks().data());
    if (trackIndex >= store.tracks().size()) return owner; // a track of another store
    const TrackId trackId(trackIndex);
    const auto id = argInteger(store.argsText({trackId, EventIndex(row)}), "External id");
    if (!id || *id <= 0) return owner;
    const auto& entries = store.byExternalId();
    const auto [lo, hi] =
        std::equal_range(entries.begin(), entries.end(), CorrelationEntry{std::uint64_t(*id), {}},
                         [](const CorrelationEntry& a, const CorrelationEntry& b) { return a.id < b.id; });
    // An id is one operator's, with its launches and GPU work (thousands of kernels for a CUDA graph replay),
    // and on this thread one operator. More mean ids a file reuses (a generated or broken trace), where the
    // id tells nothing; so does a range too long to read.
    constexpr std::size_t maxRows = 64;
    constexpr std::ptrdiff_t maxEntries = std::ptrdiff_t{1} << 16;
    if (hi - lo > maxEntries) return owner;
    std::uint32_t rows[maxRows];
    std::size_t rowCount = 0;
    for (auto e = lo; e != hi; ++e) {
        if (e->ref.track != trackId) continue;
        const HostRole role = roles.of(track, e->ref.index.value);
        if (role != HostRole::Operator && role != HostRole::Annotation) continue;
        if (rowCount == maxRows) return owner;
        rows[rowCount++] = e->ref.index.value;
    }
    if (rowCount == 0) return owner;
    for (std::int32_t n = owner; n >= 0; n = nodes[std::size_t(n)].parent)
        for (std::size_t i = 0; i < rowCount; ++i)
            if (rows[i] == nodes[std::size_t(n)].row) return n;
    return owner;
}
} // namespace

HostTree hostTree(const HostRoles& roles, const Track& track, TimeNs from, TimeNs to) {
    struct Item {
        TimeNs start;
        TimeNs negDuration;
        std::uint32_t depth;
        std::uint32_t row;
    };
    std::vector<Item> items;
    // The events that start in the range, with all their descendants: those may start after `to`.
    TimeNs reach = to;
    if (to != INT64_MAX) {
        for (std::uint32_t d = 0; d < track.laneCount(); ++d) {
            const auto [r0, r1] = track.rowsInRange(d, from, to);
            for (std::uint32_t r = r0; r < r1; ++r)
                if (track.starts[r] >= from && roles.of(track, r) != HostRole::None)
                    reach = std::max(reach, track.endOf(r));
        }
    }
    std::size_t rows = 0;
    for (std::uint32_t d = 0; d < track.laneCount(); ++d) {
        const auto [r0, r1] = track.rowsInRange(d, from, reach);
        rows += r1 - r0;
    }
    items.reserve(rows);
    for (std::uint32_t d = 0; d < track.laneCount(); ++d) {
        const auto [r0, r1] = track.rowsInRange(d, from, reach);
        for (std::uint32_t r = r0; r < r1; ++r)
            if (roles.of(track, r) != HostRole::None)
                items.push_back({track.starts[r], -track.durations[r], d, r});
    }
    // The store's own order within a thread: start, then longer first, then lane (the lane layout puts the
    // event earlier in the file on the shallower lane when two have the same start and duration). Each lane
    // is one run of it already, so a few lanes are merged rather than sorted.
    auto before = [](const Item& a, const Item& b) {
        if (a.start != b.start) return a.start < b.start;
        if (a.negDuration != b.negDuration) return a.negDuration < b.negDuration;
        return a.depth != b.depth ? a.depth < b.depth : a.row < b.row;
    };
    if (!mergeFewRuns(items, before, 64)) std::sort(items.begin(), items.end(), before);
    HostTree tree;
    std::size_t launches = 0;
    for (const Item& item : items)
        launches += roles.of(track, item.row) == HostRole::Launch;
    tree.launches.reserve(launches);
    tree.nodes.reserve(items.size() - launches);
    struct Open {
        TimeNs end;
        std::int32_t node; // the open event's node, or for a launch call the node that owns it
        bool launch;
    };
    std::vector<Open> open;
    for (const Item& item : items) {
        const TimeNs s = item.start, e = s - item.negDuration;
        while (!open.empty() &&
               !(s < open.back().end && endsWithin(open.back().end, s, e, track.nestingSlack)))
            open.pop_back();
        const Open* top = open.empty() ? nullptr : &open.back();
        if (top && !top->launch) {
            tree.nodes[std::size_t(top->node)].childSum += -item.negDuration;
            ++tree.nodes[std::size_t(top->node)].childCount;
        }
        std::int32_t owner = top ? top->node : -1;
        const HostRole role = roles.of(track, item.row);
        if (role == HostRole::Launch && owner >= 0 &&
            tree.nodes[std::size_t(owner)].role == HostRole::Annotation)
            owner = ownerByExternalId(roles, track, item.row, tree.nodes, owner);
        if (role == HostRole::Launch) {
            tree.launches.push_back({item.row, owner});
            open.push_back({e, owner, true});
        } else {
            HostNode node;
            node.start = s;
            node.row = item.row;
            node.parent = owner;
            node.role = role;
            tree.nodes.push_back(node);
            open.push_back({e, std::int32_t(tree.nodes.size() - 1), false});
        }
    }
    radixSort(
        tree.launches, [](const LaunchOwner& l) { return std::uint64_t(l.row); },
        [](const LaunchOwner& a, const LaunchOwner& b) { return a.row < b.row; });
    return tree;
}

std::int32_t HostTree::ownerOfLaunch(std::uint32_t row) const {
    auto it = std::lower_bound(launches.begin(), launches.end(), row,
                               [](const LaunchOwner& l, std::uint32_t r) { return l.row < r; });
    return it != launches.end() && it->row == row ? it->owner : -1;
}

bool launchedByOptimizerStep(const TraceStore& store, EventRef gpuWork) {
    const auto launch = store.launchOf(gpuWork);
    if (!launch) return false;
    const Track& t = store.track(launch->track);
    for (auto p = t.parentOf(launch->index.value); p; p = t.parentOf(*p)) {
        const std::string_view name = store.strings().view(t.names[*p]);
        if (name.starts_with("Optimizer.step#") || name.starts_with("aten::_foreach_")) return true;
    }
    return false;
}

std::optional<EventRef> launchingOperator(const TraceStore& store, EventRef launch) {
    const Track& t = store.track(launch.track);
    for (auto p = t.parentOf(launch.index.value); p; p = t.parentOf(*p)) {
        const HostRole role = hostRole(store, t, *p);
        if (role == HostRole::Operator || role == HostRole::Annotation)
            return EventRef{launch.track, EventIndex(*p)};
    }
    return std::nullopt;
}

TimeNs launchDelay(const TraceStore& store, EventRef gpuWork, EventRef launch) {
    const TimeNs start = store.track(gpuWork.track).starts[gpuWork.index.value];
    return std::max<TimeNs>(0, start - store.track(launch.track).endOf(launch.index.value));
}

namespace {
// The runtime and driver calls on `slice`'s thread within its range, every lane included (a launch inside the
// slice may sit on any of them, the overlapping ones too), lane by lane.
std::vector<std::uint32_t> launchCallsWithin(const TraceStore& store, EventRef slice) {
    const Track& track = store.track(slice.track);
    const TimeNs from = track.starts[slice.index.value], to = track.endOf(slice.index.value);
    std::vector<std::uint32_t> rows;
    for (std::uint32_t d = 0; d < track.laneCount(); ++d) {
        const auto [r0, r1] = track.rowsInRange(d, from, to);
        for (std::uint32_t r = r0; r < r1; ++r)
            if (r != slice.index.value && track.starts[r] >= from && track.endOf(r) <= to &&
                isLaunchCategory(store.categories()[track.categories[r]].kind))
                rows.push_back(r);
    }
    return rows;
}
} // namespace

std::vector<EventRef> gpuWorkInLaunchOrder(const TraceStore& store, EventRef hostSlice) {
    std::vector<EventRef> out;
    if (!hostSlice.isValid() || hostSlice.track.value >= store.tracks().size()) return out;
    const Track& track = store.track(hostSlice.track);
    std::vector<std::uint32_t> rows = launchCallsWithin(store, hostSlice);
    std::sort(rows.begin(), rows.end(), [&](std::uint32_t a, std::uint32_t b) {
        return track.starts[a] != track.starts[b] ? track.starts[a] < track.starts[b] : a < b;
    });
    for (std::uint32_t r : rows)
        for (EventRef g : store.gpuWorkOf({hostSlice.track, EventIndex(r)}))
            out.push_back(g);
    return out;
}

std::vector<LaunchedWork> gpuWorkLaunchedWithin(const TraceStore& store, EventRef hostSlice) {
    return gpuWorkLaunchedWithin(store, std::vector<EventRef>{hostSlice});
}

std::vector<LaunchedWork> gpuWorkLaunchedWithin(const TraceStore& store, std::vector<EventRef> hostSlices) {
    std::vector<LaunchedWork> out;
    std::unordered_map<std::uint32_t, std::size_t> byName;
    const auto startOf = [&](EventRef e) { return store.track(e.track).starts[e.index.value]; };
    std::erase_if(hostSlices, [&](EventRef e) {
        return !e.isValid() || e.track.value >= store.tracks().size() ||
               store.track(e.track).kind != TrackKind::CpuThread ||
               e.index.value >= store.track(e.track).sliceCount();
    });
    std::sort(hostSlices.begin(), hostSlices.end(), [&](EventRef a, EventRef b) {
        return a.track != b.track         ? a.track < b.track
               : startOf(a) != startOf(b) ? startOf(a) < startOf(b)
                                          : store.durationOf(a) > store.durationOf(b);
    });
    TrackId lastTrack;
    TimeNs coveredUntil = INT64_MIN;
    for (EventRef slice : hostSlices) {
        const TimeNs to = store.track(slice.track).endOf(slice.index.value);
        if (slice.track == lastTrack && to <= coveredUntil) continue; // inside one already counted
        lastTrack = slice.track;
        coveredUntil = to;
        for (std::uint32_t r : launchCallsWithin(store, slice))
            for (EventRef g : store.gpuWorkOf({slice.track, EventIndex(r)})) {
                const Track& gt = store.track(g.track);
                const StringId name = gt.names[g.index.value];
                const auto [it, fresh] = byName.try_emplace(name.value, out.size());
                if (fresh) out.push_back({name, 0, 0, g});
                LaunchedWork& w = out[it->second];
                const TimeNs duration = gt.durations[g.index.value];
                ++w.count;
                w.total += duration;
                w.lastEnd = std::max(w.lastEnd, gt.starts[g.index.value] + duration);
                if (duration > store.durationOf(w.longest)) w.longest = g;
            }
    }
    std::sort(out.begin(), out.end(), [](const LaunchedWork& a, const LaunchedWork& b) {
        return a.total != b.total ? a.total > b.total : a.name.value < b.name.value;
    });
    return out;
}

} // namespace kinetoscope
