// kinetoscope-bench-analyses TRACE [ROUNDS]
//
// Where a report's time goes: loads TRACE once, then times each analysis computeAnalysis can run, alone and
// on one thread, against the load; then the whole report (every section, computeAnalysis's two halves in
// parallel) and the text and JSON writers. Prints one line per figure: `name ms ratio_to_load`.
#include "analysis/compiled/inductor.h"
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
#include "analysis/report/analysisresult.h"
#include "analysis/report/summaryformat.h"
#include "analysis/roofline/roofline.h"
#include "open/opentrace.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>

using namespace kinetoscope;

namespace {
double timeMs(const std::function<void()>& f) {
    const auto t0 = std::chrono::steady_clock::now();
    f();
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}
} // namespace

int main(int argc, char** argv) {
    if (argc < 2) {
        std::fprintf(stderr, "usage: kinetoscope-bench-analyses TRACE [ROUNDS]\n");
        return 2;
    }
    const int rounds = argc > 2 ? std::atoi(argv[2]) : 2;
    std::unique_ptr<const TraceStore> store;
    double load = 0;
    for (int round = 0; round < rounds; ++round) {
        load = timeMs([&] {
            LoadResult r = loadTrace(argv[1]);
            if (!r.ok()) {
                std::fprintf(stderr, "%s\n", r.message(argv[1]).c_str());
                std::exit(1);
            }
            store = std::move(r.store);
        });
        std::printf("round %d\n%-22s %8.0f ms  1.00\n", round + 1, "load", load);
        const TraceStore& s = *store;
        const std::pair<const char*, std::function<void()>> analyses[] = {
            {"summarize", [&] { (void)summarize(s); }},
            {"perfModel", [&] { (void)perfModel(s); }},
            {"computeOverview", [&] { (void)computeOverview(s); }},
            {"kernelTable", [&] { (void)kernelTable(s); }},
            {"analyzeMemory", [&] { (void)analyzeMemory(s); }},
            {"runFacts", [&] { (void)runFacts(s); }},
            {"gpuTimeBreakdown", [&] { (void)gpuTimeBreakdown(s); }},
            {"kernelSequences", [&] { (void)kernelSequences(s, {}, 3); }},
            {"moduleTree", [&] { (void)moduleTree(s); }},
            {"inductorReport", [&] { (void)inductorReport(s); }},
            {"gpuIdleBreakdown", [&] { (void)gpuIdleBreakdown(s); }},
            {"launchStatistics", [&] { (void)launchStatistics(s); }},
            {"gpuQueues", [&] { (void)gpuQueues(s); }},
            {"rankFigures", [&] { (void)rankFigures(s); }},
        };
        for (const auto& [name, run] : analyses) {
            const double ms = timeMs(run);
            std::printf("%-22s %8.0f ms  %.2f\n", name, ms, ms / load);
        }
        std::shared_ptr<AnalysisResult> report;
        const double all = timeMs(
            [&] { report = computeAnalysis(s, std::nullopt, OperatorGrouping::Name, KernelGrouping::Name); });
        std::printf("%-22s %8.0f ms  %.2f\n", "computeAnalysis (all)", all, all / load);
        const double json = timeMs([&] { (void)summaryToJson(report->summary, report.get()); });
        std::printf("%-22s %8.0f ms  %.2f\n", "summaryToJson", json, json / load);
        const double text = timeMs([&] { (void)reportToText(*report); });
        std::printf("%-22s %8.0f ms  %.2f\n", "reportToText", text, text / load);
    }
    return 0;
}
