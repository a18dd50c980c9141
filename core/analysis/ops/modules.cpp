#include "analysis/ops/modules.h"

#include "model/argscan.h"

#include <algorithm>
#include <map>
#include <unordered_map>

namespace kinetoscope {

namespace {
constexpr std::string_view modulePrefix = "nn.Module: ";

// GPU time launched from `track` with launch starts in time order: (launch start, GPU duration).
std::vector<std::pair<TimeNs, TimeNs>> launchesOf(const TraceStore& store, std::uint32_t ti) {
    const Track& t = store.tracks()[ti];
    std::vector<std::pair<TimeNs, TimeNs>> launches;
    auto f =
        std::lower_bound(store.flows().begin(), store.flows().end(), EventRef{TrackId(ti), EventIndex(0)},
                         [](const Flow& fl, EventRef v) { return fl.source < v; });
    for (; f != store.flows().end() && f->source.track == TrackId(ti); ++f) {
        if (f->kind == FlowKind::Launch)
            launches.emplace_back(t.starts[f->source.index.value],
                                  store.track(f->target.track).durations[f->target.index.value]);
    }
    std::sort(launches.begin(), launches.end());
    return launches;
}

// Nodes keyed by (parent, name): occurrences with the same module path merge into one node.
struct TreeBuilder {
    ModuleTree tree;
    std::map<std::pair<int, std::string>, int> nodeOf;

