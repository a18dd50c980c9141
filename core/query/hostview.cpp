#include "hostview.h"

#include "model/nesting.h"
#include "model/runmerge.h"

#include <algorithm>
#include <numeric>

namespace kinetoscope {

namespace {

// A track of the thread's `rows` (in this order, lane by lane), its identity copied from the thread.
Track subTrack(const Track& thread, const std::vector<std::uint32_t>& rows) {
    Track t;
    t.kind = thread.kind;
    t.pid = thread.pid;
    t.tid = thread.tid;
    t.pidText = thread.pidText;
    t.tidText = thread.tidText;
    t.name = thread.name;
    t.sortIndex = thread.sortIndex;
    t.hasSortIndex = thread.hasSortIndex;
    t.nestingSlack = thread.nestingSlack;
    t.duplicatesMerged = thread.duplicatesMerged;
    t.starts.reserve(rows.size());
    t.durations.reserve(rows.size());
    t.names.reserve(rows.size());
    t.categories.reserve(rows.size());
    t.flags.reserve(rows.size());
    t.args.reserve(rows.size());
    for (std::uint32_t r : rows) {
        t.starts.push_back(thread.starts[r]);
        t.durations.push_back(thread.durations[r]);
        t.names.push_back(thread.names[r]);
        t.categories.push_back(thread.categories[r]);
        t.flags.push_back(std::uint8_t(thread.flags[r] & ~SliceFlag::Overlapping));
        t.args.push_back(thread.args[r]);
    }
    return t;
}

} // namespace

HostViews buildHostViews(const TraceStore& store) {
    HostViews out;
    out.viewOfTrack.assign(store.tracks().size(), -1);
    for (std::uint32_t ti = 0; ti < store.tracks().size(); ++ti) {
        const Track& t = store.tracks()[ti];
        if (t.kind != TrackKind::CpuThread || t.sliceCount() == 0) continue;
        const std::size_t n = t.sliceCount();
        std::vector<bool> isPython(n);
        std::size_t pythonCount = 0;
        for (std::uint32_t r = 0; r < n; ++r) {
            isPython[r] = store.categories()[t.categories[r]].kind == CategoryKind::PythonFunction;
            pythonCount += isPython[r];
        }
        // A thread of Python frames alone (a tqdm monitor, a worker's idle loop) folds too: its host part is
        // empty.
        if (pythonCount == 0) continue;

        // The thread's rows in time order (longer first, then shallower): its lanes are each sorted by start,
        // so merging them is enough.
        std::vector<std::uint32_t> lane(n);
        for (std::uint32_t d = 0; d < t.laneCount(); ++d)
            std::fill(lane.begin() + t.laneBegin[d], lane.begin() + t.laneBegin[d + 1], d);
        std::vector<std::uint32_t> order(n);
        std::iota(order.begin(), order.end(), 0u);
        auto before = [&](std::uint32_t a, std::uint32_t b) {
            if (t.starts[a] != t.starts[b]) return t.starts[a] < t.starts[b];
            if (t.durations[a] != t.durations[b]) return t.durations[a] > t.durations[b];
            return lane[a] < lane[b];
        };
        if (!mergeFewRuns(order, before, t.laneCount() + 1)) std::sort(order.begin(), order.end(), before);
        std::vector<std::uint32_t> pythonOrder, hostOrder;
        pythonOrder.reserve(pythonCount);
        hostOrder.reserve(n - pythonCount);
        for (std::uint32_t r : order)
            (isPython[r] ? pythonOrder : hostOrder).push_back(r);

        HostView v;
        v.source = TrackId(ti);
        auto startOf = [&](std::uint32_t r) { return t.starts[r]; };
        auto endOf = [&](std::uint32_t r) { return t.endOf(r); };
        NestingCounts ignored;
        const std::vector<std::uint16_t> pythonDepth = nestingLanes(
            pythonOrder, n, startOf, endOf, ignored, [](std::uint32_t) {}, t.nestingSlack);
        for (std::uint32_t r : pythonOrder) {
            v.pythonLanes = std::max<std::uint32_t>(v.pythonLanes, pythonDepth[r] + 1u);
            if (pythonDepth[r] == 0) v.pythonRows.push_back(r);
        }
        v.python = subTrack(t, v.pythonRows);
        v.python.laneBegin = {0, std::uint32_t(v.pythonRows.size())};

        std::vector<std::uint32_t> overlapping;
        NestingCounts counts;
        const std::vector<std::uint16_t> hostDepth = nestingLanes(
            hostOrder, n, startOf, endOf, counts, [&](std::uint32_t r) { overlapping.push_back(r); },
            t.nestingSlack);
        std::vector<std::uint32_t> laneBegin;
        v.hostRows = rowsByLane(hostOrder, hostDepth, laneBegin);
        v.host = subTrack(t, v.hostRows);
        v.host.laneBegin = std::move(laneBegin);
        v.host.overflowLane = counts.overflowLane;

        v.shownRowOf.assign(n, HostView::noRow);
        for (std::uint32_t k = 0; k < v.hostRows.size(); ++k)
            v.shownRowOf[v.hostRows[k]] = k;
        for (std::uint32_t k = 0; k < v.pythonRows.size(); ++k)
            v.shownRowOf[v.pythonRows[k]] = k | HostView::pythonBit;
        for (std::uint32_t r : overlapping)
            v.host.flags[v.shownRowOf[r]] |= SliceFlag::Overlapping;

        out.viewOfTrack[ti] = int(out.views.size());
        out.views.push_back(std::move(v));
    }
    return out;
}

} // namespace kinetoscope
