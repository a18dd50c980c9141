#pragma once

// Two traces compared (analysis/jobs/diff.h) as `kinetoscope-cli diff` writes them: the report layer writes,
// the jobs layer computes.

#include "analysis/jobs/diff.h"

#include <string>

namespace kinetoscope {

std::string diffToJson(const TraceDiff& diff);
std::string diffToText(const TraceDiff& diff, std::size_t top);

} // namespace kinetoscope
