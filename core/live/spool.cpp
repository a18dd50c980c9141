// Wire streams read back whole: spool files and raw captures, recovered into a store (what `open` routes them
// to).
#include "livecapture.h"
#include "wireingest.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace kinetoscope::live {

bool isWireStream(std::string_view head) {
    return head.size() >= sizeof wire::magic &&
           std::memcmp(head.data(), wire::magic, sizeof wire::magic) == 0;
}

namespace {
struct WireLoad {
    CaptureRecords capture;
    std::uint64_t firstRejectedAt = 0;
    bool truncated = false;
    std::string error;
    std::uint64_t errorOffset = 0;
};

WireLoad decodeAll(std::string_view bytes) {
    WireLoad w;
    WireIngest ingest(w.capture);
    // Fed in pieces, as a socket would deliver it.
    constexpr std::size_t piece = 1 << 20;
    bool ok = true;
    for (std::size_t at = 0; ok && at < bytes.size(); at += piece)
        ok = ingest.feed(bytes.substr(at, piece));
    if (ok) ok = ingest.finish();
    w.firstRejectedAt = ingest.firstRejectedOffset().value_or(0);
    if (!ok) {
        w.truncated = true;
        w.error = ingest.error();
        w.errorOffset = ingest.errorOffset();
    }
    return w;
}
} // namespace

LoadResult loadWireStream(std::string_view bytes, const LoadOptions& options, const ImportStats* read) {
    WireLoad w = decodeAll(bytes);
    // A stream with no whole record at all is not a capture: say why, as for any unreadable file.
    if (w.truncated && w.capture.counts().records == 0) {
        LoadResult r;
        r.error = "not a readable capture stream: " + w.error;
        r.errorOffset = w.errorOffset;
        r.errorHasOffset = true;
        return r;
    }
    return w.capture.buildStore(options, [&](ImportStats& stats) {
        stats.fileBytes = stats.jsonBytes = bytes.size();
        stats.wireStream = true;
        if (read) {
            stats.fileBytes = read->fileBytes;
            stats.gzip = read->gzip;
        }
        if (const std::uint64_t rejected = w.capture.counts().rejected) {
            stats.malformedEvents += rejected;
            stats.issues.insert(
                stats.issues.begin(),
                {w.firstRejectedAt,
                 std::to_string(rejected) + " record(s) with impossible times skipped (the first here)"});
            if (stats.issues.size() > ImportStats::maxReportedIssues) stats.issues.pop_back();
        }
        if (w.truncated) {
            // A crashed target or viewer: every whole record before the cut is loaded.
            stats.truncated = true;
            stats.truncatedAt = w.errorOffset;
            stats.issues.insert(stats.issues.begin(), {w.errorOffset, "capture stream: " + w.error});
            if (stats.issues.size() > ImportStats::maxReportedIssues) stats.issues.pop_back();
        }
        if (read) // a gzip file cut short: said after what the stream itself reported
            for (const ImportIssue& issue : read->issues)
                stats.addIssue(issue.offset, issue.reason);
    });
}

SpoolRead readSpool(const std::string& path) {
    SpoolRead out;
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        out.error = std::strerror(errno);
        return out;
    }
    std::string bytes;
    char buffer[1 << 16];
    for (;;) {
        const ssize_t n = ::read(fd, buffer, sizeof buffer);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        bytes.append(buffer, std::size_t(n));
    }
    ::close(fd);
    WireLoad w = decodeAll(bytes);
    out.capture = std::move(w.capture);
    out.ok = true;
    out.truncated = w.truncated;
    out.error = w.error;
    out.errorOffset = w.errorOffset;
    return out;
}

} // namespace kinetoscope::live
