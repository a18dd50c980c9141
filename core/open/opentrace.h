#pragma once

// The one entry for opening a trace file of any kind Kinetoscope reads: Chrome/Kineto JSON (plain or gzip,
// through the importer) or a live-capture spool or raw capture (through live). It sits above both so neither
// knows the other.

#include "import/traceloader.h"

#include <string>

namespace kinetoscope {

LoadResult loadTrace(const std::string& path, const LoadOptions& options = {});

} // namespace kinetoscope
