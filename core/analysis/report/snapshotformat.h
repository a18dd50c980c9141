#pragma once

// The memory snapshot report (analysis/memory/snapshotreport.h) as the CLI writes it: the report layer
// writes, the memory layer computes.

#include "analysis/memory/snapshotreport.h"

#include <string>

namespace kinetoscope {

// The report as the CLI's JSON (the keys the memory-snapshot issue fixes) and as readable text.
std::string snapshotReportJson(const MemorySnapshot& snapshot, const SnapshotReport& report);
std::string snapshotReportText(const MemorySnapshot& snapshot, const SnapshotReport& report);

} // namespace kinetoscope
