#include "summary.h"

#include "kernels.h"

#include <algorithm>
#include <unordered_map>

namespace kinetoscope {

std::int64_t deviceOf(const Track& track) { return track.pid; }

namespace {

bool isOperator(const TraceStore& store, const Track& t, std::uint32_t row) {
    return store.categories[t.categories[row]].kind == CategoryKind::CpuOp && !(t.flags[row] & SliceFlag::Instant);
}

std::string inputDimsOf(const TraceStore& store, EventRef ref) {
    for (const ArgField& f : store.decodeArgs(ref))
        if (f.key == "Input Dims" || f.key == "Input dims" || f.key == "input_dims") return f.value;
    return {};
}

} // namespace

bool OperatorRow::tensorCoreEligible() const {
    static constexpr std::string_view eligible[] = {"aten::mm", "aten::addmm", "aten::bmm", "aten::baddbmm", "aten::matmul",
                                                    "aten::linear", "aten::conv", "aten::convolution", "aten::cudnn_convolution",
                                                    "aten::_convolution", "aten::conv2d", "aten::conv1d", "aten::conv3d",
                                                    "aten::_scaled_dot_product", "aten::scaled_dot_product", "aten::einsum",
                                                    "aten::addbmm", "aten::_scaled_mm", "aten::lstm", "aten::gru"};
    for (std::string_view e : eligible) {
        if (std::string_view(name).substr(0, e.size()) == e) return true;
    }
    return false;
}

Summary summarize(const TraceStore& store, OperatorGrouping grouping, TimeNs from, TimeNs to) {
    Summary s;

    // Kernels, and device time attributed to the launching operator.
    std::unordered_map<std::string_view, KernelRow> kernels;
    std::map<std::int64_t, std::vector<std::pair<TimeNs, TimeNs>>> busy;
    // Per CPU track: device self time per operator row.
    std::vector<std::unordered_map<std::uint32_t, TimeNs>> deviceSelf(store.tracks.size());
    std::vector<std::unordered_map<std::uint32_t, TimeNs>> deviceSelfTensor(store.tracks.size());
    std::unordered_map<std::uint32_t, bool> tensorCoreName;
    // Kernels by the thread that launched them; attributed to operators once each thread's operator tree is built.
    struct LaunchedWork {
        std::uint32_t launchRow;
        TimeNs duration;
        bool tensorCores;
    };
    std::vector<std::vector<LaunchedWork>> launchesByTrack(store.tracks.size());
    for (std::uint32_t ti = 0; ti < store.tracks.size(); ++ti) {
        const Track& t = store.tracks[ti];
        for (std::uint32_t r = 0; r < t.sliceCount(); ++r) {
            if (t.starts[r] < from || t.starts[r] > to) continue;
            if (!(t.flags[r] & SliceFlag::Instant) && !(t.flags[r] & SliceFlag::Unterminated) &&
                t.kind != TrackKind::Async)
                ++s.events;
            if (store.categories[t.categories[r]].kind != CategoryKind::Kernel) continue;
            const TimeNs dur = t.durations[r];
            KernelRow& k = kernels[store.strings.view(t.names[r])];
            if (k.count == 0) {
                k.min = dur;
                k.max = dur;
            }
            ++k.count;
            k.total += dur;
            k.min = std::min(k.min, dur);
            k.max = std::max(k.max, dur);
            busy[deviceOf(t)].emplace_back(t.starts[r], t.endOf(r));
            const EventRef kernel{TrackId(ti), r};
            if (const auto launch = store.launchOf(kernel)) {
                auto [tc, fresh] = tensorCoreName.try_emplace(t.names[r].value);
                if (fresh) tc->second = usesTensorCores(store.strings.view(t.names[r]));
                launchesByTrack[launch->track.value].push_back({launch->index, dur, tc->second});
            }
        }
    }
    for (auto& [name, row] : kernels) {
        row.name = std::string(name);
        s.kernels.push_back(std::move(row));
    }
    std::sort(s.kernels.begin(), s.kernels.end(), [](const KernelRow& a, const KernelRow& b) {
        return a.total != b.total ? a.total > b.total : a.name < b.name;
    });
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

    // Operators: an operator-only tree per thread gives self and device-total times.
    std::unordered_map<std::string, OperatorRow> ops;
    for (std::uint32_t ti = 0; ti < store.tracks.size(); ++ti) {
        const Track& t = store.tracks[ti];
        if (t.kind != TrackKind::CpuThread) continue;
        struct Occurrence {
            std::uint32_t row;
            std::uint32_t depth;
            std::int64_t parent; // index into occurrences, -1 for none
            TimeNs childSum = 0;
            TimeNs deviceTotal = 0;
        };
        std::vector<Occurrence> occ;
        for (std::uint32_t d = 0; d < t.laneCount(); ++d)
            for (std::uint32_t r = t.laneBegin[d]; r < t.laneBegin[d + 1]; ++r)
                if (isOperator(store, t, r) && t.starts[r] >= from && t.starts[r] <= to) occ.push_back({r, d, -1});
        if (occ.empty()) continue;
        // Time order with parents first: by start, then lane.
        std::sort(occ.begin(), occ.end(), [&](const Occurrence& a, const Occurrence& b) {
            return t.starts[a.row] != t.starts[b.row] ? t.starts[a.row] < t.starts[b.row] : a.depth < b.depth;
        });
        std::vector<std::uint32_t> stack;
        for (std::uint32_t i = 0; i < occ.size(); ++i) {
            const TimeNs start = t.starts[occ[i].row];
            const TimeNs end = t.endOf(occ[i].row);
            while (!stack.empty()) {
                const Occurrence& top = occ[stack.back()];
                const TimeNs topEnd = t.endOf(top.row);
                // A zero-length op at its parent's start is inside it; anything else that starts at the
                // parent's end, or runs past it, is not.
                const bool inside = (start < topEnd || (start == t.starts[top.row] && end == start && topEnd > start)) &&
                                    end <= topEnd;
                if (inside) break;
                stack.pop_back();
            }
            if (!stack.empty()) {
                occ[i].parent = stack.back();
                occ[stack.back()].childSum += t.durations[occ[i].row];
            }
            stack.push_back(i);
        }
        // Device self: each launch's GPU time goes to the innermost operator open at the launch's start. Launches
        // and operators are walked in time order with a stack of open operators.
        {
            auto& launches = launchesByTrack[ti];
            std::sort(launches.begin(), launches.end(), [&](const LaunchedWork& a, const LaunchedWork& b) {
                return t.starts[a.launchRow] != t.starts[b.launchRow] ? t.starts[a.launchRow] < t.starts[b.launchRow] : a.launchRow < b.launchRow;
            });
            std::vector<std::uint32_t> open;
            std::size_t next = 0;
            auto contains = [&](std::uint32_t opIndex, TimeNs at) {
                const std::uint32_t row = occ[opIndex].row;
                return t.starts[row] <= at && (at < t.endOf(row) || t.starts[row] == at);
            };
            for (const LaunchedWork& w : launches) {
                const TimeNs at = t.starts[w.launchRow];
                while (next < occ.size() && t.starts[occ[next].row] <= at) {
                    while (!open.empty() && !contains(open.back(), t.starts[occ[next].row])) open.pop_back();
                    open.push_back(std::uint32_t(next));
                    ++next;
                }
                while (!open.empty() && !contains(open.back(), at)) open.pop_back();
                // The launch itself may be an operator-category slice; an operator never encloses itself.
                while (!open.empty() && occ[open.back()].row == w.launchRow) open.pop_back();
                if (open.empty()) continue;
                const std::uint32_t opRow = occ[open.back()].row;
                deviceSelf[ti][opRow] += w.duration;
                if (w.tensorCores) deviceSelfTensor[ti][opRow] += w.duration;
            }
        }
        const auto& selfMap = deviceSelf[ti];
        for (Occurrence& o : occ) {
            auto it = selfMap.find(o.row);
            o.deviceTotal = it == selfMap.end() ? 0 : it->second;
        }
        for (std::size_t i = occ.size(); i-- > 0;)
            if (occ[i].parent >= 0) occ[occ[i].parent].deviceTotal += occ[i].deviceTotal;
        for (const Occurrence& o : occ) {
            std::string key(store.strings.view(t.names[o.row]));
            std::string dims;
            if (grouping == OperatorGrouping::NameAndShape) {
                dims = inputDimsOf(store, {TrackId(ti), o.row});
                key += "\x1f" + dims;
            }
            OperatorRow& row = ops[key];
            if (row.count == 0) {
                row.name = std::string(store.strings.view(t.names[o.row]));
                row.inputDims = dims;
            }
            auto it = selfMap.find(o.row);
            if (auto tc = deviceSelfTensor[ti].find(o.row); tc != deviceSelfTensor[ti].end()) row.deviceSelfTensorCore += tc->second;
            store.keepLongest(row.example, {TrackId(ti), o.row});
            ++row.count;
            row.hostTotal += t.durations[o.row];
            row.hostSelf += t.durations[o.row] - o.childSum;
            row.deviceSelf += it == selfMap.end() ? 0 : it->second;
            row.deviceTotal += o.deviceTotal;
        }
    }
    for (auto& [key, row] : ops) s.operators.push_back(std::move(row));
    std::sort(s.operators.begin(), s.operators.end(), [](const OperatorRow& a, const OperatorRow& b) {
        if (a.deviceTotal != b.deviceTotal) return a.deviceTotal > b.deviceTotal;
        if (a.hostTotal != b.hostTotal) return a.hostTotal > b.hostTotal;
        return std::tie(a.name, a.inputDims) < std::tie(b.name, b.inputDims);
    });
    return s;
}

} // namespace kinetoscope
