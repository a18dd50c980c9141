#pragma once

// The ranks of a job, read from whatever the user has: rank files (`kinetoscope-cli rank`), `summary --json`
// files, or the traces themselves, mixed, recognised by content. One file that cannot be read is listed with
// its one-line error and the job goes on without it.

#include "analysis/jobs/job.h"

#include <atomic>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace kinetoscope {

enum class RankInputKind { RankFile, Summary, Trace };

struct RankInput {
    std::optional<RankFigures> figures;
    RankInputKind kind = RankInputKind::Trace;
    std::string error;                       // "FILE: reason" when figures is empty
    std::unique_ptr<const TraceStore> trace; // the trace itself, when it was one and keepTrace was asked
};
// `threads`: for a trace, the loader's threads (0: all cores).
RankInput readRankInput(const std::string& path, const std::atomic<bool>* cancel = nullptr,
                        bool keepTrace = false, unsigned threads = 0);

// The files named: each argument a file, or a folder (its files, sorted by name; not its subfolders).
std::vector<std::string> jobFiles(const std::vector<std::string>& arguments,
                                  std::vector<UnreadableFile>& unreadable);
// One path a line (blank lines and lines starting with '#' skipped), relative paths from the list's folder:
// for jobs whose 10,000 paths do not fit on a command line.
std::vector<std::string> readFileList(const std::string& listPath, std::vector<UnreadableFile>& unreadable);

struct JobInputs {
    std::vector<RankFigures> ranks;
    std::vector<std::unique_ptr<const TraceStore>> traces; // beside ranks, when kept: null for non-traces
    std::vector<UnreadableFile> unreadable;
    bool cancelled = false;
};
struct JobReadOptions {
    unsigned threads = 0; // 0: one per core
    bool keepTraces = false;
    const std::atomic<bool>* cancel = nullptr;
    std::function<void(std::size_t done, std::size_t total)> progress = {}; // called from the readers
};
// Reads every file, in the order given (ranks and unreadable files keep it).
JobInputs readJobInputs(const std::vector<std::string>& files, const JobReadOptions& options = {});

} // namespace kinetoscope
