#pragma once
// Shared by the fuzz targets: arbitrary bytes into the loader, plain text directly or gzip through the file
// path (an anonymous in-memory file, no disk), and the store's invariants.
#include "analysis/ops/kernels.h"
#include "import/perfettoimport.h"
#include "live/livecapture.h"
#include "live/wireingest.h"
#include "model/nesting.h"
#include "open/opentrace.h"
#include "wire/wire.h"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

namespace kinetoscope::fuzz {

inline int brokenInvariant(const TraceStore& s);

inline LoadResult loadBytes(const std::uint8_t* data, std::size_t size, bool gpuWorkOnly = false) {
    LoadOptions options;
    options.gpuWorkOnly = gpuWorkOnly;
    if (gpuWorkOnly) options.gpuWorkOnlyUnlessTextHas = kernelTableHostKeys();
    // Small pieces exercise the splitter and its repairs on small inputs; two threads only for some inputs
    // (spawning threads dominates the cost of a small input).
    options.threads = size > 0 && (data[size - 1] & 1) ? 2 : 1;
    options.chunkBytes = 256;
    // Half the inputs also build the viewer's preview (a store of pieces spread over the file, LoadOptions::
    // preview), which must keep the same invariants whatever its pieces start on.
    if (size % 2 == 1 && !gpuWorkOnly) {
        options.previewMinBytes = 0;
        options.preview = [](std::unique_ptr<const TraceStore> preview) {
            if (const int line = brokenInvariant(*preview)) {
                std::fprintf(stderr, "preview: invariant broken: fuzz_input.h:%d\n", line);
                std::abort();
            }
        };
    }
    // gzip, and Perfetto's protobuf traces, are read from a file (the one entry that opens any file picks the
    // reader by the first bytes).
    if ((size >= 2 && data[0] == 0x1f && data[1] == 0x8b) ||
        looksLikePerfettoTrace(std::string_view(reinterpret_cast<const char*>(data), size))) {
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

// What the viewer and every analysis rely on without checking: columns agree, lanes are sorted and disjoint,
// slices lie within the time range, flows point at real slices. Returns the line (in this file) of the first
// invariant the store breaks, 0 when it keeps them all.
inline int brokenInvariant(const TraceStore& s) {
    for (const Track& track : s.tracks()) {
        const std::size_t n = track.sliceCount();
        if (!(track.durations.size() == n && track.names.size() == n && track.categories.size() == n &&
              track.flags.size() == n && track.args.size() == n))
            return __LINE__;
        if (track.counterTimes.size() != track.counterValues.size()) return __LINE__;
        if (n == 0) continue;
        if (track.laneBegin.empty() || track.laneBegin.front() != 0 || track.laneBegin.back() != n)
            return __LINE__;
        for (std::size_t lane = 0; lane + 1 < track.laneBegin.size(); ++lane) {
            if (track.laneBegin[lane] > track.laneBegin[lane + 1]) return __LINE__;
            for (std::uint32_t r = track.laneBegin[lane]; r < track.laneBegin[lane + 1]; ++r) {
                if (track.durations[r] < 0) return __LINE__;
                if (track.starts[r] < s.minTime() || track.endOf(r) > s.maxTime()) return __LINE__;
                // Each lane is sorted by start and by end, its slices apart but for clock jitter
                // (model/nesting.h): one binary search culls it.
                if (r > track.laneBegin[lane]) {
                    if (track.starts[r - 1] > track.starts[r] || track.endOf(r - 1) > track.endOf(r))
                        return __LINE__;
                    if (track.endOf(r - 1) - track.starts[r] >= laneOverlapTolerance(track.nestingSlack))
                        return __LINE__;
                }
            }
        }
    }
    for (const Flow& flow : s.flows()) {
        if (flow.source.track.value >= s.tracks().size() || flow.target.track.value >= s.tracks().size())
            return __LINE__;
        if (flow.source.index.value >= s.track(flow.source.track).sliceCount()) return __LINE__;
        if (flow.target.index.value >= s.track(flow.target.track).sliceCount()) return __LINE__;
    }
    return 0;
}

// A store of the GPU's work alone (LoadOptions::gpuWorkOnly) against the full store of the same bytes: the
// same events seen, counted by phase and category, the same malformed ones; the same GPU work (name, start,
// duration), and its kept complete slices plus those it counted but did not keep are the full store's.
// Returns the line of the first difference, 0 when none.
inline int gpuWorkOnlyDiffers(const TraceStore& full, const TraceStore& gpu) {
    const ImportStats &a = full.stats(), &b = gpu.stats();
    if (a.eventsSeen != b.eventsSeen || a.malformedEvents != b.malformedEvents) return __LINE__;
    if (a.phaseCounts != b.phaseCounts || a.categoryCounts != b.categoryCounts) return __LINE__;
    if (a.truncated != b.truncated || a.truncatedAt != b.truncatedAt) return __LINE__;
    struct Work {
        std::string name;
        TimeNs start, duration;
        bool operator<(const Work& o) const {
            return std::tie(start, duration, name) < std::tie(o.start, o.duration, o.name);
        }
        bool operator==(const Work& o) const = default;
    };
    auto tally = [](const TraceStore& s, std::vector<Work>& work) {
        std::uint64_t complete = 0;
        for (const Track& t : s.tracks())
            for (std::uint32_t r = 0; r < t.sliceCount(); ++r) {
                if (t.kind != TrackKind::Async && !(t.flags[r] & SliceFlag::Instant) &&
                    !(t.flags[r] & SliceFlag::Unterminated))
                    ++complete;
                if (isGpuWork(s.categories()[t.categories[r]].kind))
                    work.push_back({std::string(s.strings().view(t.names[r])), t.starts[r], t.durations[r]});
            }
        std::sort(work.begin(), work.end());
        return complete + s.stats().slicesNotKept;
    };
    std::vector<Work> fullWork, gpuWork;
    if (tally(full, fullWork) != tally(gpu, gpuWork)) return __LINE__;
    if (fullWork != gpuWork) return __LINE__;
    return 0;
}

// For the fuzz targets: aborts, naming the invariant, when the store breaks one.
inline void checkInvariants(const TraceStore& s) {
    if (const int line = brokenInvariant(s)) {
        std::fprintf(stderr, "invariant broken: fuzz_input.h:%d\n", line);
        std::abort();
    }
}

// fuzz_wire's checks on one capture stream, for the fuzz target and the normal suite: 0 when it decodes or
// stops with an error (any split of it alike), its store keeps the invariants, and the trace Capture > Save
// writes of it loads and keeps them too; else the line here of the failed check (negative: the broken
// invariant's line).
inline int brokenWireStream(std::string_view bytes) {
    std::size_t records = 0;
    wire::Decoder d([&](const wire::Record&) { ++records; });
    // The first byte picks the piece size, so splits inside headers and records are exercised too.
    const std::size_t piece = bytes.empty() ? 1 : 1 + std::uint8_t(bytes[0]) % 17;
    for (std::size_t i = 0; i < bytes.size(); i += piece)
        if (!d.feed(bytes.substr(i, piece))) break;
    if (!d.finish() && d.error().empty()) return __LINE__; // a failure must say why
    if (d.recordsDecoded() != records) return __LINE__;
    const LoadResult store = live::loadWireStream(bytes);
    if (!store.ok()) return store.error.empty() ? __LINE__ : 0;
    if (const int line = brokenInvariant(*store.store)) return -line;
    live::CaptureRecords capture;
    live::WireIngest ingest(capture);
    (void)(ingest.feed(bytes) && ingest.finish());
    const LoadResult saved = loadTraceText(capture.toTraceJson());
    if (!saved.ok()) return __LINE__;
    if (const int line = brokenInvariant(*saved.store)) return -line;
    return 0;
}

} // namespace kinetoscope::fuzz
