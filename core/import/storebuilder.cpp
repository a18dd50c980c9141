#include "storebuilder.h"

#include "model/radixsort.h"
#include "model/runmerge.h"
#include "sourcebuffer.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <numeric>
#include <thread>
#include <tuple>
#include <unordered_map>
#include <utility>

namespace kinetoscope {

namespace {

struct GlobalThread {
    std::int64_t pid = 0;
    std::int64_t tid = 0;
    std::uint32_t pidText = 0; // StringId value; 0 = numeric
    std::uint32_t tidText = 0;
    bool operator==(const GlobalThread&) const = default;
};

struct GlobalThreadHash {
    std::size_t operator()(const GlobalThread& k) const noexcept {
        return ThreadKeyHash{}(ThreadKey{k.pid, k.tid, k.pidText, k.tidText});
    }
};

struct ChunkRemap {
    std::vector<std::uint32_t> strings;    // local string -> StringId
    std::vector<std::uint16_t> categories; // local category -> CategoryId
    std::vector<GlobalThread> threads;     // local thread -> global key
    std::vector<std::uint32_t> sliceTrack; // local thread -> TrackId of its slices (created lazily)
};

struct BeginEnd {
    ParsedEvent event; // names and categories already global
    std::uint64_t seq = 0;
};

struct PendingIds {
    std::uint32_t track = 0;
    std::uint32_t row = 0;
    ParsedIds ids;
};

struct PendingAsync {
    ParsedEvent event; // global ids
    GlobalThread thread;
    std::uint64_t id = 0;
    std::uint32_t idText = 0;
    std::uint64_t seq = 0;
};

struct PendingFlow {
    ParsedFlow flow; // global ids in name/category/idText
    GlobalThread thread;
    EventRef bound;
};

template <typename T, typename Less> void sortFewRuns(std::vector<T>& v, Less less) {
    if (!mergeFewRuns(v, less, 1024)) std::sort(v.begin(), v.end(), less);
}

// Sorts correlation entries by (id, ref). Nearly sorted tables (one run per thread) are merged, others
// radix-sorted.
void sortById(std::vector<CorrelationEntry>& v) {
    auto byId = [](const CorrelationEntry& a, const CorrelationEntry& b) {
        return a.id < b.id || (a.id == b.id && a.ref < b.ref);
    };
    if (!mergeFewRuns(v, byId, 16))
        radixSort(
            v, [](const CorrelationEntry& e) { return e.id; }, byId);
}

FlowKind flowKindOf(std::string_view cat) {
    std::string lower(cat);
    for (char& c : lower)
        c = char(std::tolower(static_cast<unsigned char>(c)));
    if (lower == "ac2g" || lower == "async" || lower == "launch" || lower == "async_cpu_to_gpu" ||
        lower == "async_gpu")
        return FlowKind::Launch;
    if (lower == "fwdbwd" || lower == "forward_backward" || lower == "fwd_bwd")
        return FlowKind::ForwardBackward;
    return FlowKind::Other;
}

template <typename T> void applyPermutation(std::vector<T>& column, const std::vector<std::uint32_t>& order) {
    std::vector<T> sorted(order.size());
    for (std::size_t i = 0; i < order.size(); ++i)
        sorted[i] = column[order[i]];
    column.swap(sorted);
}

class Builder {
  public:
    Builder(TraceStore& store, std::vector<ParsedChunk>& chunks) : m_store(store), m_chunks(chunks) {}

    void run() {
        const bool timing = std::getenv("KINETOSCOPE_TIMING") != nullptr;
        auto last = std::chrono::steady_clock::now();
        auto step = [&](const char* what) {
            if (!timing) return;
            const auto now = std::chrono::steady_clock::now();
            std::fprintf(stderr, "  build: %-14s %6.0f ms\n", what,
                         std::chrono::duration<double, std::milli>(now - last).count());
            last = now;
        };
        remapChunks();
        step("remap");
        scatterEvents();
        step("scatter");
        for (std::uint32_t t = 0; t < m_store.tracks.size(); ++t)
            matchBeginEnd(t);
        buildAsyncTracks();
        buildCounterTracks();
        applyMetadata();
        step("pairs+meta");
        // Small traces (most files, and every fuzz input) do each part in turn: starting threads would cost
        // more.
        const bool big = m_sliceCount >= parallelThreshold;
        {
            std::thread pairing;
            if (big)
                pairing = std::thread([this] { pairFlows(); });
            else
                pairFlows();
            finalizeTracks();
            if (pairing.joinable()) pairing.join();
        }
        step("sort+lanes");
        orderTracks();
        {
            // The correlation index does not depend on the flows: build it on a second core meanwhile.
            std::thread index;
            if (big) index = std::thread([this] { buildCorrelationIndex(); });
            resolveFlows();
            if (index.joinable())
                index.join();
            else
                buildCorrelationIndex();
        }
        step("flows+index");
        linkLaunchesByCorrelation();
        step("correlation");
        computeTimeRange();
        if (m_freeing.joinable()) m_freeing.join();
    }

