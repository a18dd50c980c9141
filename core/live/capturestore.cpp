// A capture built straight into a store: the walk's events become parsed chunks (the builder API the JSON
// parser feeds too), with their args text written into the store's source buffer, then the one store builder
// runs.
#include "capturewalk.h"

#include "import/jsonbackend.h"
#include "import/phasetiming.h"
#include "import/sourcebuffer.h"
#include "import/storebuilder.h"
#include "model/parallel.h"

#include <cstring>

namespace kinetoscope::live {

namespace {

// Text written into a region of a buffer reserved for it (the live store's args, one region per thread),
// sized by the *ArgsBound constants below so that it cannot fill up; a write that would not fit is refused
// and flagged, never made.
struct RegionText {
    char* base = nullptr;
    std::uint64_t origin = 0; // the region's offset in the whole buffer
    std::size_t used = 0;
    std::size_t capacity = 0;
    bool overflow = false;

    void append(const char* p, std::size_t n) {
        if (n > capacity - used) {
            overflow = true;
            return;
        }
        std::memcpy(base + used, p, n);
        used += n;
    }
    void append(std::string_view v) { append(v.data(), v.size()); }
    RegionText& operator+=(char c) {
        append(&c, 1);
        return *this;
    }
};

// Turns the events into a parsed chunk, exactly as the JSON parser would have parsed what JsonSink writes
// (same names, categories, threads, times, ids, flows and args text), with no JSON in between: the live
// view's store.
class ChunkSink {
  public:
    ChunkSink(ParsedChunk& chunk, RegionText& args, std::int64_t base, std::size_t nameSlots)
        : m_chunk(chunk), m_args{args}, m_base(base), m_names(nameSlots, UINT32_MAX) {
        m_categories.fill(UINT16_MAX);
        m_chunk.startCategories();
        m_chunk.ok = true;
    }

    void meta(bool process, std::int64_t pid, std::int64_t tid, std::int64_t, std::string_view value) {
        count('M', Cat::Metadata);
        (void)intern(process ? "process_name" : "thread_name");
        ParsedMeta m;
        m.thread = thread(pid, tid);
        m.kind = process ? MetaKind::ProcessName : MetaKind::ThreadName;
        m.text = intern(value);
        m_chunk.metas.push_back(m);
    }
    template <typename Rest>
    void slice(Cat cat, Name name, std::int64_t pid, std::int64_t tid, std::int64_t start, std::int64_t end,
               const std::uint64_t* externalId, std::uint64_t correlation, Rest&& rest) {
        const std::uint32_t index =
            event('X', cat, name, pid, tid, start, std::max<std::int64_t>(0, end - start));
        ParsedEvent& e = m_chunk.events.back();
        const std::size_t begin = m_args.text().used;
        writeArgs(m_args, externalId, correlation, rest);
        e.argsOffset = m_args.text().origin + begin;
        e.argsLength = std::uint32_t(m_args.text().used - begin);
        if (m_needsIds[std::size_t(cat)]) {
            ParsedIds ids;
            ids.event = index;
            ids.hasCorrelation = true;
            ids.correlation = correlation;
            ids.hasExternalId = externalId != nullptr;
            ids.externalId = externalId ? *externalId : 0;
            m_chunk.addIds(ids);
        }
    }
    void annotation(Name name, std::int64_t pid, std::int64_t tid, std::int64_t start, std::int64_t end) {
        event('X', Cat::UserAnnotation, name, pid, tid, start, std::max<std::int64_t>(0, end - start));
    }
    void mark(Name name, std::int64_t pid, std::int64_t tid, std::int64_t ts) {
        event('i', Cat::UserAnnotation, name, pid, tid, ts, 0);
    }
    void flow(bool start, Name name, std::int64_t pid, std::int64_t tid, std::int64_t ts, std::uint64_t id) {
        const char phase = start ? 's' : 'f';
        const std::uint16_t category = count(phase, Cat::Ac2g);
        ParsedFlow f;
        f.ts = ts - m_base;
        f.id = id;
        f.name = nameId(name);
        f.thread = thread(pid, tid);
        f.category = category;
        f.phase = phase;
        f.bindEnclosing = true;        // a start always binds to its enclosing slice; the end says bp "e"
        f.offset = m_chunk.eventsSeen; // no byte offset: the event's ordinal keeps the halves in order
        m_chunk.flows.push_back(f);
    }

    void reserve(std::size_t events, std::size_t ids, std::size_t flows) {
        m_chunk.events.reserve(events);
        m_chunk.ids.reserve(ids);
        m_chunk.flows.reserve(flows);
    }

