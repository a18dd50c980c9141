#include "selftime.h"

#include "model/nesting.h"

#include <algorithm>

namespace kinetoscope {

bool isHostEvent(const TraceStore& store, const Track& track, std::uint32_t row) {
    return !(track.flags[row] & SliceFlag::Instant) &&
           isHostEventKind(store.categories()[track.categories[row]].kind);
}

std::vector<std::uint32_t> rowsInNestingOrder(const Track& track, TimeNs from, TimeNs to) {
    std::vector<std::uint32_t> rows;
    for (std::uint32_t d = 0; d < track.laneCount(); ++d) {
        const auto [first, last] = track.rowsInRange(d, from, to);
        for (std::uint32_t r = first; r < last; ++r)
            rows.push_back(r);
    }
    // Rows are stored lane by lane, so a row's index orders lanes: the shallower lane first.
    std::sort(rows.begin(), rows.end(), [&](std::uint32_t a, std::uint32_t b) {
        if (track.starts[a] != track.starts[b]) return track.starts[a] < track.starts[b];
        if (track.durations[a] != track.durations[b]) return track.durations[a] > track.durations[b];
        return a < b;
    });
    return rows;
}

std::vector<ChildLink> childLinks(const TraceStore& store, const Track& track,
                                  const std::vector<std::uint32_t>& rows) {
    struct Open {
        TimeNs end;
        std::uint32_t index; // into rows
        bool host;
    };
    // Two nestings of the same rows: of every slice, and of the host events alone (the operator tables' host
    // tree, which never sees a Python frame, so a frame that overlaps an operator's end does not close it).
    std::vector<ChildLink> links;
    std::vector<Open> all, hosts;
    auto closeBefore = [&](std::vector<Open>& open, TimeNs s, TimeNs e) {
        while (!open.empty() &&
               !(s < open.back().end && endsWithin(open.back().end, s, e, track.nestingSlack)))
            open.pop_back();
    };
    for (std::uint32_t i = 0; i < rows.size(); ++i) {
        const std::uint32_t r = rows[i];
        const TimeNs s = track.starts[r], e = track.endOf(r);
        const bool host = isHostEvent(store, track, r);
        closeBefore(all, s, e);
        if (!all.empty() && !all.back().host) links.push_back({all.back().index, i});
        all.push_back({e, i, host});
        if (host) {
            closeBefore(hosts, s, e);
            if (!hosts.empty()) links.push_back({hosts.back().index, i});
            hosts.push_back({e, i, true});
        }
    }
    return links;
}

std::vector<std::uint32_t> directChildren(const TraceStore& store, const Track& track, std::uint32_t row) {
    const TimeNs s = track.starts[row], e = track.endOf(row);
    // The sweep opens at the row: what precedes it in the order (what encloses it, what ended before) cannot
    // be its child. What starts inside it and overlaps its end stays in, and closes it as it closes the
    // operator tables' host tree: what follows is that slice's, not this one's.
    std::vector<std::uint32_t> rows = rowsInNestingOrder(track, s, e + track.nestingSlack);
    rows.erase(rows.begin(), std::find(rows.begin(), rows.end(), row));
    std::vector<std::uint32_t> children;
    for (const ChildLink& link : childLinks(store, track, rows))
        if (rows[link.parent] == row) children.push_back(rows[link.child]);
    return children;
}

TimeNs selfTime(const TraceStore& store, const Track& track, std::uint32_t row) {
    TimeNs self = track.durations[row];
    for (const std::uint32_t c : directChildren(store, track, row))
        self -= track.durations[c];
    return self;
}

} // namespace kinetoscope
