// Wire streams read back whole: spool files and raw captures, recovered into a store (what `open` routes them
// to).
#include "livecapture.h"
#include "wireingest.h"

#include <cerrno>
#include <chrono>
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

LoadResult loadWireStream(std::string_view bytes, const LoadOptions& options, const TraceText* file) {
    WireLoad w = decodeAll(bytes);
    const bool gzipCutShort = file && file->stats.gzipCutShort;
    // A stream with no whole record at all is not a capture: say why, as for any unreadable file.
    if (w.truncated && w.capture.counts().records == 0) {
        LoadResult r;
        r.error = "not a readable capture stream: " + w.error +
                  (gzipCutShort ? " (its gzip stream is cut short)" : "");
        r.errorOffset = w.errorOffset;
        r.errorHasOffset = true;
        return r;
    }
    LoadResult result = w.capture.buildStore(options, [&](ImportStats& stats) {
        stats.fileBytes = stats.jsonBytes = bytes.size();
        stats.wireStream = true;
        if (file) {
            stats.fileBytes = file->stats.fileBytes;
            stats.gzip = file->stats.gzip;
            stats.gzipCutShort = gzipCutShort;
        }
        if (const std::uint64_t rejected = w.capture.counts().rejected) {
            stats.malformedEvents += rejected;
            stats.issues.push_back(
                {w.firstRejectedAt,
                 std::to_string(rejected) + " record(s) with impossible times skipped (the first here)"});
        }
        if (w.truncated) {
            // A crashed target or viewer: every whole record before the cut is loaded.
            stats.truncated = true;
            stats.truncatedAt = w.errorOffset;
            stats.issues.push_back({w.errorOffset, "capture stream: " + w.error});
        }
        if (gzipCutShort) {
            // The capture ends where the inflated bytes end, even when that falls between two records; the
            // reader's issue (filed at that end) names the compressed byte.
            if (!stats.truncated) {
                stats.truncated = true;
                stats.truncatedAt = bytes.size();
            }
            stats.issues.insert(stats.issues.end(), file->stats.issues.begin(), file->stats.issues.end());
        }
        stats.keepFirstIssues(); // by offset in the stream, as the JSON importer reports them
    });
    if (file && result.ok()) // from the file's first byte read, as for a JSON trace
        result.seconds =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - file->started).count();
    return result;
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
