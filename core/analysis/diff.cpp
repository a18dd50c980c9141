#include "diff.h"

#include "summaryformat.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

namespace kinetoscope {

double DiffRow::percentChange() const {
    const bool device = deviceA != 0 || deviceB != 0;
    const TimeNs a = device ? deviceA : hostA;
    const TimeNs b = device ? deviceB : hostB;
    if (a == 0) return std::nan("");
    return 100.0 * double(b - a) / double(a);
}

namespace {
void sortByDelta(std::vector<DiffRow>& rows) {
    std::sort(rows.begin(), rows.end(), [](const DiffRow& x, const DiffRow& y) {
        const TimeNs dx = std::llabs(x.deviceDelta()), dy = std::llabs(y.deviceDelta());
        if (dx != dy) return dx > dy;
        const TimeNs hx = std::llabs(x.hostDelta()), hy = std::llabs(y.hostDelta());
        if (hx != hy) return hx > hy;
        return x.name < y.name;
    });
}

// "+1.500" for people; JSON numbers take no plus sign.
std::string signedMicros(TimeNs ns) {
    return (ns >= 0 ? "+" : "-") + formatMicros(std::llabs(ns));
}
std::string jsonMicros(TimeNs ns) {
    return (ns >= 0 ? "" : "-") + formatMicros(std::llabs(ns));
}

std::string percentJson(double v) {
    if (std::isnan(v)) return "null";
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.3f", v);
    return buf;
}
} // namespace

TraceDiff diffTraces(const TraceStore& a, const TraceStore& b) {
    TraceDiff d;
    const Summary sa = summarize(a), sb = summarize(b);
    std::map<std::string, DiffRow> ops;
    for (const OperatorRow& o : sa.operators) {
        DiffRow& r = ops[o.name];
        r.name = o.name;
        r.countA += o.count;
        r.hostA += o.hostSelf;
        r.deviceA += o.deviceSelf;
    }
    for (const OperatorRow& o : sb.operators) {
        DiffRow& r = ops[o.name];
        r.name = o.name;
        r.countB += o.count;
        r.hostB += o.hostSelf;
        r.deviceB += o.deviceSelf;
    }
    for (auto& [name, row] : ops)
        d.operators.push_back(row);
    sortByDelta(d.operators);
    std::map<std::string, DiffRow> kernels;
    for (const KernelRow& k : sa.kernels) {
        DiffRow& r = kernels[k.name];
        r.name = k.name;
        r.countA += k.count;
        r.deviceA += k.total;
    }
    for (const KernelRow& k : sb.kernels) {
        DiffRow& r = kernels[k.name];
        r.name = k.name;
        r.countB += k.count;
        r.deviceB += k.total;
    }
    for (auto& [name, row] : kernels)
        d.kernels.push_back(row);
    sortByDelta(d.kernels);
    d.overviewA = computeOverview(a);
    d.overviewB = computeOverview(b);
    for (const KernelRow& k : sa.kernels)
        d.categoriesA[std::size_t(kernelCategory(k.name))] += k.total;
    for (const KernelRow& k : sb.kernels)
        d.categoriesB[std::size_t(kernelCategory(k.name))] += k.total;
    return d;
}

std::string diffToJson(const TraceDiff& d) {
    std::string out = "{";
    auto rows = [&](const char* key, const std::vector<DiffRow>& list, bool host) {
        out += std::string("\"") + key + "\": [";
        for (std::size_t i = 0; i < list.size(); ++i) {
            const DiffRow& r = list[i];
            out += i ? ",\n  " : "\n  ";
            out += "{\"name\": \"" + jsonEscape(r.name) + "\", \"count_a\": " + std::to_string(r.countA) +
                   ", \"count_b\": " + std::to_string(r.countB);
            if (host) {
                out += ", \"host_self_us_a\": " + formatMicros(r.hostA) +
                       ", \"host_self_us_b\": " + formatMicros(r.hostB) +
                       ", \"device_self_us_a\": " + formatMicros(r.deviceA) +
                       ", \"device_self_us_b\": " + formatMicros(r.deviceB) +
                       ", \"host_delta_us\": " + jsonMicros(r.hostDelta()) +
                       ", \"device_delta_us\": " + jsonMicros(r.deviceDelta());
            } else {
                out += ", \"total_us_a\": " + formatMicros(r.deviceA) +
                       ", \"total_us_b\": " + formatMicros(r.deviceB) +
                       ", \"delta_us\": " + jsonMicros(r.deviceDelta());
            }
            out += ", \"change_pct\": " + percentJson(r.percentChange());
            out += std::string(", \"only_in\": ") +
                   (r.onlyA()   ? "\"a\""
                    : r.onlyB() ? "\"b\""
                                : "null") +
                   "}";
        }
        out += list.empty() ? "]" : "\n ]";
    };
    rows("operators", d.operators, true);
    out += ",\n ";
    rows("kernels", d.kernels, false);
    auto stats = [&](const Overview& o) {
        return "{\"steps\": " + std::to_string(o.steps.size()) +
               ", \"mean_us\": " + formatMicros(o.stepMean) +
               ", \"median_us\": " + formatMicros(o.stepMedian) + ", \"min_us\": " + formatMicros(o.stepMin) +
               ", \"max_us\": " + formatMicros(o.stepMax) + "}";
    };
    out += ",\n \"step_time\": {\"a\": " + stats(d.overviewA) + ", \"b\": " + stats(d.overviewB) +
           ", \"mean_delta_us\": " + jsonMicros(d.overviewB.stepMean - d.overviewA.stepMean) + "}";
    out += ",\n \"breakdown_delta_us\": {";
    for (std::size_t c = 0; c < breakdownCategoryCount; ++c) {
        // Per mean step, so runs with different step counts compare.
        const TimeNs a =
            d.overviewA.steps.empty() ? 0 : d.overviewA.breakdownTotal[c] / TimeNs(d.overviewA.steps.size());
        const TimeNs b =
            d.overviewB.steps.empty() ? 0 : d.overviewB.breakdownTotal[c] / TimeNs(d.overviewB.steps.size());
        out += (c ? ", \"" : "\"") + std::string(breakdownCategoryName(BreakdownCategory(c))) +
               "\": " + jsonMicros(b - a);
    }
    out += "},\n \"kernel_categories_delta_us\": {";
    bool first = true;
    for (std::size_t c = 0; c < kernelCategoryCount; ++c) {
        if (d.categoriesA[c] == 0 && d.categoriesB[c] == 0) continue;
        out += (first ? "\"" : ", \"") + std::string(kernelCategoryName(KernelCategory(c))) +
               "\": " + jsonMicros(d.categoriesB[c] - d.categoriesA[c]);
        first = false;
    }
    out += "},\n \"gpu_metrics_delta\": {";
    first = true;
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
        char buf[256];
        std::snprintf(buf, sizeof buf,
                      "\"%lld\": {\"utilization\": %.6f, \"sm_efficiency\": %.6f, "
                      "\"achieved_occupancy_pct\": %.3f, \"tensor_core_share\": %.6f}",
                      static_cast<long long>(gb.device), gb.utilization - ga->utilization,
                      gb.smEfficiency - ga->smEfficiency, gb.achievedOccupancy - ga->achievedOccupancy,
                      gb.tensorCoreShare - ga->tensorCoreShare);
        out += (first ? "" : ", ") + std::string(buf);
        first = false;
    }
    out += "}}\n";
    return out;
}

