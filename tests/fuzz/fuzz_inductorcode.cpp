// libFuzzer target: the readers of TorchInductor's generated code (analysis/compiled/inductorcode.h) and of
// its debug folder's FX graphs (fxgraph.h) and provenance mappings (provenance.h) on arbitrary bytes. They
// only read text: every input parses, no read out of bounds, and every kernel it finds satisfies the
// invariants the source panel relies on (its source's bytes and lines inside the input, in order; its model
// lines among the graph's; each call numbered from 1, in order).
#include "analysis/compiled/fxgraph.h"
#include "analysis/compiled/inductorcode.h"
#include "analysis/compiled/provenance.h"

#include <algorithm>
#include <cstdint>
#include <cstdlib>

using namespace kinetoscope;

namespace {
void check(bool ok) {
    if (!ok) std::abort();
}
} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    const InductorCode code = parseInductorCode(text);
    const auto lineCount = std::count(text.begin(), text.end(), '\n') + 1;
    for (const InductorKernelSource& k : code.kernels) {
        check(!k.name.empty());
        check(k.sourceBegin <= k.sourceEnd && k.sourceEnd <= size);
        check(k.firstLine >= 1 && k.firstLine <= k.lastLine && k.lastLine <= lineCount);
        check(code.find(k.name) != nullptr);
    }
    check(!code.isKernelFile || code.kernels.size() == 1);
    // The same bytes as an fx_graph_readable.py, and as the graph of every kernel just read.
    const FxGraphLines graph = parseFxGraphReadable(text);
    for (const auto& [node, index] : graph.nodeLine)
        check(!node.empty() && index < graph.lines.size());
    for (const ModelLine& m : graph.lines)
        check(m.line > 0 && !m.file.empty());
    for (const InductorKernelSource& k : code.kernels)
        for (const ModelLine& m : modelLinesOf(graph, k))
            check(std::find(graph.lines.begin(), graph.lines.end(), m) != graph.lines.end());
    // The same bytes as Inductor's provenance mappings, with that graph.
    if (const auto p = parseInductorProvenance(text, graph))
        for (const auto& [kernel, calls] : p->calls)
            for (std::size_t i = 0; i < calls.size(); ++i) {
                check(calls[i].handle >= 1 && (i == 0 || calls[i - 1].handle <= calls[i].handle));
                for (const ModelLine& m : calls[i].modelLines)
                    check(std::find(graph.lines.begin(), graph.lines.end(), m) != graph.lines.end());
            }
    return 0;
}
