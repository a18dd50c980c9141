// kinetoscope-cli: the store and the analyses without a GUI, for servers and CI.
#include "attachcommand.h"
#include "checkcommand.h"
#include "jobcommands.h"
#include "mcpcommand.h"
#include "querycommand.h"
#include "trimcommand.h"

#include "analysis/jobs/diff.h"
#include "analysis/memory/snapshotreport.h"
#include "analysis/ops/summary.h"
#include "analysis/report/diffformat.h"
#include "analysis/report/snapshotformat.h"
#include "analysis/report/summaryformat.h"
#include "live/capturesession.h"
#include "open/opentrace.h"
#include "snapshot/snapshotloader.h"

#include <CLI/CLI.hpp>
#include <signal.h>
#include <sys/resource.h>
#include <unistd.h>

#include <charconv>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

using namespace kinetoscope;

namespace {

// Exit codes: 0 done, 1 a trace could not be read or the capture could not be saved, 2 bad arguments.
constexpr int badArguments = 2;

int usage(const std::string& problem) {
    std::fprintf(stderr, "kinetoscope-cli: %s\nRun 'kinetoscope-cli --help' for usage.\n", problem.c_str());
    return badArguments;
}

// The process's CPU time (user + system, all threads) so far, in ms.
double processCpuMs() {
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    const auto ms = [](const timeval& t) { return double(t.tv_sec) * 1e3 + double(t.tv_usec) / 1e3; };
    return ms(usage.ru_utime) + ms(usage.ru_stime);
}

// KINETOSCOPE_TIMING=1: where a load's time goes, phase by phase, on stderr: each phase's wall time and the
// process's CPU time at its end (the difference between two lines is what a phase cost on both cores; a
// phase's CPU over its wall time is how many cores it kept busy).
LoadOptions loadOptions() {
    LoadOptions options;
    if (std::getenv("KINETOSCOPE_TIMING"))
        options.phaseTiming = [](std::string_view phase, double ms) {
            std::fprintf(stderr, "timing: %-26.*s %7.0f ms   (CPU so far %6.0f ms)\n", int(phase.size()),
                         phase.data(), ms, processCpuMs());
        };
    return options;
}

// Loads or prints the one-line error; exit code 1 on failure.
std::unique_ptr<const TraceStore> load(const std::string& path, double& seconds,
                                       const LoadOptions& options = loadOptions()) {
    LoadResult r = loadTrace(path, options);
    if (!r.ok()) {
        std::fprintf(stderr, "kinetoscope-cli: %s\n", r.message(path).c_str());
        return nullptr;
    }
    seconds = r.seconds;
    for (const std::string& warning : loadWarnings(r.store->stats(), path))
        std::fprintf(stderr, "kinetoscope-cli: warning: %s\n", warning.c_str());
    return std::move(r.store);
}

int runInfo(const std::string& path) {
    double seconds = 0;
    auto store = load(path, seconds);
    if (!store) return 1;
    std::fputs(importReport(*store, seconds).c_str(), stdout);
    return 0;
}

// A CUDA memory snapshot's figures per device (docs/DEFINITIONS.md, "Memory snapshots").
struct MemoryArgs {
    std::string path;
    bool json = false;
    std::optional<std::int64_t> atUs;
    std::size_t top = 10;
};

int runMemory(const MemoryArgs& args) {
    const SnapshotLoadResult r = loadSnapshot(args.path);
    if (!r.ok()) {
        std::fprintf(stderr, "kinetoscope-cli: %s\n", r.message(args.path).c_str());
        return 1;
    }
    if (!r.error.empty()) // cut short or damaged: the report covers what came before the fault
        std::fprintf(stderr, "kinetoscope-cli: warning: %s; read what came before it\n",
                     r.message(args.path).c_str());
    const MemorySnapshot& s = *r.snapshot;
    if (s.stats.malformedEvents || s.stats.malformedSegments)
        std::fprintf(
            stderr,
            "kinetoscope-cli: warning: %s: %llu malformed events and %llu malformed segments skipped\n",
            args.path.c_str(), static_cast<unsigned long long>(s.stats.malformedEvents),
            static_cast<unsigned long long>(s.stats.malformedSegments));
    SnapshotReportOptions options;
    options.top = args.top;
    options.atTimeUs = args.atUs;
    const SnapshotReport report = snapshotReport(s, options);
    const std::string out = args.json ? snapshotReportJson(s, report) : snapshotReportText(s, report);
    std::fputs(out.c_str(), stdout);
    return 0;
}

// Compares two traces: A is the baseline, deltas are B - A.
struct DiffArgs {
    std::vector<std::string> paths; // A (baseline) and B
    std::size_t top = 20;
    bool json = false;
};

int runDiff(const DiffArgs& args) {
    const std::vector<std::string>& paths = args.paths;
    if (paths.size() != 2) return usage("diff: takes two traces, A (baseline) and B");
    const std::size_t top = args.top;
    const bool json = args.json;
    double seconds = 0;
    auto a = load(paths[0], seconds);
    if (!a) return 1;
    auto b = load(paths[1], seconds);
    if (!b) return 1;
    const TraceDiff diff = diffTraces(*a, *b);
    std::fputs((json ? diffToJson(diff) : diffToText(diff, top)).c_str(), stdout);
    return 0;
}

struct SummaryArgs {
    std::string path;
    std::string by = "both"; // op, op+shape or kernel; both tables when not given
    std::string sort;
    std::size_t top = 20;
    bool json = false;
    bool allRows = false; // --json: every kernel sequence and unmodelled operator, not the largest 20
    std::optional<std::int64_t> step;    // ProfilerStep#N for the critical path; the median step without
    std::string inductorDir;             // where to look for the Triton kernels' generated code
    std::vector<std::string> outputCode; // compiled modules (output_code.py) of this run
    std::string sections;                // --sections a,b; empty: what --by says
    std::uint64_t nruns = 0;             // compiled_module_profile.json: the runs it profiled
    double wallMs = 0;                   // and the wall time per run the script printed
};

int runSummary(const SummaryArgs& args) {
    const std::string &path = args.path, &by = args.by, &sort = args.sort;
    const std::size_t top = args.top;
    const bool json = args.json;
    SummaryTextOptions options;
    options.top = top;
    options.sortField = sort;
    options.showOperators = by != "kernel";
    options.showKernels = by == "kernel" || by == "both";
    std::string sortError;
    if (!json && !sort.empty() && !summaryToText(Summary{}, options, sortError)) return usage(sortError);

    // What is asked for: --sections, else the table --by names (and the run header), else everything.
    ReportSections sections = allReportSections();
    if (!args.sections.empty()) {
        std::string sectionError;
        const auto parsed = parseReportSections(args.sections, sectionError);
        if (!parsed) return usage("summary: --sections: " + sectionError);
        sections = *parsed;
    } else if (by != "both") {
        sections.reset();
        sections.set(std::size_t(by == "kernel" ? ReportSection::Kernels : ReportSection::Operators));
    }
    options.showOperators = options.showOperators && has(sections, ReportSection::Operators);
    options.showKernels = options.showKernels && has(sections, ReportSection::Kernels);

    // The kernel table alone reads only the GPU's work (and the metadata): the other events are checked, not
    // kept, unless the file carries what the table would read from them.
    LoadOptions loading = loadOptions();
    if (sections == ReportSections().set(std::size_t(ReportSection::Kernels))) {
        loading.gpuWorkOnly = true;
        loading.gpuWorkOnlyUnlessTextHas = kernelTableHostKeys();
    }
    double seconds = 0;
    auto store = load(path, seconds, loading);
    if (!store) return 1;
    // The one report the viewer's panels show too, or the part of it asked for.
    const auto report = computeAnalysis(
        *store, std::nullopt, by == "op+shape" ? OperatorGrouping::NameAndShape : OperatorGrouping::Name,
        KernelGrouping::Name, sections);
    std::string stepError;
    if (has(sections, ReportSection::CriticalPath)) {
        auto path = stepCriticalPath(*store, args.step, stepError);
        if (!path) return usage("summary: --step: " + stepError);
        attachCriticalPath(*report, std::move(*path));
    }
    if (report->inductor.hasTriton && (args.nruns > 0 || args.wallMs > 0))
        report->inductor.trace = inductorPerRun(
            report->inductor.trace, std::max<std::uint64_t>(args.nruns, 1), TimeNs(args.wallMs * 1e6));
    if (report->inductor.hasTriton && (!args.inductorDir.empty() || !args.outputCode.empty()))
        report->inductor.sources = findKernelSources(*store, args.inductorDir, args.outputCode);
    if (json) {
        const std::size_t longTableRows = args.allRows ? SIZE_MAX : summaryJsonLongTableRows;
        std::fputs(summaryToJson(report->summary, report.get(), longTableRows).c_str(), stdout);
        return 0;
    }
    const auto text = summaryToText(report->summary, options, sortError);
    if (!text) return usage(sortError);
    std::fputs(reportToText(*report).c_str(), stdout);
    std::fputs("\n", stdout);
    std::fputs(text->c_str(), stdout);
    return 0;
}

volatile sig_atomic_t g_interrupted = 0;

// Runs PROGRAM with the capture agent injected and saves what it captured as a Kineto trace. Ctrl+C ends the
// capture (the target, in the same terminal, gets it too) and still saves everything received.
struct RecordArgs {
    live::LaunchSpec spec;
    std::string out;
    std::vector<std::string> command; // PROGRAM [ARGS...]
};

int runRecord(RecordArgs& args) {
    live::LaunchSpec& spec = args.spec;
    const std::string& out = args.out;
    const bool keepSpool = !spec.spoolPath.empty();
    if (args.command.empty()) return usage("record: needs a PROGRAM to run (after --)");
    spec.program = args.command.front();
    spec.arguments.assign(args.command.begin() + 1, args.command.end());

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
    if (!session.cuptiDir().empty())
        std::fprintf(stderr, "kinetoscope-cli: CUPTI for the agent from %s\n", session.cuptiDir().c_str());
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
    for (const std::string& notice : st.notices)
        std::fprintf(stderr, "kinetoscope-cli: agent: %s\n", notice.c_str());
    if (st.counts.rejected)
        std::fprintf(stderr, "kinetoscope-cli: warning: %llu record(s) with impossible times skipped\n",
                     static_cast<unsigned long long>(st.counts.rejected));
    if (st.connections == 0) {
        std::fprintf(stderr, "kinetoscope-cli: warning: the agent never connected (is %s a CUDA program?)\n",
                     spec.program.c_str());
        // The driver drops an agent it cannot load without a word; a missing CUPTI is the usual reason.
        if (session.cuptiDir().empty() && !session.cuptiSearched().empty()) {
            std::string searched;
            for (const std::string& dir : session.cuptiSearched())
                searched += (searched.empty() ? "" : ", ") + dir;
            std::fprintf(
                stderr,
                "kinetoscope-cli: no CUPTI found for the agent (looked in %s and the loader's path); "
                "set KINETOSCOPE_CUPTI_DIR to the folder holding libcupti\n",
                searched.c_str());
        }
    }
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
    // --top's check: a count of rows, one or more.
    const CLI::Validator positiveCount(
        [](std::string& value) {
            std::size_t n = 0;
            const auto [end, error] = std::from_chars(value.data(), value.data() + value.size(), n);
            return error == std::errc() && end == value.data() + value.size() && n > 0
                       ? std::string()
                       : std::string("needs a positive number, not '" + value + "'");
        },
        "N>0");
    CLI::App app{"The Kinetoscope store and analyses without a GUI, for servers and CI.", "kinetoscope-cli"};
    app.set_version_flag("--version", "kinetoscope-cli " KINETOSCOPE_VERSION);
    app.require_subcommand(1);
    app.failure_message(CLI::FailureMessage::simple);

    std::string infoPath;
    CLI::App* info =
        app.add_subcommand("info", "What the importer read: events, tracks, flows, issues, speed");
    info->add_option("TRACE", infoPath, "a trace (.json, .json.gz, or a capture spool)")
        ->required()
        ->type_name("");

    SummaryArgs summary;
    CLI::App* summaryCommand =
        app.add_subcommand("summary", "Overview, operator and kernel tables (text, or --json)");
    summaryCommand->add_option("TRACE", summary.path, "a trace")->required()->type_name("");
    summaryCommand
        ->add_option("--by", summary.by, "one table: op, op+shape or kernel (default: op and kernel)")
        ->check(CLI::IsMember({"op", "op+shape", "kernel"}));
    summaryCommand->add_option("--sort", summary.sort, "sort the tables by FIELD")->type_name("FIELD");
    summaryCommand->add_option("--top", summary.top, "rows per table (default 20)")->check(positiveCount);
    summaryCommand->add_flag("--json", summary.json, "the whole report as JSON");
    summaryCommand->add_flag("--all-rows", summary.allRows,
                             "with --json: every kernel sequence and unmodelled operator (default: the 20 "
                             "that take the most GPU time); the other tables are always whole");
    summaryCommand
        ->add_option("--step", summary.step,
                     "the critical path of ProfilerStep#N (default: the step of median length)")
        ->type_name("N");
    summaryCommand
        ->add_option("--sections", summary.sections,
                     "only these sections, comma-separated: overview, ops, kernels, memory, "
                     "recommendations, distributed, gpu_waits, sequences, roofline, inductor, critical_path")
        ->type_name("A,B");
    summaryCommand
        ->add_option("--inductor-dir", summary.inductorDir,
                     "find the Triton kernels' generated code under DIR (an Inductor cache or debug folder)")
        ->type_name("DIR")
        ->check(CLI::ExistingDirectory);
    summaryCommand
        ->add_option("--nruns", summary.nruns,
                     "the TorchInductor breakdown per run of a compiled_module_profile.json of N runs")
        ->type_name("N")
        ->check(CLI::PositiveNumber);
    summaryCommand
        ->add_option("--wall-ms", summary.wallMs,
                     "the wall time per run Inductor's script printed: the breakdown's shares are of it")
        ->type_name("MS")
        ->check(CLI::PositiveNumber);
    summaryCommand
        ->add_option("--output-code", summary.outputCode, "a compiled module (output_code.py) of this run")
        ->type_name("FILE")
        ->check(CLI::ExistingFile);

    DiffArgs diff;
    CLI::App* diffCommand =
        app.add_subcommand("diff", "Compare two traces: A is the baseline, deltas are B - A");
    diffCommand->add_option("A B", diff.paths, "the two traces")->type_name("");
    diffCommand->add_option("--top", diff.top, "rows per table (default 20)")->check(positiveCount);
    diffCommand->add_flag("--json", diff.json, "as JSON");

    cli::RankArgs rank;
    CLI::App* rankCommand = cli::addRankCommand(app, rank);
    cli::JobArgs job;
    CLI::App* jobCommand = cli::addJobCommand(app, job, positiveCount);

    MemoryArgs memory;
    CLI::App* memoryCommand = app.add_subcommand(
        "memory", "A CUDA memory snapshot (.pickle, .pickle.gz): segments, peak, who holds the memory");
    memoryCommand->add_option("SNAPSHOT", memory.path, "a torch.cuda.memory._dump_snapshot file")
        ->required()
        ->type_name("");
    memoryCommand->add_flag("--json", memory.json, "as JSON");
    memoryCommand->add_option("--at", memory.atUs, "also what is alive at this time_us (epoch µs)")
        ->type_name("TIME_US");
    memoryCommand->add_option("--top", memory.top, "allocations listed (default 10)")->check(positiveCount);

    cli::AttachArgs attach;
    CLI::App* attachCommand = cli::addAttachCommand(app, attach);

    cli::QueryArgs query;
    CLI::App* queryCommand = cli::addQueryCommand(app, query);
    cli::ExportArgs exporting;
    CLI::App* exportCommand = cli::addExportCommand(app, exporting);

    cli::CheckArgs check;
    CLI::App* checkCommand = cli::addCheckCommand(app, check);
    cli::TrimArgs trim;
    CLI::App* trimCommand = cli::addTrimCommand(app, trim);
    cli::McpArgs mcpArgs;
    CLI::App* mcpCommand = cli::addMcpCommand(app, mcpArgs);

    RecordArgs record;
    CLI::App* recordCommand = app.add_subcommand(
        "record", "Run PROGRAM under the capture agent and save its GPU activity as a trace");
    recordCommand->add_option("-o,--output", record.out, "the Kineto trace to write")
        ->required()
        ->type_name("FILE");
    recordCommand
        ->add_option("--replay", record.spec.replayTrace,
                     "play this trace's GPU work back instead of capturing (no GPU needed)")
        ->type_name("TRACE");
    recordCommand->add_option("--speed", record.spec.replaySpeed, "replay speed (0: as fast as possible)")
        ->check(CLI::NonNegativeNumber);
    recordCommand->add_option("--spool", record.spec.spoolPath, "keep the raw capture in FILE")
        ->type_name("FILE");
    recordCommand->add_option("--agent", record.spec.agentPath, "the capture agent library")
        ->type_name("LIBRARY");
    recordCommand->add_option("--cwd", record.spec.workingDirectory, "run PROGRAM in DIR")->type_name("DIR");
    recordCommand->footer("Then -- PROGRAM [ARGS...]: the program to run (its options are its own).");
    recordCommand->prefix_command(); // everything from PROGRAM on is left for it (remaining())

    if (argc < 2) return usage("no command given");
    const std::string first = argv[1];
    if (first == "help") {
        std::fputs(app.help().c_str(), stdout);
        return 0;
    }
    const auto commands = app.get_subcommands([&](const CLI::App* c) { return c->get_name() == first; });
    if (!first.empty() && first[0] != '-' && commands.empty())
        return usage("unknown command '" + first + "'");
    // record's PROGRAM and its arguments follow "--": they are the program's, never parsed as ours.
    int ourArgc = argc;
    for (int i = 1; i < argc; ++i)
        if (std::string_view(argv[i]) == "--") {
            ourArgc = i;
            record.command.assign(argv + i + 1, argv + argc);
            break;
        }
    try {
        app.parse(ourArgc, argv);
    } catch (const CLI::CallForHelp&) {
        std::fputs(app.help().c_str(), stdout);
        return 0;
    } catch (const CLI::CallForVersion& v) {
        std::printf("%s\n", v.what());
        return 0;
    } catch (const CLI::ParseError& e) {
        for (const CLI::App* sub : app.get_subcommands())
            return usage(sub->get_name() + ": " + e.what());
        return usage(e.what());
    }
    if (info->parsed()) return runInfo(infoPath);
    if (summaryCommand->parsed()) return runSummary(summary);
    if (diffCommand->parsed()) return runDiff(diff);
    if (memoryCommand->parsed()) return runMemory(memory);
    if (rankCommand->parsed()) return cli::runRank(rank);
    if (jobCommand->parsed()) return cli::runJob(job);
    if (attachCommand->parsed()) return cli::runAttach(attach);
    if (queryCommand->parsed()) return cli::runQuery(query);
    if (exportCommand->parsed()) return cli::runExport(exporting);
    if (mcpCommand->parsed()) return cli::runMcp(mcpArgs);
    if (trimCommand->parsed()) return cli::runTrim(trim);
    if (checkCommand->parsed()) return cli::runCheck(check);
    if (recordCommand->parsed()) {
        if (record.command.empty()) record.command = recordCommand->remaining(); // PROGRAM without "--"
        return runRecord(record);
    }
    return usage("no command given");
}
