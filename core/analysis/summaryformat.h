#pragma once

#include "summary.h"

#include <optional>
#include <string>

namespace kinetoscope {

// Microseconds with exactly three decimals ("12.345"): integer nanoseconds never go through a double.
std::string formatMicros(TimeNs ns);
std::string jsonEscape(std::string_view text);

// The `--json` document of `kinetoscope-cli summary`.
std::string summaryToJson(const Summary& summary);

struct SummaryTextOptions {
    bool showOperators = true;
    bool showKernels = true;
    std::size_t top = 20;
    std::string sortField; // empty: the default order
};

// Returns nullopt (and sets `error`) for an unknown sort field.
std::optional<std::string> summaryToText(const Summary& summary, const SummaryTextOptions& options, std::string& error);

// The report of `kinetoscope-cli info`.
std::string importReport(const TraceStore& store, double loadSeconds);

} // namespace kinetoscope
