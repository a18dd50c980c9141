#include "livecapture.h"

#include "analysis/summaryformat.h"
#include "import/jsonbackend.h"
#include "import/sourcebuffer.h"
#include "import/storebuilder.h"

#include <algorithm>
#include <array>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <thread>
#include <unistd.h>
#include <unordered_map>

namespace kinetoscope::live {

wire::StringRef CaptureRecords::intern(std::string_view text) {
    auto [it, inserted] = m_stringIds.try_emplace(std::string(text), wire::StringRef(m_strings.size()));
    if (inserted) m_strings.emplace_back(text);
    return it->second;
}

void CaptureRecords::add(const wire::Record& record) {
    ++m_counts.records;
    std::visit(
        [&](const auto& r) {
            using T = std::decay_t<decltype(r)>;
            if constexpr (requires {
                              r.start;
                              r.end;
                          }) {
                auto valid = [](std::int64_t t) { return t >= 0 && t <= maxTime; };
                if (!valid(r.start) || !valid(r.end)) {
                    ++m_counts.rejected;
                    return;
                }
            }
            if constexpr (std::is_same_v<T, wire::StringDef>) {
                (void)intern(r.text);
            } else if constexpr (std::is_same_v<T, wire::Kernel>) {
                m_kernels.push_back(r), ++m_counts.kernels;
            } else if constexpr (std::is_same_v<T, wire::Memcpy>) {
                m_memcpys.push_back(r), ++m_counts.memcpys;
            } else if constexpr (std::is_same_v<T, wire::Memset>) {
                m_memsets.push_back(r), ++m_counts.memsets;
            } else if constexpr (std::is_same_v<T, wire::Api>) {
                m_apis.push_back(r), ++m_counts.apis;
            } else if constexpr (std::is_same_v<T, wire::Sync>) {
                m_syncs.push_back(r), ++m_counts.syncs;
            } else if constexpr (std::is_same_v<T, wire::Marker>) {
                m_markers.push_back(r), ++m_counts.markers;
            } else if constexpr (std::is_same_v<T, wire::ExternalCorrelation>) {
                m_externals.push_back(r);
            } else if constexpr (std::is_same_v<T, wire::Device>) {
                // A context created again on a device repeats its properties: keep one entry per device.
                auto it = std::find_if(m_devices.begin(), m_devices.end(),
                                       [&](const wire::Device& d) { return d.id == r.id; });
                if (it == m_devices.end())
                    m_devices.push_back(r);
                else
                    *it = r;
            } else if constexpr (std::is_same_v<T, wire::Dropped>) {
                m_counts.dropped += r.records;
            }
        },
        record);
}

std::uint64_t CaptureRecords::eventCount() const {
    return m_kernels.size() + m_memcpys.size() + m_memsets.size() + m_apis.size() + m_syncs.size() +
           m_markers.size();
}

std::string_view CaptureRecords::string(wire::StringRef id) const {
    return id < m_strings.size() ? std::string_view(m_strings[id]) : std::string_view();
}

WireIngest::WireIngest(CaptureRecords& into)
    : m_into(into), m_decoder([this](const wire::Record& r) { add(r); }) {}

bool WireIngest::feed(std::string_view bytes) {
    m_into.counts().bytes += bytes.size();
    return m_decoder.feed(bytes);
}

bool WireIngest::finish() {
    return m_decoder.finish();
}

void WireIngest::add(const wire::Record& record) {
    const std::uint64_t rejectedBefore = m_into.counts().rejected;
    std::visit(
        [&](auto r) {
            using T = std::decay_t<decltype(r)>;
            if constexpr (std::is_same_v<T, wire::StringDef>) {
                if (r.id >= m_remap.size()) m_remap.resize(std::size_t(r.id) + 1, 0);
                m_remap[r.id] = m_into.intern(r.text);
                m_into.add(r);
            } else {
                if constexpr (std::is_same_v<T, wire::Kernel> || std::is_same_v<T, wire::Api> ||
                              std::is_same_v<T, wire::Marker> || std::is_same_v<T, wire::Device>)
                    r.name = map(r.name);
                m_into.add(r);
            }
        },
        record);
    if (!m_firstRejected && m_into.counts().rejected != rejectedBefore)
        m_firstRejected = m_decoder.recordOffset();
}

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

// Appends JSON text to a std::string or a RegionText; numbers through to_chars (the writer runs once per
// saved event and for every event of every live refresh).
template <typename Text> struct JsonOut {
    Text& s;
    void raw(std::string_view v) { s.append(v); }
    // (append with a length: the two-pointer form goes through the string's generic replace, several times
    // slower)
    template <typename Int> void num(Int v) {
        char b[24];
        s.append(b, std::size_t(std::to_chars(b, b + sizeof b, v).ptr - b));
    }
    // printf's %.6g, as Kineto writes its derived figures (to_chars gives the same text without the locale).
    void general(double v) {
        char b[32];
        s.append(b, std::size_t(std::to_chars(b, b + sizeof b, v, std::chars_format::general, 6).ptr - b));
    }
    // ns as µs with three decimals: exact, the way current Kineto writes ts and dur.
    void micros(std::int64_t ns) {
        if (ns < 0) {
            s += '-';
            ns = -ns;
        }
        num(ns / 1000);
        const int frac = int(ns % 1000);
        const char digits[4] = {char('.'), char('0' + frac / 100), char('0' + frac / 10 % 10),
                                char('0' + frac % 10)};
        s.append(digits, 4);
    }
    void str(std::string_view v) {
        s += '"';
        if (std::none_of(v.begin(), v.end(), [](char c) {
                return c == '"' || c == '\\' || static_cast<unsigned char>(c) < 0x20;
            }))
            s.append(v);
        else
            s.append(jsonEscape(v));
        s += '"';
    }
};

// Runs both, the second on a thread of its own when `parallel`.
template <typename First, typename Second> void runBoth(bool parallel, First&& first, Second&& second) {
    if (!parallel) {
        first();
        second();
        return;
    }
    std::thread other(std::forward<Second>(second));
    first();
    other.join();
}

// The categories a capture's events carry, named as Kineto names them.
enum class Cat : std::uint8_t {
    Metadata,
    Kernel,
    Memcpy,
    Memset,
    Sync,
    Runtime,
    Driver,
    Ac2g,
    UserAnnotation
};
constexpr std::size_t catCount = 9;
constexpr std::string_view catText[catCount] = {"__metadata",  "kernel",    "gpu_memcpy",
                                                "gpu_memset",  "cuda_sync", "cuda_runtime",
                                                "cuda_driver", "ac2g",      "user_annotation"};

// CUpti_ActivityMemcpyKind and CUpti_ActivitySynchronizationType, named as Kineto names them; then the other
// fixed event names. Each has a slot after the capture's own strings, so the store builder can cache its
// local id.
constexpr std::string_view memcpyKindNames[] = {"Memcpy",      "Memcpy HtoD", "Memcpy DtoH", "Memcpy HtoA",
                                                "Memcpy AtoH", "Memcpy AtoA", "Memcpy AtoD", "Memcpy DtoA",
                                                "Memcpy DtoD", "Memcpy HtoH", "Memcpy PtoP"};
constexpr std::string_view syncKindNames[] = {"Sync", "Event Sync", "Stream Wait Event", "Stream Sync",
                                              "Context Sync"};
constexpr std::uint32_t memcpySlot = 0, syncSlot = std::size(memcpyKindNames),
                        memsetSlot = syncSlot + std::size(syncKindNames), ac2gSlot = memsetSlot + 1,
                        fixedNameSlots = ac2gSlot + 1;

// The longest args text of each kind of event, with every number at its longest: a kernel's is at most 350
// bytes (ids 37 + 35, device and stream 45, registers, shared memory, the two per-SM figures, grid and block
// 231, braces), a memcpy's or memset's 192, a sync's 120, a call's 94.
constexpr std::size_t kernelArgsBound = 512, gpuArgsBound = 320, callArgsBound = 160;

// An event name, and the slot its local id is cached under (the capture's string id, or a fixed name's slot
// after them); `noSlot` for names made on the fly.
struct Name {
    static constexpr std::uint32_t noSlot = UINT32_MAX;
    std::string_view text;
    std::uint32_t slot = noSlot;
};

// correlation id -> value, for ids that are mostly dense (CUPTI numbers its correlations 1, 2, 3, ...): a
// flat table when they are, sorted pairs otherwise. Hashing each of a capture's millions of events cost more
// than writing it.
template <typename Value> class CorrelationTable {
  public:
    // `entries` in arrival order; for an id seen twice, keep(kept, candidate) says whether the candidate
    // replaces it.
    template <typename Keep> void build(std::vector<std::pair<std::uint64_t, Value>> entries, Keep keep) {
        if (entries.empty()) return;
        std::uint64_t low = UINT64_MAX, high = 0;
        for (const auto& e : entries)
            low = std::min(low, e.first), high = std::max(high, e.first);
        if (high - low < 4 * entries.size() + 1024) {
            m_low = low;
            m_dense.resize(std::size_t(high - low) + 1);
            m_present.assign(m_dense.size(), 0);
            for (const auto& [id, value] : entries) {
                const std::size_t i = std::size_t(id - low);
                if (!m_present[i] || keep(m_dense[i], value)) m_dense[i] = value;
                m_present[i] = 1;
            }
            return;
        }
        std::stable_sort(entries.begin(), entries.end(),
                         [](const auto& a, const auto& b) { return a.first < b.first; });
        for (const auto& e : entries) {
            if (!m_sparse.empty() && m_sparse.back().first == e.first) {
                if (keep(m_sparse.back().second, e.second)) m_sparse.back().second = e.second;
            } else {
                m_sparse.push_back(e);
            }
        }
    }
    const Value* find(std::uint64_t id) const {
        if (!m_dense.empty()) {
            if (id < m_low || id - m_low >= m_dense.size() || !m_present[std::size_t(id - m_low)])
                return nullptr;
            return &m_dense[std::size_t(id - m_low)];
        }
        auto it = std::lower_bound(m_sparse.begin(), m_sparse.end(), id,
                                   [](const auto& e, std::uint64_t v) { return e.first < v; });
        return it != m_sparse.end() && it->first == id ? &it->second : nullptr;
    }

  private:
    std::uint64_t m_low = 0;
    std::vector<Value> m_dense;
    std::vector<std::uint8_t> m_present;
    std::vector<std::pair<std::uint64_t, Value>> m_sparse;
};

// Where a launch's GPU work begins: the flow's end.
struct GpuStart {
    std::uint32_t device = 0, stream = 0;
    std::int64_t start = 0;
};

// The args object of a GPU event or an API call: ids first, as Kineto writes them, then the event's own
// fields.
template <typename Text, typename Rest>
void writeArgs(JsonOut<Text>& out, const std::uint64_t* externalId, std::uint64_t correlation, Rest& rest) {
    out.raw("{");
    if (externalId) {
        out.raw("\"External id\": ");
        out.num(*externalId);
        out.raw(", ");
    }
    out.raw("\"correlation\": ");
    out.num(correlation);
    rest(out);
    out.raw("}");
}

// Writes the events as Kineto JSON (Capture > Save, `kinetoscope-cli record`).
class JsonSink {
  public:
    JsonSink(std::string& text, std::int64_t base) : m_out{text}, m_base(base) {}

