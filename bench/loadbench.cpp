// kinetoscope-bench-load TRACE.json [TRACE.json.gz]
// Runs, each in a child process of its own (so that peak RSS is per run): the ceiling program, the
// Kinetoscope loader on the plain file, and on the gzip file when given. Prints MB/s, the ratio to the
// ceiling, peak RSS and the store's bytes per event. Figures, not assertions: see bench/RESULTS.md.
#include "open/opentrace.h"

#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace kinetoscope;

namespace {

struct Run {
    double seconds = 0;
    long peakRssKb = 0;
    double bytesPerEvent = 0;
    unsigned long long events = 0;
    bool ok = false;
};

// Runs `fn` in a forked child; it writes "seconds events bytesPerEvent" to a pipe.
template <typename Fn> Run inChild(Fn fn) {
    int fds[2];
    if (pipe(fds) != 0) return {};
    const pid_t pid = fork();
    if (pid == 0) {
        close(fds[0]);
        char line[256];
        const int n = fn(line, sizeof line);
        if (write(fds[1], line, n) != n) _exit(1);
        _exit(0);
    }
    close(fds[1]);
    char buf[256] = {};
    const ssize_t got = read(fds[0], buf, sizeof buf - 1);
    close(fds[0]);
    int status = 0;
    struct rusage usage {};
    wait4(pid, &status, 0, &usage);
    Run r;
    if (got > 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0 &&
        std::sscanf(buf, "%lf %llu %lf", &r.seconds, &r.events, &r.bytesPerEvent) == 3)
        r.ok = true;
    r.peakRssKb = usage.ru_maxrss;
    return r;
}

Run runLoader(const std::string& path) {
    return inChild([&](char* line, std::size_t size) {
        const auto t0 = std::chrono::steady_clock::now();
        LoadResult r = loadTrace(path);
        const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        if (!r.ok()) {
            std::fprintf(stderr, "%s\n", r.message(path).c_str());
            return 0;
        }
        const double perEvent =
            double(r.store->bytesHeld()) / double(std::max<std::uint64_t>(1, r.store->stats().eventsSeen));
        return std::snprintf(line, size, "%.6f %llu %.2f", s,
                             static_cast<unsigned long long>(r.store->stats().eventsSeen), perEvent);
    });
}

Run runCeiling(const std::string& exe, const std::string& path) {
    return inChild([&](char* line, std::size_t size) {
        const std::string cmd = "'" + exe + "' '" + path + "'";
        FILE* p = popen(cmd.c_str(), "r");
        if (!p) return 0;
        char out[256] = {};
        const bool read = std::fgets(out, sizeof out, p) != nullptr;
        pclose(p);
        double s;
        unsigned long long events;
        if (!read || std::sscanf(out, "ceiling_seconds=%lf events=%llu", &s, &events) != 2) return 0;
        return std::snprintf(line, size, "%.6f %llu 0", s, events);
    });
}

double fileMb(const std::string& path) {
    struct stat st {};
    return stat(path.c_str(), &st) == 0 ? double(st.st_size) / 1e6 : 0;
}

} // namespace

int main(int argc, char** argv) {
    if (argc < 2 || argc > 3) {
        std::fprintf(stderr, "usage: kinetoscope-bench-load TRACE.json [TRACE.json.gz]\n");
        return 2;
    }
    const std::string plain = argv[1];
    std::string self = argv[0];
    const std::string ceilingExe = self.substr(0, self.rfind('/') + 1) + "kinetoscope-bench-ceiling";
    const double mb = fileMb(plain);
    // Warm the page cache so that every run reads from memory, not disk.
    (void)runCeiling(ceilingExe, plain);

    const Run ceiling = runCeiling(ceilingExe, plain);
    const Run ours = runLoader(plain);
    std::printf("file=%s size_mb=%.1f events=%llu\n", plain.c_str(), mb, ours.events);
    std::printf("ceiling: %.3f s  %.0f MB/s  peak_rss=%.0f MB (%.2fx file)\n", ceiling.seconds,
                mb / ceiling.seconds, ceiling.peakRssKb / 1024.0, ceiling.peakRssKb / 1024.0 * 1.048576 / mb);
    std::printf(
        "plain:   %.3f s  %.0f MB/s  peak_rss=%.0f MB  budget(file+64B/event)=%.0f MB  store=%.1f B/event\n",
        ours.seconds, mb / ours.seconds, ours.peakRssKb / 1024.0,
        (mb * 1e6 + 64.0 * double(ours.events)) / 1048576.0, ours.bytesPerEvent);
    std::printf("ratio_to_ceiling=%.2f (>= 1.0 is the goal)\n", ceiling.seconds / ours.seconds);
    if (argc == 3) {
        const Run gz = runLoader(argv[2]);
        std::printf(
            "gzip:    %.3f s  %.0f MB/s of JSON  peak_rss=%.0f MB  gzip/plain=%.2f (<= 1.5 is the goal)\n",
            gz.seconds, mb / gz.seconds, gz.peakRssKb / 1024.0, gz.seconds / ours.seconds);
    }
    return ours.ok && ceiling.ok ? 0 : 1;
}
