#include "analysis/compiled/fxgraph.h"

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <map>

namespace kinetoscope {

namespace {

std::string_view trimmed(std::string_view s) {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t'))
        s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r'))
        s.remove_suffix(1);
    return s;
}

bool isIdentifierChar(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

// "PATH:LINE in FUNCTION, code: CODE" (what follows "# File: ").
bool readLocation(std::string_view text, ModelLine& out) {
    const std::size_t in = text.find(" in ");
    if (in == std::string_view::npos) return false;
    const std::string_view place = text.substr(0, in);
    const std::size_t colon = place.rfind(':');
    if (colon == std::string_view::npos || colon == 0) return false;
    int line = 0;
    const std::string_view number = place.substr(colon + 1);
    const auto [end, ec] = std::from_chars(number.data(), number.data() + number.size(), line);
    if (ec != std::errc() || end != number.data() + number.size() || line <= 0) return false;
    std::string_view rest = text.substr(in + 4);
    const std::size_t code = rest.find(", code: ");
    out.file = std::string(place.substr(0, colon));
    out.line = line;
    out.function = std::string(code == std::string_view::npos ? rest : rest.substr(0, code));
    out.code = code == std::string_view::npos ? std::string() : std::string(trimmed(rest.substr(code + 8)));
    return true;
}

} // namespace

FxGraphLines parseFxGraphReadable(std::string_view text) {
    FxGraphLines g;
    std::map<std::pair<std::string, int>, std::uint32_t> known; // (file, line) -> index
    std::int64_t current = -1; // the location the next nodes are under; none after a blank line
    while (!text.empty()) {
        const std::size_t eol = text.find('\n');
        const std::string_view raw = text.substr(0, eol);
        text = eol == std::string_view::npos ? std::string_view() : text.substr(eol + 1);
        const std::string_view line = trimmed(raw);
        if (line.empty()) {
            current = -1;
            continue;
        }
        if (line.starts_with("# File: ")) {
            ModelLine where;
            if (!readLocation(line.substr(8), where)) {
                ++g.malformed;
                current = -1;
                continue;
            }
            const auto key = std::make_pair(where.file, where.line);
            auto it = known.find(key);
            if (it == known.end()) {
                it = known.emplace(key, std::uint32_t(g.lines.size())).first;
                g.lines.push_back(std::move(where));
            }
            current = it->second;
            continue;
        }
        if (current < 0 || line.starts_with('#')) continue;
        // A node: `name: "f32[8, 128]" = torch.ops...` or `name = torch.ops...`.
        std::size_t n = 0;
        while (n < line.size() && isIdentifierChar(line[n]))
            ++n;
        if (n == 0 || n == line.size() || (line[n] != ':' && line[n] != ' ')) continue;
        const std::string_view after = trimmed(line.substr(n));
        if (!(after.starts_with(": ") || after.starts_with("= "))) continue;
        g.nodeLine.emplace(std::string(line.substr(0, n)), std::uint32_t(current));
    }
    return g;
}

std::vector<ModelLine> modelLinesOfNodes(const FxGraphLines& graph,
                                         const std::vector<std::string_view>& nodes) {
    std::vector<std::uint32_t> indices;
    for (const std::string_view node : nodes) {
        const auto it = graph.nodeLine.find(std::string(node));
        if (it != graph.nodeLine.end()) indices.push_back(it->second);
    }
    std::sort(indices.begin(), indices.end());
    indices.erase(std::unique(indices.begin(), indices.end()), indices.end());
    std::vector<ModelLine> out;
    out.reserve(indices.size());
    for (std::uint32_t i : indices)
        out.push_back(graph.lines[i]);
    return out;
}

std::vector<ModelLine> modelLinesOf(const FxGraphLines& graph, const InductorKernelSource& kernel) {
    std::vector<std::string_view> nodes;
    for (const auto& [source, aten] : kernel.nodeToAten) {
        std::string_view rest = aten;
        while (!rest.empty()) {
            const std::size_t comma = rest.find(',');
            nodes.push_back(trimmed(rest.substr(0, comma)));
            rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
        }
    }
    return modelLinesOfNodes(graph, nodes);
}

std::string modelLinesText(const std::vector<ModelLine>& lines) {
    std::string out;
    for (const ModelLine& m : lines)
        out += (out.empty() ? "" : ", ") + std::filesystem::path(m.file).filename().string() + ":" +
               std::to_string(m.line);
    return out;
}

} // namespace kinetoscope
