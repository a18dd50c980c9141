#pragma once

// The perf model (roofline.h) in the summary report: JSON members and the text table. summaryformat.cpp
// calls these; they are apart only to keep each file readable.

#include "analysis/roofline/roofline.h"

#include "model/jsonwriter.h"

#include <string>

namespace kinetoscope {

// "perf_model_gpu", "perf_model" (one entry per op + input shapes + dtypes), "perf_model_coverage" and
// "perf_model_not_modelled" (its first `notModelledRows`), as members of the object being written.
void writePerfModel(JsonWriter<std::string>& w, const PerfModelReport& report,
                    std::size_t notModelledRows = 20);
// "Closest to peak" and "farthest from peak" (by the GPU time it would save), a few lines each.
std::string perfModelText(const PerfModelReport& report);

} // namespace kinetoscope