    void meta(bool process, std::int64_t pid, std::int64_t tid, std::int64_t ts, std::string_view value) {
        begin("M", Cat::Metadata, process ? "process_name" : "thread_name", pid, tid, ts);
        m_out.raw(", \"args\": {\"name\": ");
        m_out.str(value);
        m_out.raw("}}");
    }
    template <typename Rest>
    void slice(Cat cat, Name name, std::int64_t pid, std::int64_t tid, std::int64_t start, std::int64_t end,
               const std::uint64_t* externalId, std::uint64_t correlation, Rest&& rest) {
        complete(cat, name.text, pid, tid, start, end);
        m_out.raw(", \"args\": ");
        writeArgs(m_out, externalId, correlation, rest);
        m_out.raw("}");
    }
    void annotation(Name name, std::int64_t pid, std::int64_t tid, std::int64_t start, std::int64_t end) {
        complete(Cat::UserAnnotation, name.text, pid, tid, start, end);
        m_out.raw("}");
    }
    void mark(Name name, std::int64_t pid, std::int64_t tid, std::int64_t ts) {
        begin("i", Cat::UserAnnotation, name.text, pid, tid, ts);
        m_out.raw(", \"s\": \"t\"}");
    }
    // ac2g: a launch's start binds to the call, its end to the GPU work starting there (bp "e").
    void flow(bool start, Name name, std::int64_t pid, std::int64_t tid, std::int64_t ts, std::uint64_t id) {
        begin(start ? "s" : "f", Cat::Ac2g, name.text, pid, tid, ts);
        m_out.raw(", \"id\": ");
        m_out.num(id);
        m_out.raw(start ? "}" : ", \"bp\": \"e\"}");
    }

