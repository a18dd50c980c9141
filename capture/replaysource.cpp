#include "replaysource.h"

#include "analysis/argscan.h"
#include "import/traceloader.h"

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <utility>
#include <unordered_map>
#include <vector>

namespace kinetoscope::capture {

namespace {

// A record waiting for its time, with names still as the store's string ids (mapped to the sink's ids in drain).
struct Scheduled {
    TimeNs due = 0; // end time in the trace
    wire::Record record;
};

class ReplaySource final : public ActivitySource {
public:
    ReplaySource(std::string path, double speed) : m_path(std::move(path)), m_speed(speed) {}
    ~ReplaySource() override { stop(); }

    bool start(std::string& error) override {
        LoadResult loaded = loadTrace(m_path, {});
        if (!loaded.ok()) {
            error = "replay: " + loaded.message(m_path);
            return false;
        }
        m_store = std::move(loaded.store);
        schedule();
        // Timed replay releases records from a thread of its own, as the GPU completes work; as fast as possible,
        // the writer takes them straight from the schedule.
        if (m_speed > 0) m_thread = std::thread([this] { run(); });
        return true;
    }

    void flush(bool) override {}

    void drain(RecordSink& sink) override {
        if (m_speed <= 0) {
            // One burst, as a full CUPTI buffer is.
            for (Scheduled& s : m_schedule) emit(sink, s.record);
            std::vector<Scheduled>().swap(m_schedule);
            std::lock_guard lock(m_mutex);
            m_drainedAll = true;
            return;
        }
        std::vector<wire::Record> ready;
        {
            std::lock_guard lock(m_mutex);
            ready.swap(m_ready);
        }
        for (wire::Record& r : ready) emit(sink, r);
        std::lock_guard lock(m_mutex);
        m_drainedAll = m_producerDone && m_ready.empty();
    }

    void stop() override {
        {
            std::lock_guard lock(m_mutex);
            m_stopping = true;
        }
        m_wake.notify_all();
        if (m_thread.joinable()) m_thread.join();
    }

    std::uint64_t takeDropped() override {
        std::lock_guard lock(m_mutex);
        return std::exchange(m_dropped, 0);
    }

    bool finished() const override {
        std::lock_guard lock(m_mutex);
        return m_drainedAll;
    }

    const char* kind() const override { return "replay"; }

private:
    // At most this many records wait for the writer; beyond it a timed replay drops (as CUPTI does when its buffers
    // run out) so the simulated target never waits.
    static constexpr std::size_t maxReady = 1u << 22;

    // Names are the store's string ids until the sink gives them wire ids.
    void emit(RecordSink& sink, wire::Record& r) {
        std::visit([&](auto& rec) {
            using T = std::decay_t<decltype(rec)>;
            if constexpr (std::is_same_v<T, wire::Kernel> || std::is_same_v<T, wire::Api> ||
                          std::is_same_v<T, wire::Marker> || std::is_same_v<T, wire::Device>)
                rec.name = nameRef(sink, rec.name);
        }, r);
        sink.add(r);
    }

    wire::StringRef nameRef(RecordSink& sink, std::uint32_t storeId) {
        if (storeId >= m_nameRefs.size()) m_nameRefs.resize(std::size_t(storeId) + 1, UINT32_MAX);
        wire::StringRef& ref = m_nameRefs[storeId];
        if (ref == UINT32_MAX) ref = sink.string(m_store->strings.view(StringId(storeId)));
        return ref;
    }

