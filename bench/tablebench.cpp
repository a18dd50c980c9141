// kinetoscope-bench-tables TRACE
//
// Times every analysis the panels and `kinetoscope-cli summary` compute, over the whole trace and over a 10%
// window, each run three times (the best is printed): operators, kernels, overview (steps, breakdown, GPU
// metrics, rules), memory and modules. Prints `total_ms=<x>` (whole trace, sum of the best runs) last.
#include "analysis/analysisresult.h"
#include "analysis/kernels.h"
#include "analysis/memory.h"
#include "analysis/modules.h"
#include "analysis/overview.h"
#include "analysis/summary.h"
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
    // What the panels and the CLI actually run: all of it, on two threads.
    const double parallel =
        bestOf3([&] { computeAnalysis(s, std::nullopt, OperatorGrouping::Name, KernelGrouping::Name); });
    std::printf("sequential sum %.1f ms; computeAnalysis (two threads, whole trace) %.1f ms\n", total,
                parallel);
    std::printf("total_ms=%.1f\n", parallel);
    return 0;
}
