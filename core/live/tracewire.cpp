#include "tracewire.h"

#include "import/sourcebuffer.h"
#include "import/traceloader.h"
#include "livecapture.h"
#include "model/argscan.h"
#include "wire/wire.h"

#include <algorithm>
#include <unordered_map>
#include <vector>

namespace kinetoscope::live {

namespace {

struct Scheduled {
    TimeNs due = 0; // when CUPTI would hand it over: the end of the work
    wire::Record record;
};

// Correlation and External ids by slice, from the store's join tables.
class SliceIds {
  public:
    explicit SliceIds(const TraceStore& s) {
        for (const auto* table : {&s.launchByCorrelation(), &s.gpuByCorrelation()})
            for (const CorrelationEntry& e : *table)
                m_correlation.emplace(key(e.ref), e.id);
        for (const CorrelationEntry& e : s.byExternalId())
            m_external.emplace(key(e.ref), e.id);
    }
    std::uint64_t correlation(EventRef r) const { return find(m_correlation, r); }
    std::uint64_t external(EventRef r) const { return find(m_external, r); }

  private:
    static std::uint64_t key(EventRef r) { return (std::uint64_t(r.track.value) << 32) | r.index.value; }
    static std::uint64_t find(const std::unordered_map<std::uint64_t, std::uint64_t>& m, EventRef r) {
        auto it = m.find(key(r));
        return it == m.end() ? std::uint64_t(0) : it->second;
    }
    std::unordered_map<std::uint64_t, std::uint64_t> m_correlation, m_external;
};

std::uint8_t memcpyKind(std::string_view name) {
    return name.find("HtoD") != name.npos   ? 1
           : name.find("DtoH") != name.npos ? 2
           : name.find("DtoD") != name.npos ? 8
           : name.find("HtoH") != name.npos ? 9
           : name.find("PtoP") != name.npos ? 10
                                            : 0;
}

std::uint8_t syncKind(std::string_view name) {
    return name.find("Event Sync") != name.npos ? 1
           : name.find("Wait") != name.npos     ? 2
           : name.find("Stream") != name.npos   ? 3
           : name.find("Context") != name.npos  ? 4
                                                : 0;
}

} // namespace

std::string traceAsWireStream(const TraceStore& s) {
    wire::Encoder out;
    for (const DeviceProperties& d : s.metadata().devices) {
        wire::Device dev;
        dev.id = std::uint32_t(std::max<std::int64_t>(0, d.id));
        dev.name = out.string(d.name);
        dev.totalGlobalMem = std::uint64_t(std::max<std::int64_t>(0, d.totalGlobalMem));
        dev.computeMajor = std::uint32_t(d.computeMajor);
        dev.computeMinor = std::uint32_t(d.computeMinor);
        dev.numSms = std::uint32_t(d.numSms);
        dev.maxThreadsPerSm = std::uint32_t(d.maxThreadsPerMultiprocessor);
        dev.warpSize = std::uint32_t(d.warpSize);
        out.add(dev); // CUPTI reports devices as their contexts are created, before any work
    }

    const SliceIds ids(s);
    std::vector<Scheduled> schedule;
    for (std::uint32_t t = 0; t < s.tracks().size(); ++t) {
        const Track& track = s.tracks()[t];
        for (std::uint32_t row = 0; row < track.sliceCount(); ++row) {
            const EventRef ref{TrackId(t), EventIndex(row)};
            const CategoryKind kind = s.categories()[track.categories[row]].kind;
            const TimeNs start = track.starts[row], end = track.endOf(row);
            const std::uint64_t c = ids.correlation(ref);
            const std::string_view args = s.argsText(ref);
            const std::string_view name = s.strings().view(track.names[row]);
            // Numbers from a trace may be anything: clamp before converting (out-of-range conversions are
            // undefined).
            auto number = [&](std::string_view k, double fallback) {
                const double v = argNumber(args, k).value_or(fallback);
                return v >= 0 && v < 1.8e19 ? v : 0.0;
            };
            auto u32 = [](double v) { return std::uint32_t(std::min(v, 4294967295.0)); };
            const auto device = u32(number("device", double(std::max<std::int64_t>(0, track.pid))));
            // A sync on no stream (a context or event sync) is -1 in Kineto's traces and 0xFFFFFFFF in
            // CUPTI's records.
            const double streamArg = argNumber(args, "stream").value_or(double(track.tid)); // read once
            const bool noStream = kind == CategoryKind::Sync && streamArg < 0;
            const auto stream =
                noStream ? UINT32_MAX : u32(streamArg >= 0 && streamArg < 1.8e19 ? streamArg : 0.0);
            switch (kind) {
            case CategoryKind::Kernel: {
                wire::Kernel k;
                k.device = device, k.stream = stream, k.correlation = c, k.start = start, k.end = end;
                k.name = out.string(name);
                if (auto g = argTriple(args, "grid"))
                    for (int i = 0; i < 3; ++i)
                        k.grid[i] = std::uint32_t((*g)[i]);
                if (auto b = argTriple(args, "block"))
                    for (int i = 0; i < 3; ++i)
                        k.block[i] = std::uint32_t((*b)[i]);
                k.registers = u32(number("registers per thread", 0));
                k.staticShared = u32(number("shared memory", 0));
                schedule.push_back({end, k});
                break;
            }
            case CategoryKind::Memcpy: {
                wire::Memcpy m;
                m.device = device, m.stream = stream, m.correlation = c, m.start = start, m.end = end;
                m.kind = memcpyKind(name);
                m.bytes = std::uint64_t(number("bytes", 0));
                schedule.push_back({end, m});
                break;
            }
            case CategoryKind::Memset: {
                wire::Memset m;
                m.device = device, m.stream = stream, m.correlation = c, m.start = start, m.end = end;
                m.bytes = std::uint64_t(number("bytes", 0));
                schedule.push_back({end, m});
                break;
            }
            case CategoryKind::Sync: {
                wire::Sync y;
                y.device = device, y.stream = stream, y.correlation = c, y.start = start, y.end = end;
                y.kind = syncKind(name);
                schedule.push_back({end, y});
                break;
            }
            case CategoryKind::Runtime:
            case CategoryKind::Driver: {
                if (const std::uint64_t e = ids.external(ref); e != 0 && c != 0)
                    schedule.push_back({end, wire::ExternalCorrelation{c, e}}); // CUPTI sends it first
                wire::Api a;
                a.driver = kind == CategoryKind::Driver;
                a.cbid = u32(number("cbid", 0));
                a.name = out.string(name);
                a.correlation = c;
                a.pid = std::uint32_t(track.pid);
                a.tid = std::uint64_t(track.tid);
                a.start = start, a.end = end;
                schedule.push_back({end, a});
                break;
            }
            case CategoryKind::UserAnnotation: {
                wire::Marker m;
                m.name = out.string(name);
                m.pid = std::uint32_t(track.pid);
                m.tid = std::uint64_t(track.tid);
                m.start = start, m.end = end;
                schedule.push_back({end, m});
                break;
            }
            default:
                break;
            }
        }
    }
    // CUPTI delivers work once it has completed: in order of end time.
    std::stable_sort(schedule.begin(), schedule.end(),
                     [](const Scheduled& a, const Scheduled& b) { return a.due < b.due; });
    for (const Scheduled& r : schedule)
        out.add(r.record);
    return out.take();
}

bool replayStreamFor(const std::string& path, std::string& stream, std::string& error) {
    LoadResult failure;
    std::optional<TraceText> file = readTraceFile(path, {}, failure);
    if (!file) {
        error = "replay: " + failure.message(path);
        return false;
    }
    if (isWireStream(file->source->text())) {
        stream.assign(file->source->text());
        return true;
    }
    LoadResult loaded = loadJsonTrace(std::move(*file));
    if (!loaded.ok()) {
        error = "replay: " + loaded.message(path);
        return false;
    }
    stream = traceAsWireStream(*loaded.store);
    return true;
}

} // namespace kinetoscope::live
