// Store build, lanes: each track's rows sorted and laid out on non-overlapping lanes; the tracks' display
// order.
#include "storebuild.h"

#include "model/nesting.h"
#include "model/parallel.h"

#include <charconv>
#include <limits>
#include <numeric>

namespace kinetoscope::storebuild {

namespace {
// PyTorch 1.8-1.9 wrote a GPU event's tid as the text "stream 7" (args.stream 7): its stream is the number,
// so that everything keyed by stream says 7, as HTA does, and not 0.
bool streamFromText(std::string_view text, std::int64_t& stream) {
    constexpr std::string_view prefix = "stream ";
    if (!text.starts_with(prefix)) return false;
    text.remove_prefix(prefix.size());
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), stream);
    return ec == std::errc() && end == text.data() + text.size();
}
} // namespace

// Sorts each track's rows by (start, longer first, file order), assigns lanes, and reorders the
// columns by (lane, start).
void StoreBuild::finalizeTracks() {
    std::size_t nextIds = 0; // m_pendingIds are grouped by track (scatterEvents)
    for (std::uint32_t t = 0; t < m_store.tracks.size(); ++t) {
        Track& track = m_store.tracks[t];
        const std::size_t n = track.starts.size();
        // GPU work makes a GPU stream, and so do synchronizations: Kineto writes cuda_sync on the device's
        // stream, and a context or event sync, which has none, on tid -1 of the device alone.
        bool gpu = false;
        for (std::uint16_t c : track.categories)
            if ((isGpuCategory(m_store.categories[c].kind) &&
                 m_store.categories[c].kind != CategoryKind::GpuUserAnnotation) ||
                m_store.categories[c].kind == CategoryKind::Sync) {
                gpu = true;
                break;
            }
        if (track.kind == TrackKind::CpuThread && gpu) {
            track.kind = TrackKind::GpuStream;
            std::int64_t stream = 0;
            if (track.tidText.value != 0 && streamFromText(m_store.strings.view(track.tidText), stream))
                track.tid = stream;
        }
        if (n == 0) {
            if (track.kind != TrackKind::Counter) track.laneBegin = {0};
            continue;
        }
        // Rows already in time order without any overlap (a GPU stream, a thread of CUDA calls) form one
        // lane as they are: nothing to sort or move.
        bool oneLane = true;
        for (std::size_t r = 1; r < n && oneLane; ++r)
            oneLane = track.starts[r] > track.starts[r - 1] &&
                      track.starts[r] >= track.starts[r - 1] + track.durations[r - 1];
        if (oneLane) {
            track.laneBegin = {0, std::uint32_t(n)};
            if (t < m_rowSeq.size()) m_rowSeq[t] = {};
            while (nextIds < m_pendingIds.size() && m_pendingIds[nextIds].track == t)
                ++nextIds;
            continue;
        }
        std::vector<std::uint32_t> order(n);
        std::iota(order.begin(), order.end(), 0u);
        const std::vector<std::uint64_t>* seq =
            t < m_rowSeq.size() && m_rowSeq[t].size() == n ? &m_rowSeq[t] : nullptr;
        auto before = [&](std::uint32_t a, std::uint32_t b) {
            if (track.starts[a] != track.starts[b]) return track.starts[a] < track.starts[b];
            if (track.durations[a] != track.durations[b]) return track.durations[a] > track.durations[b];
            // Same start and duration: the one earlier in the file is the parent.
            return seq ? (*seq)[a] < (*seq)[b] : a < b;
        };
        // Kineto writes events nearly in order (51 descents in 3.3 million rows of the 1 GB benchmark
        // trace): when the file order has few ascending runs, merge them instead of sorting from scratch.
        if (mergeFewRuns(order, before, 256)) {
            // done
        } else if (n >= parallelSortThreshold) {
            // One thread usually holds most events: sort its halves on two cores, then merge.
            const auto mid = order.begin() + std::ptrdiff_t(n / 2);
            parallelInvoke(
                true, [&] { std::sort(order.begin(), mid, before); },
                [&] { std::sort(mid, order.end(), before); });
            std::inplace_merge(order.begin(), mid, order.end(), before);
        } else {
            std::sort(order.begin(), order.end(), before);
        }
        if (seq) m_rowSeq[t] = {};
        NestingCounts counts;
        std::vector<std::uint16_t> depth = nestingLanes(
            order, n, [&](std::uint32_t r) { return track.starts[r]; },
            [&](std::uint32_t r) { return track.endOf(r); }, counts,
            [&](std::uint32_t r) { track.flags[r] |= SliceFlag::Overlapping; }, track.nestingSlack);
        m_store.stats.overlappingSlices += counts.overlapping;
        m_store.stats.jitterOverlaps += counts.jitter;
        track.overflowLane = counts.overflowLane;
        const std::vector<std::uint32_t> final = rowsByLane(order, depth, track.laneBegin);
        order.clear();
        order.shrink_to_fit();
        depth.clear();
        depth.shrink_to_fit();
        {
            auto firstHalf = [&] {
                applyPermutation(track.starts, final);
                applyPermutation(track.names, final);
                applyPermutation(track.flags, final);
            };
            auto secondHalf = [&] {
                applyPermutation(track.durations, final);
                applyPermutation(track.categories, final);
                applyPermutation(track.args, final);
            };
            parallelInvoke(n >= parallelThreshold, firstHalf, secondHalf);
        }
        if (nextIds < m_pendingIds.size() && m_pendingIds[nextIds].track == t) {
            std::vector<std::uint32_t> rowOf(n);
            for (std::uint32_t k = 0; k < n; ++k)
                rowOf[final[k]] = k;
            for (; nextIds < m_pendingIds.size() && m_pendingIds[nextIds].track == t; ++nextIds)
                m_pendingIds[nextIds].row = rowOf[m_pendingIds[nextIds].row];
        }
    }
}

