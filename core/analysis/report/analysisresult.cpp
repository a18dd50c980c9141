#include "analysis/report/analysisresult.h"

#include "model/parallel.h"

#include <chrono>

namespace kinetoscope {

std::shared_ptr<AnalysisResult> computeAnalysis(const TraceStore& store,
                                                std::optional<std::pair<TimeNs, TimeNs>> scope,
                                                OperatorGrouping operators, KernelGrouping kernels,
                                                ReportSections sections) {
    const auto started = std::chrono::steady_clock::now();
    auto r = std::make_shared<AnalysisResult>();
    r->scope = scope;
    r->sections = sections;
    const auto wants = [&](ReportSection s) { return has(sections, s); };
    const bool advice = wants(ReportSection::Recommendations);
    r->operatorGrouping = operators;
    r->kernelGrouping = kernels;
    const TimeNs from = scope ? scope->first : INT64_MIN;
    const TimeNs to = scope ? scope->second : INT64_MAX;
    // Two independent halves of about equal cost (on the 237 MB trace of bench/RESULTS.md, one thread each:
    // the memory analysis, 183 ms, against everything else, 66 ms of operator tables and roofline, 77 of
    // overview and 40 of the rest).
    // Without the memory analysis, the operator tables and roofline (each building the host trees) go beside
    // the rest instead.
    const bool memory = wants(ReportSection::Memory);
    const auto operatorsAndRoofline = [&] {
        r->summary = summarize(store, operators, from, to, wants(ReportSection::Operators));
        if (wants(ReportSection::Roofline) || advice) r->perfModel = perfModel(store, from, to);
    };
    parallelInvoke(
        true,
        [&] {
            if (memory)
                r->memory = analyzeMemory(store, from, to);
            else
                operatorsAndRoofline();
        },
        [&] {
            if (memory) operatorsAndRoofline();
            if (wants(ReportSection::Overview) || advice) r->overview = computeOverview(store, from, to);
            if (wants(ReportSection::Kernels)) r->kernels = kernelTable(store, kernels, from, to);
            r->facts = runFacts(store);
            r->import = store.stats();
            const bool waits = wants(ReportSection::GpuWaits);
            if (waits) r->gpuTime = gpuTimeBreakdown(store, scope);
            if (wants(ReportSection::Sequences)) r->kernelSequences = kernelSequences(store, {}, 3, from, to);
            if (sections.all()) r->modules = moduleTree(store, from, to);
            if (wants(ReportSection::Inductor)) r->inductor = inductorReport(store, from, to);
            if (waits) r->gpuIdle = gpuIdleBreakdown(store, scope);
            if (waits) r->launches = launchStatistics(store, scope);
            if (waits || advice) r->queues = gpuQueues(store);
            for (StreamQueue& q : r->queues)
                q.length = {}; // the lanes draw the series; the report keeps the figures
            if (!scope && wants(ReportSection::Distributed)) r->distributed = rankFigures(store);
        });
    if (advice) {
        addQueueRecommendations(r->overview, r->queues);
        for (Recommendation& rec : perfModelRecommendations(store, r->perfModel))
            r->overview.recommendations.push_back(std::move(rec));
    }
    for (const StepRange& s : r->overview.steps) {
        r->stepNames.push_back(stepLabel(store, s, scope.has_value()));
    }
    r->seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    return r;
}

void attachCriticalPath(AnalysisResult& report, StepCriticalPath path) {
    if (auto advice = criticalPathRecommendation(path))
        report.overview.recommendations.push_back(std::move(*advice));
    report.criticalPath = std::move(path);
}

} // namespace kinetoscope
