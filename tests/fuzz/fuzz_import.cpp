// libFuzzer target: the JSON importer alone (plain and gzip), fast enough for the ten-million-execution long run
// (fuzz_loader adds every analysis and query on top and runs ~300 inputs/s). Beyond "no crash, no leak, no UB",
// whatever loads must satisfy the store's invariants, which the viewer and every analysis rely on without checking.
#include "fuzz_input.h"

#include <cstdlib>

using namespace kinetoscope;

namespace {
void require(bool condition) {
    if (!condition) std::abort();
}

void checkInvariants(const TraceStore& s) {
    for (const Track& track : s.tracks) {
        const std::size_t n = track.sliceCount();
        require(track.durations.size() == n && track.names.size() == n && track.categories.size() == n &&
                track.flags.size() == n && track.args.size() == n);
        require(track.counterTimes.size() == track.counterValues.size());
        if (n == 0) continue;
        require(!track.laneBegin.empty() && track.laneBegin.front() == 0 && track.laneBegin.back() == n);
        for (std::size_t lane = 0; lane + 1 < track.laneBegin.size(); ++lane) {
            require(track.laneBegin[lane] <= track.laneBegin[lane + 1]);
            for (std::uint32_t r = track.laneBegin[lane]; r < track.laneBegin[lane + 1]; ++r) {
                require(track.durations[r] >= 0);
                require(track.starts[r] >= s.minTime && track.endOf(r) <= s.maxTime);
                // Each lane is sorted and non-overlapping: one binary search culls it.
                if (r > track.laneBegin[lane]) require(track.endOf(r - 1) <= track.starts[r]);
            }
        }
    }
    for (const Flow& flow : s.flows) {
        require(flow.source.track.value < s.tracks.size() && flow.target.track.value < s.tracks.size());
        require(flow.source.index < s.tracks[flow.source.track.value].sliceCount());
        require(flow.target.index < s.tracks[flow.target.track.value].sliceCount());
    }
}
} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    LoadResult r = fuzz::loadBytes(data, size);
    if (r.ok()) checkInvariants(*r.store);
    else if (r.error.empty() && !r.cancelled) std::abort(); // a failure must always say why
    return 0;
}
