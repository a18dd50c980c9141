#include "analysis/roofline/perfmodel.h"
#include "model/textformat.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <unordered_map>

namespace kinetoscope {

namespace {

using Shape = std::vector<std::int64_t>;

double product(const Shape& s, std::size_t from = 0) {
    double n = 1;
    for (std::size_t i = from; i < s.size(); ++i)
        n *= double(s[i]);
    return n;
}

// "[1, 2]" or "[]" or "3": the integers of a list argument as Concrete Inputs writes it; none for "" or text.
std::optional<Shape> parseIntList(std::string_view text) {
    Shape out;
    std::size_t i = 0;
    const bool bracketed = !text.empty() && text.front() == '[';
    if (bracketed) ++i;
    bool any = false;
    while (i < text.size()) {
        while (i < text.size() && (text[i] == ' ' || text[i] == ','))
            ++i;
        if (i >= text.size() || text[i] == ']') break;
        std::int64_t v = 0;
        auto [end, ec] = std::from_chars(text.data() + i, text.data() + text.size(), v);
        if (ec != std::errc()) return std::nullopt;
        out.push_back(v);
        any = true;
        i = std::size_t(end - text.data());
    }
    if (!bracketed && !any) return std::nullopt;
    return out;
}

// "[True, False, True]" as Concrete Inputs writes an output mask.
std::vector<bool> parseBoolList(std::string_view text) {
    std::vector<bool> out;
    for (std::size_t i = 0; i < text.size();) {
        if (text.compare(i, 4, "True") == 0) {
            out.push_back(true);
            i += 4;
        } else if (text.compare(i, 5, "False") == 0) {
            out.push_back(false);
            i += 5;
        } else {
            ++i;
        }
    }
    return out;
}

struct Args {
    const OperatorInputs& in;
    bool has(std::size_t i) const { return i < in.dims.size(); }
    const Shape& shape(std::size_t i) const {
        static const Shape none;
        return i < in.dims.size() ? in.dims[i].shape : none;
    }
    bool tensor(std::size_t i) const { return i < in.dims.size() && !in.dims[i].shape.empty(); }
    std::string_view type(std::size_t i) const {
        return i < in.types.size() ? std::string_view(in.types[i]) : std::string_view();
    }
    std::string_view concrete(std::size_t i) const {
        return i < in.concrete.size() ? std::string_view(in.concrete[i]) : std::string_view();
    }
    bool flag(std::size_t i) const { return concrete(i) == "True"; }
    int bpe(std::size_t i) const { return bytesPerElement(type(i)); }
};

std::optional<ComputeType> computeOf(std::string_view dtype) {
    const std::string t = asciiLower(dtype);
    if (t == "float") return ComputeType::FP32;
    if (t == "double") return ComputeType::FP64;
    if (t == "c10::bfloat16") return ComputeType::BF16;
    if (t == "c10::half") return ComputeType::FP16;
    if (t.rfind("c10::float8", 0) == 0) return ComputeType::FP8;
    if (t == "signed char" || t == "unsigned char" || t == "char") return ComputeType::INT8;
    return std::nullopt;
}

// Vector (non-matrix) arithmetic: FP64 for doubles, FP32 for the rest (CUDA cores and SIMD units widen
// half-precision elementwise math to FP32).
ComputeType vectorCompute(std::string_view dtype) {
    return computeOf(dtype) == ComputeType::FP64 ? ComputeType::FP64 : ComputeType::FP32;
}

// ---- GEMM ---------------------------------------------------------------------------------------------
// 2·M·N·K per matrix (+ M·N with a bias), times the batch; bytes: A, B, the output and the bias (1×N) once.
OpCost gemmCost(double batch, double m, double n, double k, bool bias, int bpeIn, int bpeOut,
                std::string_view dtype) {
    OpCost c;
    c.family = OpFamily::Gemm;
    c.matrix = true;
    c.compute = computeOf(dtype).value_or(ComputeType::FP32);
    c.m = m;
    c.n = n;
    c.k = k;
    c.flops = batch * (2 * m * n * k + (bias ? m * n : 0));
    c.bytes = batch * ((m * k + k * n) * bpeIn + m * n * bpeOut + (bias ? n * bpeIn : 0));
    return c;
}

std::optional<OpCost> gemm(std::string_view name, const Args& a) {
    if (name == "aten::mm" || name == "aten::_scaled_mm") {
        const Shape &A = a.shape(0), &B = a.shape(1);
        if (A.size() != 2 || B.size() != 2 || a.bpe(0) == 0) return std::nullopt;
        int out = a.bpe(0);
        bool bias = false;
        if (name == "aten::_scaled_mm") {
            // (self, mat2, scale_a, scale_b, bias, scale_result, out_dtype, use_fast_accum): the bias is
            // argument 4 when given. TraceLens takes a 3-input call for one with bias, which the profiler
            // never writes. The output is assumed 16-bit for an 8-bit input, as TraceLens assumes.
            bias = a.tensor(4);
            if (out == 1) out = 2;
        }
        return gemmCost(1, double(A[0]), double(B[1]), double(A[1]), bias, a.bpe(0), out, a.type(0));
    }
    if (name == "aten::addmm") {
        const Shape &A = a.shape(1), &B = a.shape(2);
        if (A.size() != 2 || B.size() != 2 || a.bpe(1) == 0) return std::nullopt;
        return gemmCost(1, double(A[0]), double(B[1]), double(A[1]), true, a.bpe(1), a.bpe(1), a.type(1));
    }
    if (name == "aten::bmm" || name == "aten::baddbmm") {
        const std::size_t first = name == "aten::bmm" ? 0 : 1;
        const Shape &A = a.shape(first), &B = a.shape(first + 1);
        if (A.size() != 3 || B.size() != 3 || a.bpe(first) == 0) return std::nullopt;
        return gemmCost(double(A[0]), double(A[1]), double(B[2]), double(A[2]), first == 1, a.bpe(first),
                        a.bpe(first), a.type(first));
    }
    if (name == "aten::_grouped_mm") {
        // (mat_a, mat_b, offs, bias, out_dtype). 2D×3D: the rows of A split among G weight matrices;
        // 3D×3D: a batch; 2D×2D: K split in G groups, one M×N output each (weight gradients).
        const Shape &A = a.shape(0), &B = a.shape(1);
        const int bpe = a.bpe(0);
        if (bpe == 0) return std::nullopt;
        OpCost c = gemmCost(1, 0, 0, 0, false, bpe, bpe, a.type(0));
        if (A.size() == 2 && B.size() == 3) {
            const double m = double(A[0]), k = double(A[1]), g = double(B[0]), n = double(B[2]);
            if (g <= 0) return std::nullopt;
            c.flops = 2 * m * n * k;
            c.bytes = (m * k + g * k * n + m * n) * bpe;
            c.m = m / g; // the rows per group, on average
            c.n = n;
            c.k = k;
        } else if (A.size() == 3 && B.size() == 3) {
            return gemmCost(double(A[0]), double(A[1]), double(B[2]), double(A[2]), false, bpe, bpe,
                            a.type(0));
        } else if (A.size() == 2 && B.size() == 2 && a.tensor(2)) {
            const double m = double(A[0]), k = double(A[1]), n = double(B[1]), g = double(a.shape(2)[0]);
            if (g <= 0) return std::nullopt;
            c.flops = 2 * m * n * k;
            c.bytes = (m * k + k * n + g * m * n) * bpe;
            c.m = m;
            c.n = n;
            c.k = k / g;
        } else {
            return std::nullopt;
        }
        return c;
    }
    return std::nullopt;
}

// ---- Convolution ---------------------------------------------------------------------------------------
struct ConvShapes {
    Shape x, w, out;
};

// Output shape of a (transposed) convolution; stride, padding, dilation and output padding of one element
// apply to every spatial dimension.
std::optional<ConvShapes> convShapes(const Args& a, std::size_t xi, std::size_t wi, std::size_t stridei) {
    ConvShapes s{a.shape(xi), a.shape(wi), {}};
    if (s.x.size() < 3 || s.x.size() != s.w.size()) return std::nullopt;
    const std::size_t nd = s.x.size() - 2;
    // Stride, padding, dilation and output padding: one element for every spatial dimension, or one each.
    // Beyond ±2^32 a value is a damaged file, not a convolution (and its arithmetic would overflow).
    constexpr std::int64_t limit = std::int64_t(1) << 32;
    auto param = [&](std::size_t i, std::int64_t fallback) -> std::optional<Shape> {
        std::optional<Shape> v = parseIntList(a.concrete(i));
        if (!v || v->empty()) return Shape(nd, fallback);
        for (std::int64_t x : *v)
            if (x < -limit || x > limit) return std::nullopt;
        if (v->size() == 1) return Shape(nd, v->front());
        if (v->size() != nd) return std::nullopt;
        return v;
    };
    const auto stride = param(stridei, 1), padding = param(stridei + 1, 0), dilation = param(stridei + 2, 1),
               outputPadding = param(stridei + 4, 0), groups = param(stridei + 5, 1);
    if (!stride || !padding || !dilation || !outputPadding || !groups || (*groups)[0] < 1)
        return std::nullopt;
    const bool transposed = a.flag(stridei + 3);
    s.out = {s.x[0], transposed ? s.w[1] * (*groups)[0] : s.w[0]};
    for (std::size_t i = 0; i < nd; ++i) {
        // In double: dimensions up to 2^40 times parameters up to 2^32 would overflow int64.
        const double in = double(s.x[2 + i]), k = double(s.w[2 + i]), st = double((*stride)[i]),
                     pad = double((*padding)[i]), dil = double((*dilation)[i]);
        double o = 0;
        if (transposed)
            o = (in - 1) * st - 2 * pad + dil * (k - 1) + double((*outputPadding)[i]) + 1;
        else if (st > 0)
            o = std::floor((in + 2 * pad - dil * (k - 1) - 1) / st) + 1;
        if (!(o >= 1 && o <= double(std::int64_t(1) << 40))) return std::nullopt;
        s.out.push_back(std::int64_t(o));
    }
    return s;
}

// 2·(weight elements per output channel) per output element (per input element when transposed), + one per
// output element for a bias. As torch.utils.flop_counter counts it.
double convFlops(const Shape& x, const Shape& w, const Shape& out, bool bias, bool transposed) {
    return (transposed ? product(x) : product(out)) * 2 * product(w, 1) + (bias ? product(out) : 0);
}
Shape swapped(Shape s) {
    std::swap(s[0], s[1]);
    return s;
}

std::optional<OpCost> convolution(std::string_view name, const Args& a) {
    OpCost c;
    c.family = OpFamily::Convolution;
    c.matrix = true;
    if (name == "aten::convolution") {
        // (input, weight, bias, stride, padding, dilation, transposed, output_padding, groups)
        const auto s = convShapes(a, 0, 1, 3);
        const int bpe = a.bpe(0);
        if (!s || bpe == 0) return std::nullopt;
        const bool bias = a.tensor(2), transposed = a.flag(6);
        c.compute = computeOf(a.type(0)).value_or(ComputeType::FP32);
        c.flops = convFlops(s->x, s->w, s->out, bias, transposed);
        c.bytes = (product(s->x) + product(s->w) + (bias ? double(s->out[1]) : 0) + product(s->out)) * bpe;
        return c;
    }
    // convolution_backward(grad_output, input, weight, bias_sizes, stride, padding, dilation, transposed,
    // output_padding, groups, output_mask): each gradient only when the mask asks for it (the first layer
    // computes no input gradient; a layer without bias no bias gradient).
    const auto s = convShapes(a, 1, 2, 4);
    const int bpe = a.bpe(1);
    if (!s || bpe == 0) return std::nullopt;
    std::vector<bool> mask = parseBoolList(a.concrete(10));
    mask.resize(3, true);
    const bool transposed = a.flag(7);
    const Shape &x = s->x, &w = s->w, &out = s->out;
    c.compute = computeOf(a.type(1)).value_or(ComputeType::FP32);
    if (mask[0]) {
        c.flops += convFlops(out, w, x, false, !transposed);
        c.bytes += (product(out) + product(w) + product(x)) * bpe;
    }
    if (mask[1]) {
        c.flops += transposed ? convFlops(swapped(out), swapped(x), swapped(w), false, false)
                              : convFlops(swapped(x), swapped(out), swapped(w), false, false);
        c.bytes += (product(out) + product(x) + product(w)) * bpe;
    }
    if (mask[2]) {
        c.flops += product(out);
        c.bytes += (product(out) + double(out[1])) * bpe;
    }
    return c;
}

// ---- Attention -----------------------------------------------------------------------------------------
// The query × key pairs that attention computes: all of them, or the causal (top-left aligned) half.
double attendedPairs(double nq, double nkv, bool causal) {
    if (!causal) return nq * nkv;
    if (nq == nkv) return nq * nkv / 2; // TraceLens' (and FlashAttention's benchmark's) halving
    double pairs = 0;                   // query i attends to keys 0..i
    const double full = std::max(0.0, nq - nkv);
    pairs += full * nkv;
    const double partial = nq - full;
    pairs += partial * (partial + 1) / 2;
    return pairs;
}

std::optional<OpCost> attention(std::string_view name, const Args& a) {
    // Forward: (query, key, value, ...), backward: (grad_out, query, key, value, ...); (B, H, N, d) each.
    struct Signature {
        std::string_view name;
        std::size_t query;
        std::size_t causal;
        bool backward;
    };
    static constexpr Signature signatures[] = {
        {"aten::_scaled_dot_product_flash_attention", 0, 4, false},
        {"aten::_scaled_dot_product_efficient_attention", 0, 6, false},
        {"aten::_scaled_dot_product_cudnn_attention", 0, 6, false},
        {"aten::_scaled_dot_product_flash_attention_backward", 1, 11, true},
        {"aten::_scaled_dot_product_efficient_attention_backward", 1, 11, true},
        {"aten::_scaled_dot_product_cudnn_attention_backward", 1, 14, true},
    };
    const Signature* sig = nullptr;
    for (const Signature& s : signatures)
        if (s.name == name) sig = &s;
    if (!sig) return std::nullopt;
    const Shape &q = a.shape(sig->query), &k = a.shape(sig->query + 1), &v = a.shape(sig->query + 2);
    // Grouped-query attention: the query heads a whole multiple of the key heads.
    if (q.size() != 4 || k.size() != 4 || v.size() != 4 || q[0] != k[0] || k[1] != v[1] || k[2] != v[2] ||
        q[3] != k[3] || k[1] == 0 || q[1] < k[1] || q[1] % k[1] != 0)
        return std::nullopt;
    const double b = double(q[0]), hq = double(q[1]), nq = double(q[2]), dqk = double(q[3]);
    const double hkv = double(k[1]), nkv = double(k[2]), dv = double(v[3]);
    const bool causal = a.flag(sig->causal);
    const double pairs = attendedPairs(nq, nkv, causal);
    const int bpe = a.bpe(sig->query);
    if (bpe == 0) return std::nullopt;
    OpCost c;
    c.family = OpFamily::Attention;
    c.matrix = true;
    c.compute = computeOf(a.type(sig->query)).value_or(ComputeType::FP32);
    c.m = nq;
    c.n = nkv;
    c.k = dqk;
    const double qElems = b * nq * hq * dqk, kElems = b * nkv * hkv * dqk, vElems = b * nkv * hkv * dv,
                 oElems = b * nq * hq * dv;
    if (!sig->backward) {
        c.flops = b * hq * 2 * pairs * (dqk + dv); // S = QKᵀ, O = PV (softmax left out: d times smaller)
        c.bytes = (qElems + kElems + vElems + oElems) * bpe;
        return c;
    }
    // Recompute S = QKᵀ, then dV = Pᵀ dO, dP = dO Vᵀ, dQ = dS K, dK = dSᵀ Q; with grouped-query attention
    // dK and dV are summed over the Hq/Hkv query heads of each key head: (Hq − Hkv) additions per key
    // element, whatever the mask. (TraceLens leaves out the Hkv factor and halves the sums when causal.)
    const double headSums = b * nkv * (hq - hkv) * (dv + dqk);
    c.flops = b * hq * 2 * pairs * (dqk + dv + dv + dqk + dqk) + headSums;
    c.bytes = (qElems + kElems + vElems + oElems + qElems + kElems + vElems) * bpe;
    return c;
}

// ---- Normalization -------------------------------------------------------------------------------------
struct NormParams {
    double elements = 0;
    double channels = 0;
    bool affine = false;
    bool bias = false;
    bool training = true;
    std::vector<bool> outputMask{true};
    int bpe = 0;
    std::string_view dtype;
};

// TraceLens' batch-norm formulas, which its other norms share: statistics per channel, then 2 FLOPs per
// element; activations read and written once, and per channel mean and variance (+ weight, bias, and the
// running statistics' update when training).
OpCost normForward(const NormParams& p) {
    OpCost c;
    c.family = OpFamily::Normalization;
    c.compute = vectorCompute(p.dtype);
    c.flops = p.channels * 3 + (p.training ? p.elements * 3 : 0) + p.channels * 3 + 2 * p.elements;
    const int weights = 2 + (p.affine ? 1 + (p.bias ? 1 : 0) : 0) + (p.training ? 2 : 0);
    c.bytes = p.elements * p.bpe * 2 + weights * p.channels * p.bpe;
    return c;
}
OpCost normBackward(const NormParams& p) {
    OpCost c;
    c.family = OpFamily::Normalization;
    c.compute = vectorCompute(p.dtype);
    const double perChannel = p.elements / std::max(1.0, p.channels);
    double flopsPerChannel = (p.training ? 0 : 3) + 4 * perChannel;
    if (p.outputMask[0])
        flopsPerChannel += p.training ? 5 * perChannel : 0;
    else
        flopsPerChannel += 2 * perChannel;
    c.flops = p.channels * flopsPerChannel;
    c.bytes = p.elements * p.bpe + p.elements * p.bpe * (p.outputMask[0] && p.training ? 2 : 1);
    if (p.training) c.bytes += p.channels * p.bpe;
    if (p.affine) {
        c.bytes += p.channels * p.bpe;
        if (p.training) c.bytes += p.channels * p.bpe * (p.bias ? 2 : 1);
    }
    return c;
}

std::optional<OpCost> normalization(std::string_view name, const Args& a) {
    NormParams p;
    auto input = [&](std::size_t i) {
        p.elements = product(a.shape(i));
        p.bpe = a.bpe(i);
        p.dtype = a.type(i);
        return a.shape(i).size() >= 2 && p.bpe > 0;
    };
    auto normalized = [&](std::size_t i) { // the product of normalized_shape
        const auto s = parseIntList(a.concrete(i));
        p.channels = s ? product(*s) : 0;
        return p.channels > 0;
    };
    const bool batchForward = name == "aten::batch_norm" || name == "aten::native_batch_norm" ||
                              name == "aten::cudnn_batch_norm" || name == "aten::miopen_batch_norm";
    if (batchForward || name == "aten::instance_norm") {
        // (input, weight, bias, running_mean, running_var, training, ...): training read as the flag it is;
        // TraceLens takes bool("False"), which is true.
        if (!input(0)) return std::nullopt;
        p.channels = double(a.shape(0)[1]);
        p.affine = a.tensor(1);
        p.bias = a.tensor(2);
        p.training = a.flag(5);
        return normForward(p);
    }
    if (name == "aten::native_batch_norm_backward" || name == "aten::cudnn_batch_norm_backward" ||
        name == "aten::miopen_batch_norm_backward") {
        const bool native = name == "aten::native_batch_norm_backward";
        // native: (grad_out, input, weight, running_mean, running_var, save_mean, save_invstd, train, eps,
        // output_mask); cuDNN/MIOpen: (input, grad_output, weight, ...), only ever called when training.
        if (!input(native ? 1 : 0)) return std::nullopt;
        p.channels = double(a.shape(native ? 1 : 0)[1]);
        p.affine = a.tensor(2);
        p.bias = p.affine;
        p.training = native ? a.flag(7) : true;
        if (native) {
            p.outputMask = parseBoolList(a.concrete(9));
            if (p.outputMask.empty()) p.outputMask = {true};
        }
        return normBackward(p);
    }
    if (name == "aten::layer_norm" || name == "aten::native_layer_norm") {
        // (input, normalized_shape, weight, bias, eps, ...)
        if (!input(0) || !normalized(1)) return std::nullopt;
        p.affine = a.tensor(2);
        p.bias = a.tensor(3);
        return normForward(p);
    }
    if (name == "aten::native_layer_norm_backward") {
        // (grad_out, input, normalized_shape, mean, rstd, weight, bias, output_mask)
        if (!input(1) || !normalized(2)) return std::nullopt;
        p.outputMask = parseBoolList(a.concrete(7));
        p.outputMask.resize(3, false);
        p.affine = p.outputMask[1];
        p.bias = p.outputMask[2];
        return normBackward(p);
    }
    if (name == "aten::group_norm" || name == "aten::native_group_norm") {
        // group_norm(input, num_groups, weight, bias, ...); native_group_norm(input, weight, bias, N, C, ...)
        if (!input(0)) return std::nullopt;
        p.channels = double(a.shape(0)[1]);
        p.affine = a.tensor(name == "aten::group_norm" ? 2 : 1);
        p.bias = p.affine;
        return normForward(p);
    }
    if (name == "aten::native_group_norm_backward") {
        // (grad_out, input, mean, rstd, weight, N, C, HxW, group, output_mask)
        if (!input(1)) return std::nullopt;
        const auto groups = parseIntList(a.concrete(8));
        p.channels = double(a.shape(1)[1]) /
                     double(groups && !groups->empty() && groups->front() > 0 ? groups->front() : 1);
        p.affine = a.tensor(4);
        p.bias = p.affine;
        p.outputMask = parseBoolList(a.concrete(9));
        if (p.outputMask.empty()) p.outputMask = {true};
        return normBackward(p);
    }
    if (name == "aten::rms_norm" || name == "aten::_fused_rms_norm") {
        // (input, normalized_shape, weight, eps): 2 FLOPs per normalized element + rsqrt per row, then the
        // scale (and weight).
        if (!input(0) || !normalized(1)) return std::nullopt;
        p.affine = a.tensor(2);
        OpCost c;
        c.family = OpFamily::Normalization;
        c.compute = vectorCompute(p.dtype);
        c.flops = p.elements / p.channels * (2 * p.channels + 2) + p.elements * (p.affine ? 2 : 1);
        c.bytes = p.elements * p.bpe * 2 + (p.affine ? p.channels * p.bpe : 0);
        return c;
    }
    if (name == "aten::_fused_rms_norm_backward") {
        // (grad_out, input, normalized_shape, rstd, weight, output_mask)
        if (!input(1) || !normalized(2)) return std::nullopt;
        p.affine = a.tensor(4);
        std::vector<bool> mask = parseBoolList(a.concrete(5));
        mask.resize(2, false);
        OpCost c;
        c.family = OpFamily::Normalization;
        c.compute = vectorCompute(p.dtype);
        c.flops = (p.affine ? p.elements : 0) + p.elements;
        if (mask[0]) c.flops += 6 * p.elements;
        if (mask[1] && p.affine) c.flops += p.elements * (p.elements / p.channels > 1 ? 2 : 1);
        c.bytes = p.elements * p.bpe * 3 + (p.affine ? p.channels * p.bpe * 2 : 0);
        return c;
    }
    return std::nullopt;
}

// ---- Softmax -------------------------------------------------------------------------------------------
std::optional<OpCost> softmax(std::string_view name, const Args& a) {
    const bool backward = name.find("backward") != std::string_view::npos;
    // Forward (self, dim, ...): exp, sum and divide per element, read and write once. Backward
    // (grad_output, output, dim, input_dtype): dx = y·(dy − Σ dy·y), reading dy and y, writing dx.
    const Shape& x = a.shape(0);
    const int bpe = a.bpe(0);
    if (x.empty() || bpe == 0) return std::nullopt;
    OpCost c;
    c.family = OpFamily::Softmax;
    c.compute = vectorCompute(a.type(0));
    const double n = product(x);
    c.flops = 3 * n;
    c.bytes = (backward ? 3 : 2) * n * bpe;
    return c;
}

// ---- Elementwise ---------------------------------------------------------------------------------------
std::optional<Shape> broadcast(const Shape& x, const Shape& y) {
    Shape out(std::max(x.size(), y.size()), 1);
    for (std::size_t i = 0; i < out.size(); ++i) {
        const std::int64_t dx = i < out.size() - x.size() ? 1 : x[i - (out.size() - x.size())];
        const std::int64_t dy = i < out.size() - y.size() ? 1 : y[i - (out.size() - y.size())];
        if (dx != dy && dx != 1 && dy != 1) return std::nullopt;
        out[i] = std::max(dx, dy);
    }
    return out;
}

// One FLOP per output element; the inputs read and the output written once. As TraceLens: an argument that
// is not a tensor (a Python scalar, shape []) counts as one element of its type, and without an `out`
// tensor the output takes the wider input type of two tensors (else the first input's).
std::optional<OpCost> unary(const Args& a) {
    const int in = a.bpe(0);
    if (!a.has(0) || in == 0) return std::nullopt;
    const int out = a.tensor(1) && a.bpe(1) ? a.bpe(1) : in;
    OpCost c;
    c.compute = vectorCompute(a.type(0));
    const double n = product(a.shape(0));
    c.flops = n;
    c.bytes = n * in + n * out;
    return c;
}
std::optional<OpCost> binary(const Args& a) {
    const int in1 = a.bpe(0), in2 = a.bpe(1);
    if (!a.has(1) || in1 == 0 || in2 == 0) return std::nullopt;
    const auto out = broadcast(a.shape(0), a.shape(1));
    if (!out) return std::nullopt;
    int outBpe = a.tensor(0) && a.tensor(1) ? std::max(in1, in2) : in1;
    if (a.tensor(2) && a.bpe(2)) outBpe = a.bpe(2);
    OpCost c;
    c.compute = vectorCompute(a.type(0));
    c.flops = product(*out);
    c.bytes = product(a.shape(0)) * in1 + product(a.shape(1)) * in2 + product(*out) * outBpe;
    return c;
}

// ---- Reduction -----------------------------------------------------------------------------------------
// About one FLOP per input element; the input read and the output written once. `dim` and `keepdim` are
// read from Concrete Inputs, where the profiler writes them as text ("[-1]", "True"); TraceLens looks for
// Python ints and bools there, never finds them, and so always counts a reduction to one element.
std::optional<OpCost> reduction(std::string_view name, const Args& a) {
    const Shape& x = a.shape(0);
    const int bpe = a.bpe(0);
    if (!a.has(0) || bpe == 0) return std::nullopt;
    OpCost c;
    c.family = OpFamily::Reduction;
    c.compute = vectorCompute(a.type(0));
    const double n = product(x);
    double outElements = 1;
    if (name == "aten::cumsum" || name == "aten::cumprod") {
        outElements = n;
    } else {
        // dim is argument 1, or 2 after the order p of norm(self, p, dim, keepdim) and linalg_vector_norm.
        // (keepdim changes the output's shape, not its element count.)
        const std::size_t dimAt = name == "aten::norm" || name == "aten::linalg_vector_norm" ? 2 : 1;
        const std::optional<Shape> dims = parseIntList(a.concrete(dimAt));
        if (dims && !dims->empty()) {
            std::vector<bool> reduced(x.size(), false);
            bool any = false; // none in range: not a dim (sum(self, dtype) has the dtype there): all of it
            for (std::int64_t d : *dims) {
                const std::int64_t i = d < 0 ? d + std::int64_t(x.size()) : d;
                if (i >= 0 && i < std::int64_t(x.size())) reduced[std::size_t(i)] = any = true;
            }
            for (std::size_t i = 0; any && i < x.size(); ++i)
                if (!reduced[i]) outElements *= double(x[i]);
        }
    }
    c.flops = n;
    c.bytes = n * bpe + outElements * bpe;
    return c;
}

enum class Kind : std::uint8_t {
    Gemm,
    Convolution,
    Attention,
    Normalization,
    Softmax,
    Unary,
    Binary,
    Reduction
};

const std::unordered_map<std::string_view, Kind>& kinds() {
    static const std::unordered_map<std::string_view, Kind> table = [] {
        std::unordered_map<std::string_view, Kind> t;
        for (std::string_view n : {"aten::mm", "aten::addmm", "aten::bmm", "aten::baddbmm",
                                   "aten::_scaled_mm", "aten::_grouped_mm"})
            t[n] = Kind::Gemm;
        for (std::string_view n : {"aten::convolution", "aten::convolution_backward"})
            t[n] = Kind::Convolution;
        for (std::string_view n :
             {"aten::_scaled_dot_product_flash_attention", "aten::_scaled_dot_product_efficient_attention",
              "aten::_scaled_dot_product_cudnn_attention",
              "aten::_scaled_dot_product_flash_attention_backward",
              "aten::_scaled_dot_product_efficient_attention_backward",
              "aten::_scaled_dot_product_cudnn_attention_backward"})
            t[n] = Kind::Attention;
        for (std::string_view n :
             {"aten::batch_norm", "aten::native_batch_norm", "aten::cudnn_batch_norm",
              "aten::miopen_batch_norm", "aten::native_batch_norm_backward",
              "aten::cudnn_batch_norm_backward", "aten::miopen_batch_norm_backward", "aten::layer_norm",
              "aten::native_layer_norm", "aten::native_layer_norm_backward", "aten::group_norm",
              "aten::native_group_norm", "aten::native_group_norm_backward", "aten::instance_norm",
              "aten::rms_norm", "aten::_fused_rms_norm", "aten::_fused_rms_norm_backward"})
            t[n] = Kind::Normalization;
        for (std::string_view n :
             {"aten::softmax", "aten::_softmax", "aten::log_softmax", "aten::_log_softmax",
              "aten::_softmax_backward_data", "aten::_log_softmax_backward_data"})
            t[n] = Kind::Softmax;
        for (std::string_view n :
             {"aten::copy_", "aten::clamp_min", "aten::clamp_min_", "aten::clamp_max",  "aten::clamp_max_",
              "aten::clamp", "aten::clamp_",    "aten::sigmoid",    "aten::sigmoid_",   "aten::rsqrt",
              "aten::sqrt",  "aten::silu",      "aten::silu_",      "aten::neg",        "aten::pow",
              "aten::relu",  "aten::relu_",     "aten::gelu",       "aten::tanh",       "aten::tanh_",
              "aten::exp",   "aten::log",       "aten::abs",        "aten::reciprocal", "aten::sin",
              "aten::cos",   "aten::erf",       "aten::hardtanh",   "aten::hardtanh_",  "aten::leaky_relu"})
            t[n] = Kind::Unary;
        for (std::string_view n : {"aten::add", "aten::add_", "aten::sub", "aten::sub_", "aten::rsub",
                                   "aten::mul", "aten::mul_", "aten::div", "aten::div_", "aten::maximum",
                                   "aten::minimum", "aten::sigmoid_backward", "aten::threshold_backward",
                                   "aten::gelu_backward", "aten::silu_backward", "aten::tanh_backward"})
            t[n] = Kind::Binary;
        for (std::string_view n :
             {"aten::sum", "aten::mean", "aten::amax", "aten::amin", "aten::max", "aten::min", "aten::norm",
              "aten::linalg_vector_norm", "aten::std", "aten::var", "aten::logsumexp", "aten::cumsum",
              "aten::cumprod", "aten::prod"})
            t[n] = Kind::Reduction;
        return t;
    }();
    return table;
}

} // namespace

const char* opFamilyName(OpFamily family) {
    switch (family) {
    case OpFamily::Gemm:
        return "GEMM";
    case OpFamily::Convolution:
        return "convolution";
    case OpFamily::Attention:
        return "attention";
    case OpFamily::Normalization:
        return "normalization";
    case OpFamily::Softmax:
        return "softmax";
    case OpFamily::Elementwise:
        return "elementwise";
    case OpFamily::Reduction:
        return "reduction";
    case OpFamily::Triton:
        return "triton";
    }
    return "";
}

const char* computeTypeName(ComputeType type) {
    switch (type) {
    case ComputeType::FP64:
        return "FP64";
    case ComputeType::FP32:
        return "FP32";
    case ComputeType::TF32:
        return "TF32";
    case ComputeType::BF16:
        return "BF16";
    case ComputeType::FP16:
        return "FP16";
    case ComputeType::FP8:
        return "FP8";
    case ComputeType::INT8:
        return "INT8";
    }
    return "";
}

int bytesPerElement(std::string_view dtype) {
    const std::string t = asciiLower(dtype);
    if (t == "double" || t == "long int" || t == "long" || t == "c10::complex<float>") return 8;
    if (t == "float" || t == "int" || t == "scalar") return 4;
    if (t == "c10::half" || t == "c10::bfloat16" || t == "short") return 2;
    if (t.rfind("c10::float8", 0) == 0 || t == "unsigned char" || t == "signed char" || t == "bool" ||
        t == "c10::float4_e2m1fn_x2")
        return 1;
    return 0;
}

ComputeType computeTypeOfDtype(std::string_view dtype) {
    return computeOf(dtype).value_or(ComputeType::FP32);
}

bool isModelledOperator(std::string_view name) {
    return name.starts_with("triton_") || kinds().count(name) != 0;
}

namespace {
std::optional<OpCost> costOf(Kind kind, std::string_view name, const Args& a) {
    switch (kind) {
    case Kind::Gemm:
        return gemm(name, a);
    case Kind::Convolution:
        return convolution(name, a);
    case Kind::Attention:
        return attention(name, a);
    case Kind::Normalization:
        return normalization(name, a);
    case Kind::Softmax:
        return softmax(name, a);
    case Kind::Unary:
        return unary(a);
    case Kind::Binary:
        return binary(a);
    case Kind::Reduction:
        // max(self, other) and min(self, other) are elementwise.
        if ((name == "aten::max" || name == "aten::min") && a.tensor(1)) return binary(a);
        return reduction(name, a);
    }
    return std::nullopt;
}

} // namespace

std::optional<OpCost> operatorCost(std::string_view name, const OperatorInputs& inputs) {
    const auto it = kinds().find(name);
    const bool triton = name.starts_with("triton_");
    if (it == kinds().end() && !triton) return std::nullopt;
    // A negative or absurd dimension, or rank, is a damaged file, not a shape: no cost rather than a wrong
    // one.
    for (const OperatorInput& in : inputs.dims) {
        if (!in.valid || in.shape.size() > 8) return std::nullopt;
        for (std::int64_t d : in.shape)
            if (d < 0 || d > (std::int64_t(1) << 40)) return std::nullopt;
    }
    const std::optional<OpCost> cost =
        triton ? tritonKernelCost(inputs) : costOf(it->second, name, Args{inputs});
    if (cost &&
        !(std::isfinite(cost->flops) && std::isfinite(cost->bytes) && cost->flops >= 0 && cost->bytes >= 0))
        return std::nullopt;
    return cost;
}

} // namespace kinetoscope
