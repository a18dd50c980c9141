// kinetoscope-cli: the store and the analyses without a GUI, for servers and CI.
#include "analysis/diff.h"
#include "analysis/summary.h"
#include "analysis/summaryformat.h"
#include "live/capturesession.h"
#include "open/opentrace.h"

#include <signal.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

using namespace kinetoscope;

namespace {

constexpr const char* usageText =
    "usage: kinetoscope-cli info TRACE\n"
    "       kinetoscope-cli summary TRACE [--by op|op+shape|kernel] [--sort FIELD] [--top N] [--json]\n"
    "       kinetoscope-cli diff A B [--top N] [--json]\n"
    "       kinetoscope-cli record -o OUT.json [--replay TRACE] [--speed X] [--spool FILE] [--agent LIB] "
    "[--cwd DIR]\n"
    "                              -- PROGRAM [ARGS...]\n"
    "       kinetoscope-cli --version\n";

int usage(const std::string& problem) {
    std::fprintf(stderr, "kinetoscope-cli: %s\n%s", problem.c_str(), usageText);
    return 2;
}

// KINETOSCOPE_TIMING=1: where a load's time goes, phase by phase, on stderr.
LoadOptions loadOptions() {
    LoadOptions options;
    if (std::getenv("KINETOSCOPE_TIMING"))
        options.phaseTiming = [](std::string_view phase, double ms) {
            std::fprintf(stderr, "timing: %-24.*s %7.0f ms\n", int(phase.size()), phase.data(), ms);
        };
    return options;
}

// Loads or prints the one-line error; exit code 1 on failure.
std::unique_ptr<TraceStore> load(const std::string& path, double& seconds) {
    LoadResult r = loadTrace(path, loadOptions());
    if (!r.ok()) {
        std::fprintf(stderr, "kinetoscope-cli: %s\n", r.message(path).c_str());
        return nullptr;
    }
    seconds = r.seconds;
    const ImportStats& st = r.store->stats;
    if (st.truncated)
        std::fprintf(
            stderr,
            "kinetoscope-cli: warning: %s: byte %llu: file is truncated; loaded the events before it\n",
            path.c_str(), static_cast<unsigned long long>(st.truncatedAt));
    if (st.malformedEvents)
        std::fprintf(stderr,
                     "kinetoscope-cli: warning: %s: %llu malformed events skipped (first at byte %llu)\n",
                     path.c_str(), static_cast<unsigned long long>(st.malformedEvents),
                     static_cast<unsigned long long>(st.issues.empty() ? 0 : st.issues.front().offset));
    return std::move(r.store);
}

int runInfo(const std::vector<std::string>& args) {
    if (args.size() != 1) return usage("info takes exactly one TRACE");
    double seconds = 0;
    auto store = load(args[0], seconds);
    if (!store) return 1;
    std::fputs(importReport(*store, seconds).c_str(), stdout);
    return 0;
}

// Compares two traces: A is the baseline, deltas are B - A.
int runDiff(const std::vector<std::string>& args) {
    std::vector<std::string> paths;
    std::size_t top = 20;
    bool json = false;
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string& a = args[i];
        if (a == "--json")
            json = true;
        else if (a == "--top") {
            char* end = nullptr;
            const long n = i + 1 < args.size() ? std::strtol(args[i + 1].c_str(), &end, 10) : -1;
            if (i + 1 >= args.size() || args[i + 1].empty() || *end || n <= 0)
                return usage("--top needs a positive number");
            top = std::size_t(n);
            ++i;
        } else if (!a.empty() && a[0] == '-') {
            return usage("unknown option " + a);
        } else {
            paths.push_back(a);
        }
    }
    if (paths.size() != 2) return usage("diff takes two traces, A (baseline) and B");
    double seconds = 0;
    auto a = load(paths[0], seconds);
    if (!a) return 1;
    auto b = load(paths[1], seconds);
    if (!b) return 1;
    const TraceDiff diff = diffTraces(*a, *b);
    std::fputs((json ? diffToJson(diff) : diffToText(diff, top)).c_str(), stdout);
    return 0;
}

