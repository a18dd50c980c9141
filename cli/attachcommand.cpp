#include "attachcommand.h"

#include "live/attachsession.h"
#include "live/dynologrelay.h"
#include "model/jsonwriter.h"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <map>

namespace kinetoscope::cli {

namespace {

using Clock = std::chrono::steady_clock;

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
            w.strField("command", live::processCommandLine(pid));
            w.numField("job_id", p.jobId);
            w.strField("state", p.idle ? "idle" : "busy");
            w.fixedField("seconds_since_poll", std::chrono::duration<double>(now - p.lastPoll).count(), 1);
            for (const auto& [key, v] : live::processJobEnvironment(pid)) {
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
        const auto env = live::processJobEnvironment(pid);
        const auto rank = env.find("RANK");
        std::printf("%-8d %-6s %-8lld %-10s %s\n", int(pid), p.idle ? "idle" : "busy",
                    static_cast<long long>(p.jobId), rank == env.end() ? "-" : rank->second.c_str(),
                    live::processCommandLine(pid).c_str());
    }
    return 0;
}

} // namespace

CLI::App* addAttachCommand(CLI::App& app, AttachArgs& a) {
    CLI::App* c = app.add_subcommand(
        "attach",
        "Trace running PyTorch processes (started with KINETO_USE_DAEMON=1) with their own profiler");
    c->add_option("pids", a.pids, "the processes to trace")->type_name("PID");
    c->add_flag(
        "--all", a.all,
        "every process of yours that polls (of --job-id, when given). Through dynolog, every process "
        "of the job dynolog sees, any user's: without --job-id that is job 0, every process outside a "
        "scheduler's job; others' traces are not collected");
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
    c->add_option("--dynolog-port", a.dynologPort,
                  "where dynolog holds the name: its RPC port (default 1778)")
        ->check(CLI::Range(1, 65535));
    c->add_option("-o,--output", a.out, "the folder the traces go to (default: here)")->type_name("DIR");
    c->footer(
        "Each trace is written by the target's own Kineto: it polls every 5 s, waits its warm-up, records, "
        "then writes. The paths print one a line as they complete.");
    return c;
}

int runAttach(const AttachArgs& a) {
    live::OnDemandDaemon daemon("kinetoscope-cli attach");
    std::string error;
    // Where dynolog holds the name, the requests go through its RPC; it cannot list.
    bool viaDynolog = !daemon.bind(error) && daemon.nameHeld();
    if (viaDynolog) {
        // Our own viewer (its Attach dialog open) answers a probe; dynolog does not.
        if (const live::NameHolder holder = live::askNameHolder(); holder.pid > 0) {
            std::fprintf(stderr,
                         "kinetoscope-cli: attach: %s (pid %d) is listening for PyTorch processes: attach "
                         "from there, or end it (close the viewer's Attach dialog) and run this again\n",
                         holder.name.c_str(), int(holder.pid));
            return 1;
        }
    }
    if (!error.empty() && !viaDynolog) {
        std::fprintf(stderr, "kinetoscope-cli: attach: %s\n", error.c_str());
        return 1;
    }
    if (viaDynolog && a.list) {
        std::fprintf(
            stderr,
            "kinetoscope-cli: attach: %s; dynolog has no call that lists the processes it sees: name them "
            "(PID...), or --all [--job-id N] to trace through it\n",
            error.c_str());
        return 1;
    }
    if (a.list) return listProcesses(daemon, a);
    std::vector<pid_t> targets(a.pids.begin(), a.pids.end());
    if (a.all && !viaDynolog) {
        daemon.pump(int(a.waitSeconds * 1000));
        for (const auto& [pid, p] : daemon.processes())
            if (a.jobId < 0 || p.jobId == a.jobId) targets.push_back(pid);
        if (targets.empty()) {
            std::fprintf(stderr, "kinetoscope-cli: attach: no process polled within %.0f s\n", a.waitSeconds);
            return 1;
        }
    }
    if (targets.empty() && !(viaDynolog && a.all)) {
        std::fprintf(stderr, "kinetoscope-cli: attach: name the processes (PID...), or --all, or --list\n");
        return 2;
    }
    live::TraceRequest request;
    request.durationMs = a.iterations > 0 ? 0 : (a.durationMs > 0 ? a.durationMs : 500);
    request.iterations = a.iterations;
    request.shapes = a.shapes;
    request.stack = a.stack;
    request.memory = a.memory;
    request.modules = a.modules;
    live::AttachSession session(daemon, request, a.out,
                                std::chrono::milliseconds(std::int64_t(a.waitSeconds * 1000)));
    if (!session.start(targets, error)) {
        std::fprintf(stderr, "kinetoscope-cli: attach: %s\n", error.c_str());
        return 1;
    }
    if (viaDynolog) {
        const live::DynologReply reply =
            live::askDynolog(a.dynologPort, session.config(), std::max<long long>(0, a.jobId), targets,
                             targets.empty() ? 1000 : int(targets.size()));
        if (!reply.error.empty()) {
            std::fprintf(stderr, "kinetoscope-cli: attach: %s\n", reply.error.c_str());
            return 1;
        }
        std::fprintf(stderr, "kinetoscope-cli: attach: through dynolog: %zu process(es) matched%s\n",
                     reply.matched.size(),
                     reply.busy > 0 ? (", " + std::to_string(reply.busy) + " busy with another trace").c_str()
                                    : "");
        session.deliveredElsewhere(reply.matched, "dynolog");
        if (session.targets().empty()) {
            std::fprintf(stderr, "kinetoscope-cli: attach: dynolog matched no process\n");
            return 1;
        }
    }
    // Each target's path, or its failure, once, as it comes.
    std::vector<bool> said(session.targets().size(), false); // (fixed from here on)
    int failures = 0;
    while (true) {
        daemon.pump(200);
        session.step();
        for (std::size_t i = 0; i < session.targets().size(); ++i) {
            const live::AttachTarget& t = session.targets()[i];
            if (said[i]) continue;
            if (t.state == live::AttachTarget::State::Done) {
                std::printf("%s\n", t.path.c_str());
                std::fflush(stdout);
                said[i] = true;
            } else if (t.state == live::AttachTarget::State::Failed) {
                std::fprintf(stderr, "kinetoscope-cli: attach: pid %d: %s\n", int(t.pid), t.why.c_str());
                said[i] = true;
                ++failures;
            }
        }
        if (session.finished()) break;
    }
    return failures ? 1 : 0;
}

} // namespace kinetoscope::cli
