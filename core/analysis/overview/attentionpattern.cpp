#include "analysis/overview/attentionpattern.h"

#include "analysis/ops/hosttree.h"
#include "analysis/ops/kernelclass.h"
#include "query/enclosing.h"

#include <algorithm>
#include <vector>

namespace kinetoscope {

namespace {

enum class Token : std::uint8_t { Other, Matmul, Softmax };

bool isBatchedMatmul(std::string_view op) {
    return op == "aten::bmm" || op == "aten::baddbmm";
}
bool isSoftmaxOp(std::string_view op) {
    return op == "aten::_softmax" || op == "aten::softmax" || op == "aten::_safe_softmax";
}

} // namespace

UnfusedAttention findUnfusedAttention(const TraceStore& store, TimeNs from, TimeNs to) {
    UnfusedAttention out;
    // The GPU work each CPU thread launched, in the order of the launch calls.
    struct Launch {
        TimeNs at;
        EventRef call, work;
    };
    std::vector<std::vector<Launch>> byThread(store.tracks().size());
    for (const Flow& f : store.flows()) {
        if (f.kind != FlowKind::Launch || !isGpuWork(store.categoryOf(f.target).kind)) continue;
        const Track& t = store.track(f.source.track);
        if (t.kind != TrackKind::CpuThread) continue;
        const TimeNs start = store.track(f.target.track).starts[f.target.index.value];
        if (start < from || start > to) continue;
        byThread[f.source.track.value].push_back({t.starts[f.source.index.value], f.source, f.target});
    }
    // Kernel classes by name, decided once per distinct name.
    std::vector<std::int8_t> classOf(store.strings().size(), -1);
    const auto tokenOf = [&](const Launch& l) {
        const Track& g = store.track(l.work.track);
        const StringId name = g.names[l.work.index.value];
        if (classOf[name.value] < 0) {
            const std::string_view text = store.strings().view(name);
            const KernelCategory c = kernelCategory(text);
            const bool backward = text.find("Backward") != std::string_view::npos ||
                                  text.find("backward") != std::string_view::npos;
            classOf[name.value] = c == KernelCategory::Softmax && !backward                    ? 2
                                  : c == KernelCategory::Gemm || c == KernelCategory::Template ? 1
                                                                                               : 0;
        }
        if (classOf[name.value] == 0) return Token::Other;
        const auto op = launchingOperator(store, l.call);
        const std::string_view opName = op ? store.nameOf(*op) : std::string_view();
        if (classOf[name.value] == 1) return isBatchedMatmul(opName) ? Token::Matmul : Token::Other;
        return isSoftmaxOp(opName) ? Token::Softmax : Token::Other;
    };
    // Whether the softmax's launch call runs inside scaled_dot_product_attention (its math fallback).
    const auto insideSdpa = [&](EventRef softmaxCall) {
        const Track& t = store.track(softmaxCall.track);
        for (std::uint32_t p : enclosingRows(t, softmaxCall.index.value)) {
            const std::string_view name = store.strings().view(t.names[p]);
            if (name == "aten::scaled_dot_product_attention" ||
                name == "aten::_scaled_dot_product_attention_math")
                return true;
        }
        return false;
    };
    for (std::vector<Launch>& list : byThread) {
        if (list.empty()) continue;
        std::stable_sort(list.begin(), list.end(),
                         [](const Launch& a, const Launch& b) { return a.at < b.at; });
        // 0: waiting for the scores' matmul; 1: for the softmax; 2: for the values' matmul.
        int state = 0, gap = 0;
        TimeNs run = 0;
        EventRef softmax, softmaxCall;
        for (const Launch& l : list) {
            const Token token = tokenOf(l);
            const TimeNs d = store.durationOf(l.work);
            if (state == 0 || (token == Token::Matmul && state == 1)) {
                // A matmul starts a sequence (a later one while waiting for the softmax starts it again).
                if (token == Token::Matmul) {
                    state = 1;
                    gap = 0;
                    run = d;
                }
                continue;
            }
            run += d;
            if (token == Token::Matmul) { // state 2: the values' matmul ends the sequence
                ++out.count;
                out.gpuTime += run;
                out.softmaxTime += store.durationOf(softmax);
                store.keepLongest(out.example, softmax);
                if (insideSdpa(softmaxCall)) ++out.underSdpa;
                state = 0;
                continue;
            }
            if (token == Token::Softmax && state == 1) {
                state = 2;
                gap = 0;
                softmax = l.work;
                softmaxCall = l.call;
                continue;
            }
            if (++gap > unfusedAttentionGap) state = 0;
        }
    }
    return out;
}

} // namespace kinetoscope
