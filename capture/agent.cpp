// libkinetoscope-agent.so: loaded into the target by the CUDA driver (CUDA_INJECTION64_PATH) or by
// kinetoscope-fake-cuda, which both call InitializeInjection. It picks an activity source (replay when
// KINETOSCOPE_REPLAY names a trace, otherwise CUPTI), and runs one writer thread that drains the source every
// flush period and ships the records (agentwriter.h). Everything stays out of the target's way: no Qt, no
// exceptions across the C boundary, nothing exported but the two entry points (see agent.map).
//
// Environment: KINETOSCOPE_SOCKET (the viewer's socket), KINETOSCOPE_SPOOL (file), KINETOSCOPE_REPLAY
// (trace), KINETOSCOPE_REPLAY_SPEED (default 1; 0 = as fast as possible), KINETOSCOPE_FLUSH_MS (default 100).
// KINETOSCOPE_CUPTI_SKIP and KINETOSCOPE_CUPTI_THREAD_IDS: see cuptisettings.h.

#include "agentwriter.h"
#include "replaysource.h"

#include <pthread.h>
#include <unistd.h>

#include <atomic>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

namespace kinetoscope::capture {
namespace {

class Agent {
  public:
    bool start() {
        const char* replay = std::getenv("KINETOSCOPE_REPLAY");
        const char* speedText = std::getenv("KINETOSCOPE_REPLAY_SPEED");
        const char* flushText = std::getenv("KINETOSCOPE_FLUSH_MS");
        if (flushText) m_flushPeriod = std::chrono::milliseconds(std::max(1, std::atoi(flushText)));

        // The writer first, so that whatever stops the capture from here on reaches the viewer (or the
        // spool's reader) as a notice, not only the target's stderr.
        AgentWriter::Options options;
        if (const char* s = std::getenv("KINETOSCOPE_SOCKET")) options.socketPath = s;
        if (const char* s = std::getenv("KINETOSCOPE_SPOOL")) options.spoolPath = s;
        if (options.socketPath.empty() && options.spoolPath.empty())
            return fail("neither KINETOSCOPE_SOCKET nor KINETOSCOPE_SPOOL is set; nothing to capture into");
        std::string error;
        if (!m_writer.open(options, error)) return fail(error);
        if (!error.empty()) std::fprintf(stderr, "kinetoscope-agent: %s (continuing)\n", error.c_str());

        if (replay && *replay)
            m_source = makeReplaySource(replay, speedText ? std::atof(speedText) : 1.0);
        else
            m_source = makeCuptiSource(CuptiSettings::from(std::getenv("KINETOSCOPE_CUPTI_SKIP"),
                                                           std::getenv("KINETOSCOPE_CUPTI_THREAD_IDS")));
        if (!m_source) error = "built without CUPTI and no KINETOSCOPE_REPLAY trace given";
        if (!m_source || !m_source->start(error)) {
            // The target runs on without capture, and the notice says why.
            m_writer.add(wire::Notice{m_writer.string("capture disabled: " + error)});
            m_writer.close(std::chrono::milliseconds(500));
            return fail(error);
        }
        for (const std::string& notice : m_source->takeNotices())
            m_writer.add(wire::Notice{m_writer.string(notice)});
        m_owner = ::getpid();
        m_thread = std::thread([this] { run(); });
        return true;
    }

    // At exit: a final forced flush, everything drained and shipped, the viewer given a moment to take the
    // rest.
    void shutdown() {
        if (m_owner != ::getpid())
            return; // a forked child has no writer thread: leave the parent's state alone
        {
            std::lock_guard lock(m_mutex);
            if (m_stopping) return;
            m_stopping = true;
        }
        m_wake.notify_all();
        if (m_thread.joinable()) m_thread.join();
        m_owner = 0;
    }

    void waitReplayDone() {
        std::unique_lock lock(m_mutex);
        m_idle.wait(lock, [this] { return m_sourceFinished || m_stopping; });
    }

  private:
    bool fail(const std::string& why) {
        std::fprintf(stderr, "kinetoscope-agent: %s; capture disabled\n", why.c_str());
        m_source.reset();
        return false;
    }

    // One flush period's work; `final` at exit also forces out CUPTI's incomplete buffers.
    void pass(bool final) {
        m_source->flush(final);
        m_source->drain(m_writer);
        if (const std::uint64_t dropped = m_source->takeDropped()) m_writer.add(wire::Dropped{dropped});
        m_writer.ship();
    }

    void run() {
        std::unique_lock lock(m_mutex);
        while (!m_stopping) {
            lock.unlock();
            pass(false);
            const bool finished = m_source->finished();
            lock.lock();
            if (finished && !m_sourceFinished) {
                m_sourceFinished = true;
                m_idle.notify_all();
            }
            m_wake.wait_for(lock, m_flushPeriod, [this] { return m_stopping; });
        }
        lock.unlock();
        pass(true);
        m_source->stop();
        m_writer.close(std::chrono::seconds(5));
        const AgentWriter::Stats& s = m_writer.stats();
        if (s.recordsDroppedForSocket || s.socketLost)
            std::fprintf(stderr, "kinetoscope-agent: %llu records not delivered to the viewer%s\n",
                         static_cast<unsigned long long>(s.recordsDroppedForSocket),
                         s.socketLost ? " (it went away); the spool has them" : "");
    }

    std::unique_ptr<ActivitySource> m_source;
    AgentWriter m_writer;
    std::thread m_thread;
    std::mutex m_mutex;
    std::condition_variable m_wake, m_idle;
    bool m_stopping = false;
    bool m_sourceFinished = false;
    std::chrono::milliseconds m_flushPeriod{100};
    pid_t m_owner = 0;
};

// Never destroyed: the target's static destructors may run after our atexit handler, in any order.
Agent* g_agent = nullptr;
std::once_flag g_once;

void shutdownAtExit() {
    if (g_agent) g_agent->shutdown();
}

} // namespace
} // namespace kinetoscope::capture

extern "C" __attribute__((visibility("default"))) int InitializeInjection() {
    using namespace kinetoscope::capture;
    int result = 1;
    std::call_once(g_once, [&] {
        try {
            auto* agent = new Agent;
            if (!agent->start()) {
                delete agent;
                result = 0;
                return;
            }
            g_agent = agent;
            std::atexit(shutdownAtExit);
        } catch (const std::exception& e) {
            std::fprintf(stderr, "kinetoscope-agent: %s; capture disabled\n", e.what());
            result = 0;
        }
    });
    return result; // the driver ignores it; kinetoscope-fake-cuda reports it
}

// For kinetoscope-fake-cuda: a simulated target lives until its replayed GPU work is all delivered.
extern "C" __attribute__((visibility("default"))) void KinetoscopeAgentWaitReplay() {
    using namespace kinetoscope::capture;
    if (g_agent) g_agent->waitReplayDone();
}