  private:
    void begin(const char* ph, Cat cat, std::string_view name, std::int64_t pid, std::int64_t tid,
               std::int64_t ts) {
        m_out.raw(m_first ? "    {\"ph\": \"" : ",\n    {\"ph\": \"");
        m_first = false;
        m_out.raw(ph);
        m_out.raw("\", \"cat\": \"");
        m_out.raw(catText[std::size_t(cat)]);
        m_out.raw("\", \"name\": ");
        m_out.str(name);
        m_out.raw(", \"pid\": ");
        m_out.num(pid);
        m_out.raw(", \"tid\": ");
        m_out.num(tid);
        m_out.raw(", \"ts\": ");
        m_out.micros(ts - m_base);
    }
    void complete(Cat cat, std::string_view name, std::int64_t pid, std::int64_t tid, std::int64_t start,
                  std::int64_t end) {
        begin("X", cat, name, pid, tid, start);
        m_out.raw(", \"dur\": ");
        m_out.micros(std::max<std::int64_t>(0, end - start));
    }

    JsonOut<std::string> m_out;
    std::int64_t m_base = 0;
    bool m_first = true;
};

// Turns the events into a parsed chunk, exactly as the JSON parser would have parsed what JsonSink writes
// (same names, categories, threads, times, ids, flows and args text), with no JSON in between: the live
// view's store.
class ChunkSink {
  public:
    ChunkSink(ParsedChunk& chunk, RegionText& args, std::int64_t base, std::size_t nameSlots)
        : m_chunk(chunk), m_args{args}, m_base(base), m_names(nameSlots, UINT32_MAX) {
        m_categories.fill(UINT16_MAX);
        // As the parser does: local category 0 is "no cat".
        m_chunk.categoryNames.push_back(m_chunk.strings.pool.intern(std::string_view()).value);
        m_chunk.categoryCounts.push_back(0);
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
        const std::size_t begin = m_args.s.used;
        writeArgs(m_args, externalId, correlation, rest);
        e.argsOffset = m_args.s.origin + begin;
        e.argsLength = std::uint32_t(m_args.s.used - begin);
        if (m_needsIds[std::size_t(cat)]) {
            ParsedIds ids;
            ids.event = index;
            ids.hasCorrelation = true;
            ids.correlation = correlation;
            ids.hasExternalId = externalId != nullptr;
            ids.externalId = externalId ? *externalId : 0;
            m_chunk.ids.push_back(ids);
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
    std::uint32_t intern(std::string_view text) { return m_chunk.strings.pool.intern(text).value; }
    std::uint32_t nameId(Name name) {
        if (name.slot >= m_names.size()) return intern(name.text);
        std::uint32_t& id = m_names[name.slot];
        if (id == UINT32_MAX) id = intern(name.text);
        return id;
    }
    std::uint16_t count(char phase, Cat cat) {
        ++m_chunk.eventsSeen;
        ++m_chunk.phaseCounts[static_cast<unsigned char>(phase)];
        std::uint16_t& local = m_categories[std::size_t(cat)];
        if (local == UINT16_MAX) {
            local = std::uint16_t(m_chunk.categoryNames.size());
            m_chunk.categoryNames.push_back(intern(catText[std::size_t(cat)]));
            m_chunk.categoryCounts.push_back(0);
            m_needsIds[std::size_t(cat)] = categoryNeedsIds(classifyCategory(catText[std::size_t(cat)]));
        }
        ++m_chunk.categoryCounts[local];
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
        m_chunk.events.push_back(e);
        return std::uint32_t(m_chunk.events.size() - 1);
    }

    ParsedChunk& m_chunk;
    JsonOut<RegionText> m_args;
    std::int64_t m_base = 0;
    std::vector<std::uint32_t> m_names; // by name slot: local string id
    std::array<std::uint16_t, catCount> m_categories{};
    std::array<bool, catCount> m_needsIds{};
    std::int64_t m_lastPid = 0, m_lastTid = 0;
    std::uint32_t m_lastThread = UINT32_MAX;
};

} // namespace

// The capture as a trace, event by event, in the order the saved JSON lists them. Both the JSON writer and
// the direct store build walk it, so what the viewer shows live is what a saved capture reopens as.
struct CaptureRecords::Walk {
    const CaptureRecords& c;
    std::int64_t minStart = 0;
    std::int64_t base = 0; // baseTimeNanoseconds
    CorrelationTable<std::uint64_t> externalOf;
    CorrelationTable<GpuStart> gpuStart; // by the launch's correlation

