#include "analysis/overview/attentionpattern.h"

#include "analysis/ops/hosttree.h"
#include "analysis/ops/kernelclass.h"
#include "analysis/ops/threadlaunches.h"
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
    const std::vector<std::vector<ThreadLaunch>> byThread = launchesByThread(store, from, to);
    // Kernel classes by name, decided once per distinct name.
    std::vector<std::int8_t> classOf(store.strings().size(), -1);
    const auto tokenOf = [&](const ThreadLaunch& l) {
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
    for (const std::vector<ThreadLaunch>& list : byThread) {
        if (list.empty()) continue;
        // 0: waiting for the scores' matmul; 1: for the softmax; 2: for the values' matmul.
        int state = 0, gap = 0;
        TimeNs run = 0;
        EventRef softmax, softmaxCall;
        for (const ThreadLaunch& l : list) {
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
