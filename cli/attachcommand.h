#pragma once

// `attach`: trace running PyTorch processes with their own profiler, as Kineto's on-demand daemon
// (core/live/ondemand.h). The targets must have been started with KINETO_USE_DAEMON=1.

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

namespace kinetoscope::cli {

struct AttachArgs {
    std::vector<int> pids;
    bool all = false;
    bool list = false;
    bool json = false;
    double waitSeconds = 6; // for polls: Kineto polls every 5 s by default
    long long jobId = -1;   // --all: only this job's processes
    int durationMs = 0;
    int iterations = 0;
    bool shapes = false, stack = false, memory = false, modules = false;
    std::string out = "."; // where the traces go
    int dynologPort = 1778;
};

CLI::App* addAttachCommand(CLI::App& app, AttachArgs& args);
int runAttach(const AttachArgs& args);

} // namespace kinetoscope::cli
