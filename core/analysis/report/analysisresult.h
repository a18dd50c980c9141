#pragma once

#include "analysis/compiled/inductor.h"
#include "analysis/gpu/criticalpath.h"
#include "analysis/gpu/gpuidle.h"
#include "analysis/gpu/gpuqueue.h"
#include "analysis/gpu/gputime.h"
#include "analysis/gpu/kernelsequences.h"
#include "analysis/jobs/distributed.h"
#include "analysis/memory/memory.h"
#include "analysis/ops/kernels.h"
#include "analysis/ops/modules.h"
#include "analysis/ops/summary.h"
#include "analysis/overview/overview.h"
#include "analysis/report/reportsections.h"
#include "analysis/roofline/roofline.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace kinetoscope {

// The one report: every analysis for one scope (the whole trace or a selected range), what the GUI's panels
// show and what `kinetoscope-cli summary` prints (summaryformat.h writes it as text or JSON). computeAnalysis
// runs them on two threads (the viewer calls it off its UI thread).
struct AnalysisResult {
    std::optional<std::pair<TimeNs, TimeNs>> scope; // none: the whole trace
    ReportSections sections = allReportSections();  // what was computed (the rest is left empty)
    OperatorGrouping operatorGrouping = OperatorGrouping::Name;
    KernelGrouping kernelGrouping = KernelGrouping::Name;
    Summary summary;
    Overview overview;
    std::vector<std::string> stepNames; // parallel to overview.steps, named by stepLabel
    KernelTable kernels;
    MemoryAnalysis memory;
    ModuleTree modules;
    RunFacts facts;
    ImportStats import;      // what the loader read, skipped and repaired (the JSON's "run" header)
    RankFigures distributed; // this trace as one rank of a job (whole trace only)
    std::vector<StreamIdle> gpuIdle;
    std::vector<DeviceTime> gpuTime;
    LaunchStatistics launches;
    std::vector<StreamQueue> queues;             // the whole trace's, whatever the scope
    std::vector<KernelSequence> kernelSequences; // over every operator, by GPU time
    PerfModelReport perfModel;                   // FLOPs and bytes per op against the GPU's peaks
    InductorReport inductor;                     // TorchInductor's kernel breakdown (compiled models)
    // One step's, when the caller asks for it (the CLI's summary does; computeAnalysis does not).
    std::optional<StepCriticalPath> criticalPath;
    double seconds = 0;
};

// Gives the report one step's critical path, and the advice that path gives (criticalPathRecommendation).
void attachCriticalPath(AnalysisResult& report, StepCriticalPath path);

// Only the analyses `sections` need (the viewer asks for all of them; the module tree, which only it shows,
// comes with all of them only).
std::shared_ptr<AnalysisResult> computeAnalysis(const TraceStore& store,
                                                std::optional<std::pair<TimeNs, TimeNs>> scope,
                                                OperatorGrouping operators, KernelGrouping kernels,
                                                ReportSections sections = allReportSections());

} // namespace kinetoscope
