#pragma once

#include "distributed.h"
#include "kernels.h"
#include "memory.h"
#include "overview.h"
#include "summary.h"

#include "model/jsonwriter.h"

#include <optional>
#include <string>

namespace kinetoscope {

// What `summary` adds to the tables: the overview (steps, breakdown, GPU metrics, recommendations), kernel
// categories and memory peaks. Computed by analyzeReport, shared with the GUI's panels.
struct AnalysisReport {
    Overview overview;
    KernelTable kernels;
    std::map<std::int64_t, MemoryPeak> memory;
    std::vector<std::string> stepNames; // parallel to overview.steps
    RankFigures distributed;            // this trace as one rank of a job
};
AnalysisReport analyzeReport(const TraceStore& store);

// The `--json` document of `kinetoscope-cli summary` (with `report`: steps, utilisation, breakdown,
// categories, memory).
std::string summaryToJson(const Summary& summary, const AnalysisReport* report = nullptr);
// The overview, kernel categories and memory summary as text.
std::string reportToText(const TraceStore& store, const AnalysisReport& report);

struct SummaryTextOptions {
    bool showOperators = true;
    bool showKernels = true;
    std::size_t top = 20;
    std::string sortField; // empty: the default order
};

// Returns nullopt (and sets `error`) for an unknown sort field.
std::optional<std::string> summaryToText(const Summary& summary, const SummaryTextOptions& options,
                                         std::string& error);

// The report of `kinetoscope-cli info`.
std::string importReport(const TraceStore& store, double loadSeconds);

} // namespace kinetoscope
