#include "analysis/report/diffformat.h"

#include "analysis/report/sections.h"
#include "analysis/report/summaryformat.h"
#include "model/textformat.h"

#include <cstdio>
#include <cstdlib>

namespace kinetoscope {

namespace {
void writeDiffRows(JsonWriter<std::string>& w, const char* key, const std::vector<DiffRow>& rows, bool host) {
    w.key(key);
    writeRows(w, diffColumns(host), rows, {"\n  ", ",\n  ", "\n "});
}

void writeStepStats(JsonWriter<std::string>& w, const Overview& o) {
    w.beginObject();
    w.numField("steps", o.steps.size());
    w.microsField("mean_us", o.stepMean);
    w.microsField("median_us", o.stepMedian);
    w.microsField("min_us", o.stepMin);
    w.microsField("max_us", o.stepMax);
    w.endObject();
}
} // namespace

std::string diffToJson(const TraceDiff& d) {
    std::string out;
    JsonWriter w(out);
    w.beginObject({"", ",\n ", ""});
    writeDiffRows(w, "operators", d.operators, true);
    writeDiffRows(w, "kernels", d.kernels, false);
    w.key("work");
    w.beginObject();
    w.numField("kernel_runs_a", d.kernelsA);
    w.numField("kernel_runs_b", d.kernelsB);
    w.strField("note", workDifference(d));
    w.endObject();
    w.key("step_time");
    w.beginObject();
    w.key("a");
    writeStepStats(w, d.overviewA);
    w.key("b");
    writeStepStats(w, d.overviewB);
    w.microsField("mean_delta_us", d.overviewB.stepMean - d.overviewA.stepMean);
    // Compile phases in the steps, and the means without them (the model's steps, not its compilation).
    w.microsField("compile_us_a", compileInSteps(d.overviewA));
    w.microsField("compile_us_b", compileInSteps(d.overviewB));
    w.microsField("mean_without_compile_delta_us",
                  stepMeanWithoutCompile(d.overviewB) - stepMeanWithoutCompile(d.overviewA));
    w.endObject();
    w.key("breakdown_delta_us");
    w.beginObject();
    for (std::size_t c = 0; c < breakdownCategoryCount; ++c) {
        // Per mean step, so runs with different step counts compare.
        const TimeNs a =
            d.overviewA.steps.empty() ? 0 : d.overviewA.breakdownTotal[c] / TimeNs(d.overviewA.steps.size());
        const TimeNs b =
            d.overviewB.steps.empty() ? 0 : d.overviewB.breakdownTotal[c] / TimeNs(d.overviewB.steps.size());
        w.microsField(breakdownCategoryName(BreakdownCategory(c)), b - a);
    }
    w.endObject();
    w.key("kernel_categories_delta_us");
    w.beginObject();
    for (std::size_t c = 0; c < kernelCategoryCount; ++c) {
        if (d.categoriesA[c] == 0 && d.categoriesB[c] == 0) continue;
        w.microsField(kernelCategoryName(KernelCategory(c)), d.categoriesB[c] - d.categoriesA[c]);
    }
    w.endObject();
    w.key("gpu_metrics_delta");
    w.beginObject();
    // The same device on both sides, or else the i-th GPU of each (two ranks of a job use different devices).
    for (std::size_t i = 0; i < d.overviewB.gpus.size(); ++i) {
        const GpuMetrics& gb = d.overviewB.gpus[i];
        const GpuMetrics* ga = nullptr;
        for (const GpuMetrics& g : d.overviewA.gpus) {
            if (g.device == gb.device) ga = &g;
        }
        if (!ga && i < d.overviewA.gpus.size()) ga = &d.overviewA.gpus[i];
        GpuMetrics zero;
        if (!ga) ga = &zero;
        w.key(std::to_string(gb.device));
        w.beginObject();
        w.fixedField("utilization", gb.utilization - ga->utilization, 6);
        // null where either trace cannot support the figure (no launch properties, no occupancy): not 0.
        if (ga->hasSmData && gb.hasSmData)
            w.fixedField("sm_efficiency", gb.smEfficiency - ga->smEfficiency, 6);
        else
            w.key("sm_efficiency"), w.null();
        if (ga->hasOccupancyData && gb.hasOccupancyData)
            w.fixedField("achieved_occupancy_pct", gb.achievedOccupancy - ga->achievedOccupancy, 3);
        else
            w.key("achieved_occupancy_pct"), w.null();
        w.fixedField("tensor_core_share", gb.tensorCoreShare - ga->tensorCoreShare, 6);
        w.endObject();
    }
    w.endObject();
    w.endObject();
    out += '\n';
    return out;
}

std::string diffToText(const TraceDiff& d, std::size_t top) {
    std::string out;
    char buf[512];
    std::snprintf(
        buf, sizeof buf, "Step time: A %s, mean %s; B %s, mean %s (%s%s)\n",
        countText(d.overviewA.steps.size(), "step").c_str(), formatDuration(d.overviewA.stepMean).c_str(),
        countText(d.overviewB.steps.size(), "step").c_str(), formatDuration(d.overviewB.stepMean).c_str(),
        d.overviewB.stepMean >= d.overviewA.stepMean ? "+" : "-",
        formatDuration(std::llabs(d.overviewB.stepMean - d.overviewA.stepMean)).c_str());
    out += buf;
    if (const std::string compile = stepsWithoutCompile(d); !compile.empty()) out += compile + "\n";
    if (const std::string work = workDifference(d); !work.empty()) out += work + "\n";
    auto table = [&](const char* title, const std::vector<DiffRow>& rows, bool host) {
        std::snprintf(buf, sizeof buf, "\n%s (top %zu by change of %s time)\n", title,
                      std::min(top, rows.size()), host ? "device self" : "total");
        out += buf;
        out += rowsText(diffColumns(host), rows, top);
    };
    table("Operators", d.operators, true);
    table("Kernels", d.kernels, false);
    return out;
}

} // namespace kinetoscope
