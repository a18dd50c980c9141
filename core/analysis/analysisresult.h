#pragma once

#include "kernels.h"
#include "memory.h"
#include "modules.h"
#include "overview.h"
#include "summary.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace kinetoscope {

// Every analysis the GUI's panels show, for one scope (the whole trace or a selected range): the same
// functions the CLI prints. computeAnalysis runs them on two threads (the viewer calls it off its UI thread).
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

std::shared_ptr<AnalysisResult> computeAnalysis(const TraceStore& store,
                                                std::optional<std::pair<TimeNs, TimeNs>> scope,
                                                OperatorGrouping operators, KernelGrouping kernels);

} // namespace kinetoscope
