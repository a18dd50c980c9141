#include "enclosing.h"

#include <algorithm>

namespace kinetoscope {

std::vector<std::uint32_t> enclosingRows(const Track& track, std::uint32_t row) {
    std::vector<std::uint32_t> out;
    if (row >= track.sliceCount()) return out;
    const std::uint32_t ownLane = track.depthOf(row);
    for (std::uint32_t d = 0; d < track.laneCount(); ++d) {
        if (d == ownLane) continue;
        if (const auto p = track.candidateOnLane(d, track.starts[row]); p && track.encloses(*p, row))
            out.push_back(*p);
    }
    std::sort(out.begin(), out.end(), [&](std::uint32_t a, std::uint32_t b) {
        if (track.starts[a] != track.starts[b]) return track.starts[a] < track.starts[b];
        if (track.durations[a] != track.durations[b]) return track.durations[a] > track.durations[b];
        return track.depthOf(a) < track.depthOf(b);
    });
    return out;
}

} // namespace kinetoscope
