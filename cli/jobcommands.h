#pragma once

// The commands over the ranks of a distributed job: `rank` (one trace's rank file) and `job` (the report over
// many rank files, summaries or traces).

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

namespace kinetoscope::cli {

struct RankArgs {
    std::string path;
    std::string out; // empty: stdout
};

struct JobArgs {
    std::vector<std::string> paths;
    std::string list;
    bool json = false;
    std::size_t top = 20;
    unsigned threads = 0;
};

CLI::App* addRankCommand(CLI::App& app, RankArgs& args);
CLI::App* addJobCommand(CLI::App& app, JobArgs& args, const CLI::Validator& positiveCount);
int runRank(const RankArgs& args);
int runJob(const JobArgs& args);

} // namespace kinetoscope::cli
