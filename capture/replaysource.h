#pragma once

#include "activitysource.h"

#include <memory>
#include <string>

namespace kinetoscope::capture {

// Plays a Kineto trace's GPU and runtime events back as the records CUPTI would deliver: kernels, memcpy, memset,
// runtime/driver calls (with their External ids), syncs, user annotations as NVTX ranges, and the devices. Each
// record is handed over when its end time comes round, keeping the trace's relative timing divided by `speed`;
// speed 0 plays as fast as the agent can take them (and then waits for room rather than dropping).
std::unique_ptr<ActivitySource> makeReplaySource(std::string tracePath, double speed);

} // namespace kinetoscope::capture
