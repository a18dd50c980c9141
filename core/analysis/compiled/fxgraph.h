#pragma once
// Where a compiled kernel's work came from in the model. TORCH_COMPILE_DEBUG's folder keeps, beside each
// graph's output_code.py, the graph itself as `fx_graph_readable.py`, whose nodes sit under comments naming
// the model's line: `# File: /path/model.py:38 in forward, code: q, k, v = self.qkv(self.norm1(x)).split(c,
// dim=2)`. A kernel's entry in output_code.py names those nodes (its `node => aten nodes` mapping), so the
// two together give the model lines a kernel computes. Read as text, never run.
#include "analysis/compiled/inductorcode.h"

#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace kinetoscope {

struct ModelLine {
    std::string file;
    int line = 0;
    std::string function;
    std::string code;
    bool operator==(const ModelLine&) const = default;
};

struct FxGraphLines {
    std::vector<ModelLine> lines;                            // each distinct line, in the graph's order
    std::unordered_map<std::string, std::uint32_t> nodeLine; // node name -> index into lines
    std::uint64_t malformed = 0;                             // `# File:` comments that could not be read
};

FxGraphLines parseFxGraphReadable(std::string_view text);
// The model lines of `kernel`'s nodes (the right sides of its node => ATen mapping), in the graph's order.
std::vector<ModelLine> modelLinesOf(const FxGraphLines& graph, const InductorKernelSource& kernel);
// The model lines of the graph's nodes `nodes` (names as the graph writes them), in the graph's order.
std::vector<ModelLine> modelLinesOfNodes(const FxGraphLines& graph,
                                         const std::vector<std::string_view>& nodes);
// "transformer.py:55, transformer.py:38": each line's file name (not its folder) and number, for short texts.
std::string modelLinesText(const std::vector<ModelLine>& lines);

} // namespace kinetoscope
