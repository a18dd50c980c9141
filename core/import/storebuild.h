#pragma once

// The store build, inside the import layer: parsed chunks (in file order) become the store's tracks, lanes,
// flows and correlation index. One StoreBuild holds the state its phases share; each phase lives in a file of
// its own:
//   storebuilder.cpp  the order of the phases (run), string/category/thread remapping, the time range
//   buildscatter.cpp  events into their tracks' columns
//   buildpairs.cpp    pairing: B/E into slices, async pairs into tracks, counter series, metadata
//   buildlanes.cpp    rows sorted and laid out on lanes; the tracks' display order
//   buildflows.cpp    flow halves paired and bound to slices; correlation and External-id tables

#include "model/radixsort.h"
#include "model/runmerge.h"
#include "model/textformat.h"
#include "model/tracestore.h"
#include "parsedchunk.h"
#include "phasetiming.h"

#include <algorithm>
#include <cctype>
#include <optional>
#include <thread>
#include <unordered_map>
#include <utility>
#include <vector>

namespace kinetoscope::storebuild {

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
    bool tried = false; // bound looked for (an end with no slice to bind to is not looked for again)
};

template <typename T, typename Less> void sortFewRuns(std::vector<T>& v, Less less) {
    if (!mergeFewRuns(v, less, 1024)) std::sort(v.begin(), v.end(), less);
}

// Sorts correlation entries by (id, ref). Nearly sorted tables (one run per thread) are merged, others
// radix-sorted.
inline void sortById(std::vector<CorrelationEntry>& v) {
    auto byId = [](const CorrelationEntry& a, const CorrelationEntry& b) {
        return a.id < b.id || (a.id == b.id && a.ref < b.ref);
    };
    if (!mergeFewRuns(v, byId, 16))
        radixSort(
            v, [](const CorrelationEntry& e) { return e.id; }, byId);
}

inline FlowKind flowKindOf(std::string_view cat) {
    const std::string lower = asciiLower(cat);
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

class StoreBuild {
  public:
    StoreBuild(TraceStoreParts& store, std::vector<ParsedChunk>& chunks, const PhaseTimingFn& timing)
        : m_store(store), m_chunks(chunks), m_timing(timing) {}

    void run();

  private:
    TrackId threadTrack(const GlobalThread& key);

    std::uint16_t category(StringId name);

    void remapChunks();

    // Moves events into their tracks' columns in file order, freeing each chunk as it goes. The slices
    // (nearly every event) are placed by two threads: a counting pass gives each chunk its first row in every
    // track, so chunks can be written independently; the rest (B/E, async, flows, counters, metadata) is
    // appended in file order after.
    void scatterEvents();

    void matchBeginEnd(std::uint32_t trackIndex);

    void buildAsyncTracks();

    void buildCounterTracks();

    void applyMetadata();

    // The legacy autograd profiler's traces (PyTorch without Kineto, use_kineto=False) write every
    // RecordFunction with no category on pid "CPU functions", in whole microseconds: gives each the operator
    // or annotation category its name says (legacyRecordFunctionKind) and the thread its rounding slack.
    void classifyLegacyRecordFunctions();

    // Sorts each track's rows by (start, longer first, file order), assigns lanes, and reorders the
    // columns by (lane, start).
    void finalizeTracks();

    // Display order: CPU processes and threads by sort index then id, then GPUs by device and stream,
    // then async and counter tracks. TrackIds are assigned in this order.
    void orderTracks();

    std::optional<std::uint32_t> nextStarting(const Track& t, TimeNs ts) const;

    // Sorting the flow halves by id and pairing them needs no slice: done on a second core while the tracks
    // are sorted (pairFlows), then resolveFlows binds the paired ends to slices. Orders the flow halves by
    // (category, name, idText, id, ts, offset). Traces have a handful of (category, name, idText) groups: the
    // groups are ranked, then small keys are radix-sorted by id and bucketed by group, and the halves (72
    // bytes each) are moved once. Several times faster than sorting the halves themselves.
    void sortFlowHalves();

    void pairFlows();

    // Binds flow ends of one track, given in time order, to the deepest slice containing their time, exactly
    // as Track::deepestAt answers it (instants skipped; every lane tried, since a slice displaced by an
    // overlap can sit below a gap): each lane keeps a pointer to its first row starting after the current
    // time.
    void sweepEnclosing(std::uint32_t trackIndex, const std::uint32_t* first, const std::uint32_t* last);

    void resolveFlows();

    void buildCorrelationIndex();

    void linkLaunchesByCorrelation();

    void computeTimeRange();
    void sortMemoryArgs(); // m_memoryArgs in source order, as the memory counters' lookup needs

    TraceStoreParts& m_store;
    std::vector<ParsedChunk>& m_chunks;
    const PhaseTimingFn& m_timing;
    std::vector<std::pair<std::uint32_t, std::uint32_t>> m_flowPairs; // (start, end) indices into m_flows
    std::vector<ParsedChunk> m_retired; // parsed chunks already scattered, freed on m_freeing
    std::size_t m_sliceCount = 0;
    std::jthread m_freeing; // frees retired chunks on another core; joined by the end of run()
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
    std::vector<std::vector<ParsedMemoryArgs>> m_memoryArgs; // each chunk's, in source order
};

} // namespace kinetoscope::storebuild
