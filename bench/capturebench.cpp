// kinetoscope-bench-capture TRACE [--spool FILE] [--repeat N]: throughput of the live-capture pipeline,
// source to store. The replay source plays TRACE as fast as it can (speed 0) into the agent's writer, which
// encodes and sends over the viewer's Unix socket (and spools, with --spool); the capture session decodes
// every record into the capture; then the store is built from it as the live view builds it. Everything but
// reading TRACE is timed. Prints records/s for the streaming part, the store build, and the two one after the
// other (source to store).
#include "agentwriter.h"
#include "live/capturesession.h"
#include "live/tracewire.h"
#include "replaysource.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dirent.h>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <thread>
#include <unistd.h>
#include <vector>

using namespace kinetoscope;
using Clock = std::chrono::steady_clock;

// CPU seconds used so far by each of this process's threads (from /proc): which stage bounds the pipeline.
static std::map<int, double> threadCpu() {
    std::map<int, double> out;
    DIR* dir = ::opendir("/proc/self/task");
    if (!dir) return out;
    const double tick = double(::sysconf(_SC_CLK_TCK));
    while (const dirent* entry = ::readdir(dir)) {
        const int tid = std::atoi(entry->d_name);
        if (tid <= 0) continue;
        std::ifstream stat("/proc/self/task/" + std::string(entry->d_name) + "/stat");
        std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
        const auto close = text.rfind(')');
        if (close == std::string::npos) continue;
        std::istringstream fields(text.substr(close + 2));
        std::string field;
        unsigned long long utime = 0, stime = 0;
        for (int i = 3; i <= 15 && fields >> field; ++i) {
            if (i == 14) utime = std::stoull(field);
            if (i == 15) stime = std::stoull(field);
        }
        out[tid] = double(utime + stime) / tick;
    }
    ::closedir(dir);
    return out;
}

static double seconds(Clock::time_point a, Clock::time_point b) {
    return std::chrono::duration<double>(b - a).count();
}