    void schedule() {
        const TraceStore& s = *m_store;
        // Correlation and External ids by slice, from the store's join tables.
        auto key = [](EventRef r) { return (std::uint64_t(r.track.value) << 32) | r.index; };
        std::unordered_map<std::uint64_t, std::uint64_t> correlation, external;
        for (const auto* table : {&s.launchByCorrelation, &s.gpuByCorrelation})
            for (const CorrelationEntry& e : *table) correlation.emplace(key(e.ref), e.id);
        for (const CorrelationEntry& e : s.byExternalId) external.emplace(key(e.ref), e.id);
        auto idOf = [](const std::unordered_map<std::uint64_t, std::uint64_t>& m, std::uint64_t k) {
            auto it = m.find(k);
            return it == m.end() ? std::uint64_t(0) : it->second;
        };

        for (const DeviceProperties& d : s.metadata.devices) {
            wire::Device dev;
            dev.id = std::uint32_t(std::max<std::int64_t>(0, d.id));
            dev.name = m_store->strings.intern(d.name).value; // the existing id when the name is already there
            dev.totalGlobalMem = std::uint64_t(std::max<std::int64_t>(0, d.totalGlobalMem));
            dev.computeMajor = std::uint32_t(d.computeMajor);
            dev.computeMinor = std::uint32_t(d.computeMinor);
            dev.numSms = std::uint32_t(d.numSms);
            dev.maxThreadsPerSm = std::uint32_t(d.maxThreadsPerMultiprocessor);
            dev.warpSize = std::uint32_t(d.warpSize);
            m_schedule.push_back({s.minTime, dev}); // CUPTI reports devices as their contexts are created
        }

        for (std::uint32_t t = 0; t < s.tracks.size(); ++t) {
            const Track& track = s.tracks[t];
            for (std::uint32_t row = 0; row < track.sliceCount(); ++row) {
                const EventRef ref{TrackId(t), row};
                const CategoryKind kind = s.categories[track.categories[row]].kind;
                const TimeNs start = track.starts[row], end = track.endOf(row);
                const std::uint64_t c = idOf(correlation, key(ref));
                const std::string_view args = s.argsText(ref);
                // Numbers from a trace may be anything: clamp before converting (out-of-range conversions are undefined).
                auto number = [&](std::string_view k, double fallback) {
                    const double v = argNumber(args, k).value_or(fallback);
                    return v >= 0 && v < 1.8e19 ? v : 0.0;
                };
                auto u32 = [](double v) { return std::uint32_t(std::min(v, 4294967295.0)); };
                const auto device = u32(number("device", double(std::max<std::int64_t>(0, track.pid))));
                const auto stream = u32(number("stream", double(std::max<std::int64_t>(0, track.tid))));
                switch (kind) {
                case CategoryKind::Kernel: {
                    wire::Kernel k;
                    k.device = device, k.stream = stream, k.correlation = c, k.start = start, k.end = end;
                    k.name = track.names[row].value;
                    if (auto g = argTriple(args, "grid"))
                        for (int i = 0; i < 3; ++i) k.grid[i] = std::uint32_t((*g)[i]);
                    if (auto b = argTriple(args, "block"))
                        for (int i = 0; i < 3; ++i) k.block[i] = std::uint32_t((*b)[i]);
                    k.registers = u32(number("registers per thread", 0));
                    k.staticShared = u32(number("shared memory", 0));
                    m_schedule.push_back({end, k});
                    break;
                }
                case CategoryKind::Memcpy: {
                    wire::Memcpy m;
                    m.device = device, m.stream = stream, m.correlation = c, m.start = start, m.end = end;
                    const std::string_view name = s.strings.view(track.names[row]);
                    m.kind = name.find("HtoD") != name.npos ? 1 : name.find("DtoH") != name.npos ? 2
                           : name.find("DtoD") != name.npos ? 8 : name.find("HtoH") != name.npos ? 9
                           : name.find("PtoP") != name.npos ? 10 : 0;
                    m.bytes = std::uint64_t(number("bytes", 0));
                    m_schedule.push_back({end, m});
                    break;
                }
                case CategoryKind::Memset: {
                    wire::Memset m;
                    m.device = device, m.stream = stream, m.correlation = c, m.start = start, m.end = end;
                    m.bytes = std::uint64_t(number("bytes", 0));
                    m_schedule.push_back({end, m});
                    break;
                }
                case CategoryKind::Sync: {
                    wire::Sync y;
                    y.device = device, y.stream = stream, y.correlation = c, y.start = start, y.end = end;
                    const std::string_view name = s.strings.view(track.names[row]);
                    y.kind = name.find("Event Sync") != name.npos ? 1 : name.find("Wait") != name.npos ? 2
                           : name.find("Stream") != name.npos ? 3 : name.find("Context") != name.npos ? 4 : 0;
                    m_schedule.push_back({end, y});
                    break;
                }
                case CategoryKind::Runtime: case CategoryKind::Driver: {
                    if (const std::uint64_t e = idOf(external, key(ref)); e != 0 && c != 0)
                        m_schedule.push_back({end, wire::ExternalCorrelation{c, e}}); // CUPTI sends it first
                    wire::Api a;
                    a.driver = kind == CategoryKind::Driver;
                    a.cbid = u32(number("cbid", 0));
                    a.name = track.names[row].value;
                    a.correlation = c;
                    a.pid = std::uint32_t(track.pid);
                    a.tid = std::uint64_t(track.tid);
                    a.start = start, a.end = end;
                    m_schedule.push_back({end, a});
                    break;
                }
                case CategoryKind::UserAnnotation: {
                    wire::Marker m;
                    m.name = track.names[row].value;
                    m.pid = std::uint32_t(track.pid);
                    m.tid = std::uint64_t(track.tid);
                    m.start = start, m.end = end;
                    m_schedule.push_back({end, m});
                    break;
                }
                default: break;
                }
            }
        }
        // CUPTI delivers work once it has completed: in order of end time.
        std::stable_sort(m_schedule.begin(), m_schedule.end(), [](const Scheduled& a, const Scheduled& b) { return a.due < b.due; });
        m_traceStart = m_schedule.empty() ? 0 : std::min(s.minTime, m_schedule.front().due);
    }

