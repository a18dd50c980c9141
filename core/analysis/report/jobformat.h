#pragma once

// The job report (`kinetoscope-cli job`): as JSON, and as text with the top rows of each table.

#include "analysis/jobs/job.h"

#include <string>

namespace kinetoscope {

inline constexpr int jobReportVersion = 1;
std::string jobReportJson(const JobReport& job);
std::string jobReportText(const JobReport& job, std::size_t top = 20);

} // namespace kinetoscope