int main(int argc, char** argv) {
    if (argc < 2) {
        std::fprintf(stderr, "usage: kinetoscope-bench-capture TRACE [--spool FILE] [--repeat N]\n");
        return 2;
    }
    std::string spool;
    int repeat = 1;
    for (int i = 2; i + 1 < argc; ++i) {
        if (std::strcmp(argv[i], "--spool") == 0)
            spool = argv[++i];
        else if (std::strcmp(argv[i], "--repeat") == 0)
            repeat = std::max(1, std::atoi(argv[++i]));
    }

    const auto t0 = Clock::now();
    // The trace becomes the wire stream the viewer would hand the agent; the agent's replay source plays it.
    std::string wireStream, error;
    if (!live::replayStreamFor(argv[1], wireStream, error)) {
        std::fprintf(stderr, "%s\n", error.c_str());
        return 1;
    }
    auto source = capture::makeReplaySourceFromStream(std::move(wireStream), 0);
    if (!source->start(error)) {
        std::fprintf(stderr, "%s\n", error.c_str());
        return 1;
    }
    const auto t1 = Clock::now();

    live::CaptureSession session;
    if (!session.listen(error)) {
        std::fprintf(stderr, "%s\n", error.c_str());
        return 1;
    }
    capture::AgentWriter writer;
    if (!writer.open({session.socketPath(), spool}, error)) {
        std::fprintf(stderr, "%s\n", error.c_str());
        return 1;
    }
    // The agent's writer thread, as in the target: drain and ship until the replay is delivered.
    const auto cpuBefore = threadCpu();
    const auto t2 = Clock::now();
    while (!source->finished()) {
        source->drain(writer);
        writer.ship();
        if (!source->finished()) std::this_thread::sleep_for(std::chrono::microseconds(200));
    }
    writer.close(std::chrono::seconds(120));
    const auto sent = writer.stats();
    while (session.status().counts.bytes < sent.bytesSent)
        std::this_thread::sleep_for(std::chrono::microseconds(200));
    const auto t3 = Clock::now();
    const auto cpuAfter = threadCpu();
    session.stop();
    const live::SessionStatus st = session.status();

    // What the live view does on each refresh: copy the capture under the session's lock, build the store
    // from it.
    const live::CaptureRecords records = session.snapshot();
    if (std::getenv("KINETOSCOPE_TIMING"))
        std::fprintf(stderr, "snapshot %.0f ms\n", seconds(t3, Clock::now()) * 1000);
    LoadOptions timed;
    if (std::getenv("KINETOSCOPE_TIMING"))
        timed.phaseTiming = [](std::string_view phase, double ms) {
            std::fprintf(stderr, "timing: %-24.*s %7.0f ms\n", int(phase.size()), phase.data(), ms);
        };
    LoadResult store = records.buildStore(timed);
    const auto t4 = Clock::now();
    // --repeat N: the build again N-1 times from the same snapshot, for its best and median time on a noisy
    // machine.
    std::vector<double> builds{seconds(t3, t4)};
    for (int i = 1; i < repeat; ++i) {
        const auto a = Clock::now();
        store = records.buildStore();
        builds.push_back(seconds(a, Clock::now()));
    }
    std::sort(builds.begin(), builds.end());
    if (!store.ok()) {
        std::fprintf(stderr, "store: %s\n", store.error.c_str());
        return 1;
    }
    // What Save writes, and the store that file loads as (for comparison; not part of the pipeline).
    const std::string json = records.toTraceJson();
    const auto t5 = Clock::now();
    LoadResult saved = loadTraceText(json);
    const auto t6 = Clock::now();

    const double stream = seconds(t2, t3), build = seconds(t3, t4);
    const double delivered = double(st.counts.records);
    std::printf("trace: %s (read and scheduled in %.2f s)\n", argv[1], seconds(t0, t1));
    std::printf("records encoded %llu, received %llu (events %llu), dropped for the socket %llu, %.1f MB on "
                "the wire%s\n",
                static_cast<unsigned long long>(sent.recordsEncoded),
                static_cast<unsigned long long>(st.counts.records),
                static_cast<unsigned long long>(records.eventCount()),
                static_cast<unsigned long long>(sent.recordsDroppedForSocket), double(st.counts.bytes) / 1e6,
                spool.empty() ? "" : ", spooled too");
    std::printf("streaming (source -> writer -> socket -> session -> capture): %.3f s, %.2f M records/s\n",
                stream, delivered / stream / 1e6);
    std::printf("  CPU while streaming, by thread:");
    for (const auto& [tid, after] : cpuAfter) {
        const auto before = cpuBefore.find(tid);
        const double used = after - (before == cpuBefore.end() ? 0.0 : before->second);
        if (used >= 0.005) std::printf(" %s %.3f s", tid == ::getpid() ? "writer" : "other", used);
    }
    std::printf(" (of %.3f s)\n", stream);
    std::printf("store build (snapshot -> store, %zu slices, %zu flows): %.3f s, %.2f M records/s\n",
                store.store->sliceCount(), store.store->flows().size(), build, delivered / build / 1e6);
    std::printf("source to store: %.3f s, %.2f M records/s\n", stream + build,
                delivered / (stream + build) / 1e6);
    if (repeat > 1)
        std::printf(
            "store build over %d runs (the first included): best %.3f s (%.2f M records/s), median %.3f s\n",
            repeat, builds.front(), delivered / builds.front() / 1e6, builds[builds.size() / 2]);
    std::printf("for comparison, Save's JSON (%.0f MB) %.3f s, loading it %.3f s (%s)\n",
                double(json.size()) / 1e6, seconds(t4, t5), seconds(t5, t6),
                saved.ok() && saved.store->sliceCount() == store.store->sliceCount() ? "same slices"
                                                                                     : "DIFFERENT");
    return 0;
}