    // Timed replay: releases each record once the trace's clock, run at m_speed, reaches its end time.
    void run() {
        const auto wallStart = std::chrono::steady_clock::now();
        std::size_t next = 0;
        std::unique_lock lock(m_mutex);
        while (!m_stopping && next < m_schedule.size()) {
            const auto elapsed = std::chrono::steady_clock::now() - wallStart;
            const auto traceNow = m_traceStart + TimeNs(double(std::chrono::nanoseconds(elapsed).count()) * m_speed);
            for (; next < m_schedule.size() && m_schedule[next].due <= traceNow; ++next) {
                if (m_ready.size() >= maxReady) ++m_dropped;
                else m_ready.push_back(std::move(m_schedule[next].record));
            }
            if (next < m_schedule.size()) {
                const double waitNs = double(m_schedule[next].due - traceNow) / m_speed;
                const auto wait = std::chrono::nanoseconds(std::int64_t(std::clamp(waitNs, 2e5, 5e7)));
                m_wake.wait_for(lock, wait, [this] { return m_stopping; });
            }
        }
        m_producerDone = true;
        m_drainedAll = m_ready.empty();
        std::vector<Scheduled>().swap(m_schedule);
    }

    std::string m_path;
    double m_speed;
    std::unique_ptr<TraceStore> m_store;
    std::vector<Scheduled> m_schedule;
    TimeNs m_traceStart = 0;
    std::vector<wire::StringRef> m_nameRefs;

    mutable std::mutex m_mutex;
    std::condition_variable m_wake;
    std::vector<wire::Record> m_ready;
    std::uint64_t m_dropped = 0;
    bool m_stopping = false;
    bool m_producerDone = false;
    bool m_drainedAll = false;
    std::thread m_thread;
};

} // namespace

std::unique_ptr<ActivitySource> makeReplaySource(std::string tracePath, double speed) {
    return std::make_unique<ReplaySource>(std::move(tracePath), speed);
}

} // namespace kinetoscope::capture
