// Shared by the live-capture tests (tst_capture, tst_capturefaults): the GPU work a store shows,
// `kinetoscope-cli record` run to its end, a socket standing in for the viewer's, a kernel record.
#pragma once

#include "model/argscan.h"
#include "testsupport.h"
#include "wire/wire.h"

#include <QProcess>
#include <QStringList>

#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <climits>
#include <cstring>
#include <string>
#include <tuple>
#include <vector>

namespace kinetoscope::test {

inline const char* const agentLibrary = KINETOSCOPE_AGENT_LIB;
inline const char* const fakeCuda = KINETOSCOPE_FAKE_CUDA;

// A kernel as the user sees it: name, start relative to the first kernel, duration, stream.
using KernelKey = std::tuple<std::string, TimeNs, TimeNs, std::int64_t>;
// A launch -> kernel link: launch name and start, kernel name and start (starts relative to the first
// kernel).
using LinkKey = std::tuple<std::string, TimeNs, std::string, TimeNs>;

struct GpuView {
    std::vector<KernelKey> kernels;
    std::vector<LinkKey> links;
    std::size_t memcpys = 0, memsets = 0;
};

inline std::int64_t streamOf(const TraceStore& s, EventRef ref) {
    if (const auto stream = argNumber(s.argsText(ref), "stream")) return std::int64_t(*stream);
    return s.track(ref.track).tid;
}

inline GpuView gpuView(const TraceStore& s) {
    GpuView v;
    TimeNs first = INT64_MAX;
    std::vector<EventRef> kernels;
    for (std::uint32_t t = 0; t < s.tracks().size(); ++t)
        for (std::uint32_t r = 0; r < s.tracks()[t].sliceCount(); ++r) {
            const EventRef ref{TrackId(t), EventIndex(r)};
            switch (s.categoryOf(ref).kind) {
            case CategoryKind::Kernel:
                kernels.push_back(ref);
                first = std::min(first, s.tracks()[t].starts[r]);
                break;
            case CategoryKind::Memcpy:
                ++v.memcpys;
                break;
            case CategoryKind::Memset:
                ++v.memsets;
                break;
            default:
                break;
            }
        }
    for (const EventRef k : kernels) {
        const Track& track = s.track(k.track);
        v.kernels.emplace_back(std::string(s.nameOf(k)), track.starts[k.index.value] - first,
                               track.durations[k.index.value], streamOf(s, k));
        if (auto launch = s.launchOf(k))
            v.links.emplace_back(std::string(s.nameOf(*launch)),
                                 s.track(launch->track).starts[launch->index.value] - first,
                                 std::string(s.nameOf(k)), track.starts[k.index.value] - first);
    }
    std::sort(v.kernels.begin(), v.kernels.end());
    std::sort(v.links.begin(), v.links.end());
    return v;
}

// Runs `kinetoscope-cli record` to completion.
inline bool record(const QStringList& arguments, QString& output, int timeoutMs = 120000) {
    QProcess p;
    p.setProcessChannelMode(QProcess::MergedChannels);
    p.start(QStringLiteral(KINETOSCOPE_CLI), QStringList{"record"} + arguments);
    if (!p.waitForFinished(timeoutMs)) {
        p.kill();
        output = "timed out: " + QString::fromUtf8(p.readAll());
        return false;
    }
    output = QString::fromUtf8(p.readAll());
    return p.exitStatus() == QProcess::NormalExit && p.exitCode() == 0;
}

inline std::string readAll(int fd) {
    std::string out;
    char b[65536];
    for (;;) {
        const ssize_t n = ::read(fd, b, sizeof b);
        if (n <= 0) break;
        out.append(b, std::size_t(n));
    }
    return out;
}

// A listening Unix socket at `path`, standing in for the viewer's.
inline int listenAt(const std::string& path) {
    const int listener = ::socket(AF_UNIX, SOCK_STREAM, 0);
    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    std::strcpy(address.sun_path, path.c_str());
    if (::bind(listener, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 ||
        ::listen(listener, 1) != 0) {
        ::close(listener);
        return -1;
    }
    return listener;
}

inline wire::Kernel kernel(std::uint32_t name, std::int64_t start) {
    wire::Kernel k;
    k.name = name;
    k.start = start;
    k.end = start + 1000;
    k.correlation = std::uint64_t(start);
    return k;
}

} // namespace kinetoscope::test
