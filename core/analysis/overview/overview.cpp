#include "analysis/overview/overview.h"

#include "analysis/overview/overviewfacts.h"
#include "query/args.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <map>

namespace kinetoscope {

namespace {
bool startsWith(std::string_view s, std::string_view p) {
    return s.substr(0, p.size()) == p;
}

} // namespace

bool isCommunicationName(std::string_view name) {
    std::string l(name.substr(0, 64));
    for (char& c : l)
        c = char(std::tolower(static_cast<unsigned char>(c)));
    return l.find("nccl") != std::string::npos || l.find("rccl") != std::string::npos ||
           startsWith(l, "gloo:") || startsWith(l, "c10d::") ||
           l.find("record_param_comms") != std::string::npos;
}

std::string_view breakdownCategoryName(BreakdownCategory c) {
    static constexpr std::string_view names[] = {"kernel",  "memcpy",     "memset",   "communication",
                                                 "runtime", "dataloader", "cpu_exec", "other"};
    return names[std::size_t(c)];
}

RunFacts runFacts(const TraceStore& store) {
    RunFacts f;
    f.devices = store.metadata().devices;
    auto add = [&](const char* label, const std::string* value) {
        // The metadata keeps each value as JSON text: a string's escapes (a Windows path's backslashes) must
        // not reach a report, which would escape them again.
        if (value) f.facts.emplace_back(label, jsonValueText(*value));
    };
    add("PyTorch", store.metadata().find("pytorch_version"));
    add("CUDA runtime", store.metadata().find("cuda_runtime_version"));
    add("CUDA driver", store.metadata().find("cuda_driver_version"));
    add("CUPTI", store.metadata().find("cupti_version"));
    add("HIP runtime", store.metadata().find("hip_runtime_version"));
    add("Schema version", store.metadata().find("schemaVersion"));
    add("Trace name", store.metadata().find("traceName"));
    add("Record shapes", store.metadata().find("record_shapes"));
    add("Profile memory", store.metadata().find("profile_memory"));
    add("With stack", store.metadata().find("with_stack"));
    add("With FLOPs", store.metadata().find("with_flops"));
    add("With modules", store.metadata().find("with_modules"));
    add("Display time unit", store.metadata().find("displayTimeUnit"));
    if (store.metadata().rank) f.facts.emplace_back("Rank", std::to_string(*store.metadata().rank));
    if (store.metadata().worldSize)
        f.facts.emplace_back("World size", std::to_string(*store.metadata().worldSize));
    if (!store.metadata().distributedBackend.empty())
        f.facts.emplace_back("Backend", store.metadata().distributedBackend);
    return f;
}

Overview computeOverview(const TraceStore& store, TimeNs from, TimeNs to) {
    Overview ov;
    overview::StepSpan span;
    span.rangeLo = std::max(from, store.minTime());
    span.rangeHi = std::min(to, store.maxTime());
    for (const StepRange& s : findSteps(store)) {
        if (s.end > span.rangeLo && s.start < span.rangeHi) ov.steps.push_back(s);
    }
    if (ov.steps.empty()) {
        ov.steps.push_back(activityStep(store, span.rangeLo, span.rangeHi));
        ov.syntheticStep = true;
    }
    std::vector<TimeNs> durations;
    for (const StepRange& s : ov.steps) {
        span.set.emplace_back(s.start, s.end);
        span.total += s.end - s.start;
        durations.push_back(s.end - s.start);
    }
    std::sort(durations.begin(), durations.end());
    ov.stepMin = durations.front();
    ov.stepMax = durations.back();
    ov.stepMedian = durations.size() % 2
                        ? durations[durations.size() / 2]
                        : (durations[durations.size() / 2 - 1] + durations[durations.size() / 2]) / 2;
    ov.stepMean = span.total / TimeNs(durations.size());
    ov.stepsPerSecond = ov.stepMean > 0 ? 1e9 / double(ov.stepMean) : 0;
    // GPU metrics are measured over the whole run of steps, gaps between steps included (they are idle time),
    // as the TensorBoard plugin measures them.
    span.lo = ov.steps.front().start;
    span.hi = ov.steps.back().end;

    overview::SliceFacts facts = overview::gatherSliceFacts(store, span);
    overview::computeBreakdown(store, ov, facts, span);
    overview::computeGpuMetrics(ov, facts, span);
    overview::addRecommendations(store, ov, facts, span);
    return ov;
}

} // namespace kinetoscope
