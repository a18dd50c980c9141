#include "analysis/compiled/compiledmatch.h"

#include "analysis/ops/hosttree.h"

#include <algorithm>
#include <map>
#include <string_view>

namespace kinetoscope {

std::string tritonKernelStem(std::string_view name) {
    if (!name.starts_with("triton_")) return {};
    std::size_t end = name.size();
    while (end > 0 && name[end - 1] >= '0' && name[end - 1] <= '9')
        --end;
    if (end == name.size() || end == 0 || name[end - 1] != '_') return {};
    return std::string(name.substr(0, end - 1));
}

namespace {

// Above this many cells the two launch sequences are not aligned (the table would take too much memory); such
// graphs keep their kernels' names as the only join.
constexpr std::size_t mostCells = std::size_t(1) << 24;

std::string_view directionOf(std::string_view graph) {
    for (std::string_view d : {" (forward)", " (backward)"})
        if (graph.ends_with(d)) return d;
    return {};
}

// The Triton kernels one call of the graph launched, in launch order: of its first call that launched any.
std::vector<std::string> tritonSequence(const TraceStore& store, const CompiledGraph& graph) {
    std::vector<std::string> out;
    for (EventRef call : graph.callEvents) {
        for (EventRef g : gpuWorkInLaunchOrder(store, call))
            if (const std::string_view name = store.nameOf(g); name.starts_with("triton_"))
                out.emplace_back(name);
        if (!out.empty()) break;
    }
    return out;
}

// Each name as a number standing for its kernel renumbered or not (the name without its trailing `_N`, or the
// name itself when it has none), the same number in both sequences: the alignment then compares integers.
std::pair<std::vector<std::uint32_t>, std::vector<std::uint32_t>> stemIds(const std::vector<std::string>& a,
                                                                          const std::vector<std::string>& b) {
    std::map<std::string, std::uint32_t> ids;
    const auto idsOf = [&](const std::vector<std::string>& names) {
        std::vector<std::uint32_t> out;
        out.reserve(names.size());
        for (const std::string& name : names) {
            std::string stem = tritonKernelStem(name);
            if (stem.empty()) stem = name;
            out.push_back(ids.try_emplace(std::move(stem), std::uint32_t(ids.size())).first->second);
        }
        return out;
    };
    auto first = idsOf(a);
    return {std::move(first), idsOf(b)};
}

// The pairs (i, j) of a longest common subsequence of `a` and `b`.
std::vector<std::pair<std::size_t, std::size_t>> align(const std::vector<std::uint32_t>& a,
                                                       const std::vector<std::uint32_t>& b) {
    const std::size_t n = a.size(), m = b.size();
    if (n == 0 || m == 0 || (n + 1) * (m + 1) > mostCells) return {};
    // lcs[i][j]: of a[i..] and b[j..] (32 bits: under mostCells one sequence may still be long).
    std::vector<std::uint32_t> lcs((n + 1) * (m + 1), 0);
    const auto at = [&](std::size_t i, std::size_t j) -> std::uint32_t& { return lcs[i * (m + 1) + j]; };
    for (std::size_t i = n; i-- > 0;)
        for (std::size_t j = m; j-- > 0;)
            at(i, j) = a[i] == b[j] ? at(i + 1, j + 1) + 1 : std::max(at(i + 1, j), at(i, j + 1));
    std::vector<std::pair<std::size_t, std::size_t>> pairs;
    for (std::size_t i = 0, j = 0; i < n && j < m;) {
        if (a[i] == b[j] && at(i, j) == at(i + 1, j + 1) + 1) {
            pairs.emplace_back(i++, j++);
        } else if (at(i + 1, j) >= at(i, j + 1)) {
            ++i;
        } else {
            ++j;
        }
    }
    return pairs;
}

const InductorKernel* kernelOf(const CompiledGraph& graph, const std::string& name) {
    for (const InductorCategoryRow& row : graph.breakdown.categories)
        for (const InductorKernel& k : row.kernels)
            if (k.name == name) return &k;
    return nullptr;
}

} // namespace

std::vector<CompiledKernelMatch> matchCompiledKernels(const TraceStore& a, const InductorReport& reportA,
                                                      const TraceStore& b, const InductorReport& reportB) {
    std::vector<CompiledKernelMatch> out;
    // Graphs in order of first call, per direction: the k-th forward graph of A with the k-th of B.
    std::map<std::string_view, std::vector<const CompiledGraph*>> graphsA, graphsB;
    for (const CompiledGraph& g : reportA.graphs)
        graphsA[directionOf(g.name)].push_back(&g);
    for (const CompiledGraph& g : reportB.graphs)
        graphsB[directionOf(g.name)].push_back(&g);
    for (const auto& [direction, listA] : graphsA) {
        const auto itB = graphsB.find(direction);
        if (itB == graphsB.end()) continue;
        for (std::size_t k = 0; k < std::min(listA.size(), itB->second.size()); ++k) {
            const CompiledGraph& ga = *listA[k];
            const CompiledGraph& gb = *itB->second[k];
            const std::vector<std::string> seqA = tritonSequence(a, ga), seqB = tritonSequence(b, gb);
            // Votes: how often each kernel of A was aligned with each of B.
            std::map<std::string, std::map<std::string, std::uint32_t>> votes;
            const auto [idsA, idsB] = stemIds(seqA, seqB);
            for (const auto& [i, j] : align(idsA, idsB))
                ++votes[seqA[i]][seqB[j]];
            // Each kernel of A to the one of B it was aligned with most; a kernel of B taken once, by the
            // kernel of A with the most votes for it.
            std::map<std::string, std::pair<std::uint32_t, std::string>> takenBy; // B -> (votes, A)
            for (const auto& [nameA, forB] : votes) {
                const auto best =
                    std::max_element(forB.begin(), forB.end(),
                                     [](const auto& x, const auto& y) { return x.second < y.second; });
                auto& taker = takenBy[best->first];
                if (best->second > taker.first) taker = {best->second, nameA};
            }
            for (const auto& [nameB, taker] : takenBy) {
                const std::string& nameA = taker.second;
                if (nameA == nameB) continue;
                const InductorKernel* k = kernelOf(ga, nameA);
                if (!k) continue;
                out.push_back({ga.name, gb.name, nameA, nameB, k->calls, k->self});
            }
        }
    }
    return out;
}

} // namespace kinetoscope