std::string diffToText(const TraceDiff& d, std::size_t top) {
    std::string out;
    char buf[512];
    std::snprintf(buf, sizeof buf, "Step time: A %zu steps, mean %s; B %zu steps, mean %s (%s%s)\n",
                  d.overviewA.steps.size(), formatDuration(d.overviewA.stepMean).c_str(),
                  d.overviewB.steps.size(), formatDuration(d.overviewB.stepMean).c_str(),
                  d.overviewB.stepMean >= d.overviewA.stepMean ? "+" : "-",
                  formatDuration(std::llabs(d.overviewB.stepMean - d.overviewA.stepMean)).c_str());
    out += buf;
    auto table = [&](const char* title, const std::vector<DiffRow>& rows, bool host) {
        std::snprintf(buf, sizeof buf, "\n%s (top %zu by change of %s time)\n%-60s %8s %8s %14s %14s %9s\n",
                      title, std::min(top, rows.size()), host ? "device self" : "total", "Name", "Calls A",
                      "Calls B", host ? "Device self Δ" : "Total Δ", host ? "Host self Δ" : "", "Change");
        out += buf;
        for (std::size_t i = 0; i < rows.size() && i < top; ++i) {
            const DiffRow& r = rows[i];
            std::string name = r.name.size() > 58 ? r.name.substr(0, 55) + "..." : r.name;
            const double pct = r.percentChange();
            char change[32];
            if (r.onlyA())
                std::snprintf(change, sizeof change, "only A");
            else if (r.onlyB())
                std::snprintf(change, sizeof change, "only B");
            else if (std::isnan(pct))
                std::snprintf(change, sizeof change, "new time");
            else
                std::snprintf(change, sizeof change, "%+.1f%%", pct);
            std::snprintf(buf, sizeof buf, "%-60s %8llu %8llu %14s %14s %9s\n", name.c_str(),
                          static_cast<unsigned long long>(r.countA),
                          static_cast<unsigned long long>(r.countB),
                          (signedMicros(r.deviceDelta()) + " us").c_str(),
                          host ? (signedMicros(r.hostDelta()) + " us").c_str() : "", change);
            out += buf;
        }
    };
    table("Operators", d.operators, true);
    table("Kernels", d.kernels, false);
    return out;
}

} // namespace kinetoscope
