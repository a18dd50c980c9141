#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace kinetoscope {

// Trace files found under a folder, grouped the way the TensorBoard plugin groups them: a run is a directory
// (or a family of files named for their rank), a worker is one process or rank, a span one profiling window
// of a worker (tensorboard_trace_handler writes `WORKER.TIMESTAMP.pt.trace.json`).
struct TraceFile {
    std::string path;
    std::string span; // the timestamp in the name, or "" when there is none
    std::uint64_t size = 0;
};
struct TraceWorker {
    std::string name;
    std::vector<TraceFile> spans; // by span name (timestamps sort in time order)
};
struct TraceRun {
    std::string name; // relative to the scanned folder ("." for the folder itself), plus a rank family
    std::vector<TraceWorker> workers;
};

// Whether a file is a trace: by name (*.pt.trace.json, *.trace.json, compiled_module_profile.json, their
// .gz), or a .json/.json.gz with a "traceEvents" key in its first 4 KiB.
bool looksLikeTrace(const std::string& path);

// Scans `dir` and below. `error` gets a one-line reason when the folder cannot be read.
std::vector<TraceRun> scanRuns(const std::string& dir, std::string* error = nullptr);

} // namespace kinetoscope
