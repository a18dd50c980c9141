#include "jsonbackend.h"

#include "model/memoryseries.h"

#include <charconv>

#include "model/category.h"

#include <simdjson.h>

#include <cstring>
#include <unordered_map>

namespace kinetoscope {

namespace od = simdjson::ondemand;
using simdjson::error_code;

namespace {

// Keys are compared on their raw bytes: simdjson guarantees padding after the buffer, so reading
// `literal.size() + 1` bytes past the opening quote is safe.
template <std::size_t N> inline bool keyIs(const char* raw, const char (&literal)[N]) {
    return std::memcmp(raw, literal, N - 1) == 0 && raw[N - 1] == '"';
}

inline std::string_view trimRight(std::string_view s) {
    while (!s.empty() && (s.back() == ' ' || s.back() == '\n' || s.back() == '\r' || s.back() == '\t'))
        s.remove_suffix(1);
    return s;
}

// An integer id written as a number or a string of digits.
bool readId(od::value v, std::uint64_t& out) {
    od::json_type t;
    if (v.type().get(t)) return false;
    if (t == od::json_type::number) {
        std::uint64_t u;
        if (!v.get_uint64().get(u)) {
            out = u;
            return true;
        }
        std::int64_t i;
        if (!v.get_int64().get(i)) {
            out = static_cast<std::uint64_t>(i);
            return true;
        }
        double d;
        if (!v.get_double().get(d) && d >= 0 && d < 1.8e19 && d == double(std::uint64_t(d))) {
            out = std::uint64_t(d);
            return true;
        }
        return false;
    }
    if (t == od::json_type::string) {
        std::string_view s;
        if (v.get_string().get(s) || s.empty() || s.size() > 19) return false;
        std::uint64_t r = 0;
        for (char c : s) {
            if (c < '0' || c > '9') return false;
            r = r * 10 + unsigned(c - '0');
        }
        out = r;
        return true;
    }
    return false;
}

// A pid/tid: integer, integral double, numeric string or any other string.
bool readThreadPart(od::value v, LocalStrings& strings, std::int64_t& number, std::uint32_t& text) {
    od::json_type t;
    if (v.type().get(t)) return false;
    if (t == od::json_type::number) {
        std::int64_t i;
        if (!v.get_int64().get(i)) {
            number = i;
            text = 0;
            return true;
        }
        std::uint64_t u;
        if (!v.get_uint64().get(u)) {
            number = static_cast<std::int64_t>(u);
            text = 0;
            return true;
        }
        double d;
        if (!v.get_double().get(d) && d > -9.2e18 && d < 9.2e18) {
            number = static_cast<std::int64_t>(d);
            text = 0;
            return true;
        }
        return false;
    }
    if (t == od::json_type::string) {
        std::string_view s;
        if (v.get_string().get(s)) return false;
        // Numeric strings are the same thread as the number.
        if (!s.empty() && s.size() < 19) {
            bool digits = true;
            std::int64_t r = 0;
            std::size_t i = (s[0] == '-') ? 1 : 0;
            if (i == s.size()) digits = false;
            for (; i < s.size() && digits; ++i) {
                if (s[i] < '0' || s[i] > '9')
                    digits = false;
                else
                    r = r * 10 + (s[i] - '0');
            }
            if (digits) {
                number = s[0] == '-' ? -r : r;
                text = 0;
                return true;
            }
        }
        number = 0;
        text = strings.pool.intern(s).value;
        return true;
    }
    if (t == od::json_type::null) {
        number = 0;
        text = 0;
        return true;
    }
    return false;
}

// `ts`/`dur` as number or string, exactly.
bool readTime(od::value v, TimeNs& out) {
    od::json_type t;
    if (v.type().get(t)) return false;
    std::string_view text;
    if (t == od::json_type::number) {
        text = trimRight(v.raw_json_token());
    } else if (t == od::json_type::string) {
        if (v.get_string().get(text)) return false;
    } else {
        return false;
    }
    const auto ns = parseMicrosecondsText(text);
    if (!ns || *ns > traceTimeLimitNs || *ns < -traceTimeLimitNs) return false;
    out = *ns;
    return true;
}

// simdjson 3.0 has no document::at_end(); a location inside the buffer means tokens remain.
bool atEnd(od::document& doc) {
    const char* location = nullptr;
    return doc.current_location().get(location) != simdjson::SUCCESS;
}

} // namespace

// Phases whose events LoadOptions::gpuWorkOnly drops when their category is not the GPU's work: all but
// metadata (names the GPU's tracks too) and B/E (paired across events, so kept whole).
inline bool droppablePhase(char phase) {
    switch (phase) {
    case 'X':
    case 'i':
    case 'I':
    case 'b':
    case 'e':
    case 'n':
    case 's':
    case 't':
    case 'f':
    case 'C':
        return true;
    default:
        return false;
    }
}

// Whether `parser` can take a document of `length` bytes. simdjson 3.0.1 allocates a parser's string buffer
// with `new (std::nothrow)` and never checks it: out of memory, `iterate` goes on and unescapes strings into
// a null buffer (a crash, not an error). So the allocation it is about to make is tried here first, and an
// iterate that would fail so is not begun.
static bool roomToIterate(const od::parser& parser, std::size_t length) {
    if (length <= parser.capacity()) return true; // (no allocation ahead)
    const std::size_t strings = (5 * length / 3 + simdjson::SIMDJSON_PADDING + 63) / 64 * 64;
    return std::unique_ptr<std::uint8_t[]>(new (std::nothrow) std::uint8_t[strings]) != nullptr;
}

struct EventParser::Impl {
    bool gpuWorkOnly = false;
    od::parser parser;
    od::parser argsParser; // for args that come before `cat` in an event
    std::vector<char> buffer;
    std::unordered_map<std::uint32_t, std::uint16_t> categoryIndex; // local string id -> local category
    std::vector<CategoryKind> categoryKinds;                        // by local category
    std::uint64_t boundChunk = 0;

