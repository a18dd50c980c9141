#pragma once
// Shared by the fuzz targets: arbitrary bytes into the loader, plain text directly or gzip through the file
// path (an anonymous in-memory file, no disk), and the store's invariants.
#include "model/nesting.h"
#include "open/opentrace.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <string>

namespace kinetoscope::fuzz {

inline LoadResult loadBytes(const std::uint8_t* data, std::size_t size) {
    LoadOptions options;
    // Small pieces exercise the splitter and its repairs on small inputs; two threads only for some inputs
    // (spawning threads dominates the cost of a small input).
    options.threads = size > 0 && (data[size - 1] & 1) ? 2 : 1;
    options.chunkBytes = 256;
    if (size >= 2 && data[0] == 0x1f && data[1] == 0x8b) {
        const int fd = memfd_create("fuzz", 0);
        if (fd < 0) return {};
        if (write(fd, data, size) != ssize_t(size)) {
            close(fd);
            return {};
        }
        LoadResult r = loadTrace("/proc/self/fd/" + std::to_string(fd), options);
        close(fd);
        return r;
    }
    return loadTraceText(std::string_view(reinterpret_cast<const char*>(data), size), options);
}

inline void require(bool condition) {
    if (!condition) std::abort();
}

// What the viewer and every analysis rely on without checking: columns agree, lanes are sorted and disjoint,
// slices lie within the time range, flows point at real slices.
inline void checkInvariants(const TraceStore& s) {
    for (const Track& track : s.tracks()) {
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
                require(track.starts[r] >= s.minTime() && track.endOf(r) <= s.maxTime());
                // Each lane is sorted by start and by end, its slices apart but for clock jitter
                // (model/nesting.h): one binary search culls it.
                if (r > track.laneBegin[lane]) {
                    require(track.starts[r - 1] <= track.starts[r] && track.endOf(r - 1) <= track.endOf(r));
                    require(track.endOf(r - 1) - track.starts[r] < nestingJitterTolerance);
                }
            }
        }
    }
    for (const Flow& flow : s.flows()) {
        require(flow.source.track.value < s.tracks().size() && flow.target.track.value < s.tracks().size());
        require(flow.source.index.value < s.track(flow.source.track).sliceCount());
        require(flow.target.index.value < s.track(flow.target.track).sliceCount());
    }
}

} // namespace kinetoscope::fuzz
