#pragma once

// The MCP server's tools: each a thin layer over what the CLI and the Python module already use (the report
// sections and their column descriptions, the SQL layer, diff, job and snapshot reports), answering with
// Markdown a model reads well and `structuredContent` holding the same rows as the CLI's JSON. Answers are
// bounded: a `limit` (with a default), and a line saying what was left out and how to ask for it.

#include "tracecache.h"

#include "analysis/report/rows.h"

#include <simdjson.h>

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kinetoscope::mcp {

// A tool's answer. An error is a tool error (isError), its text the CLI's one-line message.
struct ToolResult {
    std::string text;           // Markdown
    std::string structuredJson; // a JSON object's text, or empty
    struct Image {
        std::string mimeType;
        std::string base64;
    };
    std::vector<Image> images;
    bool isError = false;

    static ToolResult error(std::string message) {
        ToolResult r;
        r.text = std::move(message);
        r.isError = true;
        return r;
    }
};

// A call's arguments, read with their types checked against what the tool takes: the first problem is kept
// (`error()`), and a tool answers it instead of running.
class ToolArguments {
  public:
    ToolArguments(simdjson::dom::object object, std::vector<std::string_view> known);
    std::optional<std::string> string(std::string_view name);
    std::optional<std::int64_t> integer(std::string_view name, std::int64_t min, std::int64_t max);
    std::optional<double> number(std::string_view name);
    std::vector<std::string> strings(std::string_view name);
    // A required string: records an error when it is missing.
    std::string required(std::string_view name);
    const std::string& error() const { return m_error; }

  private:
    void fail(std::string message) {
        if (m_error.empty()) m_error = std::move(message);
    }
    simdjson::dom::object m_object;
    std::string m_error;
};

struct ToolContext {
    TraceCache& traces;
    std::string viewerPath; // the viewer binary that renders PNGs (render)
    std::string root;       // when set, the only folder the tools read from (allowedPath)
};

struct ToolSpec {
    std::string_view name;
    std::string_view title;
    std::string_view description;
    std::string_view inputSchema; // JSON Schema text of the arguments object
    std::function<ToolResult(ToolContext&, ToolArguments&)> run;
};

// Every tool, in the order tools/list gives them.
const std::vector<ToolSpec>& toolSpecs();
// The argument names a schema declares (its "properties"), for ToolArguments' check of unknown names.
std::vector<std::string_view> schemaProperties(std::string_view schema);

// The tools of each file (toolsreport.cpp, toolsevents.cpp, toolsother.cpp).
void addReportTools(std::vector<ToolSpec>& tools);
void addEventTools(std::vector<ToolSpec>& tools);
void addOtherTools(std::vector<ToolSpec>& tools);

// Shared by the tools' files.
namespace toolparts {

// The trace a tool names ("trace": an id or a path), loaded or from the cache; nullptr and `error` (an
// argument's problem, or the loader's one-line message) otherwise.
std::shared_ptr<OpenTrace> traceOf(ToolContext& context, ToolArguments& args, std::string& error);
// ns on the trace's clock as the µs the CLI's JSON writes ("1234.500").
std::string micros(TimeNs ns);
// A link to the trace at a range and event (part 3 of issue 64's kinetoscope:// links).
std::string link(const OpenTrace& trace, std::optional<std::pair<TimeNs, TimeNs>> range,
                 std::optional<std::int64_t> select = std::nullopt);
// "Showing 20 of 312 rows; ask with limit=N for more." (empty when everything is shown)
std::string leftOut(std::size_t shown, std::size_t total, std::string_view what);
// A Markdown code block holding aligned text.
std::string codeBlock(std::string_view text);
// A report's JSON document as `key` of the structured answer, unless it is too large for a model's context
// (256 KiB): then the text says what was left out, and `ask` how to ask for less.
void putStructured(ToolResult& result, JsonWriter<std::string>& w, std::string_view key,
                   const std::string& json, std::string_view ask);
// The trace's id and path, as the first members of a structured answer.
void writeTraceHeader(JsonWriter<std::string>& w, const OpenTrace& trace);

// The first `limit` rows of a report table as the CLI writes them: Markdown (its aligned text table) and the
// JSON rows of `summary --json`, each with `extra(w, row)` written after the table's own members.
template <typename Row>
void writeTable(ToolResult& result, JsonWriter<std::string>& w, const Columns<Row>& columns,
                const std::vector<Row>& rows, std::size_t limit,
                const std::function<void(JsonWriter<std::string>&, const Row&)>& extra = {}) {
    result.text += codeBlock(rowsText(columns, rows, limit));
    w.key("total_rows");
    w.num(rows.size());
    w.key("rows");
    writeRows(w, columns, rows, JsonLayout{}, limit, extra);
}

} // namespace toolparts

} // namespace kinetoscope::mcp