    Walk(const CaptureRecords& records, bool parallel) : c(records) {
        std::int64_t low = INT64_MAX;
        auto lower = [&](const auto& events) {
            for (const auto& e : events)
                low = std::min(low, e.start);
        };
        lower(c.m_kernels), lower(c.m_memcpys), lower(c.m_memsets), lower(c.m_apis), lower(c.m_syncs),
            lower(c.m_markers);
        minStart = low == INT64_MAX ? 0 : low;
        // Times relative to a whole second, as Kineto writes them since 2024: short numbers, exact ns.
        constexpr std::int64_t second = 1'000'000'000;
        base = minStart >= 0 ? minStart / second * second : (minStart - second + 1) / second * second;

        auto buildExternals = [this] {
            std::vector<std::pair<std::uint64_t, std::uint64_t>> externals;
            externals.reserve(c.m_externals.size());
            for (const auto& e : c.m_externals)
                externals.emplace_back(e.correlation, e.externalId);
            externalOf.build(std::move(externals),
                             [](std::uint64_t, std::uint64_t) { return true; }); // the last one wins
        };
        auto buildGpuStarts = [this] {
            std::vector<std::pair<std::uint64_t, GpuStart>> starts;
            starts.reserve(c.m_kernels.size() + c.m_memcpys.size() + c.m_memsets.size());
            for (const auto& k : c.m_kernels)
                starts.push_back({k.correlation, {k.device, k.stream, k.start}});
            for (const auto& m : c.m_memcpys)
                starts.push_back({m.correlation, {m.device, m.stream, m.start}});
            for (const auto& m : c.m_memsets)
                starts.push_back({m.correlation, {m.device, m.stream, m.start}});
            // A launch of several kernels (a graph) links to its first.
            gpuStart.build(std::move(starts), [](const GpuStart& kept, const GpuStart& candidate) {
                return candidate.start < kept.start;
            });
        };
        runBoth(parallel, buildExternals, buildGpuStarts);
    }

