#include "import/perfettoimport.h"

#include "import/kinetoevents.h"
#include "perfettotrace.pb.h"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/wire_format_lite.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdio>
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

// A GPU counter descriptor: its GPU and its counters' names by id.
struct CounterDescriptor {
    std::int64_t gpu = 0;
    std::map<std::uint32_t, std::string> names;
};

// What a packet sequence keeps between packets: interned strings, GPU stage and queue specifications, compute
// kernels, counter descriptors, and the default track.
struct Sequence {
    std::unordered_map<std::uint64_t, std::string> names, categories, annotationNames, annotationStrings;
    std::unordered_map<std::uint64_t, std::string> stages, kernels,
        argNames; // gpu_specifications (stages and
                  // hardware queues share ids)
    std::unordered_map<std::uint64_t, CounterDescriptor> counters;
    std::uint64_t defaultTrack = 0;
    std::uint32_t defaultClock = 6; // BOOTTIME, the trace's clock, unless the sequence's defaults say
    bool valid = false;             // its incremental state was set up (cleared) at least once
};

// A kernel, copy or memset (a GPU render-stage event), as Kineto writes it: on its device's stream.
struct GpuEvent {
    std::int64_t ts = 0, dur = 0, device = 0, stream = 0;
    std::string name, category;
    std::uint64_t eventId = 0;
    std::optional<std::int64_t> correlation;
    std::string args; // the members after device, stream and correlation: a JSON object's text
};

// Kineto's category for a render stage, by the stage's name (PyTorch writes Kernel, Memcpy, Memset,
// Annotation, EventRecord, HostNode).
std::string_view gpuCategory(std::string_view stage) {
    std::string lower(stage);
    std::transform(lower.begin(), lower.end(), lower.begin(),
                   [](unsigned char c) { return char(std::tolower(c)); });
    if (lower == "kernel") return "kernel";
    if (lower == "memcpy") return "gpu_memcpy";
    if (lower == "memset") return "gpu_memset";
    if (lower == "annotation") return "gpu_user_annotation";
    return "gpu_event";
}

// The last whole number in a text ("[0007] stream 7" -> 7), or nullopt.
std::optional<std::int64_t> lastNumber(std::string_view text) {
    std::size_t end = text.size();
    while (end > 0 && !std::isdigit(static_cast<unsigned char>(text[end - 1])))
        --end;
    std::size_t begin = end;
    while (begin > 0 && std::isdigit(static_cast<unsigned char>(text[begin - 1])))
        --begin;
    if (begin == end || end - begin > 18) return std::nullopt;
    return std::stoll(std::string(text.substr(begin, end - begin)));
}

