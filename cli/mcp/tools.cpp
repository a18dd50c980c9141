#include "tools.h"

#include "model/viewlink.h"

#include <algorithm>
#include <cmath>
#include <set>

namespace kinetoscope::mcp {

ToolArguments::ToolArguments(simdjson::dom::object object, std::vector<std::string_view> known)
    : m_object(object) {
    // A misspelt argument would otherwise be ignored silently, and the answer would not be what was asked.
    for (const auto field : m_object) {
        if (std::find(known.begin(), known.end(), field.key) != known.end()) continue;
        std::string names;
        for (const std::string_view k : known)
            names += (names.empty() ? "" : ", ") + std::string(k);
        fail("unknown argument '" + std::string(field.key) + "' (this tool takes: " + names + ")");
    }
}

std::optional<std::string> ToolArguments::string(std::string_view name) {
    simdjson::dom::element e;
    if (m_object.at_key(name).get(e) || e.is_null()) return std::nullopt;
    std::string_view v;
    if (e.get(v)) {
        fail("argument '" + std::string(name) + "' must be a string");
        return std::nullopt;
    }
    return std::string(v);
}

std::optional<std::int64_t> ToolArguments::integer(std::string_view name, std::int64_t min,
                                                   std::int64_t max) {
    simdjson::dom::element e;
    if (m_object.at_key(name).get(e) || e.is_null()) return std::nullopt;
    std::int64_t v = 0;
    double d = 0;
    if (e.get(v)) {
        // 20.0 is an integer too, as JavaScript clients write it.
        if (e.get(d) || d != std::floor(d) || std::fabs(d) > 9e15) {
            fail("argument '" + std::string(name) + "' must be an integer");
            return std::nullopt;
        }
        v = std::int64_t(d);
    }
    if (v < min || v > max) {
        fail("argument '" + std::string(name) + "' must be between " + std::to_string(min) + " and " +
             std::to_string(max));
        return std::nullopt;
    }
    return v;
}

std::optional<double> ToolArguments::number(std::string_view name) {
    simdjson::dom::element e;
    if (m_object.at_key(name).get(e) || e.is_null()) return std::nullopt;
    double v = 0;
    if (e.get(v) || !std::isfinite(v)) {
        fail("argument '" + std::string(name) + "' must be a number");
        return std::nullopt;
    }
    return v;
}

std::vector<std::string> ToolArguments::strings(std::string_view name) {
    std::vector<std::string> out;
    simdjson::dom::element e;
    if (m_object.at_key(name).get(e) || e.is_null()) return out;
    simdjson::dom::array array;
    if (e.get(array)) {
        std::string_view one; // a single string stands for a list of one
        if (!e.get(one)) return {std::string(one)};
        fail("argument '" + std::string(name) + "' must be a list of strings");
        return out;
    }
    for (const auto item : array) {
        std::string_view v;
        if (item.get(v)) {
            fail("argument '" + std::string(name) + "' must be a list of strings");
            return {};
        }
        out.emplace_back(v);
    }
    return out;
}

std::string ToolArguments::required(std::string_view name) {
    auto v = string(name);
    if (!v || v->empty()) {
        fail("argument '" + std::string(name) + "' is required");
        return {};
    }
    return *v;
}

std::vector<std::string_view> schemaProperties(std::string_view schema) {
    // The schemas are ours (written in the tools' files), so their property names are read once from them
    // rather than listed twice.
    static thread_local simdjson::dom::parser parser;
    std::vector<std::string_view> names;
    simdjson::dom::object properties;
    const simdjson::padded_string text{std::string_view(schema)};
    if (parser.parse(text)["properties"].get(properties)) return names;
    static std::set<std::string, std::less<>> kept; // the names outlive the parser's document
    for (const auto field : properties)
        names.push_back(*kept.emplace(field.key).first);
    return names;
}

const std::vector<ToolSpec>& toolSpecs() {
    static const std::vector<ToolSpec> tools = [] {
        std::vector<ToolSpec> all;
        addReportTools(all);
        addEventTools(all);
        addOtherTools(all);
        return all;
    }();
    return tools;
}

namespace toolparts {

std::shared_ptr<OpenTrace> traceOf(ToolContext& context, ToolArguments& args, std::string& error) {
    const std::string name = args.required("trace");
    if (!args.error().empty()) {
        error = args.error();
        return nullptr;
    }
    return context.traces.open(name, error);
}

std::string micros(TimeNs ns) {
    return formatMicros(ns);
}

std::string link(const OpenTrace& trace, std::optional<std::pair<TimeNs, TimeNs>> range,
                 std::optional<std::int64_t> select) {
    ViewLink l;
    l.files.push_back(trace.path);
    if (range && range->first < range->second) l.range = range;
    l.select = select;
    return viewLinkUrl(l);
}

std::string leftOut(std::size_t shown, std::size_t total, std::string_view what) {
    if (shown >= total) return {};
    return "\nShowing " + std::to_string(shown) + " of " + std::to_string(total) + " " + std::string(what) +
           "; ask again with a larger `limit` (up to " + std::to_string(total) + ") for more.\n";
}

std::string codeBlock(std::string_view text) {
    std::string out = "```\n";
    out += text;
    if (!out.ends_with('\n')) out += '\n';
    return out + "```\n";
}

void putStructured(ToolResult& result, JsonWriter<std::string>& w, std::string_view key,
                   const std::string& json, std::string_view ask) {
    constexpr std::size_t maxStructured = 256 * 1024;
    if (json.size() <= maxStructured) {
        w.key(key);
        w.json(json);
        return;
    }
    result.text += "\nThe structured " + std::string(key) + " (" + std::to_string(json.size() / 1024) +
                   " KiB) is left out; " + std::string(ask) + "\n";
}

void writeTraceHeader(JsonWriter<std::string>& w, const OpenTrace& trace) {
    w.strField("trace_id", trace.id);
    w.strField("path", trace.path);
}

} // namespace toolparts

} // namespace kinetoscope::mcp
