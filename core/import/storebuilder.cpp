#include "storebuilder.h"

#include "model/memoryseries.h"
#include "model/parallel.h"
#include "sourcebuffer.h"
#include "storebuild.h"

#include <algorithm>
#include <iterator>
#include <numeric>

namespace kinetoscope {

namespace storebuild {

void StoreBuild::run() {
    PhaseClock clock(m_timing);
    remapChunks();
    clock.lap("build: remap");
    scatterEvents();
    clock.lap("build: scatter");
    for (std::uint32_t t = 0; t < m_store.tracks.size(); ++t)
        matchBeginEnd(t);
    buildAsyncTracks();
    buildCounterTracks();
    applyMetadata();
    classifyLegacyRecordFunctions();
    clock.lap("build: pairs+meta");
    // Small traces (most files, and every fuzz input) do each part in turn: starting threads would cost more.
    const bool big = m_sliceCount >= parallelThreshold;
    // Pairing the flow halves needs no slice, so it runs while the tracks are sorted.
    parallelInvoke(
        big, [this] { pairFlows(); }, [this] { finalizeTracks(); });
    clock.lap("build: sort+lanes");
    orderTracks();
    sortMemoryArgs();
    // The correlation index and the memory counters' series do not depend on the flows, nor on each other;
    // all three only read the tracks.
    MemorySeriesByDevice memorySeries;
    parallelInvoke(
        big, [&] { memorySeries = memoryCounterSeries(m_store, m_memoryArgs); },
        [this] {
            buildCorrelationIndex();
            resolveFlows();
        });
    m_memoryArgs = {};
    clock.lap("build: flows+index+memory");
    linkLaunchesByCorrelation();
    clock.lap("build: correlation");
    appendMemoryCounterTracks(m_store, memorySeries);
    clock.lap("build: memory counters");
    computeTimeRange();
    if (m_freeing.joinable()) m_freeing.join();
}

TrackId StoreBuild::threadTrack(const GlobalThread& key) {
    auto [it, inserted] = m_threadTracks.try_emplace(key, std::uint32_t(m_store.tracks.size()));
    if (inserted) {
        Track t;
        t.pid = key.pid;
        t.tid = key.tid;
        t.pidText = StringId(key.pidText);
        t.tidText = StringId(key.tidText);
        m_store.tracks.push_back(std::move(t));
        m_beginEnds.emplace_back();
    }
    return TrackId(it->second);
}

std::uint16_t StoreBuild::category(StringId name) {
    auto [it, inserted] = m_categories.try_emplace(name.value, std::uint16_t(m_store.categories.size()));
    if (inserted) m_store.categories.push_back({name, classifyCategory(m_store.strings.view(name))});
    return it->second;
}

void StoreBuild::remapChunks() {
    ImportStats& stats = m_store.stats;
    // Category 0 of every chunk is "no category"; keep the same in the store.
    category(StringId(0));
    m_remaps.resize(m_chunks.size());
    m_memoryArgs.reserve(m_chunks.size());
    for (std::size_t c = 0; c < m_chunks.size(); ++c) {
        ParsedChunk& chunk = m_chunks[c];
        ChunkRemap& remap = m_remaps[c];
        remap.strings.resize(chunk.strings.pool.size());
        for (std::uint32_t i = 0; i < chunk.strings.pool.size(); ++i)
            remap.strings[i] = m_store.strings.intern(chunk.strings.pool.view(StringId(i))).value;
        remap.categories.resize(std::max<std::size_t>(chunk.categoryNames.size(), 1));
        for (std::size_t i = 0; i < chunk.categoryNames.size(); ++i) {
            remap.categories[i] = category(StringId(remap.strings[chunk.categoryNames[i]]));
            if (i < chunk.categoryCounts.size() && chunk.categoryCounts[i])
                stats.categoryCounts[std::string(m_store.strings.view(
                    StringId(remap.strings[chunk.categoryNames[i]])))] += chunk.categoryCounts[i];
        }
        remap.threads.reserve(chunk.threads.size());
        for (const ThreadKey& k : chunk.threads)
            remap.threads.push_back({k.pid, k.tid, k.pidText ? remap.strings[k.pidText] : 0,
                                     k.tidText ? remap.strings[k.tidText] : 0});
        remap.sliceTrack.assign(chunk.threads.size(), StringId::invalidValue);

        stats.eventsSeen += chunk.eventsSeen;
        stats.malformedEvents += chunk.malformed;
        stats.unknownPhaseEvents += chunk.unknownPhase;
        stats.slicesNotKept += chunk.slicesNotKept;
        for (int p = 0; p < 128; ++p)
            if (chunk.phaseCounts[p]) stats.phaseCounts[std::string(1, char(p))] += chunk.phaseCounts[p];
        if (chunk.otherPhaseCount) stats.phaseCounts["(other)"] += chunk.otherPhaseCount;
        for (ImportIssue& issue : chunk.issues)
            m_issues.push_back(std::move(issue));
        if (!chunk.memoryArgs.empty()) m_memoryArgs.push_back(std::move(chunk.memoryArgs));
        chunk.strings.pool = StringPool();
    }
}

void StoreBuild::sortMemoryArgs() {
    // Chunks come in source order and their events in it; only a repair could break the order (a piece parsed
    // again past the next chunk's start): then the pieces are merged into one sorted one.
    const auto byOffset = [](const ParsedMemoryArgs& a, const ParsedMemoryArgs& b) {
        return a.argsOffset < b.argsOffset;
    };
    bool sorted = true;
    for (std::size_t i = 0; i < m_memoryArgs.size() && sorted; ++i)
        sorted = std::is_sorted(m_memoryArgs[i].begin(), m_memoryArgs[i].end(), byOffset) &&
                 (i == 0 || m_memoryArgs[i - 1].back().argsOffset < m_memoryArgs[i].front().argsOffset);
    if (sorted) return;
    std::vector<ParsedMemoryArgs> all;
    for (const auto& piece : m_memoryArgs)
        all.insert(all.end(), piece.begin(), piece.end());
    std::sort(all.begin(), all.end(), byOffset);
    m_memoryArgs.assign(1, std::move(all));
}

void StoreBuild::computeTimeRange() {
    bool any = false;
    TimeNs lo = 0, hi = 0;
    auto take = [&](TimeNs a, TimeNs b) {
        if (!any) {
            lo = a;
            hi = b;
            any = true;
        }
        lo = std::min(lo, a);
        hi = std::max(hi, b);
    };
    for (const Track& t : m_store.tracks) {
        for (std::uint32_t d = 0; d < t.laneCount(); ++d) {
            if (t.laneBegin[d] == t.laneBegin[d + 1]) continue;
            // Lanes are sorted by start and non-overlapping, so their ends are sorted too.
            take(t.starts[t.laneBegin[d]], t.endOf(t.laneBegin[d + 1] - 1));
        }
        if (!t.counterTimes.empty()) take(t.counterTimes.front(), t.counterTimes.back());
    }
    m_store.minTime = lo;
    m_store.maxTime = hi;
    // All of them before keeping the first: the reader's and the parse's (already up to the cap) may come
    // after the builder's in the file.
    std::vector<ImportIssue>& issues = m_store.stats.issues;
    issues.insert(issues.end(), std::make_move_iterator(m_issues.begin()),
                  std::make_move_iterator(m_issues.end()));
    m_store.stats.keepFirstIssues();
}

} // namespace storebuild

void buildStore(TraceStoreParts& store, std::vector<ParsedChunk>& chunks,
                std::shared_ptr<const SourceBuffer> source, const PhaseTimingFn& timing) {
    const std::string_view text = source ? source->text() : std::string_view();
    store.setSourceText(std::move(source), text);
    storebuild::StoreBuild(store, chunks, timing).run();
}

} // namespace kinetoscope
