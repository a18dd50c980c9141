// The tools over more than one trace or other files: compare (diff), job (a distributed job's ranks),
// memory_snapshot (a CUDA memory snapshot) and render (the timeline of a range as PNG, drawn by the viewer).
#include "tools.h"

#include "analysis/jobs/diff.h"
#include "analysis/jobs/job.h"
#include "analysis/memory/snapshotreport.h"
#include "analysis/report/diffformat.h"
#include "analysis/report/jobformat.h"
#include "analysis/report/snapshotformat.h"
#include "model/viewlink.h"
#include "open/rankinput.h"
#include "snapshot/snapshotloader.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <sstream>

extern char** environ;

namespace kinetoscope::mcp {

namespace {

using namespace toolparts;

ToolResult compare(ToolContext& context, ToolArguments& args) {
    const std::string base = args.required("base");
    const std::string changed = args.required("new");
    const auto limit = std::size_t(args.integer("limit", 1, 100000).value_or(10));
    if (!args.error().empty()) return ToolResult::error(args.error());
    std::string error;
    const auto a = context.traces.open(base, error);
    if (!a) return ToolResult::error(error);
    const auto b = context.traces.open(changed, error);
    if (!b) return ToolResult::error(error);
    const TraceDiff diff = diffTraces(*a->store, *b->store);
    ToolResult result;
    result.text = "Baseline `" + a->path + "` (" + a->id + ") against `" + b->path + "` (" + b->id +
                  "); deltas are new - baseline.\n" + codeBlock(diffToText(diff, limit));
    std::string structured;
    JsonWriter w(structured);
    w.beginObject();
    w.strField("base", a->path);
    w.strField("new", b->path);
    putStructured(result, w, "diff", diffToJson(diff), "the text above holds the largest changes.");
    ViewLink l;
    l.files = {a->path, b->path};
    w.strField("link", viewLinkUrl(l));
    w.endObject();
    result.structuredJson = std::move(structured);
    return result;
}

ToolResult job(ToolContext& context, ToolArguments& args) {
    std::vector<std::string> paths = args.strings("paths");
    const auto limit = std::size_t(args.integer("limit", 1, 100000).value_or(10));
    if (!args.error().empty()) return ToolResult::error(args.error());
    if (paths.empty())
        return ToolResult::error("argument 'paths' is required (rank files, traces or folders)");
    for (std::string& path : paths) {
        std::string error;
        const auto allowed = allowedPath(context.root, path, error);
        if (!allowed) return ToolResult::error(error);
        path = *allowed;
    }
    std::vector<UnreadableFile> unreadable;
    const std::vector<std::string> files = jobFiles(paths, unreadable);
    if (files.empty() && unreadable.empty())
        return ToolResult::error("job: no rank files, summaries or traces found");
    JobInputs inputs = readJobInputs(files);
    unreadable.insert(unreadable.end(), std::make_move_iterator(inputs.unreadable.begin()),
                      std::make_move_iterator(inputs.unreadable.end()));
    if (inputs.ranks.empty()) {
        std::string why = "job: none of the " + std::to_string(files.size()) + " files could be read";
        for (const UnreadableFile& u : unreadable)
            why += "; " + u.error;
        return ToolResult::error(why);
    }
    const JobReport report = analyseJob(std::move(inputs.ranks), std::move(unreadable));
    ToolResult result;
    result.text = codeBlock(jobReportText(report, limit));
    std::string structured;
    JsonWriter w(structured);
    w.beginObject();
    putStructured(result, w, "report", jobReportJson(report),
                  "use `limit` on the text, or the CLI's `job --json`.");
    w.endObject();
    result.structuredJson = std::move(structured);
    return result;
}

ToolResult memorySnapshot(ToolContext& context, ToolArguments& args) {
    std::string path = args.required("path");
    const auto at = args.integer("at_us", std::numeric_limits<std::int64_t>::min(),
                                 std::numeric_limits<std::int64_t>::max());
    const auto limit = std::size_t(args.integer("limit", 1, 100000).value_or(10));
    if (!args.error().empty()) return ToolResult::error(args.error());
    std::string error;
    const auto allowed = allowedPath(context.root, path, error);
    if (!allowed) return ToolResult::error(error);
    const SnapshotLoadResult r = loadSnapshot(*allowed);
    if (!r.ok()) return ToolResult::error(r.message(path));
    SnapshotReportOptions options;
    options.top = limit;
    options.atTimeUs = at;
    const SnapshotReport report = snapshotReport(*r.snapshot, options);
    ToolResult result;
    if (!r.error.empty()) result.text = "Warning: " + r.message(path) + "; read what came before it.\n";
    result.text += codeBlock(snapshotReportText(*r.snapshot, report));
    std::string structured;
    JsonWriter w(structured);
    w.beginObject();
    putStructured(result, w, "report", snapshotReportJson(*r.snapshot, report),
                  "ask with a smaller `limit`.");
    w.endObject();
    result.structuredJson = std::move(structured);
    return result;
}

std::string base64(std::string_view bytes) {
    static constexpr char alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    std::string out;
    out.reserve((bytes.size() + 2) / 3 * 4);
    std::size_t i = 0;
    for (; i + 2 < bytes.size(); i += 3) {
        const auto n = std::uint32_t(std::uint8_t(bytes[i])) << 16 |
                       std::uint32_t(std::uint8_t(bytes[i + 1])) << 8 | std::uint8_t(bytes[i + 2]);
        for (int shift = 18; shift >= 0; shift -= 6)
            out += alphabet[(n >> shift) & 63];
    }
    if (i < bytes.size()) {
        std::uint32_t n = std::uint32_t(std::uint8_t(bytes[i])) << 16;
        if (i + 1 < bytes.size()) n |= std::uint32_t(std::uint8_t(bytes[i + 1])) << 8;
        out += alphabet[(n >> 18) & 63];
        out += alphabet[(n >> 12) & 63];
        out += i + 1 < bytes.size() ? alphabet[(n >> 6) & 63] : '=';
        out += '=';
    }
    return out;
}

// Runs the viewer's headless renderer; its one-line error when it fails.
std::string runViewer(const std::string& viewer, const std::vector<std::string>& arguments) {
    std::vector<char*> argv;
    argv.push_back(const_cast<char*>(viewer.c_str()));
    for (const std::string& a : arguments)
        argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    // Its stdout and stderr go to a file: stdout is the MCP stream when the server speaks over stdio.
    char errorPath[] = "/tmp/kinetoscope-render-XXXXXX";
    const int errorFd = ::mkstemp(errorPath);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
    if (errorFd >= 0) {
        posix_spawn_file_actions_adddup2(&actions, errorFd, STDOUT_FILENO);
        posix_spawn_file_actions_adddup2(&actions, errorFd, STDERR_FILENO);
    }
    pid_t pid = 0;
    const int spawned = ::posix_spawn(&pid, viewer.c_str(), &actions, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    std::string error;
    if (spawned != 0) {
        error = viewer + ": cannot run the viewer to render (" + std::strerror(spawned) +
                "); set KINETOSCOPE_VIEWER to the kinetoscope binary";
    } else {
        int status = 0;
        while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
        }
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
            std::ifstream in(errorPath);
            std::string line;
            std::getline(in, line);
            error = line.empty() ? "the viewer failed to render" : line;
        }
    }
    if (errorFd >= 0) {
        ::close(errorFd);
        ::unlink(errorPath);
    }
    return error;
}

ToolResult render(ToolContext& context, ToolArguments& args) {
    const auto from = args.number("start_us");
    const auto to = args.number("end_us");
    const auto width = args.integer("width", 200, 4096).value_or(1600);
    const auto height = args.integer("height", 150, 4096).value_or(900);
    const std::string name = args.required("trace");
    if (!args.error().empty()) return ToolResult::error(args.error());
    std::string error;
    const auto trace = context.traces.open(name, error);
    if (!trace) return ToolResult::error(error);
    std::vector<std::string> arguments;
    char png[] = "/tmp/kinetoscope-render-XXXXXX.png";
    const int fd = ::mkstemps(png, 4);
    if (fd < 0)
        return ToolResult::error(std::string("render: cannot make a temporary file: ") +
                                 std::strerror(errno));
    ::close(fd);
    arguments = {"--render", png, "--size", std::to_string(width) + "x" + std::to_string(height)};
    const TimeNs origin = trace->store->minTime();
    const TimeNs start = from ? TimeNs(std::llround(*from * 1000)) : origin;
    const TimeNs end = to ? TimeNs(std::llround(*to * 1000)) : trace->store->maxTime();
    if (end <= start) {
        ::unlink(png);
        return ToolResult::error("render: end_us must be after start_us");
    }
    // The viewer's --range is in µs from the trace's first event; always given, so that the image shows the
    // range the text names.
    arguments.push_back("--range");
    arguments.push_back(micros(start - origin) + ":" + micros(end - origin));
    arguments.push_back(trace->path);
    error = runViewer(context.viewerPath, arguments);
    std::ifstream in(png, std::ios::binary);
    const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    ::unlink(png);
    if (!error.empty()) return ToolResult::error("render: " + error);
    if (bytes.size() < 8) return ToolResult::error("render: the viewer wrote no image");
    ToolResult result;
    result.text = "The timeline of `" + trace->path + "` from " + micros(start) + " us to " + micros(end) +
                  " us (" + formatDuration(end - start) + "), " + std::to_string(width) + "x" +
                  std::to_string(height) + ". [view](" + link(*trace, std::pair{start, end}) + ")";
    result.images.push_back({"image/png", base64(bytes)});
    return result;
}

} // namespace

