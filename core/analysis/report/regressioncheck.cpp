#include "regressioncheck.h"

#include "analysis/ops/kernelclass.h"
#include "model/viewlink.h"

#include <simdjson.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <set>

namespace kinetoscope {

namespace {

std::string linkTo(const TraceStore& store, const std::string& path, EventRef ref) {
    ViewLink link;
    link.files = {path};
    if (ref.isValid()) {
        const TimeNs start = store.track(ref.track).starts[ref.index.value];
        link.range = std::pair{start, start + std::max<TimeNs>(store.durationOf(ref), 1)};
        link.select = sliceIdOf(store, ref);
    }
    return viewLinkUrl(link);
}

double median(std::vector<double> v) {
    if (v.empty()) return 0;
    std::sort(v.begin(), v.end());
    const std::size_t n = v.size();
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

double spread(const std::vector<double>& v) {
    if (v.size() < 2) return 0;
    const auto [lo, hi] = std::minmax_element(v.begin(), v.end());
    return *hi - *lo;
}

} // namespace

double StepFigure::noise() const {
    if (steps.size() < 3) return 0;
    const double center = median(steps);
    std::vector<double> deviations;
    for (const double v : steps)
        deviations.push_back(std::fabs(v - center));
    return 1.4826 * median(deviations);
}

namespace {

// A figure from its total and its per-step series: the series' median when there are three steps or more
// (one slow first step does not move it), else the mean per step.
StepFigure figureOf(double total, std::uint32_t steps, std::vector<double> series) {
    StepFigure f;
    f.value = series.size() >= 3 ? median(series) : total / std::max<std::uint32_t>(steps, 1);
    f.steps = std::move(series);
    return f;
}

// The step holding `t` (steps are disjoint and in order), or -1.
int stepAt(const std::vector<StepRange>& steps, TimeNs t) {
    const auto it = std::upper_bound(steps.begin(), steps.end(), t,
                                     [](TimeNs v, const StepRange& s) { return v < s.start; });
    if (it == steps.begin()) return -1;
    return t < std::prev(it)->end ? int(std::prev(it) - steps.begin()) : -1;
}

} // namespace

RunFigures runFigures(const TraceStore& store, const AnalysisResult& report, const std::string& path) {
    RunFigures f;
    f.path = path;
    const Overview& ov = report.overview;
    // A series a step when there are three steps or more to take a median and a spread of.
    const std::size_t n = !ov.syntheticStep && ov.steps.size() >= 3 ? ov.steps.size() : 0;
    f.steps = std::uint32_t(std::max<std::size_t>(ov.steps.size(), 1));
    std::vector<double> lengths, exposed;
    for (std::size_t i = 0; i < n; ++i)
        lengths.push_back(double(ov.steps[i].end - ov.steps[i].start));
    for (std::size_t i = 0; i < n && i < ov.breakdown.size(); ++i)
        exposed.push_back(double(ov.breakdown[i].time[std::size_t(BreakdownCategory::Communication)]));
    f.stepTime.value = double(ov.stepMedian); // the report's median step
    f.stepTime.steps = std::move(lengths);
    TimeNs idle = 0;
    for (const StreamIdle& s : report.gpuIdle)
        idle += s.idle();
    f.gpuIdle = figureOf(double(idle), f.steps, {});
    f.communication = figureOf(double(ov.breakdownTotal[std::size_t(BreakdownCategory::Communication)]),
                               f.steps, std::move(exposed));
    ViewLink whole;
    whole.files = {path};
    f.traceLink = viewLinkUrl(whole);
    // The slowest step: where a longer step shows.
    const StepRange* slowest = nullptr;
    for (const StepRange& s : ov.steps)
        if (!slowest || s.end - s.start > slowest->end - slowest->start) slowest = &s;
    ViewLink step = whole;
    if (slowest && slowest->end > slowest->start) step.range = std::pair{slowest->start, slowest->end};
    f.stepLink = viewLinkUrl(step);
    for (const auto& [device, peak] : report.memory.peaks) {
        if (device < 0 || peak.relative) continue; // the GPUs' absolute peaks
        if (!f.hasMemory || peak.allocated > f.memoryPeak) {
            f.memoryPeak = peak.allocated;
            f.memoryLink = linkTo(store, path, peak.at);
        }
        f.hasMemory = true;
    }

    // Each kernel name's longest launch (its link) and its time in each step (by the kernel's start).
    std::map<std::string_view, EventRef> longest;
    std::map<std::string_view, std::vector<double>> perStep;
    for (std::uint32_t t = 0; t < store.tracks().size(); ++t) {
        const Track& track = store.tracks()[t];
        if (track.kind != TrackKind::GpuStream) continue;
        for (std::uint32_t i = 0; i < track.sliceCount(); ++i) {
            const EventRef ref{TrackId(t), EventIndex(i)};
            if (store.categoryOf(ref).kind != CategoryKind::Kernel) continue;
            const std::string_view name = store.nameOf(ref);
            store.keepLongest(longest[name], ref);
            if (n == 0) continue;
            const int at = stepAt(ov.steps, track.starts[i]);
            auto& steps = perStep[name];
            steps.resize(n);
            if (at >= 0) steps[std::size_t(at)] += double(track.durations[i]);
        }
    }
    for (const KernelRow& k : report.summary.kernels) {
        const bool collective = kernelCategory(k.name) == KernelCategory::Communication;
        const auto it = longest.find(k.name);
        const auto steps = perStep.find(k.name);
        (collective ? f.collectives : f.kernels)[k.name] = {
            figureOf(double(k.total), f.steps,
                     steps == perStep.end() ? std::vector<double>{} : steps->second),
            linkTo(store, path, it == longest.end() ? EventRef{} : it->second)};
    }
    // Operators by the GPU time they own; host-only ones (allocator calls, views) vary with the CPU's
    // scheduling, and show in the step time when they matter.
    for (const OperatorRow& op : report.summary.operators)
        if (op.deviceSelf > 0)
            f.operators[op.name] = {figureOf(double(op.deviceSelf), f.steps, {}),
                                    linkTo(store, path, op.example)};
    return f;
}

std::optional<Budget> parseBudget(std::string_view json, std::string& error) {
    simdjson::dom::parser parser;
    simdjson::dom::object root;
    const simdjson::padded_string text(json);
    if (const auto e = parser.parse(text).get(root)) {
        error = std::string("not a JSON object: ") + simdjson::error_message(e);
        return std::nullopt;
    }
    Budget budget;
    const std::pair<std::string_view, Threshold*> members[] = {
        {"step_time", &budget.stepTime},
        {"kernel", &budget.kernel},
        {"operator", &budget.operatorTime},
        {"gpu_idle", &budget.gpuIdle},
        {"exposed_communication", &budget.communication},
        {"memory_peak", &budget.memory}};
    for (const auto field : root) {
        if (field.key == "min_share") {
            if (field.value.get(budget.minShare) || budget.minShare < 0 || budget.minShare >= 1) {
                error = "min_share must be a fraction between 0 and 1";
                return std::nullopt;
            }
            continue;
        }
        Threshold* threshold = nullptr;
        for (const auto& [name, t] : members)
            if (field.key == name) threshold = t;
        simdjson::dom::object o;
        if (!threshold || field.value.get(o)) {
            error =
                "unknown member '" + std::string(field.key) +
                "' (step_time, kernel, operator, gpu_idle, exposed_communication, memory_peak, min_share)";
            return std::nullopt;
        }
        const bool memory = threshold == &budget.memory;
        for (const auto member : o) {
            double v = 0;
            if (member.value.get(v) || v < 0) {
                error = std::string(field.key) + "." + std::string(member.key) + " must be a number >= 0";
                return std::nullopt;
            }
            if (member.key == "relative")
                threshold->relative = v;
            else if (!memory && member.key == "absolute_us")
                threshold->absolute = v * 1e3;
            else if (memory && member.key == "absolute_mib")
                threshold->absolute = v * 1024 * 1024;
            else {
                error = std::string(field.key) + ": unknown member '" + std::string(member.key) +
                        "' (relative, " + (memory ? "absolute_mib" : "absolute_us") + ")";
                return std::nullopt;
            }
        }
    }
    return budget;
}

CheckReport checkRuns(const std::vector<RunFigures>& base, const std::vector<RunFigures>& changed,
                      const Budget& budget) {
    CheckReport report;
    for (const RunFigures& r : base)
        report.basePaths.push_back(r.path);
    for (const RunFigures& r : changed)
        report.newPaths.push_back(r.path);
    // One figure over the runs of each side: their medians, the noise it must stand out of (the runs'
    // spread, or twice a run's own step-to-step noise), and where it shows in a new run.
    const auto judge = [&](std::string metric, std::string name, const Threshold& threshold,
                           const std::function<StepFigure(const RunFigures&)>& figure,
                           const std::function<std::string(const RunFigures&)>& link) {
        std::vector<double> a, b;
        double noise = 0;
        for (const auto& [side, values] : {std::pair{&base, &a}, std::pair{&changed, &b}})
            for (const RunFigures& r : *side) {
                const StepFigure v = figure(r);
                values->push_back(v.value);
                noise = std::max(noise, 2 * v.noise());
            }
        Finding f;
        f.metric = std::move(metric);
        f.name = std::move(name);
        f.base = median(a);
        f.changed = median(b);
        f.spread = std::max({spread(a), spread(b), noise});
        f.threshold = threshold;
        f.link = changed.empty() ? std::string() : link(changed.front());
        const double allowed = std::max({threshold.relative * f.base, threshold.absolute, f.spread});
        if (f.change() > allowed)
            report.regressions.push_back(std::move(f));
        else if (-f.change() > allowed)
            report.improvements.push_back(std::move(f));
    };
    const auto stepLink = [](const RunFigures& r) { return r.stepLink; };
    judge(
        "step_time", "", budget.stepTime, [](const RunFigures& r) { return r.stepTime; }, stepLink);
    std::vector<double> baseSteps, newSteps;
    for (const RunFigures& r : base)
        baseSteps.push_back(r.stepTime.value);
    for (const RunFigures& r : changed)
        newSteps.push_back(r.stepTime.value);
    report.baseStep = median(baseSteps);
    report.newStep = median(newSteps);
    judge(
        "gpu_idle", "", budget.gpuIdle, [](const RunFigures& r) { return r.gpuIdle; }, stepLink);
    judge(
        "exposed_communication", "", budget.communication,
        [](const RunFigures& r) { return r.communication; }, stepLink);
    // Exposed communication grew: name the collective whose time grew most (a wait shows as a longer
    // collective kernel), with its longest launch in a new run.
    if (!report.regressions.empty() && report.regressions.back().metric == "exposed_communication") {
        Finding& f = report.regressions.back();
        std::set<std::string> names;
        for (const auto* side : {&base, &changed})
            for (const RunFigures& r : *side)
                for (const auto& [name, named] : r.collectives)
                    names.insert(name);
        double most = 0;
        for (const std::string& name : names) {
            std::vector<double> a, b;
            for (const auto& [side, values] : {std::pair{&base, &a}, std::pair{&changed, &b}})
                for (const RunFigures& r : *side) {
                    const auto it = r.collectives.find(name);
                    values->push_back(it == r.collectives.end() ? 0 : it->second.figure.value);
                }
            if (median(b) - median(a) <= most) continue;
            most = median(b) - median(a);
            f.name = name;
            const auto it = changed.front().collectives.find(name);
            if (it != changed.front().collectives.end()) f.link = it->second.link;
        }
    }
    const auto hasMemory = [](const RunFigures& r) { return r.hasMemory; };
    if (std::all_of(base.begin(), base.end(), hasMemory) &&
        std::all_of(changed.begin(), changed.end(), hasMemory))
        judge(
            "memory_peak", "", budget.memory,
            [](const RunFigures& r) {
                return StepFigure{r.memoryPeak, {}};
            },
            [](const RunFigures& r) { return r.memoryLink; });

    // Kernels and operators that matter on either side: a share of the baseline's step at least.
    const double floor = budget.minShare * report.baseStep;
    const auto named = [&](const char* metric, const Threshold& threshold,
                           std::map<std::string, RunFigures::Named> RunFigures::*table, std::size_t& judged) {
        std::set<std::string> names;
        for (const auto* side : {&base, &changed})
            for (const RunFigures& r : *side)
                for (const auto& [name, named] : r.*table)
                    if (named.figure.value >= floor) names.insert(name);
        for (const std::string& name : names) {
            ++judged;
            judge(
                metric, name, threshold,
                [&](const RunFigures& r) {
                    const auto it = (r.*table).find(name);
                    return it == (r.*table).end() ? StepFigure{} : it->second.figure;
                },
                [&](const RunFigures& r) {
                    const auto it = (r.*table).find(name);
                    return it == (r.*table).end() ? r.traceLink : it->second.link;
                });
        }
    };
    named("kernel", budget.kernel, &RunFigures::kernels, report.kernelsJudged);
    named("operator", budget.operatorTime, &RunFigures::operators, report.operatorsJudged);
    // The whole step first, then what explains it, each kind by the size of its change.
    const auto rank = [](const Finding& f) {
        constexpr std::string_view order[] = {
            "step_time", "exposed_communication", "gpu_idle", "memory_peak", "kernel", "operator"};
        return std::find(std::begin(order), std::end(order), f.metric) - std::begin(order);
    };
    const auto bySize = [&](const Finding& a, const Finding& b) {
        if (rank(a) != rank(b)) return rank(a) < rank(b);
        return std::fabs(a.change()) > std::fabs(b.change());
    };
    std::stable_sort(report.regressions.begin(), report.regressions.end(), bySize);
    std::stable_sort(report.improvements.begin(), report.improvements.end(), bySize);
    return report;
}

} // namespace kinetoscope