int runSummary(const std::vector<std::string>& args) {
    std::string path, by = "both", sort;
    std::size_t top = 20;
    bool json = false;
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string& a = args[i];
        auto value = [&]() -> const std::string* { return i + 1 < args.size() ? &args[++i] : nullptr; };
        if (a == "--json")
            json = true;
        else if (a == "--by") {
            const std::string* v = value();
            if (!v || (*v != "op" && *v != "op+shape" && *v != "kernel"))
                return usage("--by needs op, op+shape or kernel");
            by = *v;
        } else if (a == "--sort") {
            const std::string* v = value();
            if (!v) return usage("--sort needs a FIELD");
            sort = *v;
        } else if (a == "--top") {
            const std::string* v = value();
            char* end = nullptr;
            const long n = v ? std::strtol(v->c_str(), &end, 10) : -1;
            if (!v || v->empty() || *end || n <= 0) return usage("--top needs a positive number");
            top = std::size_t(n);
        } else if (!a.empty() && a[0] == '-') {
            return usage("unknown option " + a);
        } else if (path.empty()) {
            path = a;
        } else {
            return usage("summary takes one TRACE");
        }
    }
    if (path.empty()) return usage("summary needs a TRACE");
    SummaryTextOptions options;
    options.top = top;
    options.sortField = sort;
    options.showOperators = by != "kernel";
    options.showKernels = by == "kernel" || by == "both";
    std::string sortError;
    if (!json && !sort.empty() && !summaryToText(Summary{}, options, sortError)) return usage(sortError);

    double seconds = 0;
    auto store = load(path, seconds);
    if (!store) return 1;
    // The one report the viewer's panels show too.
    const auto report = computeAnalysis(
        *store, std::nullopt, by == "op+shape" ? OperatorGrouping::NameAndShape : OperatorGrouping::Name,
        KernelGrouping::Name);
    if (json) {
        std::fputs(summaryToJson(report->summary, report.get()).c_str(), stdout);
        return 0;
    }
    const auto text = summaryToText(report->summary, options, sortError);
    if (!text) return usage(sortError);
    std::fputs(reportToText(*store, *report).c_str(), stdout);
    std::fputs("\n", stdout);
    std::fputs(text->c_str(), stdout);
    return 0;
}

volatile sig_atomic_t g_interrupted = 0;