  private:
    TrackId threadTrack(const GlobalThread& key) {
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

    std::uint16_t category(StringId name) {
        auto [it, inserted] = m_categories.try_emplace(name.value, std::uint16_t(m_store.categories.size()));
        if (inserted) m_store.categories.push_back({name, classifyCategory(m_store.strings.view(name))});
        return it->second;
    }

    void remapChunks() {
        ImportStats& stats = m_store.stats;
        // Category 0 of every chunk is "no category"; keep the same in the store.
        category(StringId(0));
        m_remaps.resize(m_chunks.size());
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
            for (int p = 0; p < 128; ++p)
                if (chunk.phaseCounts[p]) stats.phaseCounts[std::string(1, char(p))] += chunk.phaseCounts[p];
            if (chunk.otherPhaseCount) stats.phaseCounts["(other)"] += chunk.otherPhaseCount;
            for (ImportIssue& issue : chunk.issues)
                m_issues.push_back(std::move(issue));
            chunk.strings.pool = StringPool();
        }
    }

    // Moves events into their tracks' columns in file order, freeing each chunk as it goes. The slices
    // (nearly every event) are placed by two threads: a counting pass gives each chunk its first row in every
    // track, so chunks can be written independently; the rest (B/E, async, flows, counters, metadata) is
    // appended in file order after.
    void scatterEvents() {
        const std::size_t chunkCount = m_chunks.size();
        auto tick = std::chrono::steady_clock::now();
        auto lap = [&](const char* what) {
            if (!std::getenv("KINETOSCOPE_TIMING")) return;
            const auto now = std::chrono::steady_clock::now();
            std::fprintf(stderr, "    scatter %-10s %6.0f ms\n", what,
                         std::chrono::duration<double, std::milli>(now - tick).count());
            tick = now;
        };
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
            std::thread other;
            if (m_sliceCount >= parallelThreshold)
                other = std::thread(sizeColumns, true);
            else
                sizeColumns(true);
            sizeColumns(false);
            if (other.joinable()) other.join();
        }
        lap("count+size");
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
                    if (!TraceStore::packArgsInline(range, track.args[row]))
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
        if (chunkSeq[chunkCount] >= (1u << 16) && split > 0 && split < chunkCount) {
            std::thread other(placeSlices, split, chunkCount);
            placeSlices(0, split);
            other.join();
        } else {
            placeSlices(0, chunkCount);
        }
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
        lap("slices");
        std::size_t flowCount = 0;
        for (const ParsedChunk& chunk : m_chunks)
            flowCount += chunk.flows.size();
        m_flows.reserve(m_flows.size() +
                        flowCount); // one allocation: a million flows grow by copying otherwise

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
                m_async.push_back({e, remap.threads[e.thread], a.id, a.idText ? remap.strings[a.idText] : 0,
                                   m_async.size()});
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
            m_freeing = std::thread([retired = std::move(m_retired)]() mutable { retired.clear(); });
        else
            m_retired.clear();
        lap("rest");
    }

    void matchBeginEnd(std::uint32_t trackIndex) {
        auto& list = m_beginEnds[trackIndex];
        if (list.empty()) return;
        std::stable_sort(list.begin(), list.end(),
                         [](const BeginEnd& a, const BeginEnd& b) { return a.event.ts < b.event.ts; });
        Track& track = m_store.tracks[trackIndex];
        std::vector<const BeginEnd*> open;
        std::vector<std::uint32_t> unterminated;
        for (const BeginEnd& be : list) {
            if (be.event.phase == 'B') {
                open.push_back(&be);
                continue;
            }
            if (open.empty()) {
                ++m_store.stats.endWithoutBegin;
                continue;
            }
            const ParsedEvent& b = open.back()->event;
            const std::uint64_t beginSeq = open.back()->seq;
            open.pop_back();
            track.starts.push_back(b.ts);
            track.durations.push_back(be.event.ts - b.ts);
            // chrome://tracing lets E name a slice that B left unnamed.
            track.names.push_back(StringId(b.name ? b.name : be.event.name));
            track.categories.push_back(b.category ? b.category : be.event.category);
            track.flags.push_back(SliceFlag::BeginEnd);
            track.args.push_back(m_store.packArgs({b.argsOffset, b.argsLength}));
            m_rowSeq[trackIndex].push_back(beginSeq);
        }
        if (!open.empty()) {
            // Never closed: keep them, ending where the track's last event ends.
            TimeNs trackEnd = list.back().event.ts;
            for (std::size_t r = 0; r < track.starts.size(); ++r)
                trackEnd = std::max(trackEnd, track.endOf(r));
            for (const BeginEnd* be : open) {
                ++m_store.stats.beginWithoutEnd;
                const ParsedEvent& b = be->event;
                track.starts.push_back(b.ts);
                track.durations.push_back(std::max<TimeNs>(0, trackEnd - b.ts));
                track.names.push_back(StringId(b.name));
                track.categories.push_back(b.category);
                track.flags.push_back(SliceFlag::BeginEnd | SliceFlag::Unterminated);
                track.args.push_back(m_store.packArgs({b.argsOffset, b.argsLength}));
                m_rowSeq[trackIndex].push_back(be->seq);
            }
        }
        list.clear();
        list.shrink_to_fit();
    }