    std::size_t nameSlots() const { return c.m_strings.size() + fixedNameSlots; }
    std::uint32_t fixedSlot(std::uint32_t slot) const { return std::uint32_t(c.m_strings.size()) + slot; }
    Name captureName(wire::StringRef id) const {
        return {c.string(id), id < c.m_strings.size() ? id : Name::noSlot};
    }

    // Every top-level key but traceEvents, with its JSON text, in the order the file lists them.
    std::vector<std::pair<std::string, std::string>> topLevel() const {
        std::vector<std::pair<std::string, std::string>> keys;
        keys.emplace_back("schemaVersion", "1");
        keys.emplace_back("traceName", "\"kinetoscope live capture\"");
        keys.emplace_back("displayTimeUnit", "\"ms\"");
        keys.emplace_back("baseTimeNanoseconds", std::to_string(base));
        keys.emplace_back("kinetoscopeCapture", "{\"records\": " + std::to_string(c.m_counts.records) +
                                                    ", \"dropped\": " + std::to_string(c.m_counts.dropped) +
                                                    "}");
        std::string devices;
        JsonOut<std::string> out{devices};
        out.raw("[");
        for (std::size_t i = 0; i < c.m_devices.size(); ++i) {
            const wire::Device& d = c.m_devices[i];
            out.raw(i ? ",\n    {\"id\": " : "\n    {\"id\": ");
            out.num(d.id);
            out.raw(", \"name\": ");
            out.str(c.string(d.name));
            out.raw(", \"totalGlobalMem\": ");
            out.num(d.totalGlobalMem);
            out.raw(", \"computeMajor\": ");
            out.num(d.computeMajor);
            out.raw(", \"computeMinor\": ");
            out.num(d.computeMinor);
            out.raw(", \"numSms\": ");
            out.num(d.numSms);
            out.raw(", \"maxThreadsPerMultiprocessor\": ");
            out.num(d.maxThreadsPerSm);
            out.raw(", \"warpSize\": ");
            out.num(d.warpSize);
            out.raw("}");
        }
        out.raw(c.m_devices.empty() ? "]" : "\n  ]");
        keys.emplace_back("deviceProperties", std::move(devices));
        return keys;
    }