    // Where the current buffer's text sits in the source: offsetOf(p) = base + (p - origin).
    const char* origin = nullptr;
    std::uint64_t base = 0;

    std::uint64_t offsetOf(const char* p) const { return base + std::uint64_t(p - origin); }

    void bindChunk(ParsedChunk& out) {
        if (boundChunk == out.uid) return;
        boundChunk = out.uid;
        categoryIndex.clear();
        categoryKinds.clear();
        // Chunks may already hold categories (robust path after the fast one).
        for (std::size_t i = 0; i < out.categoryNames.size(); ++i) {
            categoryIndex.emplace(out.categoryNames[i], std::uint16_t(i));
            categoryKinds.push_back(classifyCategory(out.strings.pool.view(StringId(out.categoryNames[i]))));
        }
        // Local category 0 is "no cat": events without one keep the default 0.
        if (out.categoryNames.empty()) {
            out.startCategories();
            categoryIndex.emplace(out.categoryNames[0], std::uint16_t(0));
            categoryKinds.push_back(classifyCategory(std::string_view()));
        }
    }

    std::uint16_t categoryOf(ParsedChunk& out, std::string_view cat) {
        const std::uint32_t sid = out.intern(cat);
        if (auto it = categoryIndex.find(sid); it != categoryIndex.end()) return it->second;
        if (out.categoryNames.size() >= 0xffff) return 0; // pathological: keep the id space bounded
        const std::uint16_t local = out.addCategory(sid);
        categoryIndex.emplace(sid, local);
        categoryKinds.push_back(classifyCategory(cat));
        return local;
    }

    // Prepares `[` + text + `]` in the padded buffer.
    void load(std::string_view text, std::size_t begin, std::size_t end, bool wrap) {
        const std::size_t len = end - begin;
        const std::size_t need = len + 2 + simdjson::SIMDJSON_PADDING;
        if (buffer.size() < need) buffer.resize(need + need / 4);
        char* dst = buffer.data();
        std::size_t n = 0;
        if (wrap) dst[n++] = '[';
        std::memcpy(dst + n, text.data() + begin, len);
        n += len;
        if (wrap) dst[n++] = ']';
        std::memset(dst + n, ' ', simdjson::SIMDJSON_PADDING);
        origin = dst + (wrap ? 1 : 0);
        base = begin;
        bufferLength = n;
    }
    std::size_t bufferLength = 0;

