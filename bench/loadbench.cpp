// kinetoscope-bench-load TRACE.json [TRACE.json.gz]
// Runs, each in a child process of its own (so that peak RSS is per run): the ceiling program (simdjson's
// parse alone on one core, bench/ceiling.cpp), the Kinetoscope loader on the plain file on one core and on
// every core, and on the gzip file when given. Prints each run's wall, user and system time, its parse and
// build phases, MB/s, the ratio to the ceiling, peak RSS and the store's bytes per event. Figures, not
// assertions: see bench/RESULTS.md.
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
    double userSeconds = 0, systemSeconds = 0; // the whole child process
    double parseMs = 0, buildMs = 0;           // the loader's phases
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
        std::sscanf(buf, "%lf %llu %lf %lf %lf", &r.seconds, &r.events, &r.bytesPerEvent, &r.parseMs,
                    &r.buildMs) >= 3)
        r.ok = true;
    r.peakRssKb = usage.ru_maxrss;
    r.userSeconds = double(usage.ru_utime.tv_sec) + double(usage.ru_utime.tv_usec) / 1e6;
    r.systemSeconds = double(usage.ru_stime.tv_sec) + double(usage.ru_stime.tv_usec) / 1e6;
    return r;
}

// threads 0: one per core.
Run runLoader(const std::string& path, unsigned threads = 0) {
    return inChild([&](char* line, std::size_t size) {
        double parseMs = 0, buildMs = 0;
        LoadOptions options;
        options.threads = threads;
        options.phaseTiming = [&](std::string_view phase, double ms) {
            if (phase == "read+parse") parseMs += ms;
            if (phase == "build") buildMs += ms;
        };
        const auto t0 = std::chrono::steady_clock::now();
        LoadResult r = loadTrace(path, options);
        const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        if (!r.ok()) {
            std::fprintf(stderr, "%s\n", r.message(path).c_str());
            return 0;
        }
        const double perEvent =
            double(r.store->bytesHeld()) / double(std::max<std::uint64_t>(1, r.store->stats().eventsSeen));
        return std::snprintf(line, size, "%.6f %llu %.2f %.1f %.1f", s,
                             static_cast<unsigned long long>(r.store->stats().eventsSeen), perEvent, parseMs,
                             buildMs);
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
        double s, user, system;
        unsigned long long events;
        if (!read || std::sscanf(out, "ceiling_seconds=%lf user_s=%lf sys_s=%lf events=%llu", &s, &user,
                                 &system, &events) != 4)
            return 0;
        // The parse's own user and system time, in the two phase fields.
        return std::snprintf(line, size, "%.6f %llu 0 %.1f %.1f", s, events, user * 1000, system * 1000);
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
    const Run oneCore = runLoader(plain, 1);
    const Run ours = runLoader(plain);
    std::printf("file=%s size_mb=%.1f events=%llu\n", plain.c_str(), mb, ours.events);
    std::printf(
        "ceiling (simdjson's parse alone, one core, the file in memory): %.3f s  %.0f MB/s  user %.3f s  "
        "system %.3f s\n",
        ceiling.seconds, mb / ceiling.seconds, ceiling.parseMs / 1000, ceiling.buildMs / 1000);
    const auto print = [&](const char* label, const Run& r) {
        std::printf(
            "%s %.3f s  %.0f MB/s  user %.2f s  system %.2f s (the process)  parse %.0f ms  build %.0f ms  "
            "peak_rss=%.0f MB  store=%.1f B/event  %.2fx the ceiling\n",
            label, r.seconds, mb / r.seconds, r.userSeconds, r.systemSeconds, r.parseMs, r.buildMs,
            r.peakRssKb / 1024.0, r.bytesPerEvent, r.seconds / ceiling.seconds);
    };
    print("load, one core: ", oneCore);
    print("load, all cores:", ours);
    std::printf("budget(file+64B/event)=%.0f MB; the goal: the load on all cores <= 1.0x the ceiling\n",
                (mb * 1e6 + 64.0 * double(ours.events)) / 1048576.0);
    if (argc == 3) {
        const Run gz = runLoader(argv[2]);
        std::printf(
            "gzip:    %.3f s  %.0f MB/s of JSON  peak_rss=%.0f MB  gzip/plain=%.2f (<= 1.5 is the goal)\n",
            gz.seconds, mb / gz.seconds, gz.peakRssKb / 1024.0, gz.seconds / ours.seconds);
    }
    return ours.ok && ceiling.ok ? 0 : 1;
}
