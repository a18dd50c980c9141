#pragma once

// Inside the overview: how a recommendation rule reads the facts and reports (recommendations.cpp holds the
// table of rules; compiledrules.cpp the rules for compiled models).

#include "analysis/compiled/compiledmodel.h"
#include "analysis/overview/overviewfacts.h"

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace kinetoscope::overview {

std::string percent(double f);               // "12.5%" for 0.125
std::string thresholdText(double threshold); // "threshold 20%" for 0.2

struct Rule;

// What every rule reads, and how it reports.
struct RuleContext {
    const TraceStore& store;
    Overview& ov;
    const SliceFacts& facts;
    const StepSpan& span;
    const CompiledModelFacts& compiled; // compiled.compiled is false for an eager model

    double shareOfSteps(TimeNs t) const { return span.total ? double(t) / double(span.total) : 0; }
    // The compile phases within the steps (compiled.compilePhases ∩ the steps), and shares of the step time
    // outside them: advice about an idle GPU or host leaves compilation out (a step that compiled is idle
    // while it compiles, which no launch setting changes).
    IntervalSet compileInSteps;
    TimeNs compileTimeInSteps = 0;
    double shareOfStepsOutsideCompile(TimeNs t) const {
        const TimeNs rest = span.total - compileTimeInSteps;
        return rest > 0 ? double(t) / double(rest) : 0;
    }
    double breakdownShare(BreakdownCategory c) const {
        return shareOfSteps(ov.breakdownTotal[std::size_t(c)]);
    }

    // Fires `rule`, with the figures that fired it (its threshold added) and where to look: its example
    // event's extent, or the range it names.
    void fire(const Rule& rule, std::string title, std::string evidence,
              std::vector<std::pair<std::string, double>> figures, EventRef example = {}, TimeNs a = 0,
              TimeNs b = 0) const;
};

struct Rule {
    std::string_view id;
    double threshold;
    bool perDevice; // checked once per GPU, the device's rules together, in table order
    void (*check)(const RuleContext&, const Rule&, const GpuMetrics* device);
};

// The rules for compiled models (compiledrules.cpp): graph breaks, recompilation, compilation inside the
// trace, max-autotune. They fire only when the trace has compiled code.
void graphBreaksRule(const RuleContext& c, const Rule& rule, const GpuMetrics*);
void recompilationRule(const RuleContext& c, const Rule& rule, const GpuMetrics*);
void compileInTraceRule(const RuleContext& c, const Rule& rule, const GpuMetrics*);
void maxAutotuneRule(const RuleContext& c, const Rule& rule, const GpuMetrics*);

} // namespace kinetoscope::overview