    int node(int parent, std::string_view name) {
        auto [it, inserted] = nodeOf.try_emplace({parent, std::string(name)}, int(tree.nodes.size()));
        if (inserted) {
            ModuleNode n;
            n.name = std::string(name);
            n.parent = parent;
            tree.nodes.push_back(n);
            if (parent < 0)
                tree.roots.push_back(it->second);
            else
                tree.nodes[std::size_t(parent)].children.push_back(it->second);
        }
        return it->second;
    }
    // GPU time launched inside `innermost`: its own, and its ancestors' totals.
    void addDevice(int innermost, TimeNs gpu) {
        tree.nodes[std::size_t(innermost)].deviceSelf += gpu;
        for (int n = innermost; n >= 0; n = tree.nodes[std::size_t(n)].parent)
            tree.nodes[std::size_t(n)].deviceTotal += gpu;
    }
    // Roots and children by host total, largest first.
    ModuleTree finish() {
        auto byHost = [&](int a, int b) {
            return tree.nodes[std::size_t(a)].hostTotal > tree.nodes[std::size_t(b)].hostTotal;
        };
        std::sort(tree.roots.begin(), tree.roots.end(), byHost);
        for (ModuleNode& n : tree.nodes)
            std::sort(n.children.begin(), n.children.end(), byHost);
        return std::move(tree);
    }
};

// Without nn.Module frames, TorchScript/mobile traces name the module path of each op in its "Module
// Hierarchy" arg: "TOP(Net)::forward.layer1(Sequential)::forward.0(Conv2d)::forward". The outermost op with a
// path gives its time to every module on the path (host and the GPU work it launched); the deepest module
// counts it as self.
ModuleTree moduleTreeFromHierarchy(const TraceStore& store, TimeNs from, TimeNs to) {
    TreeBuilder b;
    ModuleTree& tree = b.tree;
    for (std::uint32_t ti = 0; ti < store.tracks().size(); ++ti) {
        const Track& t = store.tracks()[ti];
        if (t.kind != TrackKind::CpuThread) continue;
        struct Op {
            std::uint32_t row;
            int node;
        };
        std::vector<Op> ops;
        for (std::uint32_t r = 0; r < t.sliceCount(); ++r) {
            if (t.starts[r] < from || t.starts[r] > to) continue;
            if (store.categories()[t.categories[r]].kind != CategoryKind::CpuOp) continue;
            const auto hierarchy =
                argString(store.argsText({TrackId(ti), EventIndex(r)}), "Module Hierarchy");
            if (!hierarchy || hierarchy->empty()) continue;
            // Split at the dots outside parentheses (a type may be "(torch.nn.Linear)"); drop "::method".
            int node = -1;
            int depth = 0;
            std::string part;
            auto flush = [&] {
                if (const auto colon = part.find("::"); colon != std::string::npos) part.resize(colon);
                if (!part.empty()) node = b.node(node, part);
                part.clear();
            };
            for (char c : *hierarchy) {
                if (c == '(')
                    ++depth;
                else if (c == ')')
                    --depth;
                if (c == '.' && depth == 0)
                    flush();
                else
                    part += c;
            }
            flush();
            if (node >= 0) ops.push_back({r, node});
        }
        if (ops.empty()) continue;
        std::sort(ops.begin(), ops.end(),
                  [&](const Op& a, const Op& b) { return t.starts[a.row] < t.starts[b.row]; });
        std::vector<Op> outer;
        for (const Op& op : ops) {
            if (!outer.empty() && t.starts[op.row] < t.endOf(outer.back().row))
                continue; // inside an op already counted
            outer.push_back(op);
        }
        for (const Op& op : outer) {
            ModuleNode& deepest = tree.nodes[std::size_t(op.node)];
            ++deepest.occurrences;
            deepest.hostSelf += t.durations[op.row];
            store.keepLongest(deepest.example, {TrackId(ti), EventIndex(op.row)});
            for (int n = op.node; n >= 0; n = tree.nodes[std::size_t(n)].parent)
                tree.nodes[std::size_t(n)].hostTotal += t.durations[op.row];
        }
        std::size_t k = 0;
        for (const auto& [at, gpu] : launchesOf(store, ti)) {
            while (k < outer.size() && t.endOf(outer[k].row) < at)
                ++k;
            if (k == outer.size() || t.starts[outer[k].row] > at) continue;
            b.addDevice(outer[k].node, gpu);
        }
    }
    // A parent without ops of its own was never an example: borrow its longest child's.
    for (std::size_t i = tree.nodes.size(); i-- > 0;) {
        ModuleNode& n = tree.nodes[i];
        if (n.parent >= 0 && !tree.nodes[std::size_t(n.parent)].example.isValid())
            tree.nodes[std::size_t(n.parent)].example = n.example;
        if (n.occurrences == 0) n.occurrences = 1;
    }
    return b.finish();
}
} // namespace

ModuleTree moduleTree(const TraceStore& store, TimeNs from, TimeNs to) {
    std::vector<bool> isModule(store.strings().size(), false);
    bool any = false;
    for (std::uint32_t i = 0; i < store.strings().size(); ++i) {
        if (store.strings().view(StringId(i)).starts_with(modulePrefix)) isModule[i] = any = true;
    }
    if (!any) return moduleTreeFromHierarchy(store, from, to);
    TreeBuilder b;
    ModuleTree& tree = b.tree;
    for (std::uint32_t ti = 0; ti < store.tracks().size(); ++ti) {
        const Track& t = store.tracks()[ti];
        if (t.kind != TrackKind::CpuThread) continue;
        // Module frames of this thread in time order, parents first; a stack gives each its module path.
        struct Frame {
            std::uint32_t row;
            std::uint32_t depth;
        };
        std::vector<Frame> frames;
        for (std::uint32_t d = 0; d < t.laneCount(); ++d) {
            for (std::uint32_t r = t.laneBegin[d]; r < t.laneBegin[d + 1]; ++r) {
                if (isModule[t.names[r].value] && t.starts[r] >= from && t.starts[r] <= to)
                    frames.push_back({r, d});
            }
        }
        if (frames.empty()) continue;
        std::sort(frames.begin(), frames.end(), [&](const Frame& a, const Frame& b) {
            return t.starts[a.row] != t.starts[b.row] ? t.starts[a.row] < t.starts[b.row] : a.depth < b.depth;
        });
        struct Open {
            std::uint32_t row;
            int node;
        };
        std::vector<Open> stack;
        std::vector<std::pair<std::uint32_t, int>> frameNode; // row -> node, in time order
        for (const Frame& f : frames) {
            while (!stack.empty() && t.endOf(stack.back().row) <= t.starts[f.row] &&
                   t.starts[stack.back().row] != t.starts[f.row])
                stack.pop_back();
            while (!stack.empty() && t.endOf(f.row) > t.endOf(stack.back().row))
                stack.pop_back();
            const int parent = stack.empty() ? -1 : stack.back().node;
            const int node = b.node(parent, store.strings().view(t.names[f.row]).substr(modulePrefix.size()));
            ModuleNode& n = tree.nodes[std::size_t(node)];
            ++n.occurrences;
            n.hostTotal += t.durations[f.row];
            n.hostSelf += t.durations[f.row];
            if (parent >= 0) tree.nodes[std::size_t(parent)].hostSelf -= t.durations[f.row];
            store.keepLongest(n.example, {TrackId(ti), EventIndex(f.row)});
            stack.push_back({f.row, node});
            frameNode.emplace_back(f.row, node);
        }
        // Device time: each launch on this thread goes to the innermost module frame open at its start.
        // Launches and frames are both walked in time order with a stack of open frames (frames nest), so
        // this is linear.
        std::sort(frameNode.begin(), frameNode.end(),
                  [&](const auto& x, const auto& y) { return t.starts[x.first] < t.starts[y.first]; });
        std::vector<std::pair<TimeNs, int>> open; // (frame end, node)
        std::size_t next = 0;
        for (const auto& [at, gpu] : launchesOf(store, ti)) {
            while (next < frameNode.size() && t.starts[frameNode[next].first] <= at) {
                while (!open.empty() && open.back().first < t.starts[frameNode[next].first])
                    open.pop_back();
                open.emplace_back(t.endOf(frameNode[next].first), frameNode[next].second);
                ++next;
            }
            while (!open.empty() && open.back().first < at)
                open.pop_back();
            if (!open.empty()) b.addDevice(open.back().second, gpu);
        }
    }
    return b.finish();
}

} // namespace kinetoscope