    // Process and stream names, so the lanes read as Kineto's do.
    template <typename Sink> void names(Sink& sink) const {
        std::vector<std::pair<std::uint32_t, std::uint32_t>> streams;
        for (const auto& k : c.m_kernels)
            streams.emplace_back(k.device, k.stream);
        for (const auto& m : c.m_memcpys)
            streams.emplace_back(m.device, m.stream);
        for (const auto& m : c.m_memsets)
            streams.emplace_back(m.device, m.stream);
        for (const auto& s : c.m_syncs)
            streams.emplace_back(s.device, s.stream);
        std::sort(streams.begin(), streams.end());
        streams.erase(std::unique(streams.begin(), streams.end()), streams.end());
        std::uint32_t lastDevice = UINT32_MAX;
        for (const auto& [device, stream] : streams) {
            if (device != lastDevice) {
                lastDevice = device;
                sink.meta(true, device, 0, minStart, "GPU " + std::to_string(device));
            }
            sink.meta(false, device, stream, minStart, "stream " + std::to_string(stream));
        }
        for (const auto& [pid, name] : c.m_processNames)
            sink.meta(true, pid, 0, minStart, name);
    }

    // Every GPU event on its device/stream lane, with the args Kineto starts with.
    template <typename Sink> void gpuWork(Sink& sink) const {
        auto gpu = [&](Cat cat, Name name, const auto& e, auto&& rest) {
            sink.slice(cat, name, e.device, e.stream, e.start, e.end, externalOf.find(e.correlation),
                       e.correlation, [&](auto& out) {
                           out.raw(", \"device\": ");
                           out.num(e.device);
                           out.raw(", \"stream\": ");
                           out.num(e.stream);
                           rest(out);
                       });
        };
        const wire::Device* device = nullptr;
        for (const wire::Kernel& k : c.m_kernels) {
            if (!device || device->id != k.device) {
                auto it = std::find_if(c.m_devices.begin(), c.m_devices.end(),
                                       [&](const wire::Device& d) { return d.id == k.device; });
                device = it == c.m_devices.end() ? nullptr : &*it;
            }
            gpu(Cat::Kernel, captureName(k.name), k, [&](auto& out) {
                out.raw(", \"registers per thread\": ");
                out.num(k.registers);
                out.raw(", \"shared memory\": ");
                out.num(std::uint64_t(k.staticShared) + k.dynamicShared);
                const std::uint64_t blocks = std::uint64_t(k.grid[0]) * k.grid[1] * k.grid[2];
                if (device && device->numSms > 0) {
                    // Kineto's launch-shape estimates, which the occupancy and SM-efficiency figures read.
                    const double sms = device->numSms;
                    const std::uint64_t threads = std::uint64_t(k.block[0]) * k.block[1] * k.block[2];
                    const std::uint32_t warp = device->warpSize ? device->warpSize : 32;
                    out.raw(", \"blocks per SM\": ");
                    out.general(double(blocks) / sms);
                    out.raw(", \"warps per SM\": ");
                    out.general(double(blocks * ((threads + warp - 1) / warp)) / sms);
                }
                out.raw(", \"grid\": [");
                out.num(k.grid[0]), out.raw(", "), out.num(k.grid[1]), out.raw(", "), out.num(k.grid[2]);
                out.raw("], \"block\": [");
                out.num(k.block[0]), out.raw(", "), out.num(k.block[1]), out.raw(", "), out.num(k.block[2]);
                out.raw("]");
            });
        }
        auto bytesArgs = [](std::uint64_t bytes, std::int64_t start, std::int64_t end) {
            return [=](auto& out) {
                out.raw(", \"bytes\": ");
                out.num(bytes);
                if (end > start) {
                    out.raw(", \"memory bandwidth (GB/s)\": ");
                    out.general(double(bytes) / double(end - start));
                }
            };
        };
        for (const wire::Memcpy& m : c.m_memcpys) {
            const std::uint32_t kind = m.kind < std::size(memcpyKindNames) ? m.kind : 0;
            gpu(Cat::Memcpy, {memcpyKindNames[kind], fixedSlot(memcpySlot + kind)}, m,
                bytesArgs(m.bytes, m.start, m.end));
        }
        for (const wire::Memset& m : c.m_memsets)
            gpu(Cat::Memset, {"Memset (Device)", fixedSlot(memsetSlot)}, m,
                bytesArgs(m.bytes, m.start, m.end));
        for (const wire::Sync& s : c.m_syncs) {
            const std::uint32_t kind = s.kind < std::size(syncKindNames) ? s.kind : 0;
            sink.slice(Cat::Sync, {syncKindNames[kind], fixedSlot(syncSlot + kind)}, s.device, s.stream,
                       s.start, s.end, externalOf.find(s.correlation), s.correlation, [&](auto& out) {
                           out.raw(", \"device\": ");
                           out.num(s.device);
                           out.raw(", \"stream\": ");
                           out.num(std::int64_t(
                               std::int32_t(s.stream))); // CUPTI writes -1 for "no stream" (context sync)
                       });
        }
    }

