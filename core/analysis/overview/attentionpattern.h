#pragma once

#include "model/tracestore.h"

#include <climits>
#include <cstdint>
#include <string>

namespace kinetoscope {

// Attention computed op by op: a batched matmul (aten::bmm/baddbmm) for the scores, a softmax over them, a
// second batched matmul with the values, launched in that order on one CPU thread with at most
// `unfusedAttentionGap` other GPU events between each (a mask, a scale, dropout, a dtype copy).
// scaled_dot_product_attention runs the same as one fused kernel that never writes the scores to memory.
struct UnfusedAttention {
    std::uint64_t count = 0;     // bmm -> softmax -> bmm sequences
    std::uint64_t underSdpa = 0; // of them, inside scaled_dot_product_attention (its unfused math fallback)
    TimeNs gpuTime = 0;          // Σ the durations of their GPU events, those between included
    TimeNs softmaxTime = 0;      // Σ the durations of their softmax kernels
    EventRef example;            // their longest softmax kernel
};
constexpr int unfusedAttentionGap = 4;

// Over the GPU work that starts in [from, to].
UnfusedAttention findUnfusedAttention(const TraceStore& store, TimeNs from = INT64_MIN,
                                      TimeNs to = INT64_MAX);

} // namespace kinetoscope