void addOtherTools(std::vector<ToolSpec>& tools) {
    tools.push_back(
        {"compare", "Compare two traces",
         "Compare a baseline trace with a new one (`kinetoscope-cli diff`): step time, operators and kernels "
         "that changed most, with deltas new - baseline.",
         R"json({"type": "object", "properties": {"base": {"type": "string", "description": "the baseline: an id from open_trace or a path"}, "new": {"type": "string", "description": "the new trace: an id or a path"}, "limit": {"type": "integer", "minimum": 1, "description": "rows per table in the text (default 10)"}}, "required": ["base", "new"]})json",
         compare});
    tools.push_back(
        {"job", "Distributed job",
         "A distributed job from its ranks' traces, rank files or summaries (or folders of them): steps "
         "across "
         "ranks, stragglers, collectives and their waits (`kinetoscope-cli job`).",
         R"json({"type": "object", "properties": {"paths": {"type": "array", "items": {"type": "string"}, "description": "rank files, traces or folders"}, "limit": {"type": "integer", "minimum": 1, "description": "rows per table in the text (default 10)"}}, "required": ["paths"]})json",
         job});
    tools.push_back(
        {"memory_snapshot", "CUDA memory snapshot",
         "A CUDA memory snapshot (torch.cuda.memory._dump_snapshot, .pickle or .pickle.gz): segments, peak, "
         "and "
         "the allocations that hold the memory with their stacks (`kinetoscope-cli memory`).",
         R"json({"type": "object", "properties": {"path": {"type": "string", "description": "the snapshot file"}, "at_us": {"type": "integer", "description": "also what is alive at this time_us (the snapshot's clock)"}, "limit": {"type": "integer", "minimum": 1, "description": "allocations listed (default 10)"}}, "required": ["path"]})json",
         memorySnapshot});
    tools.push_back(
        {"render", "Render the timeline",
         "The timeline of a time range as a PNG image (the viewer's own drawing): tracks, slices, kernels.",
         R"json({"type": "object", "properties": {"trace": {"type": "string", "description": "an id from open_trace, or a trace's path"}, "start_us": {"type": "number", "description": "range start, in us on the trace's clock (default: the trace's start)"}, "end_us": {"type": "number", "description": "range end, in us (default: the trace's end)"}, "width": {"type": "integer", "minimum": 200, "maximum": 4096}, "height": {"type": "integer", "minimum": 150, "maximum": 4096}}, "required": ["trace"]})json",
         render});
}

} // namespace kinetoscope::mcp
