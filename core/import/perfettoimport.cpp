#include "import/perfettoimport.h"

#include "import/kinetoevents.h"
#include "perfettotrace.pb.h"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/wire_format_lite.h>

#include <algorithm>
#include <map>
#include <optional>
#include <unordered_map>

namespace kinetoscope {

namespace pf = kinetoscope::perfetto;

namespace {

// Where a track's events go in Kineto's terms: a thread (pid, tid), or a lane of its own.
struct Track {
    std::int64_t pid = 0;
    std::int64_t tid = 0;
    std::string name;
    bool counter = false;
    bool process = false; // a process's own track
    bool described = false;
};

// What a packet sequence keeps between packets: interned strings and the default track.
struct Sequence {
    std::unordered_map<std::uint64_t, std::string> names, categories, annotationNames, annotationStrings;
    std::uint64_t defaultTrack = 0;
    bool valid = false; // its incremental state was set up (cleared) at least once
};

struct Event {
    std::int64_t ts = 0;
    int type = 0; // TrackEvent::Type
    std::uint64_t track = 0;
    std::string name, category, args; // args: a JSON object's text, or empty
    double value = 0;
    std::vector<std::uint64_t> flows, terminating;
    std::uint64_t order = 0; // position in the file, to keep ties stable
};

// A debug annotation's value as JSON text; nested dicts and arrays as JSON objects and arrays.
void writeAnnotation(JsonWriter<std::string>& w, const pf::DebugAnnotation& a, const Sequence& seq) {
    if (a.has_bool_value())
        w.boolean(a.bool_value());
    else if (a.has_uint_value())
        w.num(a.uint_value());
    else if (a.has_int_value())
        w.num(a.int_value());
    else if (a.has_double_value())
        w.exact(a.double_value());
    else if (a.has_string_value())
        w.str(a.string_value());
    else if (a.has_string_value_iid()) {
        const auto it = seq.annotationStrings.find(a.string_value_iid());
        w.str(it == seq.annotationStrings.end() ? std::string_view() : std::string_view(it->second));
    } else if (a.has_pointer_value())
        w.str("0x" + [&] {
            char b[24];
            std::snprintf(b, sizeof b, "%llx", static_cast<unsigned long long>(a.pointer_value()));
            return std::string(b);
        }());
    else if (a.has_legacy_json_value())
        w.json(a.legacy_json_value());
    else if (a.dict_entries_size() > 0) {
        w.beginObject();
        for (const pf::DebugAnnotation& e : a.dict_entries()) {
            w.key(e.name());
            writeAnnotation(w, e, seq);
        }
        w.endObject();
    } else if (a.array_values_size() > 0) {
        w.beginArray();
        for (const pf::DebugAnnotation& e : a.array_values())
            writeAnnotation(w, e, seq);
        w.endArray();
    } else {
        w.null();
    }
}

} // namespace

bool looksLikePerfettoTrace(std::string_view text) {
    // Field 1 (packet), wire type 2: the tag byte 0x0a, then the packet's length. 0x0a is also a line feed,
    // which many JSON files start with: JSON's first other byte is its '{' or '['.
    if (text.size() < 2 || static_cast<unsigned char>(text[0]) != 0x0a) return false;
    const std::size_t first = text.find_first_not_of(" \t\r\n");
    return first == std::string_view::npos || (text[first] != '{' && text[first] != '[');
}

ConvertedTrace perfettoToKinetoJson(std::string_view trace) {
    ConvertedTrace out;
    std::unordered_map<std::uint64_t, Track> tracks;
    std::unordered_map<std::uint32_t, Sequence> sequences;
    std::vector<Event> events;
    std::uint64_t unknownNames = 0, lostState = 0, legacyTimes = 0, otherClocks = 0, packets = 0;

    google::protobuf::io::CodedInputStream in(reinterpret_cast<const std::uint8_t*>(trace.data()),
                                              int(std::min<std::size_t>(trace.size(), INT32_MAX)));
    in.SetTotalBytesLimit(INT32_MAX);
    pf::TracePacket packet;
    while (true) {
        const std::size_t at = std::size_t(in.CurrentPosition());
        const std::uint32_t tag = in.ReadTag();
        if (tag == 0) {
            if (at < trace.size())
                out.skipped.push_back("byte " + std::to_string(at) + ": not a packet; read up to there");
            break;
        }
        std::uint32_t length = 0;
        if (tag != 0x0a || !in.ReadVarint32(&length)) {
            if (!google::protobuf::internal::WireFormatLite::SkipField(&in, tag)) {
                out.skipped.push_back("byte " + std::to_string(at) + ": damaged; read up to there");
                break;
            }
            continue;
        }
        std::string bytes;
        if (!in.ReadString(&bytes, int(length))) {
            out.skipped.push_back("byte " + std::to_string(at) + ": the last packet is cut short");
            break;
        }
        if (!packet.ParseFromString(bytes)) {
            out.skipped.push_back("byte " + std::to_string(at) + ": a packet that does not parse, skipped");
            continue;
        }
        ++packets;
        Sequence& seq = sequences[packet.trusted_packet_sequence_id()];
        if ((packet.sequence_flags() & 1) || packet.incremental_state_cleared()) {
            seq = Sequence();
            seq.valid = true;
        }
        if (packet.has_trace_packet_defaults() && packet.trace_packet_defaults().has_track_event_defaults())
            seq.defaultTrack = packet.trace_packet_defaults().track_event_defaults().track_uuid();
        if (packet.has_interned_data()) {
            const pf::InternedData& d = packet.interned_data();
            for (const auto& n : d.event_names())
                seq.names[n.iid()] = n.name();
            for (const auto& n : d.event_categories())
                seq.categories[n.iid()] = n.name();
            for (const auto& n : d.debug_annotation_names())
                seq.annotationNames[n.iid()] = n.name();
            for (const auto& n : d.debug_annotation_string_values())
                seq.annotationStrings[n.iid()] = n.str();
        }
        if (packet.has_track_descriptor()) {
            const pf::TrackDescriptor& d = packet.track_descriptor();
            Track& t = tracks[d.uuid()];
            t.described = true;
            if (d.has_thread()) {
                t.pid = d.thread().pid();
                t.tid = d.thread().tid();
                t.name = d.thread().has_thread_name() ? d.thread().thread_name() : d.name();
            } else if (d.has_process()) {
                t.pid = d.process().pid();
                t.tid = d.process().pid();
                t.name = d.process().process_name();
                t.process = true;
            } else {
                // A custom track: a lane of its own under its parent's process.
                if (const auto parent = tracks.find(d.parent_uuid()); parent != tracks.end())
                    t.pid = parent->second.pid;
                t.tid = -std::int64_t(d.uuid() % 1000000007) - 1; // its own lane, apart from real tids
                t.name = d.name();
            }
            t.counter = d.has_counter();
            if (t.name.empty()) t.name = d.name();
        }
        if (!packet.has_track_event()) continue;
        if (packet.sequence_flags() & 2 && !seq.valid) {
            ++lostState; // refers to interned data we never saw
            continue;
        }
        const pf::TrackEvent& e = packet.track_event();
        if (!packet.has_timestamp()) {
            ++legacyTimes;
            continue;
        }
        if (packet.has_timestamp_clock_id() && packet.timestamp_clock_id() != 6) ++otherClocks;
        Event ev;
        ev.ts = std::int64_t(packet.timestamp());
        ev.type = int(e.type());
        ev.track = e.has_track_uuid() ? e.track_uuid() : seq.defaultTrack;
        ev.order = events.size();
        if (e.has_name())
            ev.name = e.name();
        else if (e.has_name_iid()) {
            const auto it = seq.names.find(e.name_iid());
            if (it != seq.names.end())
                ev.name = it->second;
            else
                ++unknownNames;
        }
        if (e.categories_size() > 0)
            ev.category = e.categories(0);
        else if (e.category_iids_size() > 0)
            if (const auto it = seq.categories.find(e.category_iids(0)); it != seq.categories.end())
                ev.category = it->second;
        ev.value = e.has_double_counter_value() ? e.double_counter_value() : double(e.counter_value());
        for (std::uint64_t f : e.flow_ids())
            ev.flows.push_back(f);
        for (std::uint64_t f : e.flow_ids_old())
            ev.flows.push_back(f);
        for (std::uint64_t f : e.terminating_flow_ids())
            ev.terminating.push_back(f);
        for (std::uint64_t f : e.terminating_flow_ids_old())
            ev.terminating.push_back(f);
        if (e.debug_annotations_size() > 0 || e.has_correlation_id()) {
            JsonWriter<std::string> w(ev.args);
            w.beginObject();
            if (e.has_correlation_id()) w.numField("correlation", e.correlation_id());
            for (const pf::DebugAnnotation& a : e.debug_annotations()) {
                std::string key = a.name();
                if (a.has_name_iid())
                    if (const auto it = seq.annotationNames.find(a.name_iid());
                        it != seq.annotationNames.end())
                        key = it->second;
                w.key(key);
                writeAnnotation(w, a, seq);
            }
            w.endObject();
        }
        events.push_back(std::move(ev));
    }
    if (packets == 0) {
        out.error = "no Perfetto trace packets";
        return out;
    }

    // Each track's events in time order (ends before begins at one time, so that back-to-back slices do not
    // nest), then begins and ends paired as a stack.
    std::stable_sort(events.begin(), events.end(), [](const Event& a, const Event& b) {
        if (a.track != b.track) return a.track < b.track;
        if (a.ts != b.ts) return a.ts < b.ts;
        return (a.type == 2) > (b.type == 2);
    });
    KinetoEventWriter writer;
    JsonWriter<std::string>& w = writer.w();
    w.beginObject({"", ",\n", ""});
    w.numField("schemaVersion", 1);
    w.strField("displayTimeUnit", "ns");
    w.key("traceEvents");
    w.beginArray({"\n", ",\n", "\n"});
    const auto where = [&](std::uint64_t uuid) -> const Track& {
        static const Track global{0, 0, "Global", false, false, true};
        const auto it = tracks.find(uuid);
        return it == tracks.end() ? global : it->second;
    };
    // Flow points: (flow id, time, track, file order) of each event that carries one.
    struct FlowPoint {
        std::uint64_t id;
        std::int64_t ts;
        std::uint64_t track, order;
        bool terminating;
    };
    std::vector<FlowPoint> flowPoints;
    std::uint64_t unmatchedEnds = 0, unmatchedBegins = 0;
    std::vector<const Event*> open;
    std::uint64_t currentTrack = UINT64_MAX;
    const auto emitSlice = [&](const Event& begin, std::int64_t end) {
        const Track& t = where(begin.track);
        writer.begin('X', begin.category, begin.name, t.pid, t.tid, begin.ts);
        writer.dur(end - begin.ts);
        if (!begin.args.empty()) {
            w.key("args");
            w.json(begin.args);
        }
        w.endObject();
    };
    for (const Event& ev : events) {
        if (ev.track != currentTrack) {
            unmatchedBegins += open.size();
            open.clear();
            currentTrack = ev.track;
        }
        for (std::uint64_t f : ev.flows)
            flowPoints.push_back({f, ev.ts, ev.track, ev.order, false});
        for (std::uint64_t f : ev.terminating)
            flowPoints.push_back({f, ev.ts, ev.track, ev.order, true});
        const Track& t = where(ev.track);
        switch (ev.type) {
        case 1: // begin
            open.push_back(&ev);
            break;
        case 2: // end
            if (open.empty()) {
                ++unmatchedEnds;
                break;
            }
            emitSlice(*open.back(), ev.ts);
            open.pop_back();
            break;
        case 3: // instant
            writer.begin('i', ev.category, ev.name, t.pid, t.tid, ev.ts);
            w.strField("s", "t");
            if (!ev.args.empty()) {
                w.key("args");
                w.json(ev.args);
            }
            w.endObject();
            break;
        case 4: { // counter
            const std::string& series = t.name.empty() ? ev.name : t.name;
            writer.begin('C', ev.category, series, t.pid, t.tid, ev.ts);
            w.key("args");
            w.beginObject();
            w.key(series.empty() ? std::string_view("value") : std::string_view(series));
            w.exact(ev.value);
            w.endObject();
            w.endObject();
            break;
        }
        default:
            break;
        }
    }
    unmatchedBegins += open.size();
    // Flows: each id's points in time order; a terminating point ends the flow (the id may start again).
    std::stable_sort(flowPoints.begin(), flowPoints.end(), [](const FlowPoint& a, const FlowPoint& b) {
        return a.id != b.id ? a.id < b.id : a.ts != b.ts ? a.ts < b.ts : a.order < b.order;
    });
    std::int64_t nextFlow = 1;
    for (std::size_t i = 0; i < flowPoints.size();) {
        std::size_t j = i + 1;
        while (j < flowPoints.size() && flowPoints[j].id == flowPoints[i].id &&
               !flowPoints[j - 1].terminating)
            ++j;
        if (j - i >= 2) {
            const std::int64_t id = nextFlow++;
            for (std::size_t k = i; k < j; ++k) {
                const Track& t = where(flowPoints[k].track);
                writer.flow(k == i       ? 's'
                            : k + 1 == j ? 'f'
                                         : 't',
                            id, t.pid, t.tid, flowPoints[k].ts, "flow");
            }
        }
        i = j;
    }
    // Names: the processes and threads the descriptors named.
    for (const auto& [uuid, t] : tracks) {
        if (t.name.empty() || t.counter) continue;
        writer.metadata(t.process ? "process_name" : "thread_name", t.pid, t.tid, t.name);
    }
    w.endArray();
    w.endObject();
    out.json = std::move(writer.text());
    if (unmatchedBegins)
        out.skipped.push_back(std::to_string(unmatchedBegins) + " slice begins without an end, left out");
    if (unmatchedEnds)
        out.skipped.push_back(std::to_string(unmatchedEnds) + " slice ends without a begin, left out");
    if (unknownNames)
        out.skipped.push_back(std::to_string(unknownNames) + " events named by interned ids never defined");
    if (lostState)
        out.skipped.push_back(std::to_string(lostState) +
                              " events of sequences whose incremental state was lost");
    if (legacyTimes)
        out.skipped.push_back(std::to_string(legacyTimes) +
                              " events timed by the legacy thread-relative fields, left out");
    if (otherClocks)
        out.skipped.push_back(std::to_string(otherClocks) +
                              " events on a clock other than the trace's, taken as they are");
    return out;
}

} // namespace kinetoscope
