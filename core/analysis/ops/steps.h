#pragma once

#include "model/tracestore.h"

#include <string>
#include <vector>

namespace kinetoscope {

// A training step: a `ProfilerStep#N` range on the host moved to the GPU work launched inside it, by the
// TensorBoard plugin's rules (docs/DEFINITIONS.md, "Steps"): extended to the end of that work, starting no
// earlier than the previous step's end nor, for the first, than the end of GPU work no step launched.
struct StepRange {
    StringId name;
    EventRef slice; // the ProfilerStep slice
    TimeNs cpuStart = 0;
    TimeNs cpuEnd = 0;
    TimeNs start = 0; // after clamping to the previous step's end (or, for the first, to earlier GPU work)
    TimeNs end = 0;   // extended to the GPU work it launched
};

// Steps in time order; empty when the trace has no ProfilerStep ranges. Tail steps whose GPU work was not
// captured are left out, as the plugin leaves them out.
std::vector<StepRange> findSteps(const TraceStore& store);

// The one step of a trace without ProfilerStep ranges, within [from, to]: from the first CPU operator or
// Python frame to the last, stretched to the end of the GPU work launched in between (not the profiler's own
// `Trace` span, and not idle time before the first op). A trace with no CPU operators or Python frames spans
// everything in [from, to].
StepRange activityStep(const TraceStore& store, TimeNs from, TimeNs to);

// The one naming rule for steps, in every table and report: a ProfilerStep's own name; the activity step of a
// whole trace is "(activity)", of a selected range "(selection)".
std::string stepLabel(const TraceStore& store, const StepRange& step, bool selection = false);

} // namespace kinetoscope
