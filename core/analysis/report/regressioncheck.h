#pragma once

// `kinetoscope-cli check BASE NEW`: a verdict for CI (issue 64). Each run's figures (its median step, each
// kernel's and operator's time per step, GPU idle time and exposed communication per step, the memory peak)
// are taken from the one report; with several runs a side, the medians are compared, and a change is a
// regression only when it crosses both the relative and the absolute threshold of its budget and stands out
// of the noise: the runs' spread and each run's step-to-step variation (docs/CHECK.md).

#include "analysis/report/analysisresult.h"

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kinetoscope {

// A figure of one run: its value per step, and the step-to-step series it comes from (when the run has
// ProfilerSteps): the series' robust spread is the run's own noise.
struct StepFigure {
    double value = 0;          // ns (bytes for memory): the median over the steps, or the mean per step
    std::vector<double> steps; // one value a step (empty: no series)
    double noise() const;      // 1.4826 x the median absolute deviation of `steps` (0 under 3 steps)
};

// One run's figures, with where each shows (a kinetoscope:// link into that run's trace).
struct RunFigures {
    std::string path;
    std::uint32_t steps = 1;
    StepFigure stepTime;      // the step's length
    StepFigure gpuIdle;       // the GPU streams' idle time between their work, per step
    StepFigure communication; // communication no compute hid, per step
    double memoryPeak = 0;    // bytes: the largest allocated peak of any device
    bool hasMemory = false;
    struct Named {
        StepFigure figure;
        std::string link; // its longest call
    };
    // GPU time per step, by kernel name; communication kernels are judged through `communication` (their
    // time is mostly waiting for the other ranks).
    std::map<std::string, Named> kernels;
    std::map<std::string, Named> operators;   // device self time per step, of the operators that run GPU work
    std::map<std::string, Named> collectives; // communication kernels: which one an exposed-communication
                                              // regression names
    std::string stepLink, memoryLink, traceLink;
};

// The figures of a loaded run (its report needs the overview, operators, kernels, memory and GPU waits).
RunFigures runFigures(const TraceStore& store, const AnalysisResult& report, const std::string& path);

// What counts as a regression of one figure: more than `relative` (a fraction) and more than `absolute`
// (ns, or bytes for memory) above the baseline.
struct Threshold {
    double relative = 0.1;
    double absolute = 0;
};

struct Budget {
    Threshold stepTime{0.05, 200e3};
    Threshold kernel{0.10, 20e3};
    Threshold operatorTime{0.25, 200e3}; // a second lens on the kernels, without their step-to-step noise
    Threshold gpuIdle{0.10, 200e3};
    Threshold communication{0.25, 500e3}; // waits on other ranks vary from step to step
    Threshold memory{0.05, 64.0 * 1024 * 1024};
    // Kernels and operators below this share of the baseline's step are not judged one by one (their
    // changes show in the step time): thousands of tiny rows would make false alarms of noise.
    double minShare = 0.01;
};

// A budget file (JSON): {"step_time": {"relative": 0.05, "absolute_us": 200}, "kernel": {...},
// "operator": {...}, "gpu_idle": {...}, "exposed_communication": {...}, "memory_peak": {"relative": 0.05,
// "absolute_mib": 64}, "min_share": 0.01}; any member may be left out (the default stays). nullopt and
// `error` (with the byte offset) when the file is not one.
std::optional<Budget> parseBudget(std::string_view json, std::string& error);

struct Finding {
    std::string
        metric;       // "step_time", "kernel", "operator", "gpu_idle", "exposed_communication", "memory_peak"
    std::string name; // the kernel's or operator's name; empty for the others
    double base = 0, changed = 0; // medians over the runs (ns, or bytes for memory_peak)
    // The noise it must stand out of: twice the larger of the runs' own step-to-step noise, or the spread
    // (max - min) of the runs' values on either side, whichever is larger.
    double spread = 0;
    Threshold threshold;
    std::string link; // where it shows in a new run
    double change() const { return changed - base; }
    double relativeChange() const { return base > 0 ? change() / base : 0; }
    bool isMemory() const { return metric == "memory_peak"; }
};

struct CheckReport {
    std::vector<std::string> basePaths, newPaths;
    std::vector<Finding> regressions; // largest change first
    std::vector<Finding> improvements;
    std::size_t kernelsJudged = 0, operatorsJudged = 0;
    double baseStep = 0, newStep = 0;
    bool passed() const { return regressions.empty(); }
};

CheckReport checkRuns(const std::vector<RunFigures>& base, const std::vector<RunFigures>& changed,
                      const Budget& budget);

} // namespace kinetoscope
