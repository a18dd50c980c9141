#pragma once

#include "analysis/report/analysisresult.h"

#include "model/jsonwriter.h"

#include <optional>
#include <string>

namespace kinetoscope {

// How many rows the JSON gives of its two long tables (the kernel sequences and the operators no perf model
// covers), largest first; every other table is whole. The Python module asks for every row.
inline constexpr std::size_t summaryJsonLongTableRows = 20;

// The `--json` document of `kinetoscope-cli summary` (with `report`: steps, utilisation, breakdown,
// categories, memory).
std::string summaryToJson(const Summary& summary, const AnalysisResult* report = nullptr,
                          std::size_t longTableRows = summaryJsonLongTableRows);
// {"critical_path": ...} as summaryToJson writes it, alone.
std::string criticalPathToJson(const StepCriticalPath& path);
// The overview, kernel categories and memory summary as text.
std::string reportToText(const AnalysisResult& report);

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
