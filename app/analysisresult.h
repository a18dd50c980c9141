#pragma once

#include "analysis/kernels.h"
#include "analysis/memory.h"
#include "analysis/modules.h"
#include "analysis/overview.h"
#include "analysis/summary.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace kinetoscope {

// Every analysis the panels show, for one scope (the whole trace or a selected range), computed off the UI thread
// by the same core functions the CLI prints.
struct AnalysisResult {
    std::optional<std::pair<TimeNs, TimeNs>> scope; // none: the whole trace
    OperatorGrouping operatorGrouping = OperatorGrouping::Name;
    KernelGrouping kernelGrouping = KernelGrouping::Name;
    Summary summary;
    Overview overview;
    std::vector<std::string> stepNames;
    KernelTable kernels;
    MemoryAnalysis memory;
    ModuleTree modules;
    RunFacts facts;
    double seconds = 0;
};

std::shared_ptr<AnalysisResult> computeAnalysis(const TraceStore& store, std::optional<std::pair<TimeNs, TimeNs>> scope,
                                                OperatorGrouping operators, KernelGrouping kernels);

} // namespace kinetoscope