    void buildAsyncTracks() {
        if (m_async.empty()) return;
        // Pairs are matched per (process, category, id); each process+category gets one track whose
        // lanes hold the overlapping ranges.
        std::sort(m_async.begin(), m_async.end(), [](const PendingAsync& a, const PendingAsync& b) {
            return std::tie(a.thread.pid, a.thread.pidText, a.event.category, a.idText, a.id, a.event.ts,
                            a.seq) < std::tie(b.thread.pid, b.thread.pidText, b.event.category, b.idText,
                                              b.id, b.event.ts, b.seq);
        });
        std::unordered_map<GlobalThread, std::uint32_t, GlobalThreadHash> tracks;
        auto trackFor = [&](const PendingAsync& a) -> Track& {
            const GlobalThread key{a.thread.pid, a.event.category, a.thread.pidText, 0};
            auto [it, inserted] = tracks.try_emplace(key, std::uint32_t(m_store.tracks.size()));
            if (inserted) {
                Track t;
                t.kind = TrackKind::Async;
                t.pid = a.thread.pid;
                t.pidText = StringId(a.thread.pidText);
                t.name = m_store.categories[a.event.category].name;
                m_store.tracks.push_back(std::move(t));
                m_beginEnds.emplace_back();
            }
            return m_store.tracks[it->second];
        };
        auto push = [&](Track& t, const ParsedEvent& e, TimeNs dur, std::uint8_t flags) {
            t.starts.push_back(e.ts);
            t.durations.push_back(dur);
            t.names.push_back(StringId(e.name));
            t.categories.push_back(e.category);
            t.flags.push_back(flags);
            t.args.push_back(m_store.packArgs({e.argsOffset, e.argsLength}));
        };
        std::vector<const PendingAsync*> open;
        auto sameKey = [](const PendingAsync& a, const PendingAsync& b) {
            return a.thread.pid == b.thread.pid && a.thread.pidText == b.thread.pidText &&
                   a.event.category == b.event.category && a.id == b.id && a.idText == b.idText;
        };
        TimeNs lastTime = 0;
        for (const PendingAsync& a : m_async)
            lastTime = std::max(lastTime, a.event.ts);
        for (std::size_t i = 0; i < m_async.size(); ++i) {
            const PendingAsync& a = m_async[i];
            if (a.event.phase == 'n')
                push(trackFor(a), a.event, 0, SliceFlag::Instant);
            else if (a.event.phase == 'b')
                open.push_back(&a);
            else if (open.empty())
                ++m_store.stats.asyncUnmatched;
            else {
                const PendingAsync& b = *open.back();
                open.pop_back();
                push(trackFor(b), b.event, a.event.ts - b.event.ts, 0);
            }
            if (i + 1 == m_async.size() || !sameKey(a, m_async[i + 1])) {
                for (const PendingAsync* b : open) {
                    ++m_store.stats.asyncUnmatched;
                    push(trackFor(*b), b->event, std::max<TimeNs>(0, lastTime - b->event.ts),
                         SliceFlag::Unterminated);
                }
                open.clear();
            }
        }
        m_async.clear();
        m_async.shrink_to_fit();
    }

    void buildCounterTracks() {
        for (auto& series : m_counters) {
            Track t;
            t.kind = TrackKind::Counter;
            t.pid = series.key.pid;
            t.pidText = StringId(series.key.pidText);
            const std::string_view name = m_store.strings.view(StringId(series.key.name));
            const std::string_view key = m_store.strings.view(StringId(series.key.series));
            t.name = (key == name || key.empty())
                         ? StringId(series.key.name)
                         : m_store.strings.intern(std::string(name) + " · " + std::string(key));
            std::stable_sort(series.samples.begin(), series.samples.end(),
                             [](const auto& a, const auto& b) { return a.first < b.first; });
            t.counterTimes.reserve(series.samples.size());
            t.counterValues.reserve(series.samples.size());
            for (const auto& [ts, v] : series.samples) {
                t.counterTimes.push_back(ts);
                t.counterValues.push_back(v);
            }
            m_store.tracks.push_back(std::move(t));
            m_beginEnds.emplace_back();
        }
        m_counters.clear();
    }