    // API calls [begin, end), each with an ac2g flow to the first GPU work it launched.
    template <typename Sink> void apis(Sink& sink, std::size_t begin, std::size_t end) const {
        for (std::size_t i = begin; i < end; ++i) {
            const wire::Api& a = c.m_apis[i];
            const std::int64_t tid = std::int64_t(a.tid);
            sink.slice(a.driver ? Cat::Driver : Cat::Runtime, captureName(a.name), a.pid, tid, a.start, a.end,
                       externalOf.find(a.correlation), a.correlation, [&](auto& out) {
                           out.raw(", \"cbid\": ");
                           out.num(a.cbid);
                       });
            if (const GpuStart* g = gpuStart.find(a.correlation)) {
                const Name ac2g{"ac2g", fixedSlot(ac2gSlot)};
                sink.flow(true, ac2g, a.pid, tid, a.start, a.correlation);
                sink.flow(false, ac2g, g->device, g->stream, g->start, a.correlation);
            }
        }
    }

    // NVTX ranges and marks.
    template <typename Sink> void markers(Sink& sink) const {
        for (const wire::Marker& m : c.m_markers) {
            if (m.end > m.start)
                sink.annotation(captureName(m.name), m.pid, std::int64_t(m.tid), m.start, m.end);
            else
                sink.mark(captureName(m.name), m.pid, std::int64_t(m.tid), m.start);
        }
    }
};

std::string CaptureRecords::toTraceJson() const {
    const Walk walk(*this, false);
    std::string text;
    text.reserve(std::size_t(eventCount()) * 220 + 4096);
    JsonOut<std::string> out{text};
    out.raw("{\n");
    for (const auto& [key, value] : walk.topLevel()) {
        out.raw("  \"");
        out.raw(key);
        out.raw("\": ");
        out.raw(value);
        out.raw(",\n");
    }
    out.raw("  \"traceEvents\": [\n");
    JsonSink sink(text, walk.base);
    walk.names(sink);
    walk.gpuWork(sink);
    walk.apis(sink, 0, m_apis.size());
    walk.markers(sink);
    out.raw("\n  ]\n}\n");
    return text;
}

LoadResult CaptureRecords::buildStore(const LoadOptions& options) const {
    const auto started = std::chrono::steady_clock::now();
    auto cancelled = [&] { return options.cancel && options.cancel->load(std::memory_order_relaxed); };
    const bool parallel = options.threads != 1 && eventCount() >= 4096;
    const Walk walk(*this, parallel);
    const auto walkReady = std::chrono::steady_clock::now();
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
    double firstMs = 0, secondMs = 0;
    auto first = [&] {
        const auto t0 = std::chrono::steady_clock::now();
        ChunkSink sink(chunks[0], firstArgs, walk.base, walk.nameSlots());
        sink.reserve(gpuEvents + split, gpuEvents + split, 2 * split);
        walk.names(sink);
        walk.gpuWork(sink);
        walk.apis(sink, 0, split);
        chunks[0].tallyThreads();
        firstMs = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    };
    auto second = [&] {
        const auto t0 = std::chrono::steady_clock::now();
        const std::size_t calls = m_apis.size() - split;
        ChunkSink sink(chunks[1], secondArgs, walk.base, walk.nameSlots());
        sink.reserve(calls + m_markers.size(), calls, 2 * calls);
        walk.apis(sink, split, m_apis.size());
        walk.markers(sink);
        chunks[1].tallyThreads();
        secondMs = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    };
    runBoth(parallel, first, second);
    if (cancelled()) return LoadResult::cancelledLoad();
    if (firstArgs.overflow ||
        secondArgs.overflow) // cannot happen (see the bounds); the JSON path is always right
        return loadTraceText(toTraceJson(), options);
    const auto walked = std::chrono::steady_clock::now();
    std::shared_ptr<const SourceBuffer> source(std::move(args));

    auto store = std::make_unique<TraceStore>();
    store->metadata.topLevel = walk.topLevel();
    decodeTopLevelMetadata(store->metadata);
    store->stats.fileBytes = store->stats.jsonBytes = firstArgs.used + secondArgs.used;
    const auto building = std::chrono::steady_clock::now();
    kinetoscope::buildStore(*store, chunks, source);
    if (std::getenv("KINETOSCOPE_TIMING")) {
        auto ms = [](auto a, auto b) { return std::chrono::duration<double, std::milli>(b - a).count(); };
        std::fprintf(stderr,
                     "timing: walk setup %.0f ms, records to chunks %.0f ms (threads %.0f and %.0f), "
                     "metadata %.0f ms, "
                     "build %.0f ms\n",
                     ms(started, walkReady), ms(walkReady, walked), firstMs, secondMs, ms(walked, building),
                     ms(building, std::chrono::steady_clock::now()));
    }
    LoadResult result;
    result.store = std::move(store);
    result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    return result;
}

bool isWireStream(std::string_view head) {
    return head.size() >= sizeof wire::magic &&
           std::memcmp(head.data(), wire::magic, sizeof wire::magic) == 0;
}

namespace {
struct WireLoad {
    CaptureRecords capture;
    std::uint64_t firstRejectedAt = 0;
    bool truncated = false;
    std::string error;
    std::uint64_t errorOffset = 0;
};

WireLoad decodeAll(std::string_view bytes) {
    WireLoad w;
    WireIngest ingest(w.capture);
    // Fed in pieces, as a socket would deliver it.
    constexpr std::size_t piece = 1 << 20;
    bool ok = true;
    for (std::size_t at = 0; ok && at < bytes.size(); at += piece)
        ok = ingest.feed(bytes.substr(at, piece));
    if (ok) ok = ingest.finish();
    w.firstRejectedAt = ingest.firstRejectedOffset().value_or(0);
    if (!ok) {
        w.truncated = true;
        w.error = ingest.error();
        w.errorOffset = ingest.errorOffset();
    }
    return w;
}
} // namespace

LoadResult loadWireStream(std::string_view bytes, const LoadOptions& options) {
    WireLoad w = decodeAll(bytes);
    // A stream with no whole record at all is not a capture: say why, as for any unreadable file.
    if (w.truncated && w.capture.counts().records == 0) {
        LoadResult r;
        r.error = "not a readable capture stream: " + w.error;
        r.errorOffset = w.errorOffset;
        r.errorHasOffset = true;
        return r;
    }
    LoadResult r = w.capture.buildStore(options);
    if (r.store) {
        ImportStats& stats = r.store->stats;
        stats.fileBytes = stats.jsonBytes = bytes.size();
        if (const std::uint64_t rejected = w.capture.counts().rejected) {
            stats.malformedEvents += rejected;
            stats.issues.insert(
                stats.issues.begin(),
                {w.firstRejectedAt,
                 std::to_string(rejected) + " record(s) with impossible times skipped (the first here)"});
            if (stats.issues.size() > ImportStats::maxReportedIssues) stats.issues.pop_back();
        }
        if (w.truncated) {
            // A crashed target or viewer: every whole record before the cut is loaded.
            stats.truncated = true;
            stats.truncatedAt = w.errorOffset;
            stats.issues.insert(stats.issues.begin(), {w.errorOffset, "capture stream: " + w.error});
            if (stats.issues.size() > ImportStats::maxReportedIssues) stats.issues.pop_back();
        }
    }
    return r;
}

SpoolRead readSpool(const std::string& path) {
    SpoolRead out;
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        out.error = std::strerror(errno);
        return out;
    }
    std::string bytes;
    char buffer[1 << 16];
    for (;;) {
        const ssize_t n = ::read(fd, buffer, sizeof buffer);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        bytes.append(buffer, std::size_t(n));
    }
    ::close(fd);
    WireLoad w = decodeAll(bytes);
    out.capture = std::move(w.capture);
    out.ok = true;
    out.truncated = w.truncated;
    out.error = w.error;
    out.errorOffset = w.errorOffset;
    return out;
}

} // namespace kinetoscope::live
