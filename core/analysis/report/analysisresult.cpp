#include "analysis/report/analysisresult.h"

#include "model/parallel.h"

#include <chrono>

namespace kinetoscope {

std::shared_ptr<AnalysisResult> computeAnalysis(const TraceStore& store,
                                                std::optional<std::pair<TimeNs, TimeNs>> scope,
                                                OperatorGrouping operators, KernelGrouping kernels) {
    const auto started = std::chrono::steady_clock::now();
    auto r = std::make_shared<AnalysisResult>();
    r->scope = scope;
    r->operatorGrouping = operators;
    r->kernelGrouping = kernels;
    const TimeNs from = scope ? scope->first : INT64_MIN;
    const TimeNs to = scope ? scope->second : INT64_MAX;
    // Two independent halves of about equal cost (on the 1 GB trace of bench/RESULTS.md: the operator tables
    // and the roofline, each building every thread's host tree, against the rest).
    parallelInvoke(
        true,
        [&] {
            r->summary = summarize(store, operators, from, to);
            r->perfModel = perfModel(store, from, to);
        },
        [&] {
            r->overview = computeOverview(store, from, to);
            r->kernels = kernelTable(store, kernels, from, to);
            r->memory = analyzeMemory(store, from, to);
            r->facts = runFacts(store);
            r->gpuTime = gpuTimeBreakdown(store, scope);
            r->kernelSequences = kernelSequences(store, {}, 3, from, to);
            r->modules = moduleTree(store, from, to);
            r->inductor = inductorReport(store, from, to);
            r->gpuIdle = gpuIdleBreakdown(store, scope);
            r->launches = launchStatistics(store, scope);
            r->queues = gpuQueues(store);
            for (StreamQueue& q : r->queues)
                q.length = {}; // the lanes draw the series; the report keeps the figures
            if (!scope) r->distributed = rankFigures(store);
        });
    addQueueRecommendations(r->overview, r->queues);
    for (Recommendation& rec : perfModelRecommendations(store, r->perfModel))
        r->overview.recommendations.push_back(std::move(rec));
    for (const StepRange& s : r->overview.steps) {
        r->stepNames.push_back(stepLabel(store, s, scope.has_value()));
    }
    r->seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    return r;
}

} // namespace kinetoscope
