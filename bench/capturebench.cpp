// kinetoscope-bench-capture TRACE [--spool FILE]: throughput of the live-capture pipeline, source to store.
// The replay source plays TRACE as fast as it can (speed 0) into the agent's writer, which encodes and sends over the
// viewer's Unix socket (and spools, with --spool); the capture session decodes every record into the capture; then
// the store is built from it as the viewer does. Everything but reading TRACE is timed. Prints records/s for the
// streaming part (what bounds a real workload) and with the store build included.
#include "agentwriter.h"
#include "live/capturesession.h"
#include "replaysource.h"

#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <thread>

using namespace kinetoscope;
using Clock = std::chrono::steady_clock;

static double seconds(Clock::time_point a, Clock::time_point b) { return std::chrono::duration<double>(b - a).count(); }

int main(int argc, char** argv) {
    if (argc < 2) {
        std::fprintf(stderr, "usage: kinetoscope-bench-capture TRACE [--spool FILE]\n");
        return 2;
    }
    std::string spool;
    for (int i = 2; i + 1 < argc; ++i)
        if (std::strcmp(argv[i], "--spool") == 0) spool = argv[++i];

    const auto t0 = Clock::now();
    auto source = capture::makeReplaySource(argv[1], 0);
    std::string error;
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
    const auto t2 = Clock::now();
    while (!source->finished()) {
        source->drain(writer);
        writer.ship();
        if (!source->finished()) std::this_thread::sleep_for(std::chrono::microseconds(200));
    }
    writer.close(std::chrono::seconds(120));
    const auto sent = writer.stats();
    while (session.status().counts.bytes < sent.bytesSent) std::this_thread::sleep_for(std::chrono::microseconds(200));
    const auto t3 = Clock::now();
    session.stop();
    const live::SessionStatus st = session.status();

    const live::CaptureRecords records = session.snapshot();
    const std::string json = records.toTraceJson();
    const auto t4 = Clock::now();
    LoadResult store = loadTraceText(json);
    const auto t5 = Clock::now();
    if (!store.ok()) {
        std::fprintf(stderr, "store: %s\n", store.error.c_str());
        return 1;
    }

    const double stream = seconds(t2, t3), build = seconds(t3, t5);
    const double delivered = double(st.counts.records);
    std::printf("trace: %s (read and scheduled in %.2f s)\n", argv[1], seconds(t0, t1));
    std::printf("records encoded %llu, received %llu (events %llu), dropped for the socket %llu, %.1f MB on the wire%s\n",
                static_cast<unsigned long long>(sent.recordsEncoded), static_cast<unsigned long long>(st.counts.records),
                static_cast<unsigned long long>(records.eventCount()),
                static_cast<unsigned long long>(sent.recordsDroppedForSocket), double(st.counts.bytes) / 1e6,
                spool.empty() ? "" : ", spooled too");
    std::printf("streaming (source -> writer -> socket -> session -> capture): %.3f s, %.2f M records/s\n", stream,
                delivered / stream / 1e6);
    std::printf("store build (capture -> Kineto JSON %.0f MB -> store, %zu slices): %.3f s (JSON %.3f s, load %.3f s)\n",
                double(json.size()) / 1e6, store.store->sliceCount(), build, seconds(t3, t4), seconds(t4, t5));
    std::printf("source to store: %.2f M records/s\n", delivered / (stream + build) / 1e6);
    return 0;
}
