#pragma once

#include "model/importstats.h"
#include "model/memoryseries.h"
#include "model/stringpool.h"
#include "model/timeconv.h"

#include <atomic>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace kinetoscope {

// A pid or tid as written: an integer, or a string ("Spans", "stream 7") interned locally.
struct ThreadKey {
    std::int64_t pid = 0;
    std::int64_t tid = 0;
    std::uint32_t pidText = 0; // local string id; 0 = numeric
    std::uint32_t tidText = 0;
    bool operator==(const ThreadKey&) const = default;
};

struct ThreadKeyHash {
    std::size_t operator()(const ThreadKey& k) const noexcept {
        std::uint64_t h = std::uint64_t(k.pid) * 0x9E3779B97F4A7C15ull;
        h ^= std::uint64_t(k.tid) + 0x7F4A7C15ull + (h << 6) + (h >> 2);
        h ^= (std::uint64_t(k.pidText) << 32) ^ k.tidText;
        return h;
    }
};

namespace ParsedPhase {
enum : char {
    Complete = 'X',
    Begin = 'B',
    End = 'E',
    Instant = 'i',
    AsyncBegin = 'b',
    AsyncEnd = 'e',
    AsyncInstant = 'n'
};
}

// One slice-like event as parsed; 40 bytes. Names, categories and threads are chunk-local ids.
struct ParsedEvent {
    TimeNs ts = 0;
    TimeNs dur = 0;
    std::uint64_t argsOffset = 0;
    std::uint32_t argsLength = 0;
    std::uint32_t name = 0;
    std::uint32_t thread = 0;
    std::uint16_t category = 0;
    char phase = 0;
    std::uint8_t flags = 0;
};

// Ids found in the args of the events that need them at load time.
struct ParsedIds {
    std::uint32_t event = 0; // index into ParsedChunk::events
    bool hasCorrelation = false;
    bool hasExternalId = false;
    std::uint64_t correlation = 0;
    std::uint64_t externalId = 0;
};

// Async (b/e/n) events are matched by id.
struct ParsedAsyncId {
    std::uint32_t event = 0;
    std::uint64_t id = 0;
    std::uint32_t idText = 0; // local string id when the id is a string
};

struct ParsedFlow {
    TimeNs ts = 0;
    std::uint64_t id = 0;
    std::uint32_t idText = 0;
    std::uint32_t thread = 0;
    std::uint32_t name = 0;
    std::uint16_t category = 0;
    char phase = 0;             // s, t, f
    bool bindEnclosing = false; // bp:"e", or a start/step (they always bind to the enclosing slice)
    std::uint64_t offset = 0;
};

struct ParsedCounter {
    TimeNs ts = 0;
    double value = 0;
    std::uint32_t thread = 0; // pid matters; tid ignored as in chrome://tracing
    std::uint32_t name = 0;   // event name
    std::uint32_t series = 0; // args key
};

enum class MetaKind : std::uint8_t {
    ProcessName,
    ThreadName,
    ProcessSortIndex,
    ThreadSortIndex,
    ProcessLabels
};

struct ParsedMeta {
    std::uint32_t thread = 0;
    MetaKind kind = MetaKind::ProcessName;
    std::uint32_t text = 0; // local string
    std::int64_t number = 0;
};

// Chunk-local interning; merged into the store's pool afterwards.
struct LocalStrings {
    StringPool pool; // id 0 is the empty string
};

// The store builder's input: one piece of the event array, as the JSON parser (jsonbackend) or the live
// capture (live/capturestore) produced it. Both fill it through the builder calls below and keep to this
// contract, which the builder (storebuild.h) relies on:
//   - Names, categories, threads and id texts are chunk-local ids: intern() for strings, threadId() for
//   threads,
//     addCategory() for categories. Local category 0 is "no cat" (startCategories() makes it), and every
//     category has its count (categoryNames and categoryCounts grow together).
//   - Events are added in file order with addEvent(), which returns the index ParsedIds, ParsedAsyncId and
//   the
//     event's own bookkeeping refer to; ids are added in event order, at most one entry per event.
//   - Every event seen, kept or not, is counted by phase and category for the import statistics:
//   countEvent(), or
//     the same by hand where the parser meets phases it does not know (otherPhaseCount).
//   - Flows keep file order in `offset` (a byte offset, or any increasing ordinal).
//   - Before the build, tallyThreads() fills the per-thread tallies (on the producing thread, off the serial
//   build).
// tst_capture compares a store built from live chunks with the store the same trace's JSON loads as, field by
// field.
struct ParsedChunk {
    // Identifies this chunk's local id spaces (parsers cache per-chunk tables against it).
    std::uint64_t uid = nextUid();
    static std::uint64_t nextUid();
    std::uint64_t begin = 0; // offset of the first event
    std::uint64_t end = 0;   // offset just past the last event parsed
    bool ok = false;         // parsed entirely in the fast path
    std::string failure;     // why not