    void applyMetadata() {
        std::unordered_map<std::uint64_t, std::size_t> processIndex;
        auto process = [&](const GlobalThread& th) -> ProcessInfo& {
            const std::uint64_t key = (std::uint64_t(th.pidText) << 40) ^ std::uint64_t(th.pid);
            auto [it, inserted] = processIndex.try_emplace(key, m_store.processes.size());
            if (inserted) {
                ProcessInfo p;
                p.pid = th.pid;
                p.pidText = StringId(th.pidText);
                m_store.processes.push_back(p);
            }
            return m_store.processes[it->second];
        };
        for (const Track& t : m_store.tracks)
            process({t.pid, 0, t.pidText.value, 0});
        for (const auto& [m, th] : m_metas) {
            switch (m.kind) {
            case MetaKind::ProcessName:
                process(th).name = StringId(m.text);
                break;
            case MetaKind::ProcessLabels:
                process(th).labels.push_back(StringId(m.text));
                break;
            case MetaKind::ProcessSortIndex:
                process(th).sortIndex = m.number;
                process(th).hasSortIndex = true;
                break;
            case MetaKind::ThreadName:
            case MetaKind::ThreadSortIndex: {
                auto it = m_threadTracks.find(th);
                if (it == m_threadTracks.end()) break; // a thread with no events
                Track& t = m_store.tracks[it->second];
                if (m.kind == MetaKind::ThreadName)
                    t.name = StringId(m.text);
                else {
                    t.sortIndex = m.number;
                    t.hasSortIndex = true;
                }
                break;
            }
            }
        }
        m_metas.clear();
    }

