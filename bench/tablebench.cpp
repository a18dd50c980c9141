// kinetoscope-bench-tables TRACE
//
// Times every analysis the panels and `kinetoscope-cli summary` compute, over the whole trace and over a 10%
// window, each run three times (the best is printed): operators, kernels, overview (steps, breakdown, GPU
// metrics, rules), memory and modules. Then HTA's analyses (idle breakdown, launch statistics, launch queues,
// temporal breakdown, and the lanes: utilisation, queue, bandwidth) against the rest, and the critical path
// of the step of median length and of the slowest step. Prints `total_ms=<x>` (computeAnalysis, whole trace)
// last.
#include "analysis/gpu/criticalpath.h"
#include "analysis/gpu/gpuseries.h"
#include "analysis/gpu/kernelsequences.h"
#include "analysis/memory/memory.h"
#include "analysis/ops/kernels.h"
#include "analysis/ops/modules.h"
#include "analysis/ops/steps.h"
#include "analysis/ops/summary.h"
#include "analysis/overview/overview.h"
#include "analysis/report/analysisresult.h"
#include "analysis/roofline/roofline.h"
#include "open/opentrace.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>

using namespace kinetoscope;

namespace {
double bestOf3(const std::function<void()>& fn) {
    double best = 1e30;
    for (int i = 0; i < 3; ++i) {
        const auto a = std::chrono::steady_clock::now();
        fn();
        best = std::min(
            best, std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - a).count());
    }
    return best;
}
} // namespace

int main(int argc, char** argv) {
    if (argc != 2) {
        std::fprintf(stderr, "usage: kinetoscope-bench-tables TRACE\n");
        return 2;
    }
    LoadResult r = loadTrace(argv[1]);
    if (!r.ok()) {
        std::fprintf(stderr, "%s\n", r.message(argv[1]).c_str());
        return 1;
    }
    const TraceStore& s = *r.store;
    std::printf("trace: %s\nevents: %llu, slices: %zu, loaded in %.2f s\n", argv[1],
                static_cast<unsigned long long>(s.stats().eventsSeen), s.sliceCount(), r.seconds);
    const TimeNs span = s.maxTime() - s.minTime();
    struct Scope {
        const char* name;
        TimeNs from, to;
    } scopes[] = {{"whole trace", INT64_MIN, INT64_MAX},
                  {"10% window", s.minTime() + span / 2, s.minTime() + span / 2 + span / 10}};
    double total = 0;
    for (const Scope& sc : scopes) {
        const double ops = bestOf3([&] { summarize(s, OperatorGrouping::Name, sc.from, sc.to); });
        const double kernels = bestOf3([&] { kernelTable(s, KernelGrouping::Name, sc.from, sc.to); });
        const double overview = bestOf3([&] { computeOverview(s, sc.from, sc.to); });
        const double memory = bestOf3([&] { analyzeMemory(s, sc.from, sc.to); });
        const double modules = bestOf3([&] { moduleTree(s, sc.from, sc.to); });
        const double sum = ops + kernels + overview + memory + modules;
        std::printf("%-12s operators %7.1f ms  kernels %7.1f ms  overview %7.1f ms  memory %6.1f ms  modules "
                    "%6.1f ms  = %7.1f ms\n",
                    sc.name, ops, kernels, overview, memory, modules, sum);
        if (&sc == &scopes[0]) total = sum;
    }
    // HTA's analyses, whole trace: what they add to the rest (the sequential sum above).
    const double idle = bestOf3([&] { gpuIdleBreakdown(s); });
    const double launches = bestOf3([&] { launchStatistics(s); });
    const double queues = bestOf3([&] { gpuQueues(s); });
    const double time = bestOf3([&] { gpuTimeBreakdown(s); });
    const double sequences = bestOf3([&] { kernelSequences(s); });
    const double lanes = bestOf3([&] {
        gpuActivityTracks(s);
        gpuQueueTracks(s);
        gpuBandwidthTracks(s);
    });
    const double hta = idle + launches + queues + time + sequences + lanes;
    std::printf(
        "HTA analyses: idle %.1f ms  launches %.1f ms  queues %.1f ms  temporal %.1f ms  sequences %.1f ms  "
        "lanes %.1f ms  = %.1f ms, %.1f%% of the rest (%.1f ms)\n",
        idle, launches, queues, time, sequences, lanes, hta, 100 * hta / total, total);
    // The critical path of one step: the step of median length (the summary's default) and the longest.
    std::string error;
    const double median = bestOf3([&] { stepCriticalPath(s, std::nullopt, error); });
    const std::vector<StepRange> steps = findSteps(s);
    double longest = 0;
    if (!steps.empty()) {
        const StepRange& big =
            *std::max_element(steps.begin(), steps.end(), [](const auto& a, const auto& b) {
                return a.cpuEnd - a.cpuStart < b.cpuEnd - b.cpuStart;
            });
        longest = bestOf3([&] { criticalPathOfStep(s, big); });
    }
    const auto cp = stepCriticalPath(s, std::nullopt, error);
    std::printf(
        "critical path: step of median length %.1f ms (%s: %zu events on the path, graph of %u nodes), "
        "longest step %.1f ms; %zu steps\n",
        median, cp ? cp->step.c_str() : "-", cp ? cp->events.size() : 0, cp ? cp->path.graphNodes : 0,
        longest, steps.size());
    // The roofline's perf model: every modelled call's args decoded, its GPU work's union (whole trace).
    const double roofline = bestOf3([&] { perfModel(s); });
    const PerfModelReport pm = perfModel(s);
    std::printf(
        "roofline: %.1f ms, %.1f%% of the rest; %llu calls modelled in %zu rows, %.1f%% of GPU time\n",
        roofline, 100 * roofline / total, static_cast<unsigned long long>(pm.modelledCalls), pm.rows.size(),
        100 * pm.coverage());
    // What the panels and the CLI actually run: all of it, on two threads.
    const double parallel =
        bestOf3([&] { computeAnalysis(s, std::nullopt, OperatorGrouping::Name, KernelGrouping::Name); });
    std::printf("sequential sum %.1f ms; computeAnalysis (two threads, whole trace) %.1f ms\n", total,
                parallel);
    std::printf("total_ms=%.1f\n", parallel);
    return 0;
}
