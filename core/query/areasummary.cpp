#include "areasummary.h"

#include "selftime.h"

#include <algorithm>
#include <unordered_map>

namespace kinetoscope {

AreaSummary summarizeArea(const TraceStore& store, const std::vector<TrackId>& tracks, TimeNs from, TimeNs to,
                          AreaGrouping grouping) {
    AreaSummary out;
    out.grouping = grouping;
    out.from = std::min(from, to);
    out.to = std::max(from, to);
    std::unordered_map<std::uint32_t, std::size_t> rowOfKey;
    auto clipped = [&](TimeNs s, TimeNs e) {
        return std::max<TimeNs>(0, std::min(e, out.to) - std::max(s, out.from));
    };
    for (TrackId id : tracks) {
        if (id.value >= store.tracks().size()) continue;
        const Track& t = store.track(id);
        if (t.kind == TrackKind::Counter) continue;
        // Every slice on the track that intersects the area, nested by the one rule (query/selftime.h): a
        // slice on an overflow lane keeps its children.
        const std::vector<std::uint32_t> rows = rowsInNestingOrder(t, out.from, out.to);
        std::vector<TimeNs> children(rows.size(), 0);
        for (const ChildLink& link : childLinks(store, t, rows))
            children[link.parent] += clipped(t.starts[rows[link.child]], t.endOf(rows[link.child]));
        for (std::size_t i = 0; i < rows.size(); ++i) {
            const std::uint32_t r = rows[i];
            const TimeNs s = t.starts[r];
            const TimeNs e = t.endOf(r);
            if (e < out.from || s > out.to) continue;
            const TimeNs inside = clipped(s, e);
            const StringId name = grouping == AreaGrouping::Name ? t.names[r]
                                  : grouping == AreaGrouping::Category
                                      ? store.categories()[t.categories[r]].name
                                      : StringId();
            const std::uint32_t key = grouping == AreaGrouping::Track ? id.value : name.value;
            auto [it, inserted] = rowOfKey.try_emplace(key, out.rows.size());
            if (inserted) out.rows.push_back({name, grouping == AreaGrouping::Track ? id : TrackId()});
            AreaSummaryRow& row = out.rows[it->second];
            ++row.count;
            row.total += inside;
            row.self += inside - children[i];
            row.maxDuration = std::max(row.maxDuration, t.durations[r]);
            ++out.sliceCount;
        }
    }
    std::sort(out.rows.begin(), out.rows.end(), [&](const AreaSummaryRow& a, const AreaSummaryRow& b) {
        if (a.total != b.total) return a.total > b.total;
        if (a.track != b.track) return a.track.value < b.track.value;
        return store.strings().view(a.name) < store.strings().view(b.name);
    });
    return out;
}

} // namespace kinetoscope
