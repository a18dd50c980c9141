#pragma once

// `kinetoscope-cli check BASE NEW [--budget FILE]`: a verdict for CI
// (core/analysis/report/regressioncheck.h). Exit status 0 within budget, 1 a regression, 2 a file could not
// be read (or bad arguments).

#include <CLI/CLI.hpp>

#include <string>

namespace kinetoscope::cli {

struct CheckArgs {
    std::string base, changed; // a trace, or a folder of runs
    std::string budget;
    bool json = false;
    bool markdown = false;
};

CLI::App* addCheckCommand(CLI::App& app, CheckArgs& args);
int runCheck(const CheckArgs& args);

} // namespace kinetoscope::cli
