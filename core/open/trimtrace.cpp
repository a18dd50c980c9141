#include "trimtrace.h"

#include "import/documentlayout.h"
#include "import/jsonscan.h"
#include "import/sourcebuffer.h"

#include <simdjson.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <map>
#include <unordered_map>

namespace kinetoscope {

namespace {

using jsonscan::ScanStatus;
using jsonscan::skipSpace;

// What trim reads of one event, each as the file's own text (a string's inside its quotes for pid and tid).
struct EventFields {
    char ph = 0;
    std::optional<TimeNs> ts;
    TimeNs dur = 0;
    std::string_view pid, tid, name, cat, id, bp;
};

std::string_view trimmed(std::string_view token) {
    while (!token.empty() && jsonscan::isSpace(token.back()))
        token.remove_suffix(1);
    return token;
}

// A number's text, or the text inside a string's quotes ("12.5" as some writers quote times).
std::string_view unquoted(std::string_view token) {
    token = trimmed(token);
    if (token.size() >= 2 && token.front() == '"' && token.back() == '"')
        return token.substr(1, token.size() - 2);
    return token;
}

bool readFields(simdjson::ondemand::parser& parser, std::string& padded, std::string_view text,
                EventFields& out) {
    padded.assign(text);
    padded.resize(text.size() + simdjson::SIMDJSON_PADDING, ' ');
    simdjson::ondemand::document doc;
    if (parser.iterate(padded.data(), text.size(), padded.size()).get(doc)) return false;
    simdjson::ondemand::object object;
    if (doc.get_object().get(object)) return false;
    for (auto field : object) {
        std::string_view key;
        if (field.unescaped_key().get(key)) return false;
        simdjson::ondemand::value value = field.value();
        std::string_view raw;
        if (key == "ph") {
            std::string_view ph;
            if (!value.get_string().get(ph) && !ph.empty()) out.ph = ph[0];
        } else if (key == "ts" || key == "dur") {
            raw = value.raw_json_token();
            const auto ns = parseMicrosecondsText(unquoted(raw));
            if (key == "ts")
                out.ts = ns;
            else if (ns)
                out.dur = std::max<TimeNs>(*ns, 0);
        } else if (key == "pid" || key == "tid" || key == "name" || key == "cat" || key == "id" ||
                   key == "id2" || key == "bp") {
            // Scalars by their text; an object (id2) by its whole text, which raw_json_token does not give.
            simdjson::ondemand::json_type type;
            if (value.type().get(type)) continue;
            if (type == simdjson::ondemand::json_type::object ||
                type == simdjson::ondemand::json_type::array) {
                if (simdjson::to_json_string(value).get(raw)) continue;
            } else {
                raw = value.raw_json_token();
            }
            raw = trimmed(raw);
            // The views point into `padded`, which the caller keeps until it is done with the fields.
            // A pid or tid written 7 and "7" is one thread to every reader (Kineto 2020 wrote both).
            if (key == "pid") out.pid = unquoted(raw);
            if (key == "tid") out.tid = unquoted(raw);
            if (key == "name") out.name = raw;
            if (key == "cat") out.cat = raw;
            if (key == "id" || key == "id2") out.id = raw;
            if (key == "bp") out.bp = raw;
        }
    }
    return true;
}

struct FlowPoint {
    std::size_t event = 0;
    std::string flow;   // cat + id: the points of one arrow
    std::string thread; // pid + tid
    TimeNs ts = 0;
    bool excluded = false; // its process is filtered out: the arrow cannot stay whole
};

// A slice of a thread: its extent and the event that keeps it (a B/E pair by its B).
struct ThreadSlice {
    TimeNs start = 0, end = 0;
    std::size_t event = 0;
};

// The slice a flow point at `ts` binds to, as readers bind them: the innermost slice of its thread that holds
// `ts` (Kineto writes a launch's point at the call's start and a kernel's at the kernel's). `slices` sorted
// by start, then longest first; nullptr when none holds it (within the last `reach` slices that start before
// it).
const ThreadSlice* bindingSlice(const std::vector<ThreadSlice>& slices, TimeNs ts) {
    constexpr int reach = 4096;
    auto it = std::upper_bound(slices.begin(), slices.end(), ts,
                               [](TimeNs t, const ThreadSlice& s) { return t < s.start; });
    for (int n = 0; it != slices.begin() && n < reach; ++n) {
        --it;
        if (it->end >= ts) return &*it;
    }
    return nullptr;
}

// Writes to a file of our own (an open descriptor), plain or through zlib's gzip writer.
class Output {
  public:
    Output(int fd, bool gzip) : m_gzip(gzip) {
        if (fd < 0) return;
        if (gzip)
            m_gz = gzdopen(fd, "wb6");
        else
            m_file = fdopen(fd, "wb");
        if (!m_gz && !m_file) ::close(fd);
    }
    ~Output() { close(); }
    bool ok() const { return (m_gzip ? m_gz != nullptr : m_file != nullptr) && !m_failed; }
    void write(std::string_view text) {
        if (!ok() || text.empty()) return;
        const bool written = m_gzip ? gzwrite(m_gz, text.data(), unsigned(text.size())) == int(text.size())
                                    : std::fwrite(text.data(), 1, text.size(), m_file) == text.size();
        m_failed = m_failed || !written;
    }
    bool close() {
        bool closed = true;
        if (m_gz) closed = gzclose(m_gz) == Z_OK;
        if (m_file) closed = std::fclose(m_file) == 0;
        m_gz = nullptr;
        m_file = nullptr;
        return closed && !m_failed;
    }

