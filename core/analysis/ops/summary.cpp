#include "analysis/ops/summary.h"

#include "analysis/ops/hosttree.h"
#include "analysis/ops/kernels.h"
#include "analysis/ops/tensorcores.h"
#include "query/args.h"
#include "query/kernelshortname.h"

#include <algorithm>
#include <unordered_map>

namespace kinetoscope {

std::int64_t deviceOf(const Track& track) {
    return track.pid;
}

namespace {

std::string inputDimsOf(const TraceStore& store, EventRef ref) {
    for (const ArgField& f : decodeArgs(store, ref))
        if (f.key == "Input Dims" || f.key == "Input dims" || f.key == "input_dims") return f.value;
    return {};
}

} // namespace

std::vector<EventRef> callsOfRow(const TraceStore& store, const OperatorRow& row, bool annotation) {
    std::vector<EventRef> calls;
    std::vector<bool> nameMatches(store.strings().size(), false);
    for (std::uint32_t i = 0; i < store.strings().size(); ++i) {
        const std::string_view name = store.strings().view(StringId(i));
        nameMatches[i] = annotation ? annotationGroupName(name) == row.name : name == row.name;
    }
    for (std::uint32_t ti = 0; ti < store.tracks().size(); ++ti) {
        const Track& t = store.tracks()[ti];
        if (t.kind != TrackKind::CpuThread) continue;
        for (std::uint32_t r = 0; r < t.sliceCount(); ++r) {
            if (!nameMatches[t.names[r].value]) continue;
            const HostRole role = hostRole(store, t, r);
            if (role != (annotation ? HostRole::Annotation : HostRole::Operator)) continue;
            if (!annotation && !row.inputDims.empty() &&
                inputDimsOf(store, {TrackId(ti), EventIndex(r)}) != row.inputDims)
                continue;
            calls.push_back({TrackId(ti), EventIndex(r)});
        }
    }
    return calls;
}

bool OperatorRow::tensorCoreEligible() const {
    static constexpr std::string_view eligible[] = {"aten::mm",
                                                    "aten::addmm",
                                                    "aten::bmm",
                                                    "aten::baddbmm",
                                                    "aten::matmul",
                                                    "aten::linear",
                                                    "aten::conv",
                                                    "aten::convolution",
                                                    "aten::cudnn_convolution",
                                                    "aten::_convolution",
                                                    "aten::conv2d",
                                                    "aten::conv1d",
                                                    "aten::conv3d",
                                                    "aten::_scaled_dot_product",
                                                    "aten::scaled_dot_product",
                                                    "aten::einsum",
                                                    "aten::addbmm",
                                                    "aten::_scaled_mm",
                                                    "aten::lstm",
                                                    "aten::gru"};
    for (std::string_view e : eligible) {
        if (std::string_view(name).substr(0, e.size()) == e) return true;
    }
    return false;
}

Summary summarize(const TraceStore& store, OperatorGrouping grouping, TimeNs from, TimeNs to, bool operators,
                  bool kernelRows) {
    Summary s;

    // Kernels, and device time attributed to the launching operator.
    std::unordered_map<std::string_view, KernelRow> kernels;
    std::map<std::int64_t, std::vector<std::pair<TimeNs, TimeNs>>> busy;
    std::unordered_map<std::uint32_t, bool> tensorCoreName;
    // Kernels by the thread that launched them; attributed to operators once each thread's operator tree is
    // built.
    struct LaunchedWork {
        std::uint32_t launchRow;
        TimeNs duration;
        bool tensorCores;
    };
    std::vector<std::vector<LaunchedWork>> launchesByTrack(store.tracks().size());
    for (std::uint32_t ti = 0; ti < store.tracks().size(); ++ti) {
        const Track& t = store.tracks()[ti];
        for (std::uint32_t r = 0; r < t.sliceCount(); ++r) {
            const CategoryKind kind = store.categories()[t.categories[r]].kind;
            const bool inRange = t.starts[r] >= from && t.starts[r] <= to;
            if (inRange && !(t.flags[r] & SliceFlag::Instant) && !(t.flags[r] & SliceFlag::Unterminated) &&
                t.kind != TrackKind::Async)
                ++s.events;
            if (!isGpuWork(kind)) continue;
            const TimeNs dur = t.durations[r];
            const bool kernel = kind == CategoryKind::Kernel;
            bool tensorCores = false; // decided once per name, on its first kernel
            if (kernel) {
                auto [tc, fresh] = tensorCoreName.try_emplace(t.names[r].value);
                if (fresh) tc->second = kernelUsesTensorCores(store, {TrackId(ti), EventIndex(r)});
                tensorCores = tc->second;
            }
            // Kernels, copies and memsets are device time of the operator that launched them, wherever they
            // run: an operator counted in the range keeps all its GPU work.
            if (const auto launch = operators ? store.launchOf({TrackId(ti), EventIndex(r)}) : std::nullopt)
                launchesByTrack[launch->track.value].push_back({launch->index.value, dur, tensorCores});
            if (!kernel || !inRange || !kernelRows) continue;
            KernelRow& k = kernels[store.strings().view(t.names[r])];
            k.tensorCores = tensorCores;
            if (k.count == 0) {
                k.min = dur;
                k.max = dur;
            }
            ++k.count;
            k.total += dur;
            k.min = std::min(k.min, dur);
            k.max = std::max(k.max, dur);
            busy[deviceOf(t)].emplace_back(t.starts[r], t.endOf(r));
        }
    }
    // The complete slices a store of the GPU's work alone did not keep (it serves whole-trace reports).
    if (from == INT64_MIN && to == INT64_MAX) s.events += store.stats().slicesNotKept;
    for (auto& [name, row] : kernels) {
        row.name = std::string(name);
        s.kernels.push_back(std::move(row));
    }
    std::sort(s.kernels.begin(), s.kernels.end(), [](const KernelRow& a, const KernelRow& b) {
        return a.total != b.total ? a.total > b.total : a.name < b.name;
    });
    setDisplayNames(s.kernels);
    for (auto& [device, intervals] : busy) {
        std::sort(intervals.begin(), intervals.end());
        TimeNs total = 0, curStart = intervals.front().first, curEnd = intervals.front().second;
        for (const auto& [a, b] : intervals) {
            if (a > curEnd) {
                total += curEnd - curStart;
                curStart = a;
                curEnd = b;
            } else {
                curEnd = std::max(curEnd, b);
            }
        }
        total += curEnd - curStart;
        s.gpuBusy[device] = total;
    }

    // Operators and annotations: the host tree of each thread gives self and device-total times.
    if (!operators) return s;
    const HostRoles roles(store);
    std::unordered_map<std::string, OperatorRow> ops, annotations;
    for (std::uint32_t ti = 0; ti < store.tracks().size(); ++ti) {
        const Track& t = store.tracks()[ti];
        if (t.kind != TrackKind::CpuThread) continue;
        HostTree tree = hostTree(roles, t, from, to);
        std::vector<HostNode>& nodes = tree.nodes;
        if (nodes.empty()) continue;
        // key_averages() merges an operator into its parent when the parent has the same name and no other
        // child (EventList._remove_dup_nodes): the pair is one call, and the parent takes over the child's
        // children.
        for (HostNode& n : nodes) {
            if (t.duplicatesMerged) break;
            if (n.parent < 0 || n.role != HostRole::Operator) continue;
            const std::int32_t p = nodes[std::size_t(n.parent)].mergedInto >= 0
                                       ? nodes[std::size_t(n.parent)].mergedInto
                                       : n.parent;
            HostNode& pn = nodes[std::size_t(p)];
            if (pn.role != HostRole::Operator || pn.childCount != 1 || t.names[pn.row] != t.names[n.row])
                continue;
            n.mergedInto = p;
            pn.childSum += n.childSum - t.durations[n.row];
            pn.childCount = n.childCount;
        }
        // GPU work goes to the operator or annotation that owns its launch call.
        for (const LaunchedWork& w : launchesByTrack[ti]) {
            std::int32_t owner = tree.ownerOfLaunch(w.launchRow);
            if (owner < 0) continue;
            if (nodes[std::size_t(owner)].mergedInto >= 0) owner = nodes[std::size_t(owner)].mergedInto;
            nodes[std::size_t(owner)].deviceSelf += w.duration;
            if (w.tensorCores) nodes[std::size_t(owner)].deviceSelfTensor += w.duration;
        }
        for (HostNode& n : nodes)
            n.deviceTotal += n.deviceSelf;
        for (std::size_t i = nodes.size(); i-- > 0;)
            if (nodes[i].parent >= 0) nodes[std::size_t(nodes[i].parent)].deviceTotal += nodes[i].deviceTotal;
        for (std::size_t i = 0; i < nodes.size(); ++i) {
            const HostNode& n = nodes[i];
            if (n.mergedInto >= 0 || n.start < from || n.start > to) continue;
            const std::string_view name = store.strings().view(t.names[n.row]);
            const bool annotation = n.role == HostRole::Annotation;
            const std::string rowName = annotation ? annotationGroupName(name) : std::string(name);
            std::string key = rowName;
            std::string dims;
            if (grouping == OperatorGrouping::NameAndShape && !annotation) {
                dims = inputDimsOf(store, {TrackId(ti), EventIndex(n.row)});
                key += "\x1f" + dims;
            }
            OperatorRow& row = (annotation ? annotations : ops)[key];
            if (row.count == 0) {
                row.name = rowName;
                row.inputDims = dims;
            }
            store.keepLongest(row.example, {TrackId(ti), EventIndex(n.row)});
            ++row.count;
            row.hostTotal += t.durations[n.row];
            row.hostSelf += t.durations[n.row] - n.childSum;
            row.deviceSelf += n.deviceSelf;
            row.deviceSelfTensorCore += n.deviceSelfTensor;
            row.deviceTotal += n.deviceTotal;
        }
    }
    auto sorted = [](std::unordered_map<std::string, OperatorRow>& rows) {
        std::vector<OperatorRow> out;
        out.reserve(rows.size());
        for (auto& [key, row] : rows)
            out.push_back(std::move(row));
        std::sort(out.begin(), out.end(), [](const OperatorRow& a, const OperatorRow& b) {
            if (a.deviceTotal != b.deviceTotal) return a.deviceTotal > b.deviceTotal;
            if (a.hostTotal != b.hostTotal) return a.hostTotal > b.hostTotal;
            return std::tie(a.name, a.inputDims) < std::tie(b.name, b.inputDims);
        });
        return out;
    };
    s.operators = sorted(ops);
    s.annotations = sorted(annotations);
    return s;
}

} // namespace kinetoscope
