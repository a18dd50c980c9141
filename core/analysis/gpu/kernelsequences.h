#pragma once

// Frequent kernel sequences, as HTA finds them (get_frequent_cuda_kernel_sequences; docs/DEFINITIONS.md,
// "Frequent kernel sequences"): the GPU work an operator launches, in order, grouped by operator and
// sequence. An operator that launches the same several kernels again and again is a candidate for fusing
// them.

#include "model/tracestore.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace kinetoscope {

struct KernelSequence {
    std::string op;                // the operator's name
    std::vector<std::string> work; // the kernels, copies and memsets launched inside it, in start order
    std::uint64_t count = 0;       // operator calls that launched exactly this
    TimeNs gpuTime = 0;            // the sum of that GPU work's durations, over the calls
    TimeNs cpuTime = 0;            // the sum of the calls' durations
    EventRef example;              // the longest call
};

// Operators (cpu_op) whose name contains `operatorName` (every operator when empty) that start in [from, to],
// each name taken at the shallowest depth it occurs at (so an operator nested in another of its name is not
// counted twice), with at least `minLength` GPU events launched inside. With a name, in HTA's order (most
// frequent first, then by name); without, the whole trace's by GPU time.
std::vector<KernelSequence> kernelSequences(const TraceStore& store, std::string_view operatorName = {},
                                            std::size_t minLength = 3, TimeNs from = INT64_MIN,
                                            TimeNs to = INT64_MAX);

} // namespace kinetoscope
