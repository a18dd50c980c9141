#include "analysis/compiled/provenance.h"

#include <simdjson.h>

#include <algorithm>
#include <charconv>

namespace kinetoscope {

const std::vector<ProvenanceCall>* InductorProvenance::callsOf(std::string_view kernel) const {
    const auto it = calls.find(kernel);
    return it == calls.end() ? nullptr : &it->second;
}

namespace {

// The strings of `array`; false when it is not an array of strings.
bool stringsOf(simdjson::dom::element e, std::vector<std::string>& out) {
    simdjson::dom::array array;
    if (e.get(array)) return false;
    for (simdjson::dom::element item : array) {
        std::string_view s;
        if (item.get(s)) return false;
        out.emplace_back(s);
    }
    return true;
}

} // namespace

std::optional<InductorProvenance> parseInductorProvenance(std::string_view json, const FxGraphLines& graph,
                                                          std::string* error) {
    const auto fail = [&](std::string why) -> std::optional<InductorProvenance> {
        if (error) *error = std::move(why);
        return std::nullopt;
    };
    simdjson::dom::parser parser;
    const simdjson::padded_string padded(json);
    simdjson::dom::element root;
    if (const auto e = parser.parse(padded).get(root))
        return fail(std::string("not JSON: ") + simdjson::error_message(e));
    simdjson::dom::object code;
    if (root["cppCodeToPost"].get(code)) return fail("no cppCodeToPost object");
    simdjson::dom::object postToPre;
    const bool havePre = !root["postToPre"].get(postToPre);

    InductorProvenance p;
    for (const auto field : code) {
        const std::string_view key = field.key;
        const std::size_t colon = key.rfind(':');
        int handle = 0;
        const char* end = key.data() + key.size();
        ProvenanceCall call;
        if (colon == std::string_view::npos || colon == 0 ||
            std::from_chars(key.data() + colon + 1, end, handle).ptr != end || handle <= 0 ||
            !stringsOf(field.value, call.postNodes)) {
            ++p.malformed;
            continue;
        }
        call.handle = handle;
        for (const std::string& post : call.postNodes) {
            std::vector<std::string> pre;
            if (!havePre) break;
            simdjson::dom::element e;
            if (postToPre[post].get(e) || !stringsOf(e, pre)) continue;
            for (std::string& n : pre)
                if (std::find(call.preNodes.begin(), call.preNodes.end(), n) == call.preNodes.end())
                    call.preNodes.push_back(std::move(n));
        }
        call.modelLines = modelLinesOfNodes(
            graph, std::vector<std::string_view>(call.postNodes.begin(), call.postNodes.end()));
        p.calls[std::string(key.substr(0, colon))].push_back(std::move(call));
    }
    for (auto& [kernel, calls] : p.calls)
        std::sort(calls.begin(), calls.end(),
                  [](const ProvenanceCall& a, const ProvenanceCall& b) { return a.handle < b.handle; });
    return p;
}

} // namespace kinetoscope