    // Iterates an args object whose text lies inside the padded buffer.
    bool iterateArgs(std::string_view text, od::object& out) {
        const std::size_t capacity = std::size_t(buffer.data() + buffer.size() - text.data());
        if (!roomToIterate(argsParser, text.size()) ||
            argsParser.iterate(text.data(), text.size(), capacity).get(argsDocument))
            return false;
        return !argsDocument.get_object().get(out);
    }
    od::document argsDocument;

    error_code parseArgsForIds(od::object args, ParsedIds& ids) {
        for (auto fieldResult : args) {
            od::field field;
            if (auto e = std::move(fieldResult).get(field)) return e;
            const char* k = field.key().raw();
            if (keyIs(k, "correlation")) {
                ids.hasCorrelation = readId(field.value(), ids.correlation);
            } else if (keyIs(k, "External id") || keyIs(k, "external id")) {
                ids.hasExternalId = readId(field.value(), ids.externalId);
            }
            if (ids.hasCorrelation && ids.hasExternalId) break;
        }
        return simdjson::SUCCESS;
    }

    // Parses one event object into `out`. Returns an error only for damage that leaves the document
    // iterator unusable; anything else is recorded as a malformed event and skipped.
    error_code parseEvent(od::object obj, const char* eventStart, ParsedChunk& out);
};

error_code EventParser::Impl::parseEvent(od::object obj, const char* eventStart, ParsedChunk& out) {
    ++out.eventsSeen;
    const std::uint64_t offset = offsetOf(eventStart);

    char phase = 0;
    bool haveCat = false, haveTs = false, haveDur = false, haveId = false;
    bool badTs = false, badDur = false, badThread = false;
    std::uint32_t nameId = 0;
    std::uint16_t category = 0;
    TimeNs ts = 0, dur = 0;
    ThreadKey thread;
    std::uint64_t idNumber = 0;
    std::uint32_t idText = 0;
    bool bindEnclosing = false;
    std::uint8_t flags = 0;
    std::string_view argsText;
    bool flowIn = false, flowOut = false, haveBindId = false;
    std::uint64_t bindId = 0;
    std::string_view metaName;
    std::string_view deferredName; // gpuWorkOnly: the name, not yet interned (in the parser's buffers)
    bool nameDeferred = false;

    auto fail = [&](const char* reason) {
        out.addIssue(offset, reason);
        return simdjson::SUCCESS;
    };
    // With gpuWorkOnly: an event that is not the GPU's work, once every field is read (a key may come twice;
    // the last one counts). It is checked as it would be kept, then counted only.
    auto notGpuWork = [&] {
        return gpuWorkOnly && droppablePhase(phase) && !(haveCat && isGpuWork(categoryKinds[category]));
    };

    for (auto fieldResult : obj) {
        od::field field;
        if (auto e = std::move(fieldResult).get(field)) return e;
        const char* k = field.key().raw();
        od::value v = field.value();
        switch (k[0]) {
        case 'p':
            if (keyIs(k, "ph")) {
                // Phases are one plain character: read the raw bytes instead of unescaping.
                od::raw_json_string raw;
                if (v.get_raw_json_string().get(raw)) return fail("ph is not a non-empty string");
                const char* r = raw.raw();
                if (r[0] == '"') return fail("ph is not a non-empty string");
                phase = (r[1] == '"' && r[0] != '\\') ? r[0] : '?';
            } else if (keyIs(k, "pid")) {
                if (!readThreadPart(v, out.strings, thread.pid, thread.pidText)) badThread = true;
            }
            break;
        case 't':
            if (keyIs(k, "ts")) {
                haveTs = readTime(v, ts);
                badTs = !haveTs;
            } else if (keyIs(k, "tid")) {
                if (!readThreadPart(v, out.strings, thread.tid, thread.tidText)) badThread = true;
            }
            break;
        case 'd':
            if (keyIs(k, "dur")) {
                haveDur = readTime(v, dur);
                badDur = !haveDur;
            }
            break;
        case 'n':
            if (keyIs(k, "name")) {
                std::string_view s;
                if (v.get_string().get(s)) {
                    // A number or other scalar as a name: keep its text.
                    s = trimRight(v.raw_json_token());
                }
                if (gpuWorkOnly) { // interned at the end, and only if kept: most events are not
                    deferredName = s;
                    nameDeferred = true;
                    break;
                }
                nameId = out.strings.pool.intern(s).value;
                metaName = out.strings.pool.view(StringId(nameId));
            }
            break;
        case 'c':
            if (keyIs(k, "cat")) {
                std::string_view s;
                if (v.get_string().get(s)) break; // a non-string cat is ignored
                category = categoryOf(out, s);
                haveCat = true;
            }
            break;
        case 'i':
            if (keyIs(k, "id")) {
                od::json_type t;
                if (v.type().get(t)) break;
                if (t == od::json_type::string) {
                    std::string_view s;
                    if (!v.get_string().get(s)) {
                        idText = out.strings.pool.intern(s).value;
                        haveId = true;
                    }
                } else {
                    haveId = readId(v, idNumber);
                }
            }
            break;
        case 'b':
            if (keyIs(k, "bp")) {
                std::string_view s;
                if (!v.get_string().get(s) && s == "e") bindEnclosing = true;
            } else if (keyIs(k, "bind_id")) {
                haveBindId = readId(v, bindId);
            }
            break;
        case 'f':
            if (keyIs(k, "flow_in")) {
                bool b;
                if (!v.get_bool().get(b)) flowIn = b;
            } else if (keyIs(k, "flow_out")) {
                bool b;
                if (!v.get_bool().get(b)) flowOut = b;
            }
            break;
        case 's':
            if (keyIs(k, "s")) {
                std::string_view s;
                if (!v.get_string().get(s) && !s.empty()) {
                    if (s[0] == 'p')
                        flags |= SliceFlag::ScopeProcess;
                    else if (s[0] == 'g')
                        flags |= SliceFlag::ScopeGlobal;
                }
            }
            break;
        case 'a':
            if (keyIs(k, "args")) {
                od::json_type t;
                if (v.type().get(t) || t != od::json_type::object) break;
                od::object argsObject;
                if (v.get_object().get(argsObject)) break;
                // Only the text is kept; what load time needs from it is read below, once the
                // phase and category are known (they may come after args).
                if (auto e = argsObject.raw_json().get(argsText)) return e;
            }
            break;
        default:
            break;
        }
    }

    if (nameDeferred && !notGpuWork()) {
        nameId = out.strings.pool.intern(deferredName).value;
        metaName = out.strings.pool.view(StringId(nameId));
    }
    if (phase == 0) return fail("event has no ph");
    if (phase >= 0 && phase < 127)
        ++out.phaseCounts[static_cast<unsigned char>(phase)];
    else
        ++out.otherPhaseCount;
    if (haveCat) ++out.categoryCounts[category];
    if (badThread) return fail("pid or tid is not a number or string");

    switch (phase) {
    case 'X':
    case 'B':
    case 'E':
    case 'i':
    case 'I':
    case 'b':
    case 'e':
    case 'n': {
        if (!haveTs) return fail(badTs ? "ts is not a finite number in range" : "event has no ts");
        if (badDur) return fail("dur is not a finite number in range");
        if (phase == 'X' && haveDur && dur < 0) return fail("negative duration");
        if (phase == 'X' && haveDur && ts + dur > traceTimeLimitNs) return fail("ends past the time range");
        if ((phase == 'b' || phase == 'e') && !haveId) return fail("async event has no id");
        if (notGpuWork()) {
            // What summarize counts as an event (a complete slice; instants and async spans are not).
            if (phase == 'X') ++out.slicesNotKept;
            return simdjson::SUCCESS;
        }
        ParsedEvent ev;
        ev.ts = ts;
        ev.dur = phase == 'X' ? dur : 0;
        ev.name = nameId;
        ev.category = category;
        ev.thread = out.threadId(thread);
        ev.phase = phase == 'I' ? 'i' : phase;
        ev.flags = flags;
        if (!argsText.empty() && argsText != "{}") {
            ev.argsOffset = offsetOf(argsText.data());
            ev.argsLength = static_cast<std::uint32_t>(std::min<std::size_t>(argsText.size(), 0xffffffffu));
            // The allocator's running totals, read now rather than by the build, whose pass over the store
            // would fault the file's pages back in (a 1 GB inference trace has 460,000 of these events).
            if (ev.phase == 'i' && metaName == "[memory]")
                if (auto parsed = ParsedMemoryArgs::of(ev.argsOffset, readMemoryEventArgs(argsText)))
                    out.memoryArgs.push_back(*parsed);
        }
        const auto index = static_cast<std::uint32_t>(out.events.size());
        if (haveCat && categoryNeedsIds(categoryKinds[category]) && !argsText.empty()) {
            od::object a;
            if (iterateArgs(argsText, a)) {
                ParsedIds ids;
                (void)parseArgsForIds(a, ids);
                if (ids.hasCorrelation || ids.hasExternalId) {
                    ids.event = index;
                    out.addIds(ids);
                }
            }
        }
        if (phase == 'b' || phase == 'e' || phase == 'n') {
            out.asyncIds.push_back({index, idNumber, idText});
        }
        out.addEvent(ev);
        if (haveBindId && (flowIn || flowOut) && (phase == 'X' || phase == 'B')) {
            // Perfetto's v2 flows: the slice itself is the flow's end point.
            ParsedFlow f;
            f.ts = ts;
            f.id = bindId;
            f.thread = ev.thread;
            f.name = 0; // v2 flows are matched by bind_id alone; the two slices have their own names
            f.category = 0;
            f.bindEnclosing = true;
            f.offset = offset;
            if (flowIn) {
                f.phase = 'f';
                out.flows.push_back(f);
            }
            if (flowOut) {
                f.phase = 's';
                out.flows.push_back(f);
            }
        }
        return simdjson::SUCCESS;
    }
    case 's':
    case 't':
    case 'f': {
        if (!haveTs) return fail(badTs ? "ts is not a finite number in range" : "flow event has no ts");
        if (!haveId) return fail("flow event has no id");
        if (notGpuWork()) return simdjson::SUCCESS;
        ParsedFlow f;
        f.ts = ts;
        f.id = idNumber;
        f.idText = idText;
        f.thread = out.threadId(thread);
        f.name = nameId;
        f.category = category;
        f.phase = phase;
        f.bindEnclosing = phase != 'f' || bindEnclosing;
        f.offset = offset;
        out.flows.push_back(f);
        return simdjson::SUCCESS;
    }
    case 'C': {
        if (!haveTs) return fail(badTs ? "ts is not a finite number in range" : "counter event has no ts");
        if (notGpuWork()) return simdjson::SUCCESS;
        const std::uint32_t pidThread = out.threadId(ThreadKey{thread.pid, 0, thread.pidText, 0});
        od::object a;
        if (argsText.empty() || !iterateArgs(argsText, a)) return simdjson::SUCCESS;
        for (auto f : a) {
            od::field af;
            if (std::move(f).get(af)) break;
            std::string_view key;
            if (af.unescaped_key().get(key)) break;
            const std::uint32_t series = out.strings.pool.intern(key).value;
            od::value av = af.value();
            double value;
            if (av.get_double().get(value)) {
                bool b;
                if (av.get_bool().get(b)) continue; // not a number: not a sample
                value = b ? 1 : 0;
            }
            out.counters.push_back({ts, value, pidThread, nameId, series});
        }
        return simdjson::SUCCESS;
    }
    case 'M': {
        MetaKind kind;
        if (metaName == "process_name")
            kind = MetaKind::ProcessName;
        else if (metaName == "thread_name")
            kind = MetaKind::ThreadName;
        else if (metaName == "process_labels")
            kind = MetaKind::ProcessLabels;
        else if (metaName == "process_sort_index")
            kind = MetaKind::ProcessSortIndex;
        else if (metaName == "thread_sort_index")
            kind = MetaKind::ThreadSortIndex;
        else
            return simdjson::SUCCESS; // other metadata records carry nothing we show
        const bool numeric = kind == MetaKind::ProcessSortIndex || kind == MetaKind::ThreadSortIndex;
        const char* wanted = numeric ? "sort_index" : (kind == MetaKind::ProcessLabels ? "labels" : "name");
        od::object a;
        if (argsText.empty() || !iterateArgs(argsText, a)) return simdjson::SUCCESS;
        for (auto f : a) {
            od::field af;
            if (std::move(f).get(af)) break;
            std::string_view key;
            if (af.unescaped_key().get(key) || key != wanted) continue;
            ParsedMeta m;
            m.thread = out.threadId(thread);
            m.kind = kind;
            od::value av = af.value();
            if (numeric) {
                if (av.get_int64().get(m.number)) break;
            } else {
                std::string_view text;
                if (av.get_string().get(text)) break;
                m.text = out.strings.pool.intern(text).value;
            }
            out.metas.push_back(m);
            break;
        }
        return simdjson::SUCCESS;
    }
    default:
        ++out.unknownPhase;
        return simdjson::SUCCESS;
    }
}

EventParser::EventParser(bool gpuWorkOnly) : m_impl(std::make_unique<Impl>()) {
    m_impl->gpuWorkOnly = gpuWorkOnly;
}
EventParser::~EventParser() = default;

bool EventParser::parseRun(std::string_view text, std::size_t begin, std::size_t end, ParsedChunk& out) {
    Impl& d = *m_impl;
    d.bindChunk(out);
    d.load(text, begin, end, true);
    od::document doc;
    if (!roomToIterate(d.parser, d.bufferLength)) {
        out.failure = simdjson::error_message(simdjson::MEMALLOC);
        return false;
    }
    if (auto e = d.parser.iterate(d.buffer.data(), d.bufferLength, d.buffer.size()).get(doc)) {
        out.failure = simdjson::error_message(e);
        return false;
    }
    od::array array;
    if (auto e = doc.get_array().get(array)) {
        out.failure = simdjson::error_message(e);
        return false;
    }
    for (auto elementResult : array) {
        od::value element;
        if (auto e = elementResult.get(element)) {
            out.failure = simdjson::error_message(e);
            return false;
        }
        const char* start = nullptr;
        if (auto e = element.current_location().get(start)) {
            out.failure = simdjson::error_message(e);
            return false;
        }
        od::object obj;
        if (auto e = element.get_object().get(obj)) {
            if (e != simdjson::INCORRECT_TYPE) {
                out.failure = simdjson::error_message(e);
                return false;
            }
            ++out.eventsSeen;
            out.addIssue(d.offsetOf(start), "event is not an object");
            continue;
        }
        if (auto e = d.parseEvent(obj, start, out)) {
            out.failure = simdjson::error_message(e);
            return false;
        }
    }
    if (!atEnd(doc)) {
        out.failure = "trailing content after the last event";
        return false;
    }
    out.end = end;
    return true;
}

void EventParser::parseOne(std::string_view text, std::size_t begin, std::size_t end, ParsedChunk& out) {
    Impl& d = *m_impl;
    d.bindChunk(out);
    d.load(text, begin, end, false);
    od::document doc;
    const auto fail = [&](error_code e) {
        ++out.eventsSeen;
        out.addIssue(begin, std::string("malformed event: ") + simdjson::error_message(e));
    };
    if (!roomToIterate(d.parser, d.bufferLength)) return fail(simdjson::MEMALLOC);
    if (auto e = d.parser.iterate(d.buffer.data(), d.bufferLength, d.buffer.size()).get(doc)) return fail(e);
    od::object obj;
    if (auto e = doc.get_object().get(obj)) {
        if (e == simdjson::INCORRECT_TYPE) {
            ++out.eventsSeen;
            out.addIssue(begin, "event is not an object");
            return;
        }
        return fail(e);
    }
    // Roll back anything a half-parsed event left behind.
    const std::size_t events = out.events.size(), ids = out.ids.size(), asyncIds = out.asyncIds.size(),
                      flows = out.flows.size(), counters = out.counters.size(), metas = out.metas.size();
    const std::uint64_t malformed = out.malformed, slicesNotKept = out.slicesNotKept;
    auto e = d.parseEvent(obj, d.buffer.data(), out);
    if (!e && !atEnd(doc)) e = simdjson::TRAILING_CONTENT;
    if (e) {
        out.events.resize(events);
        out.ids.resize(ids);
        out.asyncIds.resize(asyncIds);
        out.flows.resize(flows);
        out.counters.resize(counters);
        out.metas.resize(metas);
        out.slicesNotKept = slicesNotKept;
        if (out.malformed == malformed)
            out.addIssue(begin, std::string("malformed event: ") + simdjson::error_message(e));
    }
}

namespace {

std::optional<std::int64_t> exactInteger(std::string_view json) {
    json = trimRight(json);
    while (!json.empty() && (json.front() == ' ' || json.front() == '"'))
        json.remove_prefix(1);
    while (!json.empty() && json.back() == '"')
        json.remove_suffix(1);
    // from_chars refuses what does not fit in int64 (19 digits can overflow; found by fuzz_import).
    std::int64_t r = 0;
    const auto [end, error] = std::from_chars(json.data(), json.data() + json.size(), r);
    if (error != std::errc() || end != json.data() + json.size()) return std::nullopt;
    return r;
}

std::int64_t intField(simdjson::dom::object o, std::string_view key) {
    std::int64_t v = 0;
    if (o[key].get_int64().get(v)) {
        double d;
        // A double outside int64's range (1e300, from a hostile file) would be undefined to convert.
        if (!o[key].get_double().get(d) && d > -9.2e18 && d < 9.2e18) v = std::int64_t(d);
    }
    return v;
}

} // namespace

void decodeTopLevelMetadata(TraceMetadata& meta) {
    simdjson::dom::parser parser;
    for (const auto& [key, text] : meta.topLevel) {
        if (key == "baseTimeNanoseconds") {
            meta.baseTimeNanoseconds = exactInteger(text); // beyond 2^53: never through a double
            continue;
        }
        if (key == "schemaVersion") {
            meta.schemaVersion = exactInteger(text);
            continue;
        }
        simdjson::padded_string padded(text);
        simdjson::dom::element root;
        if (parser.parse(padded).get(root)) continue;
        if (key == "displayTimeUnit") {
            std::string_view s;
            if (!root.get_string().get(s)) meta.displayTimeUnit = std::string(s);
        } else if (key == "deviceProperties" || key == "computeProperties") {
            simdjson::dom::array devices;
            if (root.get_array().get(devices)) continue;
            for (simdjson::dom::element d : devices) {
                simdjson::dom::object o;
                if (d.get_object().get(o)) continue;
                DeviceProperties p;
                p.id = intField(o, "id");
                std::string_view name;
                if (!o["name"].get_string().get(name)) p.name = std::string(name);
                p.totalGlobalMem = intField(o, "totalGlobalMem");
                p.computeMajor = intField(o, "computeMajor");
                p.computeMinor = intField(o, "computeMinor");
                p.numSms = intField(o, "numSms");
                p.maxThreadsPerMultiprocessor = intField(o, "maxThreadsPerMultiprocessor");
                p.warpSize = intField(o, "warpSize");
                meta.devices.push_back(std::move(p));
            }
        } else if (key == "distributedInfo") {
            simdjson::dom::object o;
            if (root.get_object().get(o)) continue;
            std::int64_t v;
            if (!o["rank"].get_int64().get(v)) meta.rank = v;
            if (!o["world_size"].get_int64().get(v)) meta.worldSize = v;
            std::string_view s;
            if (!o["backend"].get_string().get(s)) meta.distributedBackend = std::string(s);
        }
    }
}

#define KINETOSCOPE_STRINGIFY2(x) #x
#define KINETOSCOPE_STRINGIFY(x) KINETOSCOPE_STRINGIFY2(x)
std::string jsonLibraryVersion() {
    return KINETOSCOPE_STRINGIFY(SIMDJSON_VERSION);
}

} // namespace kinetoscope
