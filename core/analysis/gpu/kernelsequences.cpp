#include "analysis/gpu/kernelsequences.h"

#include "analysis/ops/hosttree.h"
#include "analysis/ops/threadlaunches.h"

#include <algorithm>
#include <map>

namespace kinetoscope {

namespace {

std::size_t launchedBetween(const std::vector<ThreadLaunch>& calls, TimeNs from, TimeNs to) {
    auto first = std::lower_bound(calls.begin(), calls.end(), from,
                                  [](const ThreadLaunch& l, TimeNs v) { return l.callStart < v; });
    auto last = std::upper_bound(first, calls.end(), to,
                                 [](TimeNs v, const ThreadLaunch& l) { return v < l.callStart; });
    return std::size_t(last - first);
}

// Whether the nearest operator enclosing `op` launched just what `op` did (`launched` GPU events).
bool launchesSameAsParent(const TraceStore& store, EventRef op, const std::vector<ThreadLaunch>& calls,
                          std::size_t launched) {
    const Track& t = store.track(op.track);
    for (auto parent = t.parentOf(op.index.value); parent; parent = t.parentOf(*parent))
        if (store.categories()[t.categories[*parent]].kind == CategoryKind::CpuOp)
            return launchedBetween(calls, t.starts[*parent], t.endOf(*parent)) == launched;
    return false;
}

} // namespace

std::vector<KernelSequence> kernelSequences(const TraceStore& store, std::string_view operatorName,
                                            std::size_t minLength, TimeNs from, TimeNs to) {
    // Per CPU thread, every launch call's start and the GPU work it launched, in call order.
    const std::vector<std::vector<ThreadLaunch>> launched = launchesByThread(store);

    // The operators that qualify, and each name's shallowest depth.
    struct Op {
        EventRef ref;
        std::uint32_t depth;
    };
    std::vector<Op> ops;
    std::vector<std::uint32_t> shallowest(store.strings().size(), UINT32_MAX); // by name
    std::vector<std::int8_t> matches(store.strings().size(), -1);
    for (std::uint32_t ti = 0; ti < store.tracks().size(); ++ti) {
        const Track& t = store.track(TrackId(ti));
        if (t.kind != TrackKind::CpuThread || launched[ti].empty()) continue;
        for (std::uint32_t depth = 0; depth < t.laneCount();
             ++depth) { // a lane at a time: its depth is known
            const auto [begin, end] = t.rowsInRange(depth, from, to);
            for (std::uint32_t r = begin; r < end; ++r) {
                if (t.starts[r] < from || store.categories()[t.categories[r]].kind != CategoryKind::CpuOp)
                    continue;
                std::int8_t& m = matches[t.names[r].value];
                if (m < 0) {
                    const std::string_view name = store.strings().view(t.names[r]);
                    // Not the ranges that old traces write as operators (ProfilerStep#N, Optimizer.step#...).
                    m = !isAnnotationName(name) &&
                        (operatorName.empty() || name.find(operatorName) != std::string_view::npos);
                }
                if (!m) continue;
                std::uint32_t& least = shallowest[t.names[r].value];
                if (depth > least) continue; // deeper than one seen already: never a root
                least = depth;
                ops.push_back({{TrackId(ti), EventIndex(r)}, depth});
            }
        }
    }

    // Given a name, HTA starts from the shallowest of all the operators it matches (one depth for all).
    if (!operatorName.empty()) {
        const std::uint32_t least = *std::min_element(shallowest.begin(), shallowest.end());
        for (std::uint32_t& depth : shallowest)
            if (depth != UINT32_MAX) depth = least;
    }
    std::map<std::pair<std::uint32_t, std::vector<std::uint32_t>>, KernelSequence> bySequence;
    std::vector<ThreadLaunch> inside;
    for (const Op& op : ops) {
        const Track& t = store.track(op.ref.track);
        const std::uint32_t r = op.ref.index.value;
        if (op.depth != shallowest[t.names[r].value]) continue;
        const std::vector<ThreadLaunch>& calls = launched[op.ref.track.value];
        if (launchedBetween(calls, t.starts[r], t.endOf(r)) < minLength) continue;
        auto first = std::lower_bound(calls.begin(), calls.end(), t.starts[r],
                                      [](const ThreadLaunch& l, TimeNs v) { return l.callStart < v; });
        inside.clear();
        for (auto it = first; it != calls.end() && it->callStart <= t.endOf(r); ++it)
            inside.push_back(*it);
        if (inside.size() < minLength) continue;
        // Over every operator, one launched from inside another that launched nothing else repeats it
        // (ConvolutionBackward0 around aten::convolution_backward): the outer one stands for both.
        if (operatorName.empty() && launchesSameAsParent(store, op.ref, calls, inside.size())) continue;
        std::stable_sort(inside.begin(), inside.end(), [&](const ThreadLaunch& a, const ThreadLaunch& b) {
            return store.track(a.work.track).starts[a.work.index.value] <
                   store.track(b.work.track).starts[b.work.index.value];
        });
        std::vector<std::uint32_t> key;
        TimeNs gpu = 0;
        for (const ThreadLaunch& l : inside) {
            key.push_back(store.track(l.work.track).names[l.work.index.value].value);
            gpu += store.durationOf(l.work);
        }
        KernelSequence& s = bySequence[{t.names[r].value, key}];
        if (s.count == 0) {
            s.op = std::string(store.strings().view(t.names[r]));
            for (std::uint32_t k : key)
                s.work.emplace_back(store.strings().view(StringId(k)));
        }
        ++s.count;
        s.gpuTime += gpu;
        s.cpuTime += t.durations[r];
        store.keepLongest(s.example, op.ref);
    }
    std::vector<KernelSequence> out;
    for (auto& [key, s] : bySequence)
        out.push_back(std::move(s));
    // HTA's order for one operator: the most frequent first, then by the sequence's text; over every operator
    // the GPU time they take decides what is worth fusing first.
    auto text = [](const KernelSequence& s) {
        std::string t = s.op;
        for (const std::string& k : s.work)
            t += '|' + k;
        return t;
    };
    if (operatorName.empty())
        std::stable_sort(out.begin(), out.end(), [](const KernelSequence& a, const KernelSequence& b) {
            return a.gpuTime > b.gpuTime;
        });
    else
        std::stable_sort(out.begin(), out.end(), [&](const KernelSequence& a, const KernelSequence& b) {
            return a.count != b.count ? a.count > b.count : text(a) < text(b);
        });
    return out;
}

} // namespace kinetoscope
