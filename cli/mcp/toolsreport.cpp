// The report's tools: open_trace, summary and its tables (kernels, operators, steps, GPU idle time, advice),
// each the rows of `summary --json` with the event that stands for them and a link to it.
#include "tools.h"

#include "analysis/report/sections.h"
#include "analysis/report/summaryformat.h"

#include <cstdio>
#include <map>

namespace kinetoscope::mcp {

namespace {

using namespace toolparts;

constexpr std::int64_t maxLimit = 100000;

// Each kernel name's longest launch (its slice id, start and duration): what a row of the kernel table stands
// for when a reader wants to see one.
struct Instance {
    std::int64_t id = -1;
    TimeNs start = 0, duration = 0;
};
std::map<std::string, Instance, std::less<>> longestKernels(OpenTrace& trace) {
    std::map<std::string, Instance, std::less<>> out;
    // SQLite gives the row of max() to the bare columns of an aggregate.
    const sql::QueryResult r =
        trace.database().query("SELECT name, id, ts, max(dur) FROM kernel GROUP BY name");
    for (const auto& row : r.rows) {
        const auto* name = std::get_if<std::string>(&row[0]);
        if (!name || !std::holds_alternative<std::int64_t>(row[1])) continue;
        out[*name] = {std::get<std::int64_t>(row[1]), std::get<std::int64_t>(row[2]),
                      std::get<std::int64_t>(row[3])};
    }
    return out;
}

void writeEvidence(JsonWriter<std::string>& w, const OpenTrace& trace, std::int64_t id, TimeNs start,
                   TimeNs duration) {
    w.numField("event_id", id);
    w.strField("link", link(trace, std::pair{start, start + std::max<TimeNs>(duration, 1)}, id));
}

// The advice as text, each with the event it names and a link to where it shows.
std::string recommendationsText(OpenTrace& trace, const std::vector<Recommendation>& advice,
                                std::size_t limit) {
    sql::TraceDatabase& db = trace.database();
    std::string text;
    for (std::size_t i = 0; i < advice.size() && i < limit; ++i) {
        const Recommendation& r = advice[i];
        const auto id = r.example.isValid() ? std::optional(db.sliceId(r.example)) : std::nullopt;
        text += std::to_string(i + 1) + ". **" + r.title + "** (" + r.id + "): " + r.evidence;
        if (id)
            text += " Example: `" + elideText(r.exampleName, 120) + "` (event " + std::to_string(*id) + ", " +
                    micros(r.exampleDuration) + " us at " + micros(r.exampleStart) + " us).";
        text += " [view](" + link(trace, std::pair{r.from, r.to}, id) + ")\n";
    }
    return text;
}

// What a recommendation's row adds to the report's columns: its example's event id and the link.
std::function<void(JsonWriter<std::string>&, const Recommendation&)>
recommendationEvidence(OpenTrace& trace) {
    return [&trace](JsonWriter<std::string>& w, const Recommendation& r) {
        const auto id =
            r.example.isValid() ? std::optional(trace.database().sliceId(r.example)) : std::nullopt;
        if (id) w.numField("event_id", *id);
        w.strField("link", link(trace, std::pair{r.from, r.to}, id));
    };
}

ToolResult openTrace(ToolContext& context, ToolArguments& args) {
    const std::string path = args.required("path");
    if (!args.error().empty()) return ToolResult::error(args.error());
    std::string error;
    const auto trace = context.traces.open(path, error);
    if (!trace) return ToolResult::error(error);
    const auto report = trace->report();
    const TraceStore& store = *trace->store;
    const Overview& ov = report->overview;
    ToolResult result;
    std::string& t = result.text;
    char line[512];
    std::snprintf(line, sizeof line, "Opened `%s` as **%s** (use this id in the other tools). ",
                  trace->path.c_str(), trace->id.c_str());
    t += line;
    std::snprintf(line, sizeof line, "It spans %s with %zu %s",
                  formatDuration(store.maxTime() - store.minTime()).c_str(), ov.steps.size(),
                  ov.syntheticStep       ? "activity step (no ProfilerStep)"
                  : ov.steps.size() == 1 ? "step"
                                         : "steps");
    t += line;
    if (!ov.syntheticStep) t += " (median " + formatDuration(ov.stepMedian) + ")";
    t += ". ";
    for (const GpuMetrics& g : ov.gpus) {
        std::string name;
        for (const DeviceProperties& d : report->facts.devices)
            if (d.id == g.device) name = " (" + d.name + ")";
        std::snprintf(line, sizeof line, "GPU %lld%s is busy %.1f%% of the steps' span. ",
                      static_cast<long long>(g.device), name.c_str(), g.utilization * 100);
        t += line;
    }
    if (ov.gpus.empty()) t += "It has no GPU work. ";
    const auto& kernels = report->summary.kernels;
    if (!kernels.empty()) {
        t += "Top kernels by GPU time:";
        for (std::size_t i = 0; i < kernels.size() && i < 3; ++i)
            t += std::string(i ? "," : "") + " `" + kernels[i].displayName + "` " +
                 formatDuration(kernels[i].total) + " (" + std::to_string(kernels[i].count) + " calls)";
        t += ". ";
    }
    t += "\n\n";
    const auto& advice = ov.recommendations;
    if (!advice.empty()) t += "What to look at first:\n";
    std::string structured;
    JsonWriter w(structured);
    w.beginObject();
    writeTraceHeader(w, *trace);
    w.microsField("span_us", store.maxTime() - store.minTime());
    w.numField("events", report->summary.events);
    w.numField("steps", ov.steps.size());
    w.microsField("step_median_us", ov.stepMedian);
    w.key("devices");
    w.beginArray();
    for (const GpuMetrics& g : ov.gpus) {
        w.beginObject();
        w.numField("device", g.device);
        for (const DeviceProperties& d : report->facts.devices)
            if (d.id == g.device) w.strField("name", d.name);
        w.fixedField("utilization", g.utilization, 6);
        w.endObject();
    }
    w.endArray();
    w.key("top_kernels");
    writeRows(w, kernelColumns(), kernels, JsonLayout{}, 5);
    t += recommendationsText(*trace, advice, 3);
    w.key("recommendations");
    writeRows<Recommendation>(w, recommendationColumns(), advice, JsonLayout{}, 3,
                              recommendationEvidence(*trace));
    w.strField("link", link(*trace, std::nullopt));
    w.endObject();
    if (advice.size() > 3) t += leftOut(3, advice.size(), "recommendations (the tool `recommendations`)");
    for (const std::string& warning : trace->warnings)
        t += "\nWarning: " + warning;
    result.structuredJson = std::move(structured);
    return result;
}

ToolResult summary(ToolContext& context, ToolArguments& args) {
    const std::vector<std::string> names = args.strings("sections");
    std::string error;
    const auto trace = traceOf(context, args, error);
    if (!trace) return ToolResult::error(error);
    ReportSections sections;
    sections.set(std::size_t(ReportSection::Overview));
    sections.set(std::size_t(ReportSection::Recommendations));
    if (!names.empty()) {
        std::string list;
        for (const std::string& n : names)
            list += (list.empty() ? "" : ",") + n;
        const auto parsed = parseReportSections(list, error);
        if (!parsed) return ToolResult::error("sections: " + error);
        sections = *parsed;
    }
    const auto report = trace->report(sections);
    ToolResult result;
    result.text = codeBlock(reportToText(*report));
    // The same document as `summary --json --sections ...`: the tables it holds are whole, so a large one
    // (every operator of a long trace) is better asked for through its own tool with a limit.
    std::string structured;
    JsonWriter w(structured);
    w.beginObject();
    writeTraceHeader(w, *trace);
    putStructured(result, w, "report", summaryToJson(report->summary, report.get()),
                  "ask for fewer sections, or use top_operators / top_kernels with a `limit`.");
    w.endObject();
    result.structuredJson = std::move(structured);
    return result;
}

// A tool answering one table of the report: its rows, the first `limit` of them.
template <typename Make>
ToolResult tableTool(ToolContext& context, ToolArguments& args, std::int64_t defaultLimit, Make make) {
    const auto limit = std::size_t(args.integer("limit", 1, maxLimit).value_or(defaultLimit));
    std::string error;
    const auto trace = traceOf(context, args, error);
    if (!trace) return ToolResult::error(error);
    ToolResult result;
    std::string structured;
    JsonWriter w(structured);
    w.beginObject();
    writeTraceHeader(w, *trace);
    const std::size_t total = make(*trace, result, w, limit);
    w.endObject();
    if (!args.error().empty()) return ToolResult::error(args.error());
    result.text += leftOut(std::min(limit, total), total, "rows");
    result.structuredJson = std::move(structured);
    return result;
}

ToolResult topKernels(ToolContext& context, ToolArguments& args) {
    return tableTool(context, args, 20, [](OpenTrace& trace, ToolResult& result, auto& w, std::size_t limit) {
        const auto report = trace.report();
        const auto longest = longestKernels(trace);
        result.text = "Kernels by total GPU time (times in us):\n";
        writeTable<KernelRow>(result, w, kernelColumns(), report->summary.kernels, limit,
                              [&](JsonWriter<std::string>& w, const KernelRow& row) {
                                  const auto it = longest.find(row.name);
                                  if (it != longest.end())
                                      writeEvidence(w, trace, it->second.id, it->second.start,
                                                    it->second.duration);
                              });
        return report->summary.kernels.size();
    });
}

ToolResult topOperators(ToolContext& context, ToolArguments& args) {
    const std::string by = args.string("by").value_or("op");
    if (by != "op" && by != "op+shape")
        return ToolResult::error("argument 'by' must be \"op\" or \"op+shape\"");
    return tableTool(
        context, args, 20, [&](OpenTrace& trace, ToolResult& result, auto& w, std::size_t limit) {
            const bool shapes = by == "op+shape";
            const auto report =
                shapes ? trace.report(ReportSections().set(std::size_t(ReportSection::Operators)),
                                      OperatorGrouping::NameAndShape)
                       : trace.report();
            const auto& rows = report->summary.operators;
            sql::TraceDatabase& db = trace.database();
            result.text = "Operators (key_averages: self and total times, host and device, in us):\n";
            writeTable<OperatorRow>(result, w, operatorColumns(shapes), rows, limit,
                                    [&](JsonWriter<std::string>& w, const OperatorRow& row) {
                                        if (!row.example.isValid()) return;
                                        const Track& track = trace.store->track(row.example.track);
                                        writeEvidence(w, trace, db.sliceId(row.example),
                                                      track.starts[row.example.index.value],
                                                      trace.store->durationOf(row.example));
                                    });
            return rows.size();
        });
}

ToolResult steps(ToolContext& context, ToolArguments& args) {
    return tableTool(context, args, 50, [](OpenTrace& trace, ToolResult& result, auto& w, std::size_t limit) {
        const auto report = trace.report();
        const Overview& ov = report->overview;
        std::vector<NamedStep> rows;
        for (std::size_t i = 0; i < ov.steps.size(); ++i)
            rows.push_back({report->stepNames[i], ov.steps[i].start, ov.steps[i].end});
        result.text = "Steps: median " + formatDuration(ov.stepMedian) + ", min " +
                      formatDuration(ov.stepMin) + ", max " + formatDuration(ov.stepMax) +
                      " (times in us):\n";
        writeTable<NamedStep>(result, w, stepColumns(), rows, limit,
                              [&](JsonWriter<std::string>& w, const NamedStep& s) {
                                  w.microsField("dur_us", s.end - s.start);
                                  w.strField("link", link(trace, std::pair{s.start, s.end}));
                              });
        return rows.size();
    });
}

ToolResult gpuIdle(ToolContext& context, ToolArguments& args) {
    return tableTool(context, args, 20, [](OpenTrace& trace, ToolResult& result, auto& w, std::size_t limit) {
        const auto report = trace.report();
        result.text = "Idle time between the GPU work of each stream, by what the GPU waited for (HTA's "
                      "idle-time breakdown; times in us):\n";
        writeTable<StreamIdle>(
            result, w, gpuIdleColumns(), report->gpuIdle, limit,
            [&](JsonWriter<std::string>& w, const StreamIdle& s) {
                if (!s.afterLongestGap.isValid()) return;
                // Where it shows most: the longest gap, and the event that ended it.
                const std::int64_t id = trace.database().sliceId(s.afterLongestGap);
                w.microsField("longest_gap_us", s.longestGap);
                w.microsField("longest_gap_start_us", s.longestGapStart);
                w.numField("event_id", id);
                w.strField("link",
                           link(trace, std::pair{s.longestGapStart, s.longestGapStart + s.longestGap}, id));
            });
        for (std::size_t i = 0; i < report->gpuIdle.size() && i < limit; ++i) {
            const StreamIdle& s = report->gpuIdle[i];
            if (s.afterLongestGap.isValid())
                result.text += "GPU " + std::to_string(s.device) + " stream " + std::to_string(s.stream) +
                               ": longest gap " + micros(s.longestGap) + " us from " +
                               micros(s.longestGapStart) + " us, until event " +
                               std::to_string(trace.database().sliceId(s.afterLongestGap)) + " [view](" +
                               link(trace, std::pair{s.longestGapStart, s.longestGapStart + s.longestGap},
                                    trace.database().sliceId(s.afterLongestGap)) +
                               ")\n";
        }
        return report->gpuIdle.size();
    });
}

ToolResult recommendations(ToolContext& context, ToolArguments& args) {
    return tableTool(context, args, 10, [](OpenTrace& trace, ToolResult& result, auto& w, std::size_t limit) {
        const auto report = trace.report();
        const auto& advice = report->overview.recommendations;
        result.text = advice.empty() ? "No recommendation: nothing in this trace crossed a threshold.\n"
                                     : "Recommendations, most important first:\n";
        result.text += recommendationsText(trace, advice, limit);
        w.key("total_rows");
        w.num(advice.size());
        w.key("rows");
        writeRows<Recommendation>(w, recommendationColumns(), advice, JsonLayout{}, limit,
                                  recommendationEvidence(trace));
        return advice.size();
    });
}

constexpr std::string_view traceProperty =
    R"json("trace": {"type": "string", "description": "an id from open_trace (t1), or a trace's path"})json";
constexpr std::string_view limitProperty =
    R"json("limit": {"type": "integer", "minimum": 1, "description": "rows to return"})json";

std::string tableSchema(std::string_view more = {}) {
    return "{\"type\": \"object\", \"properties\": {" + std::string(traceProperty) + ", " +
           std::string(limitProperty) + std::string(more) + "}, \"required\": [\"trace\"]}";
}

} // namespace

void addReportTools(std::vector<ToolSpec>& tools) {
    // The schemas live as long as the tools: kept in statics.
    static const std::string table = tableSchema();
    static const std::string operators = tableSchema(
        R"json(, "by": {"type": "string", "enum": ["op", "op+shape"], "description": "group by name (default) or by name and input shapes"})json");
    static const std::string summarySchema =
        "{\"type\": \"object\", \"properties\": {" + std::string(traceProperty) +
        R"json(, "sections": {"type": "array", "items": {"type": "string", "enum": ["overview", "ops", "kernels", "memory", "recommendations", "distributed", "gpu_waits", "sequences", "roofline", "inductor", "critical_path"]}, "description": "report sections (default: overview and recommendations)"}}, "required": ["trace"]})json";
    tools.push_back(
        {"open_trace", "Open a trace",
         "Open a PyTorch profiler trace (Kineto JSON, .json.gz; also Nsight Systems SQLite exports, Perfetto "
         ".pftrace, ROCm .rpd/rocpd). Returns an id for the other tools and a one-paragraph summary: span, "
         "steps, GPUs, top kernels and the first recommendations, each with a kinetoscope:// link.",
         R"json({"type": "object", "properties": {"path": {"type": "string", "description": "the trace file"}}, "required": ["path"]})json",
         openTrace});
    tools.push_back({"summary", "Report sections",
                     "The report of `kinetoscope-cli summary --json --sections ...`: step times and their "
                     "breakdown, GPU utilisation, memory, advice and the other sections asked for.",
                     summarySchema, summary});
    tools.push_back(
        {"top_kernels", "Top kernels",
         "GPU kernels grouped by name, by total time: calls, total, mean, min, max; each with its "
         "longest launch's event id and link.",
         table, topKernels});
    tools.push_back({"top_operators", "Top operators",
                     "PyTorch operators as key_averages() groups them: calls, host and device self and total "
                     "times; each with its longest call's event id and link.",
                     operators, topOperators});
    tools.push_back({"steps", "Steps", "The ProfilerStep ranges: start, end, duration and a link to each.",
                     table, steps});
    tools.push_back({"gpu_idle", "GPU idle time",
                     "Per GPU stream, the idle time between its kernels, copies and memsets, split by what "
                     "the GPU waited for (the host, a short kernel gap, other).",
                     table, gpuIdle});
    tools.push_back({"recommendations", "Recommendations",
                     "What to fix first: each piece of advice with the figures that triggered it, an example "
                     "event and a kinetoscope:// link to where it shows.",
                     table, recommendations});
}

} // namespace kinetoscope::mcp
