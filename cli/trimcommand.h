#pragma once

// `kinetoscope-cli trim TRACE --range A:B [--pid N] -o OUT.json.gz`: a smaller, valid Kineto trace of a time
// range (core/open/trimtrace.h).

#include <CLI/CLI.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace kinetoscope::cli {

struct TrimArgs {
    std::string path;
    std::string range; // START_US:END_US on the trace's clock
    std::vector<std::int64_t> pids;
    std::string out;
};

CLI::App* addTrimCommand(CLI::App& app, TrimArgs& args);
int runTrim(const TrimArgs& args);

} // namespace kinetoscope::cli
