#pragma once

#include "model/tracestore.h"

#include <cstdint>
#include <limits>
#include <vector>

namespace kinetoscope {

// One piece of GPU work (a kernel, copy or memset) joined to the CPU thread's call that launched it.
struct ThreadLaunch {
    TimeNs callStart; // the launch call's start
    EventRef call;
    EventRef work;
};

// The GPU work every CPU thread launched, indexed by track (empty for tracks that are not CPU threads), in
// the order of the launch calls' starts; the pieces one call launched keep their flow order. Only work that
// starts within [workFrom, workTo]. One pass over the store's launch flows, which come sorted by call: a
// thread is sorted again only where its calls sit on several lanes. Used wherever an analysis asks what a
// thread's operators launched (the roofline, kernel sequences, the unfused-attention pattern).
std::vector<std::vector<ThreadLaunch>> launchesByThread(const TraceStore& store,
                                                        TimeNs workFrom = std::numeric_limits<TimeNs>::min(),
                                                        TimeNs workTo = std::numeric_limits<TimeNs>::max());

} // namespace kinetoscope
