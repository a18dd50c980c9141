#pragma once

// The one entry for opening a trace file of any kind Kinetoscope reads: Chrome/Kineto JSON (plain or gzip,
// through the importer) or a live-capture spool or raw capture (through live). It sits above both so neither
// knows the other.

#include "import/traceloader.h"

#include <string>

namespace kinetoscope {

LoadResult loadTrace(const std::string& path, const LoadOptions& options = {});
// The second half of loadTrace, for a caller that read the file itself to look at it first
// (open/rankinput.h).
LoadResult loadReadTrace(TraceText file, const LoadOptions& options);
// Why `path` is no trace at all, judged from its first bytes (a memory snapshot); empty when it may be one.
std::string notATraceReason(const std::string& path);

} // namespace kinetoscope