    LocalStrings strings;
    std::vector<ThreadKey> threads;
    std::unordered_map<ThreadKey, std::uint32_t, ThreadKeyHash> threadIndex;
    std::vector<std::uint32_t> categoryNames; // local category id -> local string id

    std::vector<ParsedEvent> events;
    std::vector<ParsedIds> ids;
    std::vector<ParsedAsyncId> asyncIds;
    std::vector<ParsedFlow> flows;
    std::vector<ParsedCounter> counters;
    std::vector<ParsedMeta> metas;
    std::vector<ParsedMemoryArgs> memoryArgs; // [memory] events' args, read while their bytes are at hand

    // Per local thread: slices (X and i events) and whether any B appears; filled by tallyThreads() on the
    // parsing thread so that the store builder can place slices without another pass over every event.
    std::vector<std::uint32_t> slicesByThread;
    std::vector<std::uint8_t> beginByThread;
    std::uint64_t beginEndEvents = 0; // B and E events in the chunk
    void tallyThreads();

    std::uint64_t eventsSeen = 0;
    std::uint64_t phaseCounts[128] = {};
    std::uint64_t otherPhaseCount = 0;
    std::vector<std::uint64_t> categoryCounts; // by local category id
    std::uint64_t malformed = 0;
    std::uint64_t unknownPhase = 0;
    std::uint64_t slicesNotKept = 0; // complete slices checked but not kept (LoadOptions::gpuWorkOnly)
    std::vector<ImportIssue> issues;

    // Builder calls (see the contract above).
    std::uint32_t intern(std::string_view text) { return strings.pool.intern(text).value; }
    // Makes local category 0, "no cat", in an empty chunk.
    void startCategories() {
        if (categoryNames.empty()) addCategory(intern(std::string_view()));
    }
    // A new local category named by local string `name`; 0 ("no cat") when the id space (65,535) is full.
    std::uint16_t addCategory(std::uint32_t name) {
        if (categoryNames.size() >= 0xffff) return 0;
        categoryNames.push_back(name);
        categoryCounts.push_back(0);
        return std::uint16_t(categoryNames.size() - 1);
    }
    // One more event seen, of `phase`, in local category `category` (when it had one).
    void countEvent(char phase, std::optional<std::uint16_t> category) {
        ++eventsSeen;
        ++phaseCounts[static_cast<unsigned char>(phase)];
        if (category) ++categoryCounts[*category];
    }
    std::uint32_t addEvent(const ParsedEvent& event) {
        events.push_back(event);
        return std::uint32_t(events.size() - 1);
    }
    void addIds(const ParsedIds& eventIds) { ids.push_back(eventIds); }

    std::uint32_t threadId(const ThreadKey& key) {
        auto [it, inserted] = threadIndex.try_emplace(key, std::uint32_t(threads.size()));
        if (inserted) threads.push_back(key);
        return it->second;
    }
    void addIssue(std::uint64_t offset, std::string reason) {
        ++malformed;
        note(offset, std::move(reason));
    }
    // Reported, but no event was lost.
    void note(std::uint64_t offset, std::string reason) {
        if (issues.size() < ImportStats::maxReportedIssues) issues.push_back({offset, std::move(reason)});
    }
    // A snapshot of the sizes, so that a run that fails half-way can be undone.
    struct Mark {
        std::size_t events, ids, asyncIds, flows, counters, metas, memoryArgs, issues;
        std::uint64_t eventsSeen, malformed, unknownPhase, otherPhaseCount, slicesNotKept;
        std::vector<std::uint64_t> phaseCounts, categoryCounts;
    };
    Mark mark() const;
    void rollback(const Mark& m);
};

} // namespace kinetoscope