    // Sorts each track's rows by (start, longer first, file order), assigns lanes, and reorders the
    // columns by (lane, start).
    void finalizeTracks() {
        std::size_t nextIds = 0; // m_pendingIds are grouped by track (scatterEvents)
        for (std::uint32_t t = 0; t < m_store.tracks.size(); ++t) {
            Track& track = m_store.tracks[t];
            const std::size_t n = track.starts.size();
            bool gpu = false;
            for (std::uint16_t c : track.categories)
                if (isGpuCategory(m_store.categories[c].kind) &&
                    m_store.categories[c].kind != CategoryKind::GpuUserAnnotation) {
                    gpu = true;
                    break;
                }
            if (track.kind == TrackKind::CpuThread && gpu) track.kind = TrackKind::GpuStream;
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
            } else if (n >= (1u << 20)) {
                // One thread usually holds most events: sort its halves on two cores, then merge.
                const auto mid = order.begin() + std::ptrdiff_t(n / 2);
                std::thread half([&] { std::sort(order.begin(), mid, before); });
                std::sort(mid, order.end(), before);
                half.join();
                std::inplace_merge(order.begin(), mid, order.end(), before);
            } else {
                std::sort(order.begin(), order.end(), before);
            }
            if (seq) m_rowSeq[t] = {};
            std::vector<std::uint16_t> depth(n);
            std::vector<TimeNs> laneEnd;
            struct Open {
                TimeNs end;
                std::uint16_t depth;
            };
            std::vector<Open> stack;
            for (std::uint32_t k = 0; k < n; ++k) {
                const std::uint32_t r = order[k];
                const TimeNs s = track.starts[r];
                const TimeNs e = s + track.durations[r];
                while (!stack.empty() && stack.back().end <= s)
                    stack.pop_back();
                std::size_t d = 0;
                if (!stack.empty()) {
                    d = std::size_t(stack.back().depth) + 1;
                    if (stack.back().end < e) {
                        ++m_store.stats.overlappingSlices;
                        track.flags[r] |= SliceFlag::Overlapping;
                    }
                }
                while (d < laneEnd.size() && laneEnd[d] > s)
                    ++d;
                if (d >= 0xffff) d = 0xfffe; // pathological nesting: pile onto the last lane
                if (d >= laneEnd.size()) laneEnd.resize(d + 1, std::numeric_limits<TimeNs>::min());
                laneEnd[d] = std::max(laneEnd[d], e);
                depth[r] = std::uint16_t(d);
                stack.push_back({e, std::uint16_t(d)});
            }
            // Stable counting sort of the time-ordered rows by lane.
            track.laneBegin.assign(laneEnd.size() + 1, 0);
            for (std::uint32_t r = 0; r < n; ++r)
                ++track.laneBegin[depth[r] + 1];
            std::partial_sum(track.laneBegin.begin(), track.laneBegin.end(), track.laneBegin.begin());
            std::vector<std::uint32_t> cursor(track.laneBegin.begin(), track.laneBegin.end() - 1);
            std::vector<std::uint32_t> final(n);
            for (std::uint32_t k = 0; k < n; ++k)
                final[cursor[depth[order[k]]]++] = order[k];
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
                std::thread other;
                if (n >= (1u << 16))
                    other = std::thread(firstHalf);
                else
                    firstHalf();
                applyPermutation(track.durations, final);
                applyPermutation(track.categories, final);
                applyPermutation(track.args, final);
                if (other.joinable()) other.join();
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
    void orderTracks() {
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

    std::optional<std::uint32_t> nextStarting(const Track& t, TimeNs ts) const {
        std::optional<std::uint32_t> best;
        for (std::uint32_t d = 0; d < t.laneCount(); ++d) {
            const auto first = t.starts.begin() + t.laneBegin[d];
            const auto last = t.starts.begin() + t.laneBegin[d + 1];
            auto it = std::lower_bound(first, last, ts);
            while (it != last && (t.flags[it - t.starts.begin()] & SliceFlag::Instant))
                ++it;
            if (it == last) continue;
            const auto row = std::uint32_t(it - t.starts.begin());
            if (!best || t.starts[row] < t.starts[*best]) best = row;
        }
        return best;
    }

    // Sorting the flow halves by id and pairing them needs no slice: done on a second core while the tracks
    // are sorted (pairFlows), then resolveFlows binds the paired ends to slices. Orders the flow halves by
    // (category, name, idText, id, ts, offset). Traces have a handful of (category, name, idText) groups: the
    // groups are ranked, then small keys are radix-sorted by id and bucketed by group, and the halves (72
    // bytes each) are moved once. Several times faster than sorting the halves themselves.
    void sortFlowHalves() {
        auto less = [](const PendingFlow& a, const PendingFlow& b) {
            return std::tie(a.flow.category, a.flow.name, a.flow.idText, a.flow.id, a.flow.ts,
                            a.flow.offset) <
                   std::tie(b.flow.category, b.flow.name, b.flow.idText, b.flow.id, b.flow.ts, b.flow.offset);
        };
        using Group = std::tuple<std::uint16_t, std::uint32_t, std::uint32_t>; // category, name, idText
        auto groupOf = [](const PendingFlow& f) {
            return Group(f.flow.category, f.flow.name, f.flow.idText);
        };
        std::vector<Group> groups;
        for (const PendingFlow& f : m_flows) {
            const Group g = groupOf(f);
            if (!groups.empty() && groups.back() == g) continue;
            if (std::find(groups.begin(), groups.end(), g) != groups.end()) continue;
            groups.push_back(g);
            if (groups.size() > 64) break;
        }
        if (m_flows.size() < 4096 || groups.size() > 64) {
            std::sort(m_flows.begin(), m_flows.end(), less);
            return;
        }
        std::sort(groups.begin(), groups.end());
        struct Key {
            std::uint64_t id;
            std::uint32_t group;
            std::uint32_t index;
        };
        std::vector<Key> keys(m_flows.size());
        std::size_t last = 0;
        for (std::uint32_t i = 0; i < m_flows.size(); ++i) {
            const Group g = groupOf(m_flows[i]);
            if (groups[last] != g)
                last = std::size_t(std::lower_bound(groups.begin(), groups.end(), g) - groups.begin());
            keys[i] = {m_flows[i].flow.id, std::uint32_t(last), i};
        }
        radixSort(
            keys, [](const Key& k) { return k.id; },
            [&](const Key& a, const Key& b) {
                if (a.group != b.group) return a.group < b.group;
                return less(m_flows[a.index], m_flows[b.index]);
            });
        // Stable bucketing by group keeps the (id, ts, offset) order within each.
        std::vector<std::size_t> start(groups.size() + 1, 0);
        for (const Key& k : keys)
            ++start[k.group + 1];
        std::partial_sum(start.begin(), start.end(), start.begin());
        std::vector<PendingFlow> sorted(m_flows.size());
        for (const Key& k : keys)
            sorted[start[k.group]++] = m_flows[k.index];
        m_flows.swap(sorted);
    }

    void pairFlows() {
        ImportStats& stats = m_store.stats;
        sortFlowHalves();
        auto sameKey = [](const ParsedFlow& a, const ParsedFlow& b) {
            return a.category == b.category && a.name == b.name && a.idText == b.idText && a.id == b.id;
        };
        // Pair the halves first, so that only ends that have a partner are bound to slices (real traces
        // carry hundreds of thousands of orphan ends).
        std::vector<std::pair<std::uint32_t, std::uint32_t>>& pairs = m_flowPairs;
        std::int64_t pending = -1;
        for (std::size_t i = 0; i < m_flows.size(); ++i) {
            const char ph = m_flows[i].flow.phase;
            if (ph == 's') {
                if (pending >= 0) ++stats.flowStartsUnmatched;
                pending = std::int64_t(i);
            } else if (pending < 0) {
                ++stats.flowEndsUnmatched;
                if (ph == 't') pending = std::int64_t(i);
            } else {
                pairs.emplace_back(std::uint32_t(pending), std::uint32_t(i));
                pending = ph == 't' ? std::int64_t(i) : -1;
            }
            if (i + 1 == m_flows.size() || !sameKey(m_flows[i].flow, m_flows[i + 1].flow)) {
                if (pending >= 0) ++stats.flowStartsUnmatched;
                pending = -1;
            }
        }
    }

    // Binds flow ends of one track, given in time order, to the deepest slice containing their time, exactly
    // as Track::deepestAt answers it (instants skipped; every lane tried, since a slice displaced by an
    // overlap can sit below a gap): each lane keeps a pointer to its first row starting after the current
    // time.
    void sweepEnclosing(std::uint32_t trackIndex, const std::uint32_t* first, const std::uint32_t* last) {
        if (first == last) return;
        const Track& t = m_store.tracks[trackIndex];
        const std::size_t lanes = t.laneCount();
        std::vector<std::uint32_t> next(lanes);
        const TimeNs t0 = m_flows[*first].flow.ts;
        for (std::size_t d = 0; d < lanes; ++d)
            next[d] = std::uint32_t(std::upper_bound(t.starts.begin() + t.laneBegin[d],
                                                     t.starts.begin() + t.laneBegin[d + 1], t0) -
                                    t.starts.begin());
        for (const std::uint32_t* p = first; p != last; ++p) {
            PendingFlow& pf = m_flows[*p];
            const TimeNs ts = pf.flow.ts;
            std::optional<std::uint32_t> found;
            for (std::size_t d = 0; d < lanes; ++d) {
                const std::uint32_t lo = t.laneBegin[d], hi = t.laneBegin[d + 1];
                std::uint32_t& n = next[d];
                while (n < hi && t.starts[n] <= ts)
                    ++n;
                for (std::uint32_t q = n; q > lo; --q) {
                    const std::uint32_t row = q - 1;
                    if (t.flags[row] & SliceFlag::Instant) continue;
                    if (ts < t.endOf(row) || ts == t.starts[row]) found = row;
                    break;
                }
            }
            if (found) pf.bound = EventRef{TrackId(trackIndex), *found};
        }
    }

    void resolveFlows() {
        ImportStats& stats = m_store.stats;
        const std::vector<std::pair<std::uint32_t, std::uint32_t>>& pairs = m_flowPairs;
        auto bind = [&](PendingFlow& pf) -> EventRef {
            if (pf.bound.isValid()) return pf.bound;
            auto it = m_threadTracks.find(pf.thread);
            if (it == m_threadTracks.end()) return {};
            const Track& t = m_store.tracks[it->second];
            const auto row = pf.flow.bindEnclosing ? t.deepestAt(pf.flow.ts) : nextStarting(t, pf.flow.ts);
            if (row) pf.bound = EventRef{TrackId(it->second), *row};
            return pf.bound;
        };
        // Bind every end that has a partner once. Ends that bind to their enclosing slice (nearly all) are
        // grouped by track and taken in time order, so each lane is walked once with a pointer
        // (sweepEnclosing) instead of a binary search per lane per end; the pieces run on two threads.
        {
            std::vector<std::uint32_t> ends;
            ends.reserve(pairs.size() * 2);
            for (const auto& [from, to] : pairs) {
                ends.push_back(from);
                ends.push_back(to);
            }
            std::sort(ends.begin(), ends.end());
            ends.erase(std::unique(ends.begin(), ends.end()), ends.end());
            std::vector<std::vector<std::uint32_t>> byTrack(m_store.tracks.size());
            std::vector<std::uint32_t> nextStartingEnds;
            const GlobalThread* cachedKey[2] = {nullptr, nullptr};
            std::uint32_t cachedTrack[2] = {0, 0};
            for (const std::uint32_t e : ends) {
                const PendingFlow& pf = m_flows[e];
                if (!pf.flow.bindEnclosing) {
                    nextStartingEnds.push_back(e);
                    continue;
                }
                // Launch flows alternate between a CPU thread and a GPU stream: remember the last two
                // lookups.
                std::uint32_t track;
                if (cachedKey[0] && *cachedKey[0] == pf.thread) {
                    track = cachedTrack[0];
                } else if (cachedKey[1] && *cachedKey[1] == pf.thread) {
                    track = cachedTrack[1];
                } else {
                    auto it = m_threadTracks.find(pf.thread);
                    if (it == m_threadTracks.end()) continue;
                    track = it->second;
                    cachedKey[1] = cachedKey[0];
                    cachedTrack[1] = cachedTrack[0];
                    cachedKey[0] = &pf.thread;
                    cachedTrack[0] = track;
                }
                byTrack[track].push_back(e);
            }
            struct Piece {
                std::uint32_t track;
                std::size_t begin, end;
            };
            std::vector<Piece> pieces;
            for (std::uint32_t t = 0; t < byTrack.size(); ++t) {
                std::vector<std::uint32_t>& list = byTrack[t];
                if (list.empty()) continue;
                auto byTime = [&](std::uint32_t a, std::uint32_t b) {
                    return m_flows[a].flow.ts < m_flows[b].flow.ts;
                };
                sortFewRuns(list, byTime);
                if (list.size() >= 65536) {
                    pieces.push_back({t, 0, list.size() / 2});
                    pieces.push_back({t, list.size() / 2, list.size()});
                } else {
                    pieces.push_back({t, 0, list.size()});
                }
            }
            // Two workers take pieces, biggest first, each keeping to the lighter load.
            std::sort(pieces.begin(), pieces.end(),
                      [](const Piece& a, const Piece& b) { return a.end - a.begin > b.end - b.begin; });
            std::vector<Piece> work[2];
            std::size_t load[2] = {0, 0};
            for (const Piece& piece : pieces) {
                const int w = load[0] <= load[1] ? 0 : 1;
                work[w].push_back(piece);
                load[w] += piece.end - piece.begin;
            }
            auto runWork = [&](int w) {
                for (const Piece& piece : work[w]) {
                    const std::vector<std::uint32_t>& list = byTrack[piece.track];
                    sweepEnclosing(piece.track, list.data() + piece.begin, list.data() + piece.end);
                }
            };
            if (load[0] + load[1] >= 65536) {
                std::thread other(runWork, 1);
                runWork(0);
                other.join();
            } else {
                runWork(0);
                runWork(1);
            }
            for (const std::uint32_t e : nextStartingEnds)
                bind(m_flows[e]);
        }
        std::vector<FlowKind> kindOfCategory;
        for (const Category& c : m_store.categories)
            kindOfCategory.push_back(flowKindOf(m_store.strings.view(c.name)));
        std::vector<Flow> flows;
        flows.reserve(pairs.size());
        for (const auto& [from, to] : pairs) {
            const EventRef source = bind(m_flows[from]);
            const EventRef target = bind(m_flows[to]);
            if (!source.isValid() || !target.isValid()) {
                ++stats.flowsUnbound;
                continue;
            }
            const std::uint16_t category = m_flows[to].flow.category;
            const StringId cat = m_store.categories[category].name;
            flows.push_back({source, target, kindOfCategory[category], cat});
        }
        m_flows.clear();
        m_flows.shrink_to_fit();
        m_flowPairs = {};
        m_store.flows = std::move(flows);
    }

    void buildCorrelationIndex() {
        for (const PendingIds& p : m_pendingIds) {
            const EventRef ref{TrackId(p.track), p.row};
            const CategoryKind kind = m_store.categoryOf(ref).kind;
            if (p.ids.hasCorrelation) {
                if (isLaunchCategory(kind))
                    m_store.launchByCorrelation.push_back({p.ids.correlation, ref});
                else if (isGpuCategory(kind))
                    m_store.gpuByCorrelation.push_back({p.ids.correlation, ref});
            }
            if (p.ids.hasExternalId) m_store.byExternalId.push_back({p.ids.externalId, ref});
        }
        m_pendingIds.clear();
        m_pendingIds.shrink_to_fit();
        // Ids grow with time on each thread and the entries come track by track: usually a few ascending
        // runs.
        sortById(m_store.launchByCorrelation);
        sortById(m_store.gpuByCorrelation);
        sortById(m_store.byExternalId);
    }

    void linkLaunchesByCorrelation() {
        // Launch -> GPU work by correlation id. This also keeps the links whose ac2g flow lost a half.
        // Slices that already have a launch flow, one bit per slice (rows of track t start at firstRow[t]).
        std::vector<std::size_t> firstRow(m_store.tracks.size() + 1, 0);
        for (std::size_t t = 0; t < m_store.tracks.size(); ++t)
            firstRow[t + 1] = firstRow[t] + m_store.tracks[t].sliceCount();
        std::vector<bool> linked(firstRow.back());
        for (const Flow& f : m_store.flows)
            if (f.kind == FlowKind::Launch) linked[firstRow[f.target.track.value] + f.target.index] = true;
        const StringId cat = m_store.strings.intern("ac2g");
        const auto& launches = m_store.launchByCorrelation;
        std::size_t li = 0;
        for (const CorrelationEntry& g : m_store.gpuByCorrelation) {
            while (li < launches.size() && launches[li].id < g.id)
                ++li;
            if (li == launches.size() || launches[li].id != g.id) continue;
            if (linked[firstRow[g.ref.track.value] + g.ref.index]) continue;
            m_store.flows.push_back({launches[li].ref, g.ref, FlowKind::Launch, cat});
        }
        radixSort(
            m_store.flows, [](const Flow& f) { return packRef(f.source); },
            [](const Flow& a, const Flow& b) {
                return std::tie(a.source, a.target) < std::tie(b.source, b.target);
            });
        m_store.flows.erase(std::unique(m_store.flows.begin(), m_store.flows.end(),
                                        [](const Flow& a, const Flow& b) {
                                            return a.source == b.source && a.target == b.target &&
                                                   a.kind == b.kind;
                                        }),
                            m_store.flows.end());
        m_store.indexFlows();
    }

    void computeTimeRange() {
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
        std::sort(m_issues.begin(), m_issues.end(),
                  [](const ImportIssue& a, const ImportIssue& b) { return a.offset < b.offset; });
        for (ImportIssue& issue : m_issues)
            m_store.stats.addIssue(issue.offset, std::move(issue.reason));
        std::stable_sort(m_store.stats.issues.begin(), m_store.stats.issues.end(),
                         [](const ImportIssue& a, const ImportIssue& b) { return a.offset < b.offset; });
        if (m_store.stats.issues.size() > ImportStats::maxReportedIssues)
            m_store.stats.issues.resize(ImportStats::maxReportedIssues);
    }

    struct CounterKey {
        std::int64_t pid;
        std::uint32_t pidText, name, series;
        bool operator==(const CounterKey&) const = default;
    };
    struct CounterKeyHash {
        std::size_t operator()(const CounterKey& k) const noexcept {
            return ThreadKeyHash{}(ThreadKey{k.pid, std::int64_t(k.series), k.pidText, k.name});
        }
    };
    struct CounterSeries {
        CounterKey key;
        std::vector<std::pair<TimeNs, double>> samples;
    };

    TraceStore& m_store;
    std::vector<ParsedChunk>& m_chunks;
    std::vector<std::pair<std::uint32_t, std::uint32_t>> m_flowPairs; // (start, end) indices into m_flows
    std::vector<ParsedChunk> m_retired; // parsed chunks already scattered, freed on m_freeing
    // From this many slices on, the builder's independent parts run on two cores.
    static constexpr std::size_t parallelThreshold = 1u << 16;
    std::size_t m_sliceCount = 0;
    struct JoiningThread : std::thread {
        using std::thread::thread;
        JoiningThread& operator=(std::thread&& t) {
            std::thread::operator=(std::move(t));
            return *this;
        }
        ~JoiningThread() {
            if (joinable()) join();
        }
    } m_freeing;
    std::vector<ChunkRemap> m_remaps;
    std::unordered_map<GlobalThread, std::uint32_t, GlobalThreadHash> m_threadTracks;
    std::unordered_map<std::uint32_t, std::uint16_t> m_categories;
    std::vector<std::vector<BeginEnd>> m_beginEnds;
    std::vector<char> m_hasBeginEnd;                  // by track
    std::vector<std::vector<std::uint64_t>> m_rowSeq; // file order of rows, for tracks with B/E only
    std::vector<PendingIds> m_pendingIds;
    std::vector<PendingAsync> m_async;
    std::vector<PendingFlow> m_flows;
    std::unordered_map<CounterKey, std::uint32_t, CounterKeyHash> m_counterIndex;
    std::vector<CounterSeries> m_counters;
    std::vector<std::pair<ParsedMeta, GlobalThread>> m_metas;
    std::vector<ImportIssue> m_issues;
};

} // namespace

void buildStore(TraceStore& store, std::vector<ParsedChunk>& chunks,
                std::shared_ptr<const SourceBuffer> source) {
    const std::string_view text = source ? source->text() : std::string_view();
    store.setSourceText(std::move(source), text);
    Builder(store, chunks).run();
}

} // namespace kinetoscope
