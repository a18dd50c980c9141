#include "track.h"

#include "nesting.h"

#include <algorithm>

namespace kinetoscope {

std::uint32_t Track::depthOf(std::uint32_t row) const {
    auto it = std::upper_bound(laneBegin.begin(), laneBegin.end(), row);
    return std::uint32_t(it - laneBegin.begin()) - 1;
}

std::pair<std::uint32_t, std::uint32_t> Track::rowsInRange(std::uint32_t depth, TimeNs from,
                                                           TimeNs to) const {
    if (depth + 1 >= laneBegin.size()) return {0, 0};
    const auto first = starts.begin() + laneBegin[depth];
    const auto last = starts.begin() + laneBegin[depth + 1];
    // Ends are sorted within a lane (non-overlapping, sorted by start), so the first row that ends at
    // or after `from` is found by binary search over starts of the following row.
    auto lo = std::lower_bound(first, last, from);
    if (lo != first) {
        const auto prev = std::uint32_t(lo - starts.begin()) - 1;
        if (endOf(prev) >= from) --lo;
    }
    auto hi = std::upper_bound(lo, last, to);
    return {std::uint32_t(lo - starts.begin()), std::uint32_t(hi - starts.begin())};
}

std::optional<std::uint32_t> Track::deepestAt(TimeNs t) const {
    std::optional<std::uint32_t> found;
    for (std::uint32_t d = 0; d + 1 < laneBegin.size(); ++d) {
        const auto first = starts.begin() + laneBegin[d];
        const auto last = starts.begin() + laneBegin[d + 1];
        auto it = std::upper_bound(first, last, t);
        // Skip instants: a flow binds to a slice, not to a marker at the same time. No early exit on a lane
        // without one: a slice displaced by an overlap can sit below a gap.
        while (it != first) {
            const auto row = std::uint32_t(it - starts.begin()) - 1;
            if (!(flags[row] & SliceFlag::Instant)) {
                if (t < endOf(row) || t == starts[row]) found = row;
                break;
            }
            --it;
        }
    }
    return found;
}

bool Track::encloses(std::uint32_t outer, std::uint32_t row) const {
    if (outer == row) return false;
    const TimeNs ps = starts[outer], pe = endOf(outer), s = starts[row], e = endOf(row);
    if (!(ps <= s && s < pe && endsWithin(pe, s, e, nestingSlack))) return false;
    return !(ps == s && pe == e) || depthOf(outer) < depthOf(row);
}

std::optional<std::uint32_t> Track::candidateOnLane(std::uint32_t depth, TimeNs t) const {
    if (depth + 1 >= laneBegin.size()) return std::nullopt;
    const auto first = starts.begin() + laneBegin[depth];
    const auto last = starts.begin() + laneBegin[depth + 1];
    // Rows of a lane do not overlap, so only the last one starting at or before `t` can contain it.
    for (auto it = std::upper_bound(first, last, t); it != first;) {
        --it;
        const auto row = std::uint32_t(it - starts.begin());
        if (starts[row] == t && durations[row] == 0) continue;
        return row;
    }
    return std::nullopt;
}

std::optional<std::uint32_t> Track::parentOf(std::uint32_t row) const {
    return parentOf(row, depthOf(row));
}

std::optional<std::uint32_t> Track::parentOf(std::uint32_t row, std::uint32_t d) const {
    if (d > 0) {
        if (const auto above = candidateOnLane(d - 1, starts[row]); above && encloses(*above, row)) {
            // The innermost unless a deeper lane holds a slice displaced by an overlap that also encloses it.
            if (!(flags[*above] & SliceFlag::Overlapping) && !(flags[row] & SliceFlag::Overlapping))
                return above;
        }
    }
    // The layout places a slice below every slice still open at its start, so whatever encloses it sits on a
    // shallower lane, and a slice on lane 0 has no parent.
    std::optional<std::uint32_t> inner;
    for (std::uint32_t lane = 0; lane < d; ++lane) {
        const auto p = candidateOnLane(lane, starts[row]);
        if (!p || !encloses(*p, row)) continue;
        if (!inner || encloses(*inner, *p)) inner = p;
    }
    return inner;
}

std::size_t Track::bytesHeld() const {
    return starts.capacity() * sizeof(TimeNs) + durations.capacity() * sizeof(TimeNs) +
           names.capacity() * sizeof(StringId) + categories.capacity() * sizeof(std::uint16_t) +
           flags.capacity() + args.capacity() * sizeof(std::uint64_t) + laneBegin.capacity() * 4 +
           counterTimes.capacity() * sizeof(TimeNs) + counterValues.capacity() * sizeof(double);
}

} // namespace kinetoscope