  private:
    std::uint32_t intern(std::string_view text) { return m_chunk.intern(text); }
    std::uint32_t nameId(Name name) {
        if (name.slot >= m_names.size()) return intern(name.text);
        std::uint32_t& id = m_names[name.slot];
        if (id == UINT32_MAX) id = intern(name.text);
        return id;
    }
    std::uint16_t count(char phase, Cat cat) {
        std::uint16_t& local = m_categories[std::size_t(cat)];
        if (local == UINT16_MAX) {
            local = m_chunk.addCategory(intern(catText[std::size_t(cat)]));
            m_needsIds[std::size_t(cat)] = categoryNeedsIds(classifyCategory(catText[std::size_t(cat)]));
        }
        m_chunk.countEvent(phase, local);
        return local;
    }
    std::uint32_t thread(std::int64_t pid, std::int64_t tid) {
        if (m_lastThread != UINT32_MAX && pid == m_lastPid && tid == m_lastTid) return m_lastThread;
        m_lastPid = pid, m_lastTid = tid;
        return m_lastThread = m_chunk.threadId(ThreadKey{pid, tid, 0, 0});
    }
    std::uint32_t event(char phase, Cat cat, Name name, std::int64_t pid, std::int64_t tid, std::int64_t ts,
                        std::int64_t dur) {
        ParsedEvent e;
        e.category = count(phase, cat);
        e.ts = ts - m_base;
        e.dur = dur;
        e.name = nameId(name);
        e.thread = thread(pid, tid);
        e.phase = phase;
        return m_chunk.addEvent(e);
    }

    ParsedChunk& m_chunk;
    JsonWriter<RegionText> m_args;
    std::int64_t m_base = 0;
    std::vector<std::uint32_t> m_names; // by name slot: local string id
    std::array<std::uint16_t, catCount> m_categories{};
    std::array<bool, catCount> m_needsIds{};
    std::int64_t m_lastPid = 0, m_lastTid = 0;
    std::uint32_t m_lastThread = UINT32_MAX;
};

} // namespace

LoadResult CaptureRecords::buildStore(const LoadOptions& options,
                                      const std::function<void(ImportStats&)>& adjustStats) const {
    const auto started = std::chrono::steady_clock::now();
    PhaseClock clock(options.phaseTiming);
    auto cancelled = [&] { return options.cancel && options.cancel->load(std::memory_order_relaxed); };
    const bool parallel = options.threads != 1 && eventCount() >= 4096;
    const Walk walk(*this, parallel);
    clock.lap("live: walk setup");
    // Two chunks in file order, made on two threads: names, GPU work and the first API calls; the other API
    // calls and the markers. The calls are split so that both have about as much to write (a GPU event's args
    // cost about two calls').
    const std::size_t gpuEvents = m_kernels.size() + m_memcpys.size() + m_memsets.size() + m_syncs.size();
    const std::size_t half = (2 * gpuEvents + m_apis.size() + m_markers.size()) / 2;
    const std::size_t split = std::min(m_apis.size(), half > 2 * gpuEvents ? half - 2 * gpuEvents : 0);
    // The args texts go straight into the store's source buffer, each thread writing a region of its own
    // sized for the longest args its events can have (pages left unwritten cost nothing).
    const std::size_t firstBytes = m_kernels.size() * kernelArgsBound +
                                   (gpuEvents - m_kernels.size()) * gpuArgsBound + split * callArgsBound;
    const std::size_t secondBytes = (m_apis.size() - split) * callArgsBound;
    std::unique_ptr<SourceBuffer> args = SourceBuffer::forWriting(firstBytes + secondBytes);
    if (!args) {
        LoadResult r;
        r.error = "out of memory for the capture's args";
        return r;
    }
    RegionText firstArgs{args->writable(), 0, 0, firstBytes};
    RegionText secondArgs{args->writable() + firstBytes, firstBytes, 0, secondBytes};
    std::vector<ParsedChunk> chunks(2);
    auto first = [&] {
        ChunkSink sink(chunks[0], firstArgs, walk.base, walk.nameSlots());
        sink.reserve(gpuEvents + split, gpuEvents + split, 2 * split);
        walk.names(sink);
        walk.gpuWork(sink);
        walk.apis(sink, 0, split);
        chunks[0].tallyThreads();
    };
    auto second = [&] {
        const std::size_t calls = m_apis.size() - split;
        ChunkSink sink(chunks[1], secondArgs, walk.base, walk.nameSlots());
        sink.reserve(calls + m_markers.size(), calls, 2 * calls);
        walk.apis(sink, split, m_apis.size());
        walk.markers(sink);
        chunks[1].tallyThreads();
    };
    parallelInvoke(parallel, first, second);
    if (cancelled()) return LoadResult::cancelledLoad();
    if (firstArgs.overflow ||
        secondArgs.overflow) // cannot happen (see the bounds); the JSON path is always right
        return loadTraceText(toTraceJson(), options);
    clock.lap("live: records to chunks");
    std::shared_ptr<const SourceBuffer> source(std::move(args));

    TraceStoreParts store;
    store.metadata.topLevel = walk.topLevel();
    decodeTopLevelMetadata(store.metadata);
    store.stats.fileBytes = store.stats.jsonBytes = firstArgs.used + secondArgs.used;
    store.sourcePath = options.sourcePath;
    clock.lap("live: metadata");
    kinetoscope::buildStore(store, chunks, source, options.phaseTiming);
    clock.lap("live: build");
    if (adjustStats) adjustStats(store.stats);
    LoadResult result;
    result.store = std::make_unique<const TraceStore>(std::move(store));
    result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    return result;
}

} // namespace kinetoscope::live
