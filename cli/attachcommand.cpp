#include "attachcommand.h"

#include "live/ondemand.h"
#include "model/jsonwriter.h"

#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

namespace kinetoscope::cli {

namespace {

using Clock = std::chrono::steady_clock;

// Kineto's warm-up before a time-based trace starts, and room to write the file.
constexpr auto warmUp = std::chrono::seconds(10);
constexpr auto writing = std::chrono::seconds(60);
// An iteration-based trace waits for steps nobody can predict: this long each.
constexpr auto perIteration = std::chrono::seconds(30);

std::string readFile(const std::string& path) {
    std::ifstream f(path, std::ios::binary);
    std::stringstream s;
    s << f.rdbuf();
    return s.str();
}

std::string commandLineOf(pid_t pid) {
    std::string text = readFile("/proc/" + std::to_string(pid) + "/cmdline");
    std::replace(text.begin(), text.end(), '\0', ' ');
    while (!text.empty() && text.back() == ' ')
        text.pop_back();
    return text;
}

// RANK, LOCAL_RANK, WORLD_SIZE, CUDA_VISIBLE_DEVICES where the environment is readable (the same user).
std::map<std::string, std::string> environmentOf(pid_t pid) {
    std::map<std::string, std::string> out;
    const std::string env = readFile("/proc/" + std::to_string(pid) + "/environ");
    std::size_t at = 0;
    while (at < env.size()) {
        const std::size_t end = env.find('\0', at);
        const std::string entry = env.substr(at, end == std::string::npos ? std::string::npos : end - at);
        const std::size_t eq = entry.find('=');
        if (eq != std::string::npos) {
            const std::string key = entry.substr(0, eq);
            if (key == "RANK" || key == "LOCAL_RANK" || key == "WORLD_SIZE" || key == "CUDA_VISIBLE_DEVICES")
                out[key] = entry.substr(eq + 1);
        }
        if (end == std::string::npos) break;
        at = end + 1;
    }
    return out;
}

bool alive(pid_t pid) {
    if (::kill(pid, 0) != 0 && errno != EPERM) return false;
    // A zombie has ended: its state in /proc/PID/stat is Z.
    const std::string stat = readFile("/proc/" + std::to_string(pid) + "/stat");
    const std::size_t paren = stat.rfind(')');
    return paren == std::string::npos || paren + 2 >= stat.size() || stat[paren + 2] != 'Z';
}

// A trace Kineto has finished writing: a regular file (not a link) of the target's user, its last byte a
// closing brace, and no growth for half a second.
struct Watch {
    std::uintmax_t size = 0;
    Clock::time_point since;
};
bool complete(const std::string& path, uid_t owner, Watch& w, std::string& refused) {
    struct stat st {};
    if (::lstat(path.c_str(), &st) != 0) return false;
    if (!S_ISREG(st.st_mode) || st.st_uid != owner) {
        refused = path + ": not a regular file of the target's user: refused";
        return false;
    }
    if (std::uintmax_t(st.st_size) != w.size || w.since == Clock::time_point{}) {
        w.size = std::uintmax_t(st.st_size);
        w.since = Clock::now();
        return false;
    }
    if (Clock::now() - w.since < std::chrono::milliseconds(500) || w.size == 0) return false;
    std::ifstream f(path, std::ios::binary);
    f.seekg(-std::min<std::streamoff>(64, std::streamoff(w.size)), std::ios::end);
    std::string tail(64, '\0');
    f.read(tail.data(), 64);
    tail.resize(std::size_t(f.gcount()));
    while (!tail.empty() && std::isspace(static_cast<unsigned char>(tail.back())))
        tail.pop_back();
    return !tail.empty() && tail.back() == '}';
}

int listProcesses(live::OnDemandDaemon& daemon, const AttachArgs& a) {
    daemon.pump(int(a.waitSeconds * 1000));
    const auto now = Clock::now();
    if (a.json) {
        std::string text;
        JsonWriter<std::string> w(text);
        w.beginArray(JsonLayout{"\n  ", ",\n  ", "\n"});
        for (const auto& [pid, p] : daemon.processes()) {
            w.beginObject();
            w.numField("pid", std::int64_t(pid));
            w.strField("command", commandLineOf(pid));
            w.numField("job_id", p.jobId);
            w.strField("state", p.idle ? "idle" : "busy");
            w.fixedField("seconds_since_poll", std::chrono::duration<double>(now - p.lastPoll).count(), 1);
            for (const auto& [key, v] : environmentOf(pid)) {
                std::string lower = key;
                std::transform(lower.begin(), lower.end(), lower.begin(),
                               [](unsigned char c) { return char(std::tolower(c)); });
                w.strField(lower, v);
            }
            w.endObject();
        }
        w.endArray();
        std::printf("%s\n", text.c_str());
        return 0;
    }
    if (daemon.processes().empty()) {
        std::printf("No process polled within %.0f s. Start the job with KINETO_USE_DAEMON=1 (PyTorch 2.0 or "
                    "later), on this host and network namespace (or with the same KINETO_IPC_SOCKET_DIR).\n",
                    a.waitSeconds);
        return 0;
    }
    std::printf("%-8s %-6s %-8s %-10s %s\n", "PID", "STATE", "JOB", "RANK", "COMMAND");
    for (const auto& [pid, p] : daemon.processes()) {
        const auto env = environmentOf(pid);
        const auto rank = env.find("RANK");
        std::printf("%-8d %-6s %-8lld %-10s %s\n", int(pid), p.idle ? "idle" : "busy",
                    static_cast<long long>(p.jobId), rank == env.end() ? "-" : rank->second.c_str(),
                    commandLineOf(pid).c_str());
    }
    return 0;
}

} // namespace

CLI::App* addAttachCommand(CLI::App& app, AttachArgs& a) {
    CLI::App* c = app.add_subcommand(
        "attach",
        "Trace running PyTorch processes (started with KINETO_USE_DAEMON=1) with their own profiler");
    c->add_option("pids", a.pids, "the processes to trace")->type_name("PID");
    c->add_flag("--all", a.all, "every process that polls (of --job-id, when given)");
    c->add_flag("--list", a.list, "list the processes that poll, and trace nothing");
    c->add_flag("--json", a.json, "the list as JSON");
    c->add_option("--wait", a.waitSeconds, "seconds to wait for the processes' polls (default 6)")
        ->check(CLI::PositiveNumber);
    c->add_option("--job-id", a.jobId, "with --all: only this job's processes (SLURM_JOB_ID)");
    auto* duration = c->add_option("--duration-ms", a.durationMs, "trace this long (after Kineto's warm-up)")
                         ->check(CLI::PositiveNumber);
    c->add_option("--iterations", a.iterations,
                  "trace this many optimizer steps (needs torch.optim; otherwise use --duration-ms)")
        ->check(CLI::PositiveNumber)
        ->excludes(duration);
    c->add_flag("--shapes", a.shapes, "record input shapes");
    c->add_flag("--stack", a.stack, "record Python stacks");
    c->add_flag("--memory", a.memory, "record memory events");
    c->add_flag("--modules", a.modules, "record the module hierarchy");
    c->add_option("-o,--output", a.out, "the folder the traces go to (default: here)")->type_name("DIR");
    c->footer(
        "Each trace is written by the target's own Kineto: it polls every 5 s, waits its warm-up, records, "
        "then writes. The paths print one a line as they complete.");
    return c;
}

int runAttach(const AttachArgs& a) {
    live::OnDemandDaemon daemon;
    std::string error;
    if (!daemon.bind(error)) {
        std::fprintf(stderr, "kinetoscope-cli: attach: %s\n", error.c_str());
        return 1;
    }
    if (a.list) return listProcesses(daemon, a);
    std::vector<pid_t> targets(a.pids.begin(), a.pids.end());
    if (a.all) {
        daemon.pump(int(a.waitSeconds * 1000));
        for (const auto& [pid, p] : daemon.processes())
            if (a.jobId < 0 || p.jobId == a.jobId) targets.push_back(pid);
        if (targets.empty()) {
            std::fprintf(stderr, "kinetoscope-cli: attach: no process polled within %.0f s\n", a.waitSeconds);
            return 1;
        }
    }
    if (targets.empty()) {
        std::fprintf(stderr, "kinetoscope-cli: attach: name the processes (PID...), or --all, or --list\n");
        return 2;
    }
    // A private folder under /tmp (Kineto takes only paths there) for the targets to write in.
    char folder[] = "/tmp/kinetoscope-attach-XXXXXX";
    if (!::mkdtemp(folder)) {
        std::fprintf(stderr, "kinetoscope-cli: attach: cannot make a folder in /tmp: %s\n",
                     std::strerror(errno));
        return 1;
    }
    const std::string logFile = std::string(folder) + "/trace.json";
    live::TraceRequest request;
    request.durationMs = a.iterations > 0 ? 0 : (a.durationMs > 0 ? a.durationMs : 500);
    request.iterations = a.iterations;
    request.shapes = a.shapes;
    request.stack = a.stack;
    request.memory = a.memory;
    request.modules = a.modules;
    request.logFile = logFile;
    const std::string config = live::onDemandConfig(request);
    struct Target {
        pid_t pid;
        Clock::time_point deliveredAt{};
        Watch ours, fallback;
        bool done = false, failed = false;
    };
    std::vector<Target> state;
    for (pid_t pid : targets) {
        daemon.request(pid, config);
        state.push_back({pid});
    }
    const auto start = Clock::now();
    const auto pollDeadline = start + std::chrono::milliseconds(std::int64_t(a.waitSeconds * 1000));
    const auto recording =
        a.iterations > 0
            ? perIteration * a.iterations
            : std::chrono::duration_cast<Clock::duration>(std::chrono::milliseconds(request.durationMs));
    std::filesystem::create_directories(a.out);
    int failures = 0;
    std::size_t open = state.size();
    while (open > 0) {
        daemon.pump(200);
        for (Target& t : state) {
            if (t.done || t.failed) continue;
            const auto fail = [&](const std::string& why) {
                std::fprintf(stderr, "kinetoscope-cli: attach: pid %d: %s\n", int(t.pid), why.c_str());
                t.failed = true;
                ++failures;
                --open;
            };
            if (!daemon.delivered(t.pid)) {
                const auto polled = daemon.processes().find(t.pid);
                if (polled != daemon.processes().end() && polled->second.uid != ::geteuid())
                    fail("runs as another user (uid " + std::to_string(polled->second.uid) +
                         "): out of reach");
                else if (!alive(t.pid))
                    fail("exited before it polled");
                else if (Clock::now() > pollDeadline)
                    fail(daemon.processes().count(t.pid)
                             ? "its profiler stayed busy (another trace is running)"
                             : "never polled: was it started with KINETO_USE_DAEMON=1?");
                continue;
            }
            if (t.deliveredAt == Clock::time_point{}) t.deliveredAt = Clock::now();
            const uid_t owner = daemon.processes().at(t.pid).uid;
            // Kineto inserts the pid; a path it refuses becomes /tmp/libkineto_activities_<pid>.json.
            const std::string ours = live::kinetoLogFileFor(logFile, t.pid);
            const std::string fallback = "/tmp/libkineto_activities_" + std::to_string(t.pid) + ".json";
            std::string refused;
            std::string found;
            if (complete(ours, owner, t.ours, refused))
                found = ours;
            else if (complete(fallback, owner, t.fallback, refused))
                found = fallback;
            if (!refused.empty()) {
                fail(refused);
                continue;
            }
            if (!found.empty()) {
                const std::string dest =
                    (std::filesystem::path(a.out) / ("kineto_" + std::to_string(t.pid) + ".pt.trace.json"))
                        .string();
                std::error_code ec;
                std::filesystem::rename(found, dest, ec);
                if (ec) {
                    std::filesystem::copy_file(found, dest, std::filesystem::copy_options::overwrite_existing,
                                               ec);
                    if (!ec) std::filesystem::remove(found, ec);
                }
                if (ec) {
                    fail("cannot move its trace to " + dest + ": " + ec.message());
                    continue;
                }
                std::printf("%s\n", dest.c_str());
                std::fflush(stdout);
                t.done = true;
                --open;
                continue;
            }
            if (!alive(t.pid))
                fail("exited before its trace was complete");
            else if (Clock::now() > t.deliveredAt + warmUp + recording + writing)
                fail("its trace did not complete in time (" + ours + ")");
        }
    }
    std::error_code ec;
    std::filesystem::remove_all(folder, ec);
    return failures ? 1 : 0;
}

} // namespace kinetoscope::cli
