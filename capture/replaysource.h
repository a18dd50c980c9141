#pragma once

#include "activitysource.h"

#include <memory>
#include <string>

namespace kinetoscope::capture {

// Plays a wire stream back as if CUPTI delivered it: a trace converted by live::traceAsWireStream (the viewer
// and the CLI do that before starting the target, so the agent needs nothing but the wire format) or a saved
// capture. Each record is handed over when its end time comes round, keeping the stream's relative timing
// divided by `speed`, from the first replayed work's start; speed 0 plays as fast as the agent can take them
// (and then waits for room rather than dropping). The file is read at start(), which fails with a one-line
// reason naming it.
std::unique_ptr<ActivitySource> makeReplaySource(std::string streamPath, double speed);
// The same for a stream already in memory (tests and benchmarks).
std::unique_ptr<ActivitySource> makeReplaySourceFromStream(std::string stream, double speed);

} // namespace kinetoscope::capture
