#include "checkformat.h"

#include "analysis/report/rows.h"
#include "model/jsonwriter.h"
#include "model/timeconv.h"

#include <cmath>
#include <cstdio>

namespace kinetoscope {

namespace {

// What changed, with a kernel's or operator's name cut to a readable length (the JSON keeps it whole).
std::string what(const Finding& f) {
    if (f.metric == "step_time") return "step time";
    if (f.metric == "gpu_idle") return "GPU idle time per step";
    if (f.metric == "exposed_communication")
        return "exposed communication per step" +
               (f.name.empty() ? "" : " (most grown: " + elideText(f.name, 100) + ")");
    if (f.metric == "memory_peak") return "memory peak";
    return f.metric + " " + elideText(f.name, 100) + " (time per step)";
}

constexpr std::size_t improvementsListed = 5;

std::string amount(const Finding& f, double v) {
    if (f.isMemory()) {
        char b[64];
        std::snprintf(b, sizeof b, "%.1f MiB", v / (1024.0 * 1024.0));
        return b;
    }
    return formatDuration(TimeNs(std::llround(v)));
}

std::string signedAmount(const Finding& f, double v) {
    return (v >= 0 ? "+" : "-") + amount(f, std::fabs(v));
}

// The change as a percentage of the baseline; "new" for what the baseline did not run.
std::string percent(const Finding& f) {
    if (f.base <= 0) return "new";
    char b[32];
    std::snprintf(b, sizeof b, "%+.1f %%", f.relativeChange() * 100);
    return b;
}

std::string thresholdText(const Finding& f) {
    char b[32];
    std::snprintf(b, sizeof b, "%.0f %%", f.threshold.relative * 100);
    std::string t = std::string(b) + " and " + amount(f, f.threshold.absolute);
    if (f.spread > 0) t += ", runs' spread " + amount(f, f.spread);
    return t;
}

std::string sideText(const std::vector<std::string>& paths) {
    return paths.size() == 1 ? paths.front() : std::to_string(paths.size()) + " runs";
}

} // namespace

std::string checkToText(const CheckReport& r) {
    std::string out = "Base: " + sideText(r.basePaths) + " (median step " +
                      formatDuration(TimeNs(r.baseStep)) + ")\nNew:  " + sideText(r.newPaths) +
                      " (median step " + formatDuration(TimeNs(r.newStep)) + ")\n";
    for (const Finding& f : r.regressions)
        out += "REGRESSION " + what(f) + ": " + amount(f, f.base) + " -> " + amount(f, f.changed) + " (" +
               signedAmount(f, f.change()) + ", " + percent(f) + "; allowed " + thresholdText(f) + ")\n  " +
               f.link + "\n";
    for (std::size_t i = 0; i < r.improvements.size() && i < improvementsListed; ++i) {
        const Finding& f = r.improvements[i];
        out += "improved " + what(f) + ": " + amount(f, f.base) + " -> " + amount(f, f.changed) + " (" +
               (f.changed <= 0 ? std::string("gone") : percent(f)) + ")\n";
    }
    if (r.improvements.size() > improvementsListed)
        out += "(and " + std::to_string(r.improvements.size() - improvementsListed) +
               " more improved: --json lists all)\n";
    out += "Judged: step time, GPU idle, exposed communication, memory peak, " +
           std::to_string(r.kernelsJudged) + " kernels and " + std::to_string(r.operatorsJudged) +
           " operators. ";
    out += r.passed() ? "PASS: within budget.\n"
                      : "FAIL: " + std::to_string(r.regressions.size()) + " regression" +
                            (r.regressions.size() == 1 ? "" : "s") + ".\n";
    return out;
}

std::string checkToJson(const CheckReport& r) {
    std::string out;
    JsonWriter w(out);
    const JsonLayout lines{"\n  ", ",\n  ", "\n"};
    w.beginObject(lines);
    w.strField("verdict", r.passed() ? "pass" : "regression");
    const auto paths = [&](std::string_view key, const std::vector<std::string>& list) {
        w.key(key);
        w.beginArray();
        for (const std::string& p : list)
            w.str(p);
        w.endArray();
    };
    paths("base", r.basePaths);
    paths("new", r.newPaths);
    w.microsField("base_step_us", TimeNs(std::llround(r.baseStep)));
    w.microsField("new_step_us", TimeNs(std::llround(r.newStep)));
    w.numField("kernels_judged", r.kernelsJudged);
    w.numField("operators_judged", r.operatorsJudged);
    const auto findings = [&](std::string_view key, const std::vector<Finding>& list) {
        w.key(key);
        w.beginArray({"\n    ", ",\n    ", "\n  "});
        for (const Finding& f : list) {
            w.beginObject();
            w.strField("metric", f.metric);
            if (!f.name.empty()) w.strField("name", f.name);
            // Times per step in µs (the step time: the median step); memory in bytes.
            const std::string unit = f.isMemory() ? "bytes" : "us";
            const double scale = f.isMemory() ? 1 : 1e-3;
            w.strField("unit", unit);
            w.fixedField("base", f.base * scale, 3);
            w.fixedField("new", f.changed * scale, 3);
            w.fixedField("change", f.change() * scale, 3);
            w.fixedField("change_pct", f.relativeChange() * 100, 2);
            w.fixedField("threshold_relative", f.threshold.relative, 4);
            w.fixedField("threshold_absolute", f.threshold.absolute * scale, 3);
            w.fixedField("spread", f.spread * scale, 3);
            w.strField("link", f.link);
            w.endObject();
        }
        w.endArray();
    };
    findings("regressions", r.regressions);
    findings("improvements", r.improvements);
    w.endObject();
    return out + "\n";
}

std::string checkToMarkdown(const CheckReport& r) {
    std::string out =
        r.passed() ? "### Kinetoscope check: pass\n\n" : "### Kinetoscope check: regression\n\n";
    out += "Median step: " + formatDuration(TimeNs(r.baseStep)) + " (base, " + sideText(r.basePaths) +
           ") → " + formatDuration(TimeNs(r.newStep)) + " (new, " + sideText(r.newPaths) + ").\n\n";
    if (!r.regressions.empty()) {
        out += "| | Base | New | Change | Allowed | |\n| --- | ---: | ---: | ---: | --- | --- |\n";
        for (const Finding& f : r.regressions) {
            std::string name = what(f);
            for (std::size_t at = 0; (at = name.find('|', at)) != std::string::npos; at += 2)
                name.replace(at, 1, "\\|");
            out += "| " + name + " | " + amount(f, f.base) + " | " + amount(f, f.changed) + " | " +
                   signedAmount(f, f.change()) + " (" + percent(f) + ") | " + thresholdText(f) +
                   " | [view](" + f.link + ") |\n";
        }
        out += "\n";
    }
    out += "Judged: step time, GPU idle, exposed communication, memory peak, " +
           std::to_string(r.kernelsJudged) + " kernels, " + std::to_string(r.operatorsJudged) +
           " operators; " + std::to_string(r.improvements.size()) + " improved.\n";
    return out;
}

} // namespace kinetoscope