// Display order: CPU processes and threads by sort index then id, then GPUs by device and stream,
// then async and counter tracks. TrackIds are assigned in this order.
void StoreBuild::orderTracks() {
    auto& tracks = m_store.tracks;
    std::unordered_map<std::uint64_t, const ProcessInfo*> procs;
    for (const ProcessInfo& p : m_store.processes)
        procs[(std::uint64_t(p.pidText.value) << 40) ^ std::uint64_t(p.pid)] = &p;
    auto processSort = [&](const Track& t) -> std::int64_t {
        auto it = procs.find((std::uint64_t(t.pidText.value) << 40) ^ std::uint64_t(t.pid));
        return (it != procs.end() && it->second->hasSortIndex) ? it->second->sortIndex : t.pid;
    };
    auto kindRank = [](TrackKind k) {
        switch (k) {
        case TrackKind::CpuThread:
            return 0;
        case TrackKind::Async:
            return 1;
        case TrackKind::GpuStream:
            return 2;
        case TrackKind::Counter:
            return 3;
        }
        return 4;
    };
    std::vector<std::uint32_t> order(tracks.size());
    std::iota(order.begin(), order.end(), 0u);
    std::stable_sort(order.begin(), order.end(), [&](std::uint32_t ai, std::uint32_t bi) {
        const Track& a = tracks[ai];
        const Track& b = tracks[bi];
        const int ka = kindRank(a.kind) == 1 ? 0 : kindRank(a.kind),
                  kb = kindRank(b.kind) == 1 ? 0 : kindRank(b.kind);
        if (ka != kb) return ka < kb;
        const auto pa =
            std::make_tuple(processSort(a), a.pidText.value != 0, m_store.strings.view(a.pidText), a.pid);
        const auto pb =
            std::make_tuple(processSort(b), b.pidText.value != 0, m_store.strings.view(b.pidText), b.pid);
        if (pa != pb) return pa < pb;
        if (kindRank(a.kind) != kindRank(b.kind)) return kindRank(a.kind) < kindRank(b.kind);
        const auto ta = std::make_tuple(a.hasSortIndex ? a.sortIndex : a.tid, a.tidText.value != 0,
                                        m_store.strings.view(a.tidText), m_store.strings.view(a.name));
        const auto tb = std::make_tuple(b.hasSortIndex ? b.sortIndex : b.tid, b.tidText.value != 0,
                                        m_store.strings.view(b.tidText), m_store.strings.view(b.name));
        return ta < tb;
    });
    std::vector<std::uint32_t> newIndex(tracks.size());
    std::vector<Track> sorted;
    sorted.reserve(tracks.size());
    for (std::uint32_t k = 0; k < order.size(); ++k) {
        newIndex[order[k]] = k;
        sorted.push_back(std::move(tracks[order[k]]));
    }
    tracks.swap(sorted);
    for (auto& [key, index] : m_threadTracks)
        index = newIndex[index];
    for (PendingIds& p : m_pendingIds)
        p.track = newIndex[p.track];
}

} // namespace kinetoscope::storebuild