// Runs PROGRAM with the capture agent injected and saves what it captured as a Kineto trace. Ctrl+C ends the
// capture (the target, in the same terminal, gets it too) and still saves everything received.
int runRecord(const std::vector<std::string>& args) {
    live::LaunchSpec spec;
    std::string out;
    bool keepSpool = false;
    std::size_t i = 0;
    for (; i < args.size(); ++i) {
        const std::string& a = args[i];
        auto value = [&]() -> const std::string* { return i + 1 < args.size() ? &args[++i] : nullptr; };
        if (a == "--") {
            ++i;
            break;
        }
        const std::string* v = nullptr;
        if (a == "-o" || a == "--output") {
            if (!(v = value())) return usage("-o needs a FILE");
            out = *v;
        } else if (a == "--replay") {
            if (!(v = value())) return usage("--replay needs a TRACE");
            spec.replayTrace = *v;
        } else if (a == "--speed") {
            char* end = nullptr;
            if (!(v = value()) || (spec.replaySpeed = std::strtod(v->c_str(), &end), *end) ||
                spec.replaySpeed < 0)
                return usage("--speed needs a number >= 0 (0: as fast as possible)");
        } else if (a == "--spool") {
            if (!(v = value())) return usage("--spool needs a FILE");
            spec.spoolPath = *v;
            keepSpool = true;
        } else if (a == "--agent") {
            if (!(v = value())) return usage("--agent needs a LIBRARY");
            spec.agentPath = *v;
        } else if (a == "--cwd") {
            if (!(v = value())) return usage("--cwd needs a DIR");
            spec.workingDirectory = *v;
        } else if (!a.empty() && a[0] == '-') {
            return usage("unknown option " + a);
        } else {
            break;
        }
    }
    if (out.empty()) return usage("record needs -o OUT.json");
    if (i >= args.size()) return usage("record needs a PROGRAM to run (after --)");
    spec.program = args[i];
    spec.arguments.assign(args.begin() + std::ptrdiff_t(i) + 1, args.end());

    struct sigaction action {};
    action.sa_handler = [](int) { g_interrupted = 1; };
    sigaction(SIGINT, &action, nullptr);
    sigaction(SIGTERM, &action, nullptr);

    live::CaptureSession session;
    std::string error;
    if (!session.start(spec, error)) {
        std::fprintf(stderr, "kinetoscope-cli: record: %s\n", error.c_str());
        return 1;
    }
    const bool progress = ::isatty(STDERR_FILENO);
    while (!session.waitFinished(1000)) {
        if (g_interrupted) {
            // Give the agent its final flush (the target got the signal too), then stop listening.
            session.waitFinished(5000);
            break;
        }
        if (progress) {
            const live::SessionStatus st = session.status();
            std::fprintf(stderr, "\rkinetoscope-cli: %llu records, %llu dropped, %.1f MB",
                         static_cast<unsigned long long>(st.counts.records),
                         static_cast<unsigned long long>(st.counts.dropped), double(st.counts.bytes) / 1e6);
        }
    }
    session.stop();
    const live::SessionStatus st = session.status();
    if (progress) std::fputc('\n', stderr);
    live::CaptureRecords records = session.snapshot();
    const std::string json = records.toTraceJson();
    const std::string tmp = out + ".part";
    FILE* f = std::fopen(tmp.c_str(), "wb");
    if (!f || std::fwrite(json.data(), 1, json.size(), f) != json.size() || std::fclose(f) != 0 ||
        std::rename(tmp.c_str(), out.c_str()) != 0) {
        std::fprintf(stderr, "kinetoscope-cli: %s: %s; the capture is still in the spool %s\n", out.c_str(),
                     std::strerror(errno), session.spoolPath().c_str());
        return 1;
    }
    if (!keepSpool) {
        // Everything is in OUT now; the spool (and any per-process spools of children) served its purpose.
        ::unlink(session.spoolPath().c_str());
    }
    if (!st.streamError.empty())
        std::fprintf(stderr,
                     "kinetoscope-cli: warning: capture stream cut short: %s; saved everything before it\n",
                     st.streamError.c_str());
    if (st.counts.rejected)
        std::fprintf(stderr, "kinetoscope-cli: warning: %llu record(s) with impossible times skipped\n",
                     static_cast<unsigned long long>(st.counts.rejected));
    if (st.connections == 0)
        std::fprintf(stderr, "kinetoscope-cli: warning: the agent never connected (is %s a CUDA program?)\n",
                     spec.program.c_str());
    std::fprintf(
        stderr,
        "kinetoscope-cli: %llu kernels, %llu memcpy, %llu memset, %llu API calls, %llu dropped -> %s\n",
        static_cast<unsigned long long>(st.counts.kernels),
        static_cast<unsigned long long>(st.counts.memcpys),
        static_cast<unsigned long long>(st.counts.memsets), static_cast<unsigned long long>(st.counts.apis),
        static_cast<unsigned long long>(st.counts.dropped), out.c_str());
    if (st.targetExited && st.exitStatus != 0)
        std::fprintf(stderr, "kinetoscope-cli: warning: %s exited with status %d\n", spec.program.c_str(),
                     st.exitStatus);
    return 0;
}

} // namespace

int main(int argc, char** argv) {
    std::vector<std::string> args(argv + 1, argv + argc);
    if (args.empty()) return usage("no command given");
    const std::string command = args[0];
    args.erase(args.begin());
    if (command == "--version") {
        std::printf("kinetoscope-cli %s\n", KINETOSCOPE_VERSION);
        return 0;
    }
    if (command == "-h" || command == "--help" || command == "help") {
        std::fputs(usageText, stdout);
        return 0;
    }
    if (command == "info") return runInfo(args);
    if (command == "summary") return runSummary(args);
    if (command == "diff") return runDiff(args);
    if (command == "record") return runRecord(args);
    return usage("unknown command '" + command + "'");
}
