#include "analysis/report/summaryformat.h"

#include "analysis/report/rooflineformat.h"
#include "analysis/report/sections.h"

#include "model/textformat.h"
#include "query/kernelshortname.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <functional>
#include <map>

namespace kinetoscope {

namespace {
// printf into the end of `out`, at whatever length the text takes (a recommendation's evidence runs long).
template <class... Args> void appendFormatted(std::string& out, const char* fmt, Args... args) {
    const int n = std::snprintf(nullptr, 0, fmt, args...);
    if (n <= 0) return;
    const std::size_t at = out.size();
    out.resize(at + std::size_t(n) + 1);
    std::snprintf(out.data() + at, std::size_t(n) + 1, fmt, args...);
    out.resize(at + std::size_t(n));
}
} // namespace

namespace {
// The summary's layout: one top-level key per line, one table row per line, the rest inline.
constexpr JsonLayout topLevel{"", ",\n ", ""};
constexpr JsonLayout rowPerLine{"\n  ", ",\n  ", "\n "};

void writeOperatorRows(JsonWriter<std::string>& w, const char* key, const std::vector<OperatorRow>& rows) {
    w.key(key);
    writeRows(w, operatorColumns(true), rows, rowPerLine);
}

void writeCriticalPath(JsonWriter<std::string>& w, const StepCriticalPath& cp) {
    const CriticalPath& p = cp.path;
    w.key("critical_path");
    w.beginObject({"\n  ", ",\n  ", "\n "});
    w.strField("step", cp.step);
    w.microsField("step_start_us", cp.stepStart);
    w.microsField("step_us", cp.stepEnd - cp.stepStart);
    w.microsField("length_us", p.length);
    w.fixedField("step_share",
                 cp.stepEnd > cp.stepStart ? double(p.length) / double(cp.stepEnd - cp.stepStart) : 0.0, 6);
    w.key("bound_by_us");
    w.beginObject();
    for (std::size_t b = 0; b + 1 < boundByCount; ++b)
        w.microsField(boundByName(BoundBy(b)), p.bound[b]);
    w.endObject();
    w.numField("syncs", p.syncs);
    w.numField("inferred_waits", p.inferredSyncs);
    w.key("threads_merged");
    w.boolean(p.threadsMerged);
    w.numField("graph_nodes", p.graphNodes);
    w.numField("graph_edges", p.graphEdges);
    w.numField("broken_cycles", p.brokenCycles);
    w.key("events");
    writeRows(w, pathEventColumns(), cp.events, {"\n   ", ",\n   ", "\n  "});
    // Each edge joins the start or end of one event (an index into "events") to another's.
    std::vector<PathEdgeRow> edges;
    for (std::size_t i = 0; i < p.edges.size(); ++i)
        edges.push_back({&p.edges[i], cp.edgeEvents[i].first, cp.edgeEvents[i].second});
    w.key("edges");
    writeRows(w, pathEdgeColumns(), edges, {"\n   ", ",\n   ", "\n  "});
    w.endObject();
}

// TorchInductor's breakdown B: {"wall_us", "device_busy_pct", "categories": [...]}, as members of the object
// being written.
void writeInductorBreakdown(JsonWriter<std::string>& w, const InductorBreakdown& b,
                            JsonLayout categoryLayout) {
    w.microsField("wall_us", b.wall);
    w.fixedField("device_busy_pct", b.busyPercent(), 2);
    std::vector<InductorCategoryEntry> categories;
    for (const InductorCategoryRow& row : b.categories)
        categories.push_back({&row, &b});
    w.key("categories");
    writeRows(w, inductorCategoryColumns(), categories, categoryLayout);
}

void writeInductor(JsonWriter<std::string>& w, const InductorReport& r) {
    w.key("inductor");
    w.beginObject({"\n  ", ",\n  ", "\n "});
    w.key("trace");
    w.beginObject();
    writeInductorBreakdown(w, r.trace, {"\n   ", ",\n   ", "\n  "});
    w.endObject();
    w.key("graphs");
    writeRows(w, compiledGraphColumns(), r.graphs, {"\n   ", ",\n   ", "\n  "});
    if (r.sources) {
        // Each kernel found with the file it was found in, its lines there, and what it fused.
        const auto strings = [&](const char* key, const std::vector<std::string>& items) {
            w.key(key);
            w.beginArray();
            for (const std::string& item : items)
                w.str(item);
            w.endArray();
        };
        // Model lines: file and line, with the code where the kernel's own list gives it.
        const auto modelLines = [&](const std::vector<ModelLine>& lines, bool withCode) {
            w.key("model_lines");
            w.beginArray();
            for (const ModelLine& m : lines) {
                w.beginObject();
                w.strField("file", m.file);
                w.numField("line", std::uint64_t(m.line));
                if (withCode) w.strField("code", m.code);
                w.endObject();
            }
            w.endArray();
        };
        w.key("kernel_sources");
        w.beginArray({"\n   ", ",\n   ", "\n  "});
        for (const KernelSource& k : r.sources->found) {
            w.beginObject();
            w.strField("name", k.kernel);
            if (!k.kernelHash.empty()) w.strField("kernel_hash", k.kernelHash);
            w.strField("file", k.file);
            w.strField("found_by", k.foundBy);
            w.numField("first_line", std::uint64_t(k.code.firstLine));
            w.numField("last_line", std::uint64_t(k.code.lastLine));
            if (!k.code.kernelPath.empty()) w.strField("kernel_path", k.code.kernelPath);
            strings("aten_ops", k.code.atenOps);
            strings("fx_nodes", k.code.fxNodes);
            if (!k.modelLines.empty()) modelLines(k.modelLines, true);
            if (!k.calls.empty()) {
                // Inductor's provenance: each call of the kernel in its graph's `call`, with its own nodes.
                w.key("calls");
                w.beginArray();
                for (const ProvenanceCall& c : k.calls) {
                    w.beginObject();
                    w.numField("handle", std::uint64_t(c.handle));
                    strings("post_nodes", c.postNodes);
                    strings("pre_nodes", c.preNodes);
                    modelLines(c.modelLines, false);
                    w.endObject();
                }
                w.endArray();
            }
            if (!k.code.heuristic.empty()) w.strField("heuristic", k.code.heuristic);
            if (!k.code.launch.empty()) w.strField("launch", k.code.launch);
            w.endObject();
        }
        w.endArray();
        w.key("kernel_sources_missing");
        w.beginArray({"\n   ", ",\n   ", "\n  "});
        for (const auto& [kernel, lookedFor] : r.sources->missing) {
            w.beginObject();
            w.strField("name", kernel);
            w.strField("looked_for", lookedFor);
            w.endObject();
        }
        w.endArray();
    }
    w.endObject();
}

// Inductor's report as text: per breakdown, each category's kernels and total, and the GPU's busy share.
std::string inductorText(const InductorReport& r) {
    std::string out;
    char buf[256];
    auto breakdown = [&](const std::string& title, const InductorBreakdown& b) {
        std::snprintf(buf, sizeof buf, "%s: wall %s, GPU busy %.2f%% of it\n", title.c_str(),
                      formatDuration(b.wall).c_str(), b.busyPercent());
        out += buf;
        for (const InductorCategoryRow& row : b.categories) {
            std::vector<InductorKernelEntry> kernels;
            for (const InductorKernel& k : row.kernels)
                kernels.push_back({&k, &b});
            std::snprintf(buf, sizeof buf, "  == %s: %s (%.2f%%)\n",
                          inductorCategoryName(row.category).data(), formatDuration(row.total).c_str(),
                          b.percentOf(row.total));
            out += buf;
            std::string table = rowsText(inductorKernelColumns(), kernels);
            for (std::size_t at = 0; at < table.size();) { // indented under its category
                const std::size_t end = table.find('\n', at);
                out += "    " + table.substr(at, end - at + 1);
                at = end + 1;
            }
        }
    };
    breakdown("TorchInductor breakdown (trace)", r.trace);
    for (const CompiledGraph& g : r.graphs)
        breakdown("Graph " + g.name + " x" + std::to_string(g.calls), g.breakdown);
    if (r.sources) {
        out += "Generated code: " + std::to_string(r.sources->found.size()) + " kernels found, " +
               std::to_string(r.sources->missing.size()) + " missing\n";
        for (const KernelSource& k : r.sources->found) {
            std::string fused;
            for (const std::string& op : k.code.atenOps)
                fused += (fused.empty() ? "" : ", ") + op;
            const std::string from = modelLinesText(k.modelLines);
            out += "  " + k.kernel + "  " + k.file + ":" + std::to_string(k.code.firstLine) +
                   (fused.empty() ? "" : "  fuses " + fused) + (from.empty() ? "" : "  from " + from) + "\n";
        }
        for (const auto& [kernel, lookedFor] : r.sources->missing)
            out += "  " + kernel + "  not found (looked for " + lookedFor + ")\n";
    }
    return out;
}

// "Critical path of STEP ..." and the events that weigh most on it.
std::string criticalPathText(const StepCriticalPath& cp) {
    const CriticalPath& p = cp.path;
    const TimeNs stepLength = cp.stepEnd - cp.stepStart;
    std::string out =
        "Critical path of " + cp.step + " (" + formatDuration(stepLength) + "): " + formatDuration(p.length);
    char buf[160];
    if (stepLength > 0) {
        std::snprintf(buf, sizeof buf, " (%.1f%% of the step)",
                      100.0 * double(p.length) / double(stepLength));
        out += buf;
    }
    const char* sep = ": ";
    for (std::size_t b = 0; b + 1 < boundByCount; ++b) {
        if (p.bound[b] == 0 || p.length == 0) continue;
        std::snprintf(buf, sizeof buf, "%s%s %.1f%%", sep, boundByTitle(BoundBy(b)).data(),
                      100.0 * double(p.bound[b]) / double(p.length));
        out += buf;
        sep = ", ";
    }
    std::snprintf(buf, sizeof buf, "; %zu events, %u sync%s%s\n", cp.events.size(), p.syncs,
                  p.syncs == 1 ? "" : "s",
                  p.inferredSyncs ? " (waits inferred: the trace has no cuda_sync events)" : "");
    out += buf;
    // The events whose own time is most of the path.
    std::vector<std::pair<TimeNs, std::string>> weighed;
    {
        std::map<std::string, TimeNs> byName;
        // Attributed to one of its ends, or to an event around it (two siblings' parent, the DataLoader range
        // an op ran in), which is named when it is on the path too.
        std::map<std::pair<std::uint32_t, std::uint32_t>, std::uint32_t> onPath;
        for (std::uint32_t i = 0; i < cp.events.size(); ++i)
            onPath[{cp.events[i].ref.track.value, cp.events[i].ref.index.value}] = i;
        for (std::size_t i = 0; i < p.edges.size(); ++i) {
            const CriticalPathEdge& e = p.edges[i];
            if (e.kind != PathEdgeKind::Operator || !e.attributed.isValid()) continue;
            std::uint32_t at = e.attributed == e.from ? cp.edgeEvents[i].first
                               : e.attributed == e.to ? cp.edgeEvents[i].second
                                                      : UINT32_MAX;
            if (at == UINT32_MAX)
                if (const auto it = onPath.find({e.attributed.track.value, e.attributed.index.value});
                    it != onPath.end())
                    at = it->second;
            if (at == UINT32_MAX) continue;
            const PathEventRow& ev = cp.events[at];
            byName[ev.gpu ? shortKernelName(ev.name) : ev.name] += e.weight;
        }
        for (auto& [name, t] : byName)
            weighed.emplace_back(t, name);
    }
    std::sort(weighed.begin(), weighed.end(), std::greater<>());
    if (!weighed.empty()) out += "  most of it:";
    for (std::size_t i = 0; i < std::min<std::size_t>(3, weighed.size()); ++i)
        out += (i ? ", " : " ") + weighed[i].second + " " + formatDuration(weighed[i].first);
    if (!weighed.empty()) out += "\n";
    return out;
}

void writeOverview(JsonWriter<std::string>& w, const AnalysisResult& report);
void writeMemoryPeaks(JsonWriter<std::string>& w, const AnalysisResult& report);
void writeGpuWaits(JsonWriter<std::string>& w, const AnalysisResult& report);

// The run header ("run"): whether the file loaded whole and what it skipped (the first issues with their byte
// in the JSON text, inflated for gzip), and the devices and versions the trace names, keyed as their text
// labels in snake case. A script reading the JSON sees an incomplete trace without parsing the CLI's
// warnings.
void writeRun(JsonWriter<std::string>& w, const AnalysisResult& report) {
    const ImportStats& in = report.import;
    w.key("run");
    w.beginObject();
    w.numField("file_bytes", in.fileBytes);
    w.numField("text_bytes", in.jsonBytes);
    w.strField("format", !in.sourceFormat.empty() ? std::string_view(in.sourceFormat)
                         : in.wireStream          ? std::string_view("capture_stream")
                                                  : std::string_view("json"));
    w.key("gzip");
    w.boolean(in.gzip);
    w.key("complete");
    w.boolean(!in.truncated && !in.gzipCutShort);
    if (in.truncated) w.numField("truncated_at_byte", in.truncatedAt);
    w.numField("skipped_events", in.malformedEvents + in.unknownPhaseEvents);
    w.key("issues");
    w.beginArray();
    for (const ImportIssue& issue : in.issues) {
        w.beginObject();
        w.numField("byte", issue.offset);
        w.strField("reason", issue.reason);
        w.endObject();
    }
    w.endArray();
    if (!in.trailingProblem.empty()) w.strField("after_events", in.trailingProblem);
    if (!in.conversionNotes.empty()) { // a file of another format: what its reader could not read
        w.key("conversion_notes");
        w.beginArray();
        for (const std::string& note : in.conversionNotes)
            w.str(note);
        w.endArray();
    }
    w.key("devices");
    w.beginArray();
    for (const DeviceProperties& d : report.facts.devices) {
        w.beginObject();
        w.numField("id", d.id);
        w.strField("name", d.name);
        w.numField("memory_bytes", d.totalGlobalMem);
        w.numField("sms", d.numSms);
        w.strField("compute_capability",
                   std::to_string(d.computeMajor) + "." + std::to_string(d.computeMinor));
        w.endObject();
    }
    w.endArray();
    w.key("facts");
    w.beginObject();
    for (const auto& [label, value] : report.facts.facts) {
        std::string key;
        for (const char c : label)
            key += c == ' ' ? '_' : char(std::tolower(static_cast<unsigned char>(c)));
        w.strField(key, value);
    }
    w.endObject();
    w.endObject();
}

void writeReport(JsonWriter<std::string>& w, const AnalysisResult& report, std::size_t longTableRows) {
    const Overview& ov = report.overview;
    const auto wants = [&](ReportSection section) { return has(report.sections, section); };
    if (wants(ReportSection::Overview)) writeOverview(w, report);
    if (wants(ReportSection::Kernels)) {
        w.key("kernel_categories_us");
        w.beginObject();
        for (std::size_t c = 0; c < kernelCategoryCount; ++c) {
            if (report.kernels.byCategory[c] == 0) continue;
            w.microsField(kernelCategoryName(KernelCategory(c)), report.kernels.byCategory[c]);
        }
        w.endObject();
    }
    if (wants(ReportSection::Memory)) writeMemoryPeaks(w, report);
    if (wants(ReportSection::Recommendations)) {
        w.key("recommendations");
        writeRows(w, recommendationColumns(), ov.recommendations, rowPerLine);
    }
    if (wants(ReportSection::Distributed)) {
        w.key("distributed");
        writeRankFigures(w, report.distributed);
    }
    if (wants(ReportSection::GpuWaits)) writeGpuWaits(w, report);
    if (wants(ReportSection::Sequences)) {
        // The sequences of GPU work operators launch, those that take the most GPU time first.
        w.key("kernel_sequences");
        writeRows(w, kernelSequenceColumns(), report.kernelSequences, rowPerLine, longTableRows);
    }
    if (wants(ReportSection::Roofline)) writePerfModel(w, report.perfModel, longTableRows);
    if (wants(ReportSection::Inductor) && report.inductor.hasTriton) writeInductor(w, report.inductor);
    if (wants(ReportSection::CriticalPath) && report.criticalPath) writeCriticalPath(w, *report.criticalPath);
}

// The overview's members: steps, GPU utilisation and metrics, the step-time breakdown.
void writeOverview(JsonWriter<std::string>& w, const AnalysisResult& report) {
    const Overview& ov = report.overview;
    std::vector<NamedStep> steps;
    for (std::size_t i = 0; i < ov.steps.size(); ++i)
        steps.push_back({report.stepNames[i], ov.steps[i].start, ov.steps[i].end});
    w.key("steps");
    writeRows(w, stepColumns(), steps, rowPerLine);
    w.key("gpu_utilization");
    w.beginObject();
    for (const GpuMetrics& g : ov.gpus) {
        w.fixedField(std::to_string(g.device), g.utilization, 6);
    }
    w.endObject();
    w.key("gpu_metrics");
    w.beginObject();
    for (const GpuMetrics& g : ov.gpus) {
        w.key(std::to_string(g.device));
        w.beginObject();
        w.fixedField("utilization", g.utilization, 6);
        w.fixedField("busy_of_wall", g.busyOfWall, 6);
        w.fixedField("sm_efficiency", g.smEfficiency, 6);
        w.fixedField("achieved_occupancy_pct", g.achievedOccupancy, 3);
        w.fixedField("tensor_core_share", g.tensorCoreShare, 6);
        w.endObject();
    }
    w.endObject();
    w.key("breakdown_us");
    w.beginObject();
    for (std::size_t c = 0; c < breakdownCategoryCount; ++c) {
        w.microsField(breakdownCategoryName(BreakdownCategory(c)), ov.breakdownTotal[c]);
    }
    w.endObject();
    // Beside the breakdown, not in it: its "communication" is what compute left exposed.
    w.microsField("communication_overlapped_us", ov.communicationOverlappedTotal);
    // The part of the breakdown's runtime in one-time warm-up calls (first calls loading modules, cuDNN's
    // algorithm search), named apart from launch overhead.
    w.microsField("warm_up_us", ov.warmUpTotal);
}

// Each device's memory peaks.
void writeMemoryPeaks(JsonWriter<std::string>& w, const AnalysisResult& report) {
    w.key("memory");
    w.beginObject();
    for (const auto& [device, peak] : report.memory.peaks) {
        w.key(std::to_string(device));
        w.beginObject();
        w.fixedField("peak_allocated_bytes", peak.allocated, 0);
        w.key("peak_reserved_bytes");
        if (peak.hasReserved)
            w.fixed(peak.reserved, 0);
        else
            w.null();
        if (peak.relative) {
            w.key("relative_to_trace_start");
            w.boolean(true);
        }
        w.endObject();
    }
    w.endObject();
}

// Where the GPUs wait: idle time, the temporal breakdown, the launch queues, launch statistics.
void writeGpuWaits(JsonWriter<std::string>& w, const AnalysisResult& report) {
    w.key("gpu_idle");
    writeRows(w, gpuIdleColumns(), report.gpuIdle, rowPerLine);
    w.key("temporal_breakdown");
    writeRows(w, temporalBreakdownColumns(), report.gpuTime, rowPerLine);
    w.key("gpu_queue");
    writeRows(w, gpuQueueColumns(), report.queues, rowPerLine);
    const LaunchStatistics& ls = report.launches;
    w.key("launch_stats");
    w.beginObject();
    w.numField("launches", ls.launches);
    for (const auto& [key, d] :
         {std::pair<const char*, const Distribution*>{"cpu_duration_us", &ls.cpuDuration},
          {"gpu_duration_us", &ls.gpuDuration},
          {"launch_delay_us", &ls.launchDelay}}) {
        w.key(key);
        w.beginObject();
        w.fixedField("median", d->median / 1000, 3);
        w.fixedField("p90", d->p90 / 1000, 3);
        w.fixedField("p99", d->p99 / 1000, 3);
        w.fixedField("max", d->max / 1000, 3);
        w.endObject();
    }
    w.key("outliers");
    w.beginObject();
    w.numField("short_kernels", std::uint64_t(ls.shortKernels.size()));
    w.numField("long_calls", std::uint64_t(ls.longCalls.size()));
    w.numField("long_delays", std::uint64_t(ls.longDelays.size()));
    w.endObject();
    w.endObject();
}
} // namespace

std::string criticalPathToJson(const StepCriticalPath& path) {
    std::string out;
    JsonWriter w(out);
    w.beginObject(topLevel);
    writeCriticalPath(w, path);
    w.endObject();
    out += '\n';
    return out;
}

std::string summaryToJson(const Summary& s, const AnalysisResult* report, std::size_t longTableRows) {
    std::string out;
    JsonWriter w(out);
    w.beginObject(topLevel);
    w.numField("events", s.events);
    if (report) writeRun(w, *report);
    const ReportSections sections = report ? report->sections : allReportSections();
    if (has(sections, ReportSection::Kernels)) {
        w.key("kernels");
        writeRows(w, kernelColumns(), s.kernels, rowPerLine);
    }
    if (has(sections, ReportSection::Operators)) {
        writeOperatorRows(w, "operators", s.operators);
        writeOperatorRows(w, "annotations", s.annotations);
    }
    w.key("gpu_busy_us");
    w.beginObject();
    for (const auto& [device, busy] : s.gpuBusy) {
        w.microsField(std::to_string(device), busy);
    }
    w.endObject();
    if (report) writeReport(w, *report, longTableRows);
    w.endObject();
    out += '\n';
    return out;
}

std::optional<std::string> summaryToText(const Summary& summary, const SummaryTextOptions& options,
                                         std::string& error) {
    std::vector<OperatorRow> ops = summary.operators;
    std::vector<KernelRow> kernels = summary.kernels;
    const std::string& f = options.sortField;
    if (!f.empty()) {
        using OpKey = std::function<TimeNs(const OperatorRow&)>;
        using KernelKey = std::function<TimeNs(const KernelRow&)>;
        OpKey opKey;
        KernelKey kernelKey;
        if (f == "count" || f == "calls") {
            opKey = [](const OperatorRow& r) { return TimeNs(r.count); };
            kernelKey = [](const KernelRow& r) { return TimeNs(r.count); };
        } else if (f == "host_total")
            opKey = [](const OperatorRow& r) { return r.hostTotal; };
        else if (f == "host_self")
            opKey = [](const OperatorRow& r) { return r.hostSelf; };
        else if (f == "device_total")
            opKey = [](const OperatorRow& r) { return r.deviceTotal; };
        else if (f == "device_self")
            opKey = [](const OperatorRow& r) { return r.deviceSelf; };
        else if (f == "total")
            kernelKey = [](const KernelRow& r) { return r.total; };
        else if (f == "mean")
            kernelKey = [](const KernelRow& r) { return r.mean(); };
        else if (f == "min")
            kernelKey = [](const KernelRow& r) { return r.min; };
        else if (f == "max")
            kernelKey = [](const KernelRow& r) { return r.max; };
        else if (f != "name") {
            error = "unknown sort field '" + f +
                    "' (operators: count, host_total, host_self, device_total, device_self, name; "
                    "kernels: count, total, mean, min, max, name)";
            return std::nullopt;
        }
        if (f == "name") {
            std::stable_sort(ops.begin(), ops.end(), [](auto& a, auto& b) { return a.name < b.name; });
            std::stable_sort(kernels.begin(), kernels.end(),
                             [](auto& a, auto& b) { return a.name < b.name; });
        }
        if (opKey)
            std::stable_sort(ops.begin(), ops.end(), [&](auto& a, auto& b) { return opKey(a) > opKey(b); });
        if (kernelKey)
            std::stable_sort(kernels.begin(), kernels.end(),
                             [&](auto& a, auto& b) { return kernelKey(a) > kernelKey(b); });
    }
    std::string out = "Events: " + std::to_string(summary.events) + "\n";
    for (const auto& [device, busy] : summary.gpuBusy)
        out += "GPU " + std::to_string(device) + " busy: " + formatMicros(busy) + " us\n";

    if (options.showOperators) {
        const std::size_t shown = std::min(options.top, ops.size());
        out += "\nOperators (" + std::to_string(shown) + " of " + std::to_string(ops.size()) + ")\n";
        out += rowsText(operatorColumns(true), ops, options.top);
        if (!summary.annotations.empty()) {
            out += "\nAnnotations: record_function ranges, steps, optimizer, DataLoader (" +
                   std::to_string(std::min(options.top, summary.annotations.size())) + " of " +
                   std::to_string(summary.annotations.size()) + ")\n";
            out += rowsText(operatorColumns(false), summary.annotations, options.top);
        }
    }
    if (options.showKernels) {
        const std::size_t shown = std::min(options.top, kernels.size());
        out += "\nKernels (" + std::to_string(shown) + " of " + std::to_string(kernels.size()) + ")\n";
        out += rowsText(kernelColumns(), kernels, options.top);
    }
    return out;
}

std::string importReport(const TraceStore& store, double loadSeconds) {
    const ImportStats& st = store.stats();
    std::string out;
    auto line = [&](const char* fmt, auto... args) { appendFormatted(out, fmt, args...); };
    const std::size_t slices = store.sliceCount();
    std::size_t counterTracks = 0, gpuTracks = 0, cpuTracks = 0, asyncTracks = 0;
    for (const Track& t : store.tracks()) {
        if (t.kind == TrackKind::Counter)
            ++counterTracks;
        else if (t.kind == TrackKind::GpuStream)
            ++gpuTracks;
        else if (t.kind == TrackKind::Async)
            ++asyncTracks;
        else
            ++cpuTracks;
    }
    line("File:            %s\n", store.sourcePath().c_str());
    // A spool's bytes are the capture's wire stream, not JSON text.
    const char* text = st.wireStream ? "capture stream" : "JSON";
    // Binary units of three digits: a 34 KB file read "0.0 MB".
    line("Size:            %s on disk, %s of %s%s\n", formatBytes(double(st.fileBytes)).c_str(),
         formatBytes(double(st.jsonBytes)).c_str(), text, st.gzip ? " (gzip)" : "");
    line("Load time:       %.3f s (%.0f MB/s of %s)\n", loadSeconds,
         loadSeconds > 0 ? double(st.jsonBytes) / 1e6 / loadSeconds : 0.0, text);
    line("Events read:     %llu\n", static_cast<unsigned long long>(st.eventsSeen));
    line("Slices:          %zu\n", slices);
    line("Counter samples: %zu\n", store.counterSampleCount());
    line("Tracks:          %zu (%zu CPU threads, %zu GPU streams, %zu async, %zu counters)\n",
         store.tracks().size(), cpuTracks, gpuTracks, asyncTracks, counterTracks);
    std::size_t launch = 0, fwdbwd = 0;
    for (const Flow& f : store.flows()) {
        if (f.kind == FlowKind::Launch)
            ++launch;
        else if (f.kind == FlowKind::ForwardBackward)
            ++fwdbwd;
    }
    line("Flows:           %zu (%zu launch->GPU, %zu forward->backward)\n", store.flows().size(), launch,
         fwdbwd);
    line("Time span:       %s (%s .. %s us)\n", formatDuration(store.maxTime() - store.minTime()).c_str(),
         formatMicros(store.minTime()).c_str(), formatMicros(store.maxTime()).c_str());
    const std::size_t held = store.bytesHeld();
    line("Store memory:    %s (%.1f bytes per event)\n", formatBytes(double(held)).c_str(),
         st.eventsSeen ? double(held) / double(st.eventsSeen) : 0.0);
    out += "Phases:         ";
    for (const auto& [ph, n] : st.phaseCounts)
        out += " " + ph + "=" + std::to_string(n);
    out += "\nCategories:     ";
    for (const auto& [cat, n] : st.categoryCounts)
        out += " " + (cat.empty() ? std::string("(none)") : cat) + "=" + std::to_string(n);
    out += "\n";
    if (st.legacyOperators + st.legacyAnnotations)
        line("Legacy format:   no categories (autograd profiler without Kineto): %llu operators and %llu "
             "annotations told apart by name\n",
             static_cast<unsigned long long>(st.legacyOperators),
             static_cast<unsigned long long>(st.legacyAnnotations));
    line("Malformed:       %llu skipped\n", static_cast<unsigned long long>(st.malformedEvents));
    line("Unknown phase:   %llu skipped\n", static_cast<unsigned long long>(st.unknownPhaseEvents));
    line("Overlapping:     %llu slices moved to overflow lanes\n",
         static_cast<unsigned long long>(st.overlappingSlices));
    line("Clock jitter:    %llu overlaps between siblings within the clocks' rounding, kept on their lane\n",
         static_cast<unsigned long long>(st.jitterOverlaps));
    line("B/E unmatched:   %llu E without B, %llu B without E\n",
         static_cast<unsigned long long>(st.endWithoutBegin),
         static_cast<unsigned long long>(st.beginWithoutEnd));
    line("Flows unmatched: %llu start-only, %llu finish-only, %llu unbound\n",
         static_cast<unsigned long long>(st.flowStartsUnmatched),
         static_cast<unsigned long long>(st.flowEndsUnmatched),
         static_cast<unsigned long long>(st.flowsUnbound));
    if (st.asyncUnmatched)
        line("Async unmatched: %llu\n", static_cast<unsigned long long>(st.asyncUnmatched));
    if (st.truncated)
        line("Truncated:       yes, at byte %llu\n", static_cast<unsigned long long>(st.truncatedAt));
    if (!st.trailingProblem.empty()) out += "After events:    " + st.trailingProblem + "\n";
    for (const std::string& note : st.conversionNotes)
        out += "Not converted:   " + note + "\n";
    for (const ImportIssue& issue : st.issues)
        line("  byte %llu: %s\n", static_cast<unsigned long long>(issue.offset), issue.reason.c_str());
    return out;
}

} // namespace kinetoscope

