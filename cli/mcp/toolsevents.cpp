// The event tools: slices (a window, a track, a name), explain_event (an event with its parents, children,
// flows, launching call and operator, and the kernels it launched) and query (SQL). All read the trace
// through the SQL layer, so every id they give is the `slice.id` a query, a link and the viewer use.
#include "tools.h"

#include <cmath>

namespace kinetoscope::mcp {

namespace {

using namespace toolparts;
using sql::QueryResult;
using sql::Value;
using Parameters = std::vector<std::pair<std::string, Value>>;

constexpr std::int64_t maxLimit = 100000;

// The columns every slice row is read with (sliceRow's order).
constexpr std::string_view sliceSelect =
    "SELECT s.id, s.ts, s.dur, s.name, s.category, t.name, s.track_id, s.depth, s.parent_id, s.arg_set_id "
    "FROM slice s JOIN track t ON t.id = s.track_id ";

std::int64_t integerOf(const Value& v) {
    if (const auto* i = std::get_if<std::int64_t>(&v)) return *i;
    if (const auto* d = std::get_if<double>(&v)) return std::int64_t(*d);
    return 0;
}
std::string textOf(const Value& v) {
    return sql::valueText(v);
}

struct SliceRow {
    std::int64_t id = -1;
    TimeNs ts = 0, dur = 0;
    std::string name, category, track;
    std::int64_t trackId = 0, depth = 0;
    std::optional<std::int64_t> parentId, argSetId;
};

SliceRow sliceRow(const std::vector<Value>& row) {
    SliceRow s;
    s.id = integerOf(row[0]);
    s.ts = integerOf(row[1]);
    s.dur = integerOf(row[2]);
    s.name = textOf(row[3]);
    s.category = textOf(row[4]);
    s.track = textOf(row[5]);
    s.trackId = integerOf(row[6]);
    s.depth = integerOf(row[7]);
    if (!std::holds_alternative<std::monostate>(row[8])) s.parentId = integerOf(row[8]);
    if (!std::holds_alternative<std::monostate>(row[9])) s.argSetId = integerOf(row[9]);
    return s;
}

void writeSliceFields(JsonWriter<std::string>& w, const OpenTrace& trace, const SliceRow& s) {
    w.numField("id", s.id);
    w.microsField("ts_us", s.ts);
    w.microsField("dur_us", s.dur);
    w.strField("name", s.name);
    w.strField("category", s.category);
    w.strField("track", s.track);
    w.numField("track_id", s.trackId);
    w.numField("depth", s.depth);
    w.strField("link", link(trace, std::pair{s.ts, s.ts + std::max<TimeNs>(s.dur, 1)}, s.id));
}

void writeSlice(JsonWriter<std::string>& w, const OpenTrace& trace, const SliceRow& s) {
    w.beginObject();
    writeSliceFields(w, trace, s);
    w.endObject();
}

// One Markdown line of a slice: its name, id, times and track.
std::string sliceLine(const SliceRow& s) {
    // A kernel's full signature can run to 600 bytes: the text keeps the start (the structured answer has
    // all).
    return "`" + elideText(s.name, 160) + "` (id " + std::to_string(s.id) + ", " + micros(s.dur) + " us at " +
           micros(s.ts) + " us, " + (s.category.empty() ? "" : s.category + ", ") + s.track + ")";
}

// A query the tool wrote itself: a failure is ours, said as such.
QueryResult run(OpenTrace& trace, const std::string& sql, const Parameters& parameters, std::string& error) {
    QueryResult r = trace.database().query(sql, parameters);
    if (!r.ok() && error.empty()) error = "internal query failed: " + r.error;
    return r;
}

std::optional<SliceRow> sliceById(OpenTrace& trace, std::int64_t id, std::string& error) {
    const QueryResult r = run(trace, std::string(sliceSelect) + "WHERE s.id = :id", {{"id", id}}, error);
    if (r.rows.empty()) return std::nullopt;
    return sliceRow(r.rows.front());
}

TimeNs nsOfMicros(double us) {
    return TimeNs(std::llround(us * 1000.0));
}

ToolResult slices(ToolContext& context, ToolArguments& args) {
    const auto from = args.number("start_us");
    const auto to = args.number("end_us");
    const auto trackArg = args.string("track");
    const auto name = args.string("name");
    const std::string order = args.string("order").value_or("time");
    const auto limit = args.integer("limit", 1, maxLimit).value_or(50);
    std::string error;
    const auto trace = traceOf(context, args, error);
    if (!args.error().empty()) return ToolResult::error(args.error());
    if (!trace) return ToolResult::error(error);
    if (order != "time" && order != "duration")
        return ToolResult::error("argument 'order' must be \"time\" or \"duration\"");

    std::string where = "WHERE s.ts >= :from AND s.ts <= :to";
    Parameters parameters = {{"from", from ? nsOfMicros(*from) : std::numeric_limits<std::int64_t>::min()},
                             {"to", to ? nsOfMicros(*to) : std::numeric_limits<std::int64_t>::max()}};
    if (trackArg && !trackArg->empty()) {
        // A track by its id (slice.track_id) or by a part of its name ("stream 7", "python").
        const bool isId =
            std::all_of(trackArg->begin(), trackArg->end(), [](char c) { return c >= '0' && c <= '9'; });
        where += isId ? " AND s.track_id = :track" : " AND instr(t.name, :track) > 0";
        parameters.emplace_back("track",
                                isId ? Value(std::int64_t(std::stoll(*trackArg))) : Value(*trackArg));
    }
    if (name && !name->empty()) {
        const bool glob = name->find_first_of("*?[") != std::string::npos;
        where += glob ? " AND s.name GLOB :name" : " AND instr(s.name, :name) > 0";
        parameters.emplace_back("name", *name);
    }
    const QueryResult count = run(
        *trace, "SELECT count(*) FROM slice s JOIN track t ON t.id = s.track_id " + where, parameters, error);
    parameters.emplace_back("limit", limit);
    const QueryResult r =
        run(*trace,
            std::string(sliceSelect) + where +
                (order == "time" ? " ORDER BY s.ts, s.id" : " ORDER BY s.dur DESC, s.id") + " LIMIT :limit",
            parameters, error);
    if (!error.empty()) return ToolResult::error(error);
    const std::size_t total = count.rows.empty() ? 0 : std::size_t(integerOf(count.rows[0][0]));

    ToolResult result;
    std::string structured;
    JsonWriter w(structured);
    w.beginObject();
    writeTraceHeader(w, *trace);
    w.numField("total_rows", total);
    w.key("rows");
    w.beginArray();
    result.text = std::to_string(total) + " slice" + (total == 1 ? "" : "s") + " start in the window" +
                  (order == "time" ? ", by start" : ", longest first") + ":\n";
    for (const auto& row : r.rows) {
        const SliceRow s = sliceRow(row);
        writeSlice(w, *trace, s);
        result.text += "- " + sliceLine(s) + "\n";
    }
    w.endArray();
    w.endObject();
    result.text += leftOut(r.rows.size(), total, "slices");
    result.structuredJson = std::move(structured);
    return result;
}

// An event's parts (parents, children, flows' other ends, kernels) as a JSON array and Markdown lines.
void writeSlices(ToolResult& result, JsonWriter<std::string>& w, const OpenTrace& trace, std::string_view key,
                 std::string_view heading, const std::vector<SliceRow>& rows) {
    w.key(key);
    w.beginArray();
    for (const SliceRow& s : rows)
        writeSlice(w, trace, s);
    w.endArray();
    if (rows.empty() || heading.empty()) return;
    result.text += "\n" + std::string(heading) + ":\n";
    for (const SliceRow& s : rows)
        result.text += "- " + sliceLine(s) + "\n";
}

std::vector<SliceRow> slicesOf(const QueryResult& r) {
    std::vector<SliceRow> out;
    for (const auto& row : r.rows)
        out.push_back(sliceRow(row));
    return out;
}

void writeValue(JsonWriter<std::string>& w, const Value& v) {
    if (const auto* i = std::get_if<std::int64_t>(&v))
        w.num(*i);
    else if (const auto* d = std::get_if<double>(&v))
        w.exact(*d);
    else if (const auto* s = std::get_if<std::string>(&v))
        w.str(*s);
    else
        w.null();
}

ToolResult explainEvent(ToolContext& context, ToolArguments& args) {
    const auto id = args.integer("id", 0, std::numeric_limits<std::int64_t>::max());
    const auto limit = args.integer("limit", 1, maxLimit).value_or(20);
    std::string error;
    const auto trace = traceOf(context, args, error);
    if (!args.error().empty()) return ToolResult::error(args.error());
    if (!id) return ToolResult::error("argument 'id' is required (a slice id, as the other tools give it)");
    if (!trace) return ToolResult::error(error);
    const auto event = sliceById(*trace, *id, error);
    if (!event)
        return ToolResult::error(
            error.empty() ? "no event has id " + std::to_string(*id) + " in " + trace->path : error);

    // Its enclosing slices, innermost first.
    std::vector<SliceRow> parents;
    for (auto parent = event->parentId; parent && parents.size() < 256;) {
        const auto p = sliceById(*trace, *parent, error);
        if (!p) break;
        parents.push_back(*p);
        parent = p->parentId;
    }
    const TimeNs end = event->ts + event->dur;
    const Parameters within = {
        {"id", *id}, {"track", event->trackId}, {"ts", event->ts}, {"end", end}, {"limit", limit}};
    const std::string childWhere =
        "WHERE s.track_id = :track AND s.ts >= :ts AND s.ts <= :end AND s.parent_id = :id";
    const QueryResult childCount =
        run(*trace, "SELECT count(*) FROM slice s JOIN track t ON t.id = s.track_id " + childWhere, within,
            error);
    const auto children = slicesOf(
        run(*trace, std::string(sliceSelect) + childWhere + " ORDER BY s.ts LIMIT :limit", within, error));
    const auto flowsOut = slicesOf(
        run(*trace,
            std::string(sliceSelect) +
                "JOIN flow f ON f.slice_in = s.id WHERE f.slice_out = :id ORDER BY s.ts LIMIT :limit",
            within, error));
    const auto flowsIn = slicesOf(
        run(*trace,
            std::string(sliceSelect) +
                "JOIN flow f ON f.slice_out = s.id WHERE f.slice_in = :id ORDER BY s.ts LIMIT :limit",
            within, error));
    // A kernel's launching call and operator (the kernel table's launch_id and operator_id).
    const QueryResult kernel =
        run(*trace, "SELECT launch_id, operator_id FROM kernel WHERE id = :id", within, error);
    std::optional<SliceRow> launchedBy, operatorRow;
    if (!kernel.rows.empty()) {
        if (!std::holds_alternative<std::monostate>(kernel.rows[0][0]))
            launchedBy = sliceById(*trace, integerOf(kernel.rows[0][0]), error);
        if (!std::holds_alternative<std::monostate>(kernel.rows[0][1]))
            operatorRow = sliceById(*trace, integerOf(kernel.rows[0][1]), error);
    }
    // The kernels launched from inside it (by it, or by the calls it encloses on its thread).
    const std::string launchedWhere =
        " WHERE k.launch_id IN (SELECT id FROM slice WHERE track_id = :track AND ts >= :ts AND ts <= :end)";
    const QueryResult kernelCount =
        run(*trace, "SELECT count(*) FROM kernel k" + launchedWhere, within, error);
    const auto kernels =
        slicesOf(run(*trace,
                     "SELECT k.id, k.ts, k.dur, k.name, 'kernel', t.name, k.track_id, 0, NULL, NULL "
                     "FROM kernel k JOIN track t ON t.id = k.track_id" +
                         launchedWhere + " ORDER BY k.ts LIMIT :limit",
                     within, error));
    const QueryResult args_ =
        event->argSetId
            ? run(*trace, "SELECT key, int_value, string_value, real_value FROM args WHERE arg_set_id = :a",
                  {{"a", *event->argSetId}}, error)
            : QueryResult{};
    if (!error.empty()) return ToolResult::error(error);

    ToolResult result;
    result.text = "Event " + sliceLine(*event) + ". [view](" +
                  link(*trace, std::pair{event->ts, event->ts + std::max<TimeNs>(event->dur, 1)}, event->id) +
                  ")\n";
    std::string structured;
    JsonWriter w(structured);
    w.beginObject();
    writeTraceHeader(w, *trace);
    w.key("event");
    // The event with its args (as the trace wrote them: integers, reals or text).
    w.beginObject();
    writeSliceFields(w, *trace, *event);
    w.key("args");
    w.beginObject();
    std::string argText;
    for (const auto& row : args_.rows) {
        const std::string key = textOf(row[0]);
        w.key(key);
        const Value& value = !std::holds_alternative<std::monostate>(row[1])   ? row[1]
                             : !std::holds_alternative<std::monostate>(row[3]) ? row[3]
                                                                               : row[2];
        writeValue(w, value);
        argText += "- " + key + ": " + textOf(value) + "\n";
    }
    w.endObject();
    w.endObject();
    if (!argText.empty()) result.text += "\nArgs:\n" + argText;
    writeSlices(result, w, *trace, "parents", "Inside (innermost first)", parents);
    const std::size_t childTotal =
        childCount.rows.empty() ? 0 : std::size_t(integerOf(childCount.rows[0][0]));
    writeSlices(result, w, *trace, "children", "Directly encloses", children);
    w.numField("children_total", childTotal);
    result.text += leftOut(children.size(), childTotal, "children");
    writeSlices(result, w, *trace, "flows_out", "Flows to", flowsOut);
    // (A kernel's one flow comes from its launch, said below as "Launched by": not twice in the text.)
    const bool onlyLaunch = launchedBy && flowsIn.size() == 1 && flowsIn.front().id == launchedBy->id;
    writeSlices(result, w, *trace, "flows_in", onlyLaunch ? std::string_view() : "Flows from", flowsIn);
    w.key("launched_by");
    if (launchedBy) {
        writeSlice(w, *trace, *launchedBy);
        result.text += "\nLaunched by " + sliceLine(*launchedBy) + "\n";
    } else {
        w.null();
    }
    w.key("operator");
    if (operatorRow) {
        writeSlice(w, *trace, *operatorRow);
        result.text += "\nFrom the operator " + sliceLine(*operatorRow) + "\n";
    } else {
        w.null();
    }
    const std::size_t kernelTotal =
        kernelCount.rows.empty() ? 0 : std::size_t(integerOf(kernelCount.rows[0][0]));
    writeSlices(result, w, *trace, "kernels", "Kernels it launched", kernels);
    w.numField("kernels_total", kernelTotal);
    result.text += leftOut(kernels.size(), kernelTotal, "kernels");
    w.endObject();
    result.structuredJson = std::move(structured);
    return result;
}

ToolResult query(ToolContext& context, ToolArguments& args) {
    const std::string sql = args.required("sql");
    const auto limit = std::size_t(args.integer("limit", 1, maxLimit).value_or(100));
    std::string error;
    const auto trace = traceOf(context, args, error);
    if (!args.error().empty()) return ToolResult::error(args.error());
    if (!trace) return ToolResult::error(error);
    const QueryResult r = trace->database().query(sql);
    if (!r.ok()) {
        std::string where;
        if (r.errorLine > 0)
            where =
                " (line " + std::to_string(r.errorLine) + ", column " + std::to_string(r.errorColumn) + ")";
        return ToolResult::error("query: " + r.error + where);
    }
    ToolResult result;
    std::string structured;
    JsonWriter w(structured);
    w.beginObject();
    writeTraceHeader(w, *trace);
    w.key("columns");
    w.beginArray();
    for (const std::string& c : r.columns)
        w.str(c);
    w.endArray();
    w.numField("total_rows", r.rows.size());
    w.key("rows");
    w.beginArray();
    // Markdown: a table of the rows shown, cells with their pipes escaped.
    const auto cell = [](std::string text) {
        for (std::size_t at = 0; (at = text.find_first_of("|\n", at)) != std::string::npos; at += 2)
            text.replace(at, 1, text[at] == '|' ? "\\|" : " ");
        return text;
    };
    std::string& t = result.text;
    if (!r.columns.empty()) {
        t += "|";
        for (const std::string& c : r.columns)
            t += " " + cell(c) + " |";
        t += "\n|";
        for (std::size_t c = 0; c < r.columns.size(); ++c)
            t += " --- |";
        t += "\n";
    }
    for (std::size_t i = 0; i < r.rows.size() && i < limit; ++i) {
        w.beginArray();
        t += "|";
        for (const Value& v : r.rows[i]) {
            writeValue(w, v);
            t += " " + cell(sql::valueText(v)) + " |";
        }
        t += "\n";
        w.endArray();
    }
    w.endArray();
    w.endObject();
    t += std::to_string(r.rows.size()) + " row" + (r.rows.size() == 1 ? "" : "s") + "\n";
    t += leftOut(std::min(limit, r.rows.size()), r.rows.size(), "rows");
    result.structuredJson = std::move(structured);
    return result;
}

} // namespace

void addEventTools(std::vector<ToolSpec>& tools) {
    tools.push_back(
        {"slices", "Find slices",
         "Slices (operators, kernels, runtime calls, annotations...) that start in a time window, on a "
         "track, "
         "with a name: id, start, duration, category, track, nesting depth and a link to each.",
         R"json({"type": "object", "properties": {"trace": {"type": "string", "description": "an id from open_trace, or a trace's path"}, "start_us": {"type": "number", "description": "window start, in us on the trace's clock (as the other tools write times)"}, "end_us": {"type": "number", "description": "window end, in us"}, "track": {"type": "string", "description": "a track id, or part of a track's name (\"stream 7\")"}, "name": {"type": "string", "description": "part of the name, or a glob pattern (* ?)"}, "order": {"type": "string", "enum": ["time", "duration"], "description": "by start (default) or longest first"}, "limit": {"type": "integer", "minimum": 1, "description": "rows to return (default 50)"}}, "required": ["trace"]})json",
         slices});
    tools.push_back(
        {"explain_event", "Explain an event",
         "One event by id: its args, the slices that enclose it, its children, its flows, the call and "
         "operator that launched it (a kernel), and the kernels it launched (an operator or call).",
         R"json({"type": "object", "properties": {"trace": {"type": "string", "description": "an id from open_trace, or a trace's path"}, "id": {"type": "integer", "minimum": 0, "description": "a slice id (event_id, id) from another tool"}, "limit": {"type": "integer", "minimum": 1, "description": "children, flows and kernels to list (default 20)"}}, "required": ["trace", "id"]})json",
         explainEvent});
    tools.push_back(
        {"query", "SQL query",
         "Read-only SQL (SQLite) over the trace, with Perfetto's table names: slice, args, thread, process, "
         "track, thread_track, counter, flow; ours: kernel, operator, step, memory_event; and every report "
         "table "
         "(operators, kernels, gpu_idle, recommendations, ...). Times are integer ns.",
         R"json({"type": "object", "properties": {"trace": {"type": "string", "description": "an id from open_trace, or a trace's path"}, "sql": {"type": "string", "description": "the query"}, "limit": {"type": "integer", "minimum": 1, "description": "rows to return (default 100)"}}, "required": ["trace", "sql"]})json",
         query});
}

} // namespace kinetoscope::mcp