// A render-stage event in Kineto's terms: its lane, category, name and args (grid, block, registers, the
// extra data PyTorch attaches: correlation, graph id and node, bytes...).
GpuEvent gpuEvent(const pf::GpuRenderStageEvent& e, std::int64_t ts, const Sequence& seq) {
    GpuEvent g;
    g.ts = ts;
    g.dur = std::int64_t(e.duration());
    g.eventId = e.event_id();
    const auto interned = [](const auto& table, std::uint64_t iid) -> std::string {
        const auto it = table.find(iid);
        return it == table.end() ? std::string() : it->second;
    };
    const std::string stage = interned(seq.stages, e.stage_iid());
    const std::string queue = interned(seq.stages, e.hw_queue_iid());
    g.category = gpuCategory(stage);
    g.device = e.gpu_id();
    std::string extra;
    JsonWriter<std::string> w(extra);
    w.beginObject();
    std::optional<std::int64_t> stream;
    for (const auto& x : e.extra_data()) {
        const auto number = [&]() -> std::optional<std::int64_t> {
            std::int64_t v = 0;
            const auto [end, ec] = std::from_chars(x.value().data(), x.value().data() + x.value().size(), v);
            return ec == std::errc() && end == x.value().data() + x.value().size() ? std::optional(v)
                                                                                   : std::nullopt;
        }();
        if (x.name() == "stream id" && number) {
            stream = number;
        } else if (x.name() == "device id" && number) {
            if (!e.has_gpu_id()) g.device = *number;
        } else if (x.name() == "correlation" && number) {
            g.correlation = number;
        } else if (x.name() == "context id" || x.name() == "process_id" || x.name() == "process_name") {
            continue; // said once for the whole trace
        } else if (number && (x.name() == "graph id" || x.name() == "graph node id" || x.name() == "bytes" ||
                              x.name() == "queued" || x.name() == "priority")) {
            w.numField(x.name(), *number); // Kineto's own keys, as numbers
        } else {
            w.strField(x.name(), x.value());
        }
    }
    g.stream = stream ? *stream : lastNumber(queue).value_or(std::int64_t(e.hw_queue_iid()));
    // The name: the event's own, an interned event name, the kernel's demangled name, else the stage's.
    if (e.has_name())
        g.name = e.name();
    else if (e.has_name_iid())
        g.name = interned(seq.names, e.name_iid());
    if (g.name.empty() && e.has_kernel_iid()) g.name = interned(seq.kernels, e.kernel_iid());
    if (g.name.empty()) g.name = stage.empty() ? "GPU work" : stage;
    if (e.has_launch()) {
        const pf::ComputeKernelLaunch& l = e.launch();
        const auto dim3 = [&](std::string_view key, const pf::Dim3& d) {
            w.key(key);
            w.beginArray();
            w.num(d.x());
            w.num(d.y());
            w.num(d.z());
            w.endArray();
        };
        if (l.has_grid_size()) dim3("grid", l.grid_size());
        if (l.has_workgroup_size()) dim3("block", l.workgroup_size());
        for (const pf::ExtraComputeArg& a : l.args()) {
            std::string name = a.has_name() ? a.name() : interned(seq.argNames, a.name_iid());
            // Kineto's keys for what CUPTI reports, so that occupancy and the kernel table read them.
            if (name == "registers_per_thread") name = "registers per thread";
            if (name == "shared_mem_dynamic") name = "shared memory";
            if (name.empty()) continue;
            w.key(name);
            if (a.has_uint_value())
                w.num(a.uint_value());
            else if (a.has_int_value())
                w.num(a.int_value());
            else if (a.has_double_value())
                w.exact(a.double_value());
            else
                w.str(a.string_value());
        }
    }
    w.endObject();
    g.args = std::move(extra);
    return g;
}

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
    std::vector<GpuEvent> gpuEvents;
    struct GpuCounterSample {
        std::int64_t ts, gpu;
        std::string name;
        double value;
    };
    std::vector<GpuCounterSample> gpuCounters;
    // A launch's GPU work by render-stage event id: the correlation the launch carries (its own annotation,
    // or one made up for the pair), so that the importer joins them as it joins Kineto's.
    std::unordered_map<std::uint64_t, std::int64_t> launchedBy;
    // Clocks' offsets to BOOTTIME, from the clock snapshots; a sequence-scoped clock (id 64 and up) by its
    // sequence too.
    std::unordered_map<std::uint64_t, std::int64_t> clockOffset;
    const auto clockKey = [](std::uint32_t clock, std::uint32_t sequence) {
        return clock >= 64 ? (std::uint64_t(sequence) << 32) | clock : std::uint64_t(clock);
    };
    std::int64_t madeUpCorrelation = std::int64_t(1) << 52;
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
        if (packet.has_trace_packet_defaults() && packet.trace_packet_defaults().has_timestamp_clock_id())
            seq.defaultClock = packet.trace_packet_defaults().timestamp_clock_id();
        // A clock snapshot: each clock's offset to BOOTTIME from now on (a sequence's own clocks, ids 64 and
        // up, are its own).
        if (packet.has_clock_snapshot()) {
            std::optional<std::int64_t> boot;
            for (const auto& c : packet.clock_snapshot().clocks())
                if (c.clock_id() == 6) boot = std::int64_t(c.timestamp());
            if (boot)
                for (const auto& c : packet.clock_snapshot().clocks())
                    clockOffset[clockKey(c.clock_id(), packet.trusted_packet_sequence_id())] =
                        *boot - std::int64_t(c.timestamp());
        }
        // The packet's time on the trace's clock: another clock's through the latest snapshot of both.
        const auto traceTime = [&](std::uint64_t timestamp) {
            const std::uint32_t clock =
                packet.has_timestamp_clock_id() ? packet.timestamp_clock_id() : seq.defaultClock;
            if (clock == 6) return std::int64_t(timestamp);
            const auto it = clockOffset.find(clockKey(clock, packet.trusted_packet_sequence_id()));
            if (it != clockOffset.end()) return std::int64_t(timestamp) + it->second;
            ++otherClocks;
            return std::int64_t(timestamp);
        };
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
            for (const auto& s : d.gpu_specifications())
                seq.stages[s.iid()] = s.name();
            for (const auto& k : d.compute_kernels())
                seq.kernels[k.iid()] = k.demangled_name().empty() ? k.name() : k.demangled_name();
            for (const auto& n : d.compute_arg_names())
                seq.argNames[n.iid()] = n.name();
            for (const auto& c : d.gpu_counter_descriptors()) {
                CounterDescriptor& to = seq.counters[c.iid()];
                to.gpu = c.gpu_id();
                for (const auto& spec : c.counter_descriptor().specs())
                    to.names[spec.counter_id()] = spec.name();
            }
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
        if (packet.has_gpu_render_stage_event() || packet.has_gpu_counter_event()) {
            if (packet.sequence_flags() & 2 && !seq.valid) {
                ++lostState;
                continue;
            }
            if (packet.has_gpu_render_stage_event())
                gpuEvents.push_back(
                    gpuEvent(packet.gpu_render_stage_event(), traceTime(packet.timestamp()), seq));
            if (packet.has_gpu_counter_event()) {
                const pf::GpuCounterEvent& c = packet.gpu_counter_event();
                CounterDescriptor inline_;
                if (c.has_counter_descriptor())
                    for (const auto& spec : c.counter_descriptor().specs())
                        inline_.names[spec.counter_id()] = spec.name();
                const auto it = seq.counters.find(c.counter_descriptor_iid());
                const CounterDescriptor& d =
                    c.has_counter_descriptor() || it == seq.counters.end() ? inline_ : it->second;
                const std::int64_t gpu = c.has_gpu_id() ? c.gpu_id() : d.gpu;
                for (const auto& counter : c.counters()) {
                    const auto name = d.names.find(counter.counter_id());
                    gpuCounters.push_back(
                        {traceTime(packet.timestamp()), gpu,
                         name == d.names.end() ? "GPU counter " + std::to_string(counter.counter_id())
                                               : name->second,
                         counter.has_double_value() ? counter.double_value() : double(counter.int_value())});
                }
            }
            continue;
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
        Event ev;
        ev.ts = traceTime(packet.timestamp());
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
        // A launch names the GPU work it submitted (PyTorch's gpu_correlation): joined by its correlation
        // annotation, or by one made up for it.
        std::optional<std::int64_t> correlation;
        for (const pf::DebugAnnotation& a : e.debug_annotations()) {
            const bool named =
                a.name() == "correlation" || (a.has_name_iid() && seq.annotationNames.count(a.name_iid()) &&
                                              seq.annotationNames.at(a.name_iid()) == "correlation");
            if (named && (a.has_int_value() || a.has_uint_value()))
                correlation = a.has_int_value() ? a.int_value() : std::int64_t(a.uint_value());
        }
        const bool madeUp = !correlation && !e.has_correlation_id() &&
                            e.gpu_correlation().render_stage_submission_event_ids_size() > 0;
        if (madeUp) correlation = ++madeUpCorrelation;
        if (e.has_correlation_id() && !correlation) correlation = std::int64_t(e.correlation_id());
        for (std::uint64_t id : e.gpu_correlation().render_stage_submission_event_ids())
            launchedBy[id] = *correlation;
        if (e.debug_annotations_size() > 0 || e.has_correlation_id() || madeUp) {
            JsonWriter<std::string> w(ev.args);
            w.beginObject();
            if (e.has_correlation_id() || madeUp) w.numField("correlation", *correlation);
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
    writer.beginTrace();
    writer.beginEvents();
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
    // GPU work: each kernel, copy and memset on its device's stream, with the correlation of the launch that
    // submitted it (its own extra data's, else the launch's), as Kineto writes them.
    std::uint64_t unlaunched = 0;
    for (GpuEvent& g : gpuEvents) {
        if (!g.correlation)
            if (const auto it = launchedBy.find(g.eventId); it != launchedBy.end())
                g.correlation = it->second;
        unlaunched += !g.correlation && g.category != "gpu_user_annotation";
        writer.begin('X', g.category, g.name, g.device, g.stream, g.ts);
        writer.dur(g.dur);
        w.key("args");
        w.beginObject();
        w.numField("device", g.device);
        w.numField("stream", g.stream);
        if (g.correlation) w.numField("correlation", *g.correlation);
        if (g.args.size() > 2) w.raw(", " + g.args.substr(1, g.args.size() - 2)); // its members, inside ours
        w.endObject();
        w.endObject();
    }
    for (const GpuCounterSample& c : gpuCounters) {
        writer.begin('C', "gpu_counter", c.name, c.gpu, 0, c.ts);
        w.key("args");
        w.beginObject();
        w.key(c.name);
        w.exact(c.value);
        w.endObject();
        w.endObject();
    }
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
    out.json = writer.finish();
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
    if (unlaunched)
        out.skipped.push_back(std::to_string(unlaunched) +
                              " GPU events no launch names (no correlation): shown without their launch");
    if (otherClocks)
        out.skipped.push_back(std::to_string(otherClocks) +
                              " events on a clock no snapshot maps to the trace's, taken as they are");
    return out;
}

} // namespace kinetoscope
