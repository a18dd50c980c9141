#include "analysis/compiled/inductorcode.h"

#include <algorithm>
#include <charconv>
#include <unordered_map>

namespace kinetoscope {

const InductorKernelSource* InductorCode::find(std::string_view kernelName) const {
    for (const InductorKernelSource& k : kernels)
        if (k.name == kernelName) return &k;
    return nullptr;
}

namespace {

struct Line {
    std::size_t begin, end; // bytes, without the line break
};

std::vector<Line> splitLines(std::string_view text) {
    std::vector<Line> lines;
    std::size_t at = 0;
    while (at < text.size()) {
        std::size_t nl = text.find('\n', at);
        if (nl == std::string_view::npos) nl = text.size();
        std::size_t end = nl;
        if (end > at && text[end - 1] == '\r') --end;
        lines.push_back({at, end});
        at = nl + 1;
    }
    return lines;
}

std::string_view trim(std::string_view s) {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t'))
        s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t'))
        s.remove_suffix(1);
    return s;
}

bool isIdentifierChar(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

// The identifier `s` starts with.
std::string_view leadingIdentifier(std::string_view s) {
    std::size_t n = 0;
    while (n < s.size() && isIdentifierChar(s[n]))
        ++n;
    return s.substr(0, n);
}

// "a, b, c" (brackets already removed) as its items; empty items dropped.
std::vector<std::string> splitList(std::string_view s) {
    std::vector<std::string> items;
    while (!s.empty()) {
        const std::size_t comma = s.find(',');
        const std::string_view item = trim(s.substr(0, comma));
        if (!item.empty()) items.emplace_back(item);
        if (comma == std::string_view::npos) break;
        s.remove_prefix(comma + 1);
    }
    return items;
}

// The bracketed list after `label` in `s` ("Source Nodes: [x, y]"), or nullopt when `label` is absent.
std::optional<std::vector<std::string>> bracketedAfter(std::string_view s, std::string_view label) {
    const std::size_t at = s.find(label);
    if (at == std::string_view::npos) return std::nullopt;
    std::string_view rest = trim(s.substr(at + label.size()));
    if (rest.empty() || rest.front() != '[') return splitList(rest); // 2.0 wrote no brackets
    const std::size_t close = rest.find(']');
    return splitList(rest.substr(1, close == std::string_view::npos ? std::string_view::npos : close - 1));
}

// The number after `'key': ` in an inductor_meta dict.
std::optional<double> metaNumber(std::string_view body, std::string_view key) {
    const std::string quoted = "'" + std::string(key) + "': ";
    const std::size_t at = body.find(quoted);
    if (at == std::string_view::npos) return std::nullopt;
    const char* p = body.data() + at + quoted.size();
    double v = 0;
    const auto [end, ec] = std::from_chars(p, body.data() + body.size(), v);
    if (ec != std::errc() || end == p) return std::nullopt;
    return v;
}

std::string metaString(std::string_view body, std::string_view key) {
    const std::string quoted = "'" + std::string(key) + "': '";
    const std::size_t at = body.find(quoted);
    if (at == std::string_view::npos) return {};
    const std::size_t from = at + quoted.size();
    const std::size_t close = body.find('\'', from);
    if (close == std::string_view::npos) return {};
    return std::string(body.substr(from, close - from));
}

// The heuristic a kernel's decorator names: `@triton_heuristics.pointwise(` (2.1 on) or `@pointwise(` (2.0).
std::string heuristicOf(std::string_view body) {
    for (std::string_view prefix : {"@triton_heuristics.", "@"}) {
        std::size_t at = 0;
        while ((at = body.find(prefix, at)) != std::string_view::npos) {
            const std::string_view name = leadingIdentifier(body.substr(at + prefix.size()));
            at += prefix.size();
            if (name.empty() || name == "triton" || name == "triton_heuristics") continue;
            const std::size_t after = (at + name.size());
            if (after < body.size() && body[after] == '(') return std::string(name);
        }
    }
    return {};
}

// The comments Inductor writes above a kernel, gathered until the kernel's definition.
struct PendingHeader {
    bool any = false;
    InductorKernelSource k;
    bool inFragment = false;
    void reset() { *this = {}; }
};

// Reads one comment line (without "#") into the pending header.
void readHeaderComment(std::string_view c, PendingHeader& h) {
    const std::string_view t = trim(c);
    if (t.starts_with("kernel path:")) {
        h.reset();
        h.any = true;
        h.k.kernelPath = std::string(trim(t.substr(12)));
        return;
    }
    if (!h.any) return;
    if (t.starts_with("Graph fragment:")) {
        h.inFragment = true;
        return;
    }
    if (h.inFragment) {
        if (!t.empty()) h.k.graphFragment.emplace_back(t);
        return;
    }
    if (t.starts_with("Source node to ATen node mapping:")) return;
    if (const auto nodes = bracketedAfter(t, "Source Nodes:")) h.k.fxNodes = *nodes;
    if (const auto ops = bracketedAfter(t, "Original ATen:")) {
        h.k.atenOps = *ops;
        return;
    }
    if (t.find("Source Nodes:") != std::string_view::npos) return;
    const std::size_t arrow = t.find(" => ");
    if (arrow != std::string_view::npos && arrow > 0)
        h.k.nodeToAten.emplace_back(std::string(trim(t.substr(0, arrow))),
                                    std::string(trim(t.substr(arrow + 4))));
}

void finishKernel(InductorKernelSource& k, std::string_view text) {
    const std::string_view body = text.substr(k.sourceBegin, k.sourceEnd - k.sourceBegin);
    k.heuristic = heuristicOf(body);
    k.numGb = metaNumber(body, "kernel_num_gb");
    k.flop = metaNumber(body, "kernel_flop");
}

} // namespace

InductorCode parseInductorCode(std::string_view text) {
    InductorCode code;
    const std::vector<Line> lines = splitLines(text);
    const auto view = [&](std::size_t i) {
        return text.substr(lines[i].begin, lines[i].end - lines[i].begin);
    };
    PendingHeader header;
    bool inCall = false, sawCall = false, sawAsyncKernel = false;
    std::size_t callIndent = 0; // `def call(` is top-level, or a method of `class Runner` (2.6 on)
    std::unordered_map<std::string, std::size_t> byName;
    const auto add = [&](InductorKernelSource k) {
        finishKernel(k, text);
        byName.emplace(k.name, code.kernels.size());
        code.kernels.push_back(std::move(k));
        header.reset();
    };
    for (std::size_t i = 0; i < lines.size(); ++i) {
        const std::string_view line = view(i);
        const std::string_view t = trim(line);
        const bool topLevel = !line.empty() && line.front() != ' ' && line.front() != '\t';
        const std::size_t firstNonBlank = line.find_first_not_of(" \t");
        const std::size_t indent = firstNonBlank == std::string_view::npos ? line.size() : firstNonBlank;
        if (t.starts_with("def call(")) {
            inCall = sawCall = true;
            callIndent = indent;
            continue;
        }
        if (inCall && !t.empty() && !t.starts_with("#") && indent <= callIndent) inCall = false;
        if (inCall) {
            // A kernel's launch: `name.run(...)` (2.2 on) or `name[grid(...)](...)`; library calls.
            const std::string_view id = leadingIdentifier(t);
            const std::string_view after = t.substr(id.size());
            if (const std::size_t at = t.find("extern_kernels."); at != std::string_view::npos) {
                // `extern_kernels.mm(a, b, out=buf0)` or `buf0 = extern_kernels.convolution(...)`.
                const std::string call =
                    "extern_kernels." + std::string(leadingIdentifier(t.substr(at + 15)));
                if (std::find(code.externKernels.begin(), code.externKernels.end(), call) ==
                    code.externKernels.end())
                    code.externKernels.push_back(call);
            } else if (!id.empty() && (after.starts_with(".run(") || after.starts_with("[grid("))) {
                const auto it = byName.find(std::string(id));
                if (it != byName.end() && code.kernels[it->second].launch.empty())
                    code.kernels[it->second].launch = std::string(t);
            }
            continue;
        }
        if (t.starts_with("#")) {
            readHeaderComment(t.substr(1), header);
            continue;
        }
        // `name = async_compile.triton('name', '''` ... `''', device_str='cuda')`: the kernel's source is the
        // string between.
        const std::size_t assign = line.find(" = async_compile.triton(");
        if (topLevel && assign != std::string_view::npos) {
            const std::string_view name = leadingIdentifier(line);
            const std::size_t open = line.find("'''", assign);
            if (name.size() != assign || open == std::string_view::npos) {
                ++code.malformed;
                header.reset();
                continue;
            }
            InductorKernelSource k = std::move(header.k);
            k.name = std::string(name);
            sawAsyncKernel = true;
            if (line.find("'''", open + 3) != std::string_view::npos) { // '''...''' on one line
                k.firstLine = k.lastLine = int(i + 1);
                k.sourceBegin = lines[i].begin + open + 3;
                k.sourceEnd = lines[i].begin + line.find("'''", open + 3);
                add(std::move(k));
                continue;
            }
            // The source starts on the next line and ends at the closing quotes.
            std::size_t close = i + 1;
            while (close < lines.size() && view(close).find("'''") == std::string_view::npos)
                ++close;
            if (close >= lines.size()) {
                ++code.malformed; // never closed: the rest of the file is not a kernel's source
                header.reset();
                break;
            }
            k.firstLine = int(i + 2);
            k.lastLine = std::max(k.firstLine, int(close)); // an empty source: the closing line alone
            k.sourceBegin = lines[i + 1].begin;
            k.sourceEnd = std::max(k.sourceBegin, lines[close].begin);
            add(std::move(k));
            i = close;
            continue;
        }
        // A kernel written out in the module or in a kernel file: decorators, then `def name(`, then its
        // indented body up to the next top-level statement.
        if (topLevel && (line.starts_with("@triton") || line.starts_with("@pointwise") ||
                         line.starts_with("@reduction") || line.starts_with("@persistent_reduction") ||
                         line.starts_with("@template"))) {
            std::size_t def = i;
            // Decorators may span lines (their arguments are indented or close with ")" at column 0).
            while (def < lines.size() && !view(def).starts_with("def "))
                ++def;
            if (def >= lines.size()) {
                ++code.malformed;
                break;
            }
            std::size_t last = def;
            for (std::size_t j = def + 1; j < lines.size(); ++j) {
                const std::string_view l = view(j);
                if (trim(l).empty()) continue;
                if (l.front() != ' ' && l.front() != '\t' && !l.starts_with("#")) break;
                last = j;
            }
            InductorKernelSource k = std::move(header.k);
            k.name = std::string(leadingIdentifier(view(def).substr(4)));
            k.firstLine = int(i + 1);
            k.lastLine = int(last + 1);
            k.sourceBegin = lines[i].begin;
            k.sourceEnd = lines[last].end;
            // A kernel file's Triton function of 2.0 and 2.1 is `triton_`: its inductor_meta names it.
            const std::string named =
                metaString(text.substr(k.sourceBegin, k.sourceEnd - k.sourceBegin), "kernel_name");
            if (!named.empty()) k.name = named;
            if (!k.name.empty()) add(std::move(k));
            i = last;
            continue;
        }
        // Another definition ends the comments above a kernel (a C++ kernel's, a function); imports and
        // setup calls between the comments and a written-out kernel do not.
        if (topLevel && (line.find(" = async_compile.") != std::string_view::npos ||
                         line.starts_with("def ") || line.starts_with("class ")))
            header.reset();
    }
    code.isKernelFile = !sawCall && !sawAsyncKernel && code.kernels.size() == 1;
    return code;
}

} // namespace kinetoscope