  private:
    bool m_gzip;
    gzFile m_gz = nullptr;
    FILE* m_file = nullptr;
    bool m_failed = false;
};

} // namespace

TrimResult trimTrace(const std::string& inputPath, const std::string& outputPath,
                     const TrimOptions& options) {
    TrimResult result;
    if (options.to <= options.from) {
        result.error = "trim: the range must end after it starts";
        return result;
    }
    auto opened = SourceBuffer::open(inputPath, options.cancel);
    if (!opened.buffer) {
        result.error = inputPath + ": " + opened.error;
        return result;
    }
    const std::string_view text = opened.buffer->text();
    DocumentLayout layout;
    if (auto failure = findEventArray(text, layout)) {
        result.error = inputPath + ": byte " + std::to_string(failure->offset) + ": " + failure->reason +
                       " (trim reads Kineto JSON traces)";
        return result;
    }

    // Pass 1: each event's extent and whether it is kept; B/E and async pairs decided when they close.
    std::vector<std::pair<std::size_t, std::size_t>> extents;
    std::vector<std::uint8_t> keep;
    std::unordered_map<std::string, std::vector<ThreadSlice>> slicesOf; // every slice, by thread
    std::unordered_map<std::string, std::vector<std::pair<std::size_t, TimeNs>>> open; // B or b by key
    std::unordered_map<std::string, std::size_t> counterBefore; // a counter's last sample before the range
    std::vector<FlowPoint> flowPoints;
    const auto overlaps = [&](TimeNs start, TimeNs end) {
        return start <= options.to && end >= options.from;
    };
    const auto wantedPid = [&](std::string_view pid) {
        if (options.pids.empty()) return true;
        std::int64_t value = 0;
        const auto text = unquoted(pid);
        const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
        return ec == std::errc() && end == text.data() + text.size() &&
               std::find(options.pids.begin(), options.pids.end(), value) != options.pids.end();
    };
    // A slice (an X, or a B/E pair by its B) with whether it overlaps the range.
    const auto slice = [&](std::size_t event, const std::string& thread, TimeNs start, TimeNs end) {
        if (overlaps(start, end)) keep[event] = 1;
        slicesOf[thread].push_back({start, end, event});
    };

    simdjson::ondemand::parser parser;
    std::string padded;
    std::size_t pos = skipSpace(text, layout.arrayOpen + 1);
    std::size_t arrayClose = std::string_view::npos;
    while (pos < text.size()) {
        if (options.cancel && options.cancel->load()) {
            result.error = "trim: cancelled";
            return result;
        }
        if (text[pos] == ']') {
            arrayClose = pos;
            break;
        }
        const auto value = jsonscan::scanValue(text, pos);
        if (value.status == ScanStatus::Truncated) break; // a cut-short trace: what came before is whole
        if (value.status == ScanStatus::Invalid) {
            result.error = inputPath + ": byte " + std::to_string(value.end) + ": malformed event";
            return result;
        }
        const std::size_t event = extents.size();
        extents.emplace_back(pos, value.end);
        keep.push_back(0);
        ++result.eventsRead;
        EventFields f;
        const bool read =
            text[pos] == '{' && readFields(parser, padded, text.substr(pos, value.end - pos), f);
        // With a pid filter, an event of no process (no pid, or "") stays only if it is metadata.
        const bool wanted = options.pids.empty() || (f.pid.empty() && f.ph == 'M') || wantedPid(f.pid);
        if (read && !wanted && (f.ph == 's' || f.ph == 't' || f.ph == 'f'))
            flowPoints.push_back({event, std::string(f.cat) + '|' + std::string(f.id), {}, 0, true});
        if (read && wanted) {
            const std::string thread = std::string(f.pid) + '|' + std::string(f.tid);
            const TimeNs ts = f.ts.value_or(0);
            switch (f.ph) {
            case 'M':
                keep[event] = 1;
                break;
            case 'X':
                if (f.ts) slice(event, thread, ts, ts + f.dur);
                break;
            case 'B':
                open[thread].emplace_back(event, ts);
                break;
            case 'b':
                open[std::string(f.pid) + '|' + std::string(f.cat) + '|' + std::string(f.id) + '|' +
                     std::string(f.name)]
                    .emplace_back(event, ts);
                break;
            case 'E':
            case 'e': {
                const std::string key = f.ph == 'E' ? thread
                                                    : std::string(f.pid) + '|' + std::string(f.cat) + '|' +
                                                          std::string(f.id) + '|' + std::string(f.name);
                auto& stack = open[key];
                if (stack.empty()) { // an end without its begin: kept where it falls
                    keep[event] = f.ts && overlaps(ts, ts);
                    break;
                }
                const auto [begin, start] = stack.back();
                stack.pop_back();
                slice(begin, f.ph == 'E' ? thread : key, start, ts);
                keep[event] = keep[begin];
                break;
            }
            case 'C':
                if (f.ts && ts < options.from) {
                    counterBefore[std::string(f.pid) + '|' + std::string(f.name)] = event;
                } else if (f.ts && ts <= options.to) {
                    keep[event] = 1;
                }
                break;
            case 's':
            case 't':
            case 'f':
                flowPoints.push_back({event, std::string(f.cat) + '|' + std::string(f.id), thread, ts});
                break;
            default:
                keep[event] = !f.ts || overlaps(ts, ts); // instants and the rest: where they fall
            }
        }
        pos = skipSpace(text, value.end);
        if (pos < text.size() && text[pos] == ',') pos = skipSpace(text, pos + 1);
    }
    // A begin never ended runs to the end of the trace.
    for (auto& [key, stack] : open)
        for (const auto& [event, start] : stack)
            slice(event, key, start, std::numeric_limits<TimeNs>::max());
    for (const auto& [counter, event] : counterBefore)
        keep[event] = 1;

    // Flows: an arrow is kept when each of its points binds to a kept slice of its thread.
    for (auto& [thread, slices] : slicesOf)
        std::sort(slices.begin(), slices.end(), [](const ThreadSlice& a, const ThreadSlice& b) {
            return a.start != b.start ? a.start < b.start : a.end > b.end;
        });
    std::map<std::string, bool> flowWhole;
    for (const FlowPoint& p : flowPoints) {
        const auto slices = slicesOf.find(p.thread);
        const ThreadSlice* bound = slices == slicesOf.end() ? nullptr : bindingSlice(slices->second, p.ts);
        const bool kept = !p.excluded && bound && keep[bound->event];
        auto [it, inserted] = flowWhole.emplace(p.flow, kept);
        if (!inserted) it->second = it->second && kept;
    }
    for (const FlowPoint& p : flowPoints)
        keep[p.event] = flowWhole[p.flow];
    for (const auto& [flow, whole] : flowWhole)
        ++(whole ? result.flowsKept : result.flowsDropped);

    // Pass 2: the document, the kept events as the file wrote them.
    ImportStats ignored;
    if (arrayClose != std::string_view::npos) readTrailingKeys(text, arrayClose, layout, ignored);
    // Written under a name of its own beside OUT (created new: a file or link someone else put there, say in
    // /tmp, is never followed or overwritten), then renamed over it.
    std::string partial = outputPath + ".partial-XXXXXX";
    const int fd = ::mkstemp(partial.data());
    if (fd >= 0) ::fchmod(fd, 0644); // a trace to share, as a plain file would be
    const bool gzip = outputPath.size() > 3 && outputPath.compare(outputPath.size() - 3, 3, ".gz") == 0;
    {
        Output out(fd, gzip);
        out.write("{\n");
        for (const auto& [key, value] : layout.topLevel) {
            out.write("  \"");
            out.write(key);
            out.write("\": ");
            out.write(value);
            out.write(",\n");
        }
        out.write("  \"traceEvents\": [");
        bool first = true;
        for (std::size_t i = 0; i < extents.size(); ++i) {
            if (!keep[i]) continue;
            out.write(first ? "\n  " : ",\n  ");
            out.write(text.substr(extents[i].first, extents[i].second - extents[i].first));
            first = false;
            ++result.eventsKept;
        }
        out.write("\n  ]\n}\n");
        if (!out.close()) {
            if (fd >= 0) std::remove(partial.c_str());
            result.error = outputPath + ": cannot write the trimmed trace";
            return result;
        }
    }
    if (std::rename(partial.c_str(), outputPath.c_str()) != 0) {
        std::remove(partial.c_str());
        result.error = outputPath + ": cannot write the trimmed trace";
    }
    return result;
}

} // namespace kinetoscope
