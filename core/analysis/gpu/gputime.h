#pragma once

// What each GPU spends its time on, as HTA's temporal breakdown measures it and a little finer
// (docs/DEFINITIONS.md, "GPU time by kind"): from its first GPU event to its last, how long it was idle, and
// how long it ran compute kernels, communication kernels and memory copies/sets, each kind counted as the
// union of its events (concurrent streams counted once), with the time compute overlapped the others.

#include "model/tracestore.h"

#include <optional>
#include <utility>
#include <vector>

namespace kinetoscope {

struct DeviceTime {
    std::optional<std::int64_t> rank; // distributedInfo.rank
    std::int64_t device = 0;
    TimeNs span = 0;          // first GPU event's start to the last one's end (HTA's kernel_time)
    TimeNs idle = 0;          // span − busy: no kernel, copy or memset running (HTA's idle_time)
    TimeNs compute = 0;       // union of compute kernels (HTA's compute_time)
    TimeNs communication = 0; // union of communication kernels (NCCL/RCCL collectives, ...)
    TimeNs memory = 0;        // union of memcpy and memset
    TimeNs overlap = 0;       // compute running at the same time as communication or memory
    TimeNs busy() const { return span - idle; }
};

// Per device with GPU work (kernels, memcpy, memset; not sync events), in device order. With a scope, the
// events that start in it.
std::vector<DeviceTime> gpuTimeBreakdown(const TraceStore& store,
                                         std::optional<std::pair<TimeNs, TimeNs>> scope = std::nullopt);

} // namespace kinetoscope
