// Store build, scatter: every event into its track's columns, in file order.
#include "storebuild.h"

#include "model/parallel.h"

#include <numeric>

namespace kinetoscope::storebuild {

// Moves events into their tracks' columns in file order, freeing each chunk as it goes. The slices
// (nearly every event) are placed by two threads: a counting pass gives each chunk its first row in every
// track, so chunks can be written independently; the rest (B/E, async, flows, counters, metadata) is
// appended in file order after.
void StoreBuild::scatterEvents() {
    const std::size_t chunkCount = m_chunks.size();
    PhaseClock clock(m_timing);
    std::vector<std::vector<std::uint32_t>> chunkRows(chunkCount); // slices each chunk adds to each track
    std::vector<std::uint64_t> chunkSeq(chunkCount + 1,
                                        0); // file-order index of each chunk's first event
    std::vector<std::size_t> counts;
    for (std::size_t c = 0; c < chunkCount; ++c) {
        ParsedChunk& chunk = m_chunks[c];
        ChunkRemap& remap = m_remaps[c];
        chunkSeq[c + 1] = chunkSeq[c] + chunk.events.size();
        std::vector<std::uint32_t>& rows = chunkRows[c];
        if (chunk.slicesByThread.size() != chunk.threads.size()) chunk.tallyThreads(); // repaired chunks
        // From the per-thread tallies (made while parsing), not another pass over every event. Threads
        // with only B/E get their track when the pairs are matched; orderTracks() decides the display
        // order either way.
        for (std::uint32_t th = 0; th < chunk.threads.size(); ++th) {
            if (chunk.slicesByThread[th] == 0 && !chunk.beginByThread[th]) continue;
            std::uint32_t& track = remap.sliceTrack[th];
            if (track == StringId::invalidValue) track = threadTrack(remap.threads[th]).value;
            if (counts.size() <= track) counts.resize(track + 1, 0);
            if (m_hasBeginEnd.size() <= track) m_hasBeginEnd.resize(track + 1, 0);
            if (chunk.beginByThread[th]) m_hasBeginEnd[track] = 1;
            counts[track] += chunk.slicesByThread[th];
            if (rows.size() <= track) rows.resize(track + 1, 0);
            rows[track] += chunk.slicesByThread[th];
        }
    }
    const std::size_t trackCount = m_store.tracks.size();
    counts.resize(trackCount, 0);
    m_sliceCount = std::accumulate(counts.begin(), counts.end(), std::size_t(0));
    m_rowSeq.resize(trackCount);
    m_hasBeginEnd.resize(trackCount, 0);
    {
        // Sizing the columns touches every page (a hundred MB for a 1 GB trace): half the columns on each
        // core.
        auto sizeColumns = [&](bool first) {
            for (std::size_t t = 0; t < trackCount; ++t) {
                Track& track = m_store.tracks[t];
                if (first) {
                    track.starts.resize(counts[t]);
                    track.durations.resize(counts[t]);
                } else {
                    track.names.resize(counts[t]);
                    track.categories.resize(counts[t]);
                    track.flags.resize(counts[t]);
                    track.args.resize(counts[t]);
                    // Tracks mixing X with B/E keep file order for the parent rule (B/E rows come later).
                    if (m_hasBeginEnd[t]) m_rowSeq[t].resize(counts[t]);
                }
            }
        };
        parallelInvoke(
            m_sliceCount >= parallelThreshold, [&] { sizeColumns(true); }, [&] { sizeColumns(false); });
    }
    clock.lap("  scatter: count+size");
    // Each chunk's first row in each track.
    std::vector<std::vector<std::uint32_t>> firstRow(chunkCount);
    {
        std::vector<std::uint32_t> next(trackCount, 0);
        for (std::size_t c = 0; c < chunkCount; ++c) {
            firstRow[c] = next;
            for (std::size_t t = 0; t < chunkRows[c].size(); ++t)
                next[t] += chunkRows[c][t];
        }
    }

    struct LongArgs {
        std::uint32_t track, row;
        ArgsRange range;
    };
    std::vector<std::vector<PendingIds>> chunkIds(chunkCount);
    std::vector<std::vector<LongArgs>> chunkLongArgs(chunkCount);
    auto placeSlices = [&](std::size_t cBegin, std::size_t cEnd) {
        for (std::size_t c = cBegin; c < cEnd; ++c) {
            const ParsedChunk& chunk = m_chunks[c];
            const ChunkRemap& remap = m_remaps[c];
            std::vector<std::uint32_t> cursor = std::move(firstRow[c]);
            std::size_t nextIds = 0;
            chunkIds[c].reserve(chunk.ids.size());
            for (std::uint32_t i = 0; i < chunk.events.size(); ++i) {
                const ParsedEvent& e = chunk.events[i];
                if (e.phase != 'X' && e.phase != 'i') continue;
                const std::uint32_t t = remap.sliceTrack[e.thread];
                Track& track = m_store.tracks[t];
                const std::uint32_t row = cursor[t]++;
                track.starts[row] = e.ts;
                track.durations[row] = e.dur;
                track.names[row] = StringId(remap.strings[e.name]);
                track.categories[row] =
                    e.category < remap.categories.size() ? remap.categories[e.category] : 0;
                track.flags[row] = std::uint8_t(e.flags | (e.phase == 'i' ? SliceFlag::Instant : 0));
                const ArgsRange range{e.argsOffset, e.argsLength};
                if (!TraceStoreParts::packArgsInline(range, track.args[row]))
                    chunkLongArgs[c].push_back({t, row, range});
                while (nextIds < chunk.ids.size() && chunk.ids[nextIds].event < i)
                    ++nextIds;
                if (nextIds < chunk.ids.size() && chunk.ids[nextIds].event == i)
                    chunkIds[c].push_back({t, row, chunk.ids[nextIds]});
                if (m_hasBeginEnd[t]) m_rowSeq[t][row] = chunkSeq[c] + i;
            }
        }
    };
    // Split the chunks where half the events lie.
    std::size_t split = 0;
    while (split < chunkCount && chunkSeq[split] * 2 < chunkSeq[chunkCount])
        ++split;
    // Chunks write rows of their own (firstRow), so the two halves are independent.
    parallelInvoke(
        chunkSeq[chunkCount] >= parallelThreshold && split > 0 && split < chunkCount,
        [&] { placeSlices(split, chunkCount); }, [&] { placeSlices(0, split); });
    for (std::size_t c = 0; c < chunkCount; ++c)
        for (const LongArgs& l : chunkLongArgs[c])
            m_store.tracks[l.track].args[l.row] = m_store.packArgs(l.range);
    {
        // Grouped by track (a stable counting sort: file order within each), as the lane sort wants them;
        // within a track, ids mostly grow in file order, so the correlation index later merges a few
        // runs.
        std::vector<std::size_t> start(m_store.tracks.size() + 1, 0);
        for (const auto& ids : chunkIds)
            for (const PendingIds& p : ids)
                ++start[p.track + 1];
        std::partial_sum(start.begin(), start.end(), start.begin());
        m_pendingIds.resize(start.back());
        for (const auto& ids : chunkIds)
            for (const PendingIds& p : ids)
                m_pendingIds[start[p.track]++] = p;
    }
    chunkIds.clear();
    clock.lap("  scatter: slices");
    std::size_t flowCount = 0;
    for (const ParsedChunk& chunk : m_chunks)
        flowCount += chunk.flows.size();
    m_flows.reserve(m_flows.size() + flowCount); // one allocation: a million flows grow by copying otherwise

    for (std::size_t c = 0; c < chunkCount; ++c) {
        ParsedChunk& chunk = m_chunks[c];
        ChunkRemap& remap = m_remaps[c];
        for (std::uint32_t i = 0; chunk.beginEndEvents && i < chunk.events.size(); ++i) {
            if (chunk.events[i].phase != 'B' && chunk.events[i].phase != 'E') continue;
            ParsedEvent e = chunk.events[i];
            e.name = remap.strings[e.name];
            e.category = e.category < remap.categories.size() ? remap.categories[e.category] : 0;
            const TrackId track = threadTrack(remap.threads[e.thread]);
            m_beginEnds[track.value].push_back({e, chunkSeq[c] + i});
        }
        for (const ParsedAsyncId& a : chunk.asyncIds) {
            ParsedEvent e = chunk.events[a.event];
            e.name = remap.strings[e.name];
            e.category = e.category < remap.categories.size() ? remap.categories[e.category] : 0;
            m_async.push_back(
                {e, remap.threads[e.thread], a.id, a.idText ? remap.strings[a.idText] : 0, m_async.size()});
        }
        for (ParsedFlow f : chunk.flows) {
            f.name = remap.strings[f.name];
            f.category = f.category < remap.categories.size() ? remap.categories[f.category] : 0;
            f.idText = f.idText ? remap.strings[f.idText] : 0;
            m_flows.push_back({f, remap.threads[f.thread], {}});
        }
        for (const ParsedCounter& pc : chunk.counters) {
            const GlobalThread& th = remap.threads[pc.thread];
            const CounterKey key{th.pid, th.pidText, remap.strings[pc.name], remap.strings[pc.series]};
            auto [it, inserted] = m_counterIndex.try_emplace(key, std::uint32_t(m_counters.size()));
            if (inserted) m_counters.push_back({key, {}});
            m_counters[it->second].samples.push_back({pc.ts, pc.value});
        }
        for (const ParsedMeta& m : chunk.metas) {
            ParsedMeta g = m;
            if (g.kind != MetaKind::ProcessSortIndex && g.kind != MetaKind::ThreadSortIndex)
                g.text = remap.strings[g.text];
            m_metas.push_back({g, remap.threads[m.thread]});
        }
        // Freed on another core meanwhile (returning a chunk's pages is a good part of the cost).
        m_retired.push_back(std::move(chunk));
    }
    m_chunks.clear();
    if (m_sliceCount >= parallelThreshold)
        m_freeing = std::jthread([retired = std::move(m_retired)]() mutable { retired.clear(); });
    else
        m_retired.clear();
    clock.lap("  scatter: rest");
}

} // namespace kinetoscope::storebuild
