#include "replaysource.h"

#include "wire/decoder.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <fstream>
#include <iterator>
#include <limits>
#include <mutex>
#include <thread>
#include <unordered_map>
#include <utility>
#include <vector>

namespace kinetoscope::capture {

namespace {

using TimeNs = std::int64_t;

// A record waiting for its time, with names still as the stream's string ids (mapped to the sink's ids in
// drain).
struct Scheduled {
    TimeNs due = 0; // end time in the trace
    wire::Record record;
};

class ReplaySource final : public ActivitySource {
  public:
    // Either a file to read at start() or the stream itself.
    ReplaySource(std::string path, std::string stream, double speed)
        : m_path(std::move(path)), m_stream(std::move(stream)), m_speed(speed) {}
    ~ReplaySource() override { stop(); }

    bool start(std::string& error) override {
        if (!m_path.empty() && !readFile(m_path, m_stream, error)) return false;
        const bool scheduled = schedule(m_stream, error);
        std::string().swap(m_stream);
        if (!scheduled) {
            error = "replay: " + (m_path.empty() ? std::string("stream") : m_path) + ": " + error;
            return false;
        }
        // Timed replay releases records from a thread of its own, as the GPU completes work; as fast as
        // possible, the writer takes them straight from the schedule.
        if (m_speed > 0) m_thread = std::thread([this] { run(); });
        return true;
    }

    void flush(bool) override {}

    void drain(RecordSink& sink) override {
        if (m_speed <= 0) {
            // One burst, as a full CUPTI buffer is.
            for (Scheduled& s : m_schedule)
                emit(sink, s.record);
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
        for (wire::Record& r : ready)
            emit(sink, r);
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
    // At most this many records wait for the writer; beyond it a timed replay drops (as CUPTI does when its
    // buffers run out) so the simulated target never waits.
    static constexpr std::size_t maxReady = 1u << 22;

    static bool readFile(const std::string& path, std::string& out, std::string& error) {
        std::ifstream in(path, std::ios::binary);
        if (!in) {
            error = "replay: " + path + ": " + std::strerror(errno);
            return false;
        }
        out.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
        return true;
    }

    // Names are the stream's string ids until the sink gives them its own.
    void emit(RecordSink& sink, wire::Record& r) {
        std::visit(
            [&](auto& rec) {
                using T = std::decay_t<decltype(rec)>;
                if constexpr (std::is_same_v<T, wire::Kernel> || std::is_same_v<T, wire::Api> ||
                              std::is_same_v<T, wire::Marker> || std::is_same_v<T, wire::Device>)
                    rec.name = nameRef(sink, rec.name);
            },
            r);
        sink.add(r);
    }

    wire::StringRef nameRef(RecordSink& sink, wire::StringRef fileId) {
        if (fileId >= m_nameRefs.size()) m_nameRefs.resize(std::size_t(fileId) + 1, UINT32_MAX);
        wire::StringRef& ref = m_nameRefs[fileId];
        if (ref == UINT32_MAX)
            ref = sink.string(fileId < m_fileStrings.size() ? std::string_view(m_fileStrings[fileId]) : "");
        return ref;
    }

    // Decodes the stream into the schedule. Every timed record is due at its end (the stream is in that
    // order, as CUPTI delivers completed work); a record without times (a device, an External id) goes with
    // the one before it.
    bool schedule(std::string_view stream, std::string& error) {
        TimeNs lastDue = std::numeric_limits<TimeNs>::min();
        TimeNs firstStart = std::numeric_limits<TimeNs>::max();
        wire::Decoder decoder([&](const wire::Record& record) {
            std::visit(
                [&](const auto& rec) {
                    using T = std::decay_t<decltype(rec)>;
                    if constexpr (std::is_same_v<T, wire::StringDef>) {
                        if (rec.id >= m_fileStrings.size()) m_fileStrings.resize(std::size_t(rec.id) + 1);
                        m_fileStrings[rec.id] = rec.text;
                    } else if constexpr (std::is_same_v<T, wire::Dropped> ||
                                         std::is_same_v<T, wire::Notice>) {
                        // What the recorded agent dropped or said is not replayed as this one's.
                    } else {
                        if constexpr (requires { rec.end; }) {
                            lastDue = std::max(lastDue, TimeNs(rec.end));
                            firstStart = std::min(firstStart, TimeNs(rec.start));
                        }
                        m_schedule.push_back({lastDue, record});
                    }
                },
                record);
        });
        if (!decoder.feed(stream)) {
            error = "byte " + std::to_string(decoder.errorOffset()) + ": " + decoder.error();
            return false;
        }
        (void)decoder.finish(); // a stream cut short (a crashed capture's spool) replays every whole record
        // Timed replay starts the clock at the first replayed work's start.
        m_traceStart = firstStart != std::numeric_limits<TimeNs>::max() ? firstStart : 0;
        return true;
    }

    // Timed replay: releases each record once the trace's clock, run at m_speed, reaches its end time.
    void run() {
        const auto wallStart = std::chrono::steady_clock::now();
        std::size_t next = 0;
        std::unique_lock lock(m_mutex);
        while (!m_stopping && next < m_schedule.size()) {
            const auto elapsed = std::chrono::steady_clock::now() - wallStart;
            const auto traceNow =
                m_traceStart + TimeNs(double(std::chrono::nanoseconds(elapsed).count()) * m_speed);
            for (; next < m_schedule.size() && m_schedule[next].due <= traceNow; ++next) {
                if (m_ready.size() >= maxReady)
                    ++m_dropped;
                else
                    m_ready.push_back(std::move(m_schedule[next].record));
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
    std::string m_stream;
    double m_speed;
    std::vector<std::string> m_fileStrings; // the stream's strings, by its ids
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

std::unique_ptr<ActivitySource> makeReplaySource(std::string streamPath, double speed) {
    return std::make_unique<ReplaySource>(std::move(streamPath), std::string(), speed);
}

std::unique_ptr<ActivitySource> makeReplaySourceFromStream(std::string stream, double speed) {
    return std::make_unique<ReplaySource>(std::string(), std::move(stream), speed);
}

} // namespace kinetoscope::capture