namespace kinetoscope {

// The overview's lines: the steps, the step-time breakdown and each GPU's metrics.
static void appendOverviewText(std::string& out, const Overview& ov) {
    auto line = [&](const char* fmt, auto... args) { appendFormatted(out, fmt, args...); };
    line("Steps: %zu%s, mean %s, median %s, min %s, max %s, %.2f steps/s\n", ov.steps.size(),
         ov.syntheticStep ? " (no ProfilerStep: one activity step, from the first CPU op or Python frame to "
                            "the end of the GPU work it launched)"
                          : "",
         formatDuration(ov.stepMean).c_str(), formatDuration(ov.stepMedian).c_str(),
         formatDuration(ov.stepMin).c_str(), formatDuration(ov.stepMax).c_str(), ov.stepsPerSecond);
    TimeNs span = 0;
    for (TimeNs t : ov.breakdownTotal)
        span += t;
    out += "Step time breakdown:";
    for (std::size_t c = 0; c < breakdownCategoryCount; ++c) {
        // Communication the kernels hid is not in the breakdown: say so, and how much it was.
        const bool communication = BreakdownCategory(c) == BreakdownCategory::Communication;
        const bool runtime = BreakdownCategory(c) == BreakdownCategory::Runtime;
        const std::string note =
            communication && ov.communicationOverlappedTotal > 0
                ? " [" + formatDuration(ov.communicationOverlappedTotal) + " more overlapped]"
            : runtime && ov.warmUpTotal > 0
                ? " [" + formatDuration(ov.warmUpTotal) + " of it one-time warm-up]"
                : std::string();
        line(" %s %s (%.1f%%)%s%s",
             communication ? "communication not overlapped by compute"
                           : std::string(breakdownCategoryName(BreakdownCategory(c))).c_str(),
             formatDuration(ov.breakdownTotal[c]).c_str(),
             span ? 100.0 * double(ov.breakdownTotal[c]) / double(span) : 0.0, note.c_str(),
             c + 1 < breakdownCategoryCount ? "," : "\n");
    }
    for (const GpuMetrics& g : ov.gpus) {
        char sm[32] = "n/a", occ[32] = "n/a";
        if (g.hasSmData) std::snprintf(sm, sizeof sm, "%.1f%%", g.smEfficiency * 100);
        if (g.hasOccupancyData) std::snprintf(occ, sizeof occ, "%.1f%%", g.achievedOccupancy);
        line("GPU %lld: utilization %.1f%% of the steps' span, busy %.1f%% of wall time, est. SM efficiency "
             "%s, "
             "est. achieved "
             "occupancy %s, "
             "tensor cores %.1f%% of kernel time\n",
             static_cast<long long>(g.device), g.utilization * 100, g.busyOfWall * 100, sm, occ,
             g.tensorCoreShare * 100);
    }
}

std::string reportToText(const AnalysisResult& report) {
    const Overview& ov = report.overview;
    std::string out;
    auto line = [&](const char* fmt, auto... args) { appendFormatted(out, fmt, args...); };
    const RunFacts& facts = report.facts;
    if (!facts.devices.empty() || !facts.facts.empty()) {
        out += "Run\n";
        for (const DeviceProperties& d : facts.devices) {
            line("  GPU %lld: %s, %.1f GiB, %lld SMs, compute %lld.%lld\n", static_cast<long long>(d.id),
                 d.name.c_str(), double(d.totalGlobalMem) / double(1ll << 30),
                 static_cast<long long>(d.numSms), static_cast<long long>(d.computeMajor),
                 static_cast<long long>(d.computeMinor));
        }
        for (const auto& [k, v] : facts.facts)
            line("  %s: %s\n", k.c_str(), v.c_str());
        out += "\n";
    }
    // Only the sections computed (summary --by, --sections): what was not computed is left out, not shown
    // empty.
    const auto wants = [&](ReportSection section) { return has(report.sections, section); };
    if (wants(ReportSection::Overview)) appendOverviewText(out, ov);
    if (report.kernels.totalKernelTime > 0) {
        out += "Kernel time by category:";
        bool first = true;
        for (std::size_t c = 0; c < kernelCategoryCount; ++c) {
            if (report.kernels.byCategory[c] == 0) continue;
            line("%s %s %s (%.1f%%)", first ? "" : ",",
                 std::string(kernelCategoryName(KernelCategory(c))).c_str(),
                 formatDuration(report.kernels.byCategory[c]).c_str(),
                 100.0 * double(report.kernels.byCategory[c]) / double(report.kernels.totalKernelTime));
            first = false;
        }
        out += "\n";
    }
    for (const auto& [device, peak] : report.memory.peaks) {
        const std::string who = device < 0 ? "CPU" : "GPU " + std::to_string(device);
        line("Memory %s: peak allocated %.1f MiB%s", who.c_str(), peak.allocated / 1048576.0,
             peak.relative ? " above the trace's start (this trace gives sizes, not totals)" : "");
        if (peak.hasReserved) line(", peak reserved %.1f MiB", peak.reserved / 1048576.0);
        out += "\n";
    }
    for (const DeviceTime& t : report.gpuTime) {
        const double span = double(std::max<TimeNs>(1, t.span));
        line("GPU %lld over %s: idle %.1f%%, compute %.1f%%, communication %.1f%%, memory %.1f%%, compute "
             "overlapping the others %.1f%%\n",
             static_cast<long long>(t.device), formatDuration(t.span).c_str(), 100 * double(t.idle) / span,
             100 * double(t.compute) / span, 100 * double(t.communication) / span,
             100 * double(t.memory) / span, 100 * double(t.overlap) / span);
    }
    for (const StreamIdle& g : report.gpuIdle) {
        const double idle = double(std::max<TimeNs>(1, g.idle()));
        line(
            "GPU %lld stream %lld idle %s in %llu gaps: waiting for the host %.1f%%, for the previous kernel "
            "%.1f%%, other %.1f%%\n",
            static_cast<long long>(g.device), static_cast<long long>(g.stream),
            formatDuration(g.idle()).c_str(), static_cast<unsigned long long>(g.gaps),
            100 * double(g.hostWait) / idle, 100 * double(g.kernelWait) / idle, 100 * double(g.other) / idle);
    }
    for (const StreamQueue& q : report.queues)
        line("GPU %lld stream %lld launch queue: at most %lld waiting, %.1f on average, full (%d) for %s\n",
             static_cast<long long>(q.device), static_cast<long long>(q.stream),
             static_cast<long long>(q.maxLength), q.meanLength, queueFullLength,
             formatDuration(q.fullTime).c_str());
    if (const LaunchStatistics& ls = report.launches; ls.launches > 0)
        line("Launches: %llu; call median %.1f us (p99 %.1f), launch delay median %.1f us (p99 %.1f); %zu "
             "short "
             "kernels, %zu calls over 50 us, %zu delays over 100 us\n",
             static_cast<unsigned long long>(ls.launches), ls.cpuDuration.median / 1000,
             ls.cpuDuration.p99 / 1000, ls.launchDelay.median / 1000, ls.launchDelay.p99 / 1000,
             ls.shortKernels.size(), ls.longCalls.size(), ls.longDelays.size());
    if (!report.kernelSequences.empty()) out += "Kernel sequences (fusion candidates), by GPU time:\n";
    for (std::size_t i = 0; i < std::min<std::size_t>(3, report.kernelSequences.size()); ++i) {
        const KernelSequence& k = report.kernelSequences[i];
        std::string kernels;
        for (std::size_t j = 0; j < k.work.size(); ++j) {
            if (j == 4) {
                kernels += " … (" + std::to_string(k.work.size()) + " in all)";
                break;
            }
            kernels += (j ? " → " : "") + shortKernelName(k.work[j]);
        }
        line("  %s ×%llu, GPU %s: %s\n", k.op.c_str(), static_cast<unsigned long long>(k.count),
             formatDuration(k.gpuTime).c_str(), kernels.c_str());
    }
    if (wants(ReportSection::Roofline)) out += perfModelText(report.perfModel);
    if (report.inductor.hasTriton) out += inductorText(report.inductor);
    if (report.criticalPath) out += criticalPathText(*report.criticalPath);
    if (wants(ReportSection::Recommendations)) {
        out += ov.recommendations.empty() ? "Recommendations: none\n" : "Recommendations:\n";
        for (const Recommendation& r : ov.recommendations)
            line("  [%s] %s\n      %s\n", r.id.c_str(), r.title.c_str(), r.evidence.c_str());
    }
    return out;
}

} // namespace kinetoscope
