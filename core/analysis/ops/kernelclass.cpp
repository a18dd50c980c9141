#include "analysis/ops/kernelclass.h"
#include "model/textformat.h"

#include <cctype>
#include <initializer_list>
#include <string>

namespace kinetoscope {

namespace {
// The part of a kernel name the rules read: lower-cased, without its parameter list (a GEMM's parameters can
// name CUtensorMap or bfloat16 outputs; a helper's can name a GEMM's params), and without FBGEMM's namespace
// (fbgemm_gpu holds embedding and quantisation kernels, not GEMMs).
std::string classificationText(std::string_view name) {
    std::size_t end = name.size();
    if (!name.empty() && name.back() == ')') {
        // The parameter list is the parenthesised group the name ends with.
        int depth = 0;
        for (std::size_t i = name.size(); i-- > 0;) {
            if (name[i] == ')')
                ++depth;
            else if (name[i] == '(' && --depth == 0) {
                end = i;
                break;
            }
        }
    }
    std::string out = asciiLower(name.substr(0, end));
    for (std::size_t at = out.find("fbgemm"); at != std::string::npos; at = out.find("fbgemm"))
        out.erase(at, 6);
    return out;
}

bool has(std::string_view haystack, std::string_view needle) {
    return haystack.find(needle) != std::string_view::npos;
}

bool hasAny(std::string_view haystack, std::initializer_list<std::string_view> needles) {
    for (std::string_view n : needles)
        if (has(haystack, n)) return true;
    return false;
}

// Tensile (rocBLAS/hipBLASLt) writes the matrix instruction into the name: `_MI16x16x1_` is MFMA.
bool hasTensileMatrixInstruction(std::string_view l) {
    for (std::size_t at = l.find("_mi"); at != std::string_view::npos; at = l.find("_mi", at + 1)) {
        if (at + 3 < l.size() && std::isdigit(static_cast<unsigned char>(l[at + 3]))) return true;
    }
    return false;
}

// One rule per category, tried in order; the first whose fragments match the lower-cased name wins. The order
// is the point: communication before reductions (all_reduce), attention before GEMM (flash kernels are
// CUTLASS templates), softmax and normalisation before elementwise (cunn_SoftMaxForward lives in at::native),
// convolution before GEMM (implicit-GEMM fprop/dgrad/wgrad), layout helpers before GEMM (cuBLAS's transpose
// kernels carry "cublas").
struct Rule {
    KernelCategory category;
    std::initializer_list<std::string_view> fragments;
};

constexpr std::string_view tritonTemplatePrefix = "triton_tem_";

// Kernels that convert a tensor's layout (NCHW <-> NHWC for the convolutions that want the other) or
// transpose it: they move data but multiply nothing.
const std::initializer_list<std::string_view> layoutFragments = {"converttensor", "nchwtonhwc", "nhwctonchw",
                                                                 "nchw2nhwc",     "nhwc2nchw",  "transpose"};
// Kernels around a GEMM that fill descriptors.
const std::initializer_list<std::string_view> helperFragments = {"tma_desc", "fill_tma"};

KernelCategory tritonTemplate(std::string_view l) {
    if (hasAny(l, {"convolution", "conv"})) return KernelCategory::Conv;
    if (hasAny(l, {"attention", "flex_"})) return KernelCategory::Attention;
    if (hasAny(l, {"_mm", "mm_", "addmm", "bmm", "matmul"})) return KernelCategory::Gemm;
    return KernelCategory::Template;
}
} // namespace

KernelCategory kernelCategory(std::string_view name) {
    const std::string l = classificationText(name);
    // TorchInductor's generated kernels: the prefix is its own breakdown.
    if (l.starts_with("triton_poi_")) return KernelCategory::Pointwise;
    if (l.starts_with("triton_red_")) return KernelCategory::Reduction;
    if (l.starts_with("triton_per_")) return KernelCategory::PersistentReduction;
    if (l.starts_with(tritonTemplatePrefix)) return tritonTemplate(l);

    static const Rule rules[] = {
        {KernelCategory::Communication,
         {"nccl", "rccl", "msccl", "deep_ep::", "internode::", "intranode::", "all_reduce", "allreduce",
          "all_gather", "allgather", "reduce_scatter", "reducescatter", "alltoall", "all_to_all",
          "cross_device_reduce", "multimem_"}},
        {KernelCategory::Attention,
         {"flash", "fmha", "sdpa", "attention", "attn", "xformers", "mha_fwd", "mha_bwd", "_mha_",
          "flashinfer"}},
        {KernelCategory::Softmax, {"softmax"}},
        {KernelCategory::Normalization,
         {"layer_norm", "layernorm", "rms_norm", "rmsnorm", "batch_norm", "batchnorm", "group_norm",
          "groupnorm", "instance_norm", "instancenorm", "bn_fw", "bn_bw", "welford", "gammabeta",
          "gamma_beta", "cuapplylayernorm", "cucomputegradgamma", "cucomputepartgradgamma"}},
        {KernelCategory::Conv,
         {"convolve",      "convolution", "conv1d",       "conv2d",    "conv3d",     "conv_fwd", "conv_bwd",
          "conv_dgrad",    "conv_wgrad",  "grouped_conv", "depthwise", "fprop",      "dgrad",    "wgrad",
          "implicit_gemm", "winograd",    "scudnn",       "hcudnn",    "cudnn::cnn", "im2col",   "col2im",
          "fft2d",         "igemm_fwd",   "igemm_bwd",    "igemm_wrw", "naive_conv"}},
        // Layout conversions and GEMM helpers: before gemm, whose fragments (cublas) their names carry.
        {KernelCategory::Layout, layoutFragments},
        {KernelCategory::Other, helperFragments},
        {KernelCategory::Gemm,
         {"gemm",
          "gemv",
          "cublas",
          "cutlass::kernel",
          "cutlass::device_kernel",
          "cutlass_",
          "cutlass3x",
          "cijk_",
          "nvjet",
          "matmul",
          "wgmma",
          "xmma",
          "hmma",
          "s884",
          "h884",
          "s1688",
          "h1688",
          "16816",
          "splitk",
          "bmm_"}},
        {KernelCategory::Reduce, {"reduce", "reduction"}},
        {KernelCategory::Elementwise,
         {"elementwise", "multi_tensor_apply", "fill_kernel", "act_and_mul", "silu_and_mul", "gelu_and_mul"}},
        {KernelCategory::Triton, {"triton"}},
    };
    for (const Rule& rule : rules) {
        if (hasAny(l, rule.fragments)) return rule.category;
    }
    return KernelCategory::Other;
}

std::string_view kernelCategoryName(KernelCategory c) {
    switch (c) {
    case KernelCategory::Pointwise:
        return "pointwise";
    case KernelCategory::Reduction:
        return "reduction";
    case KernelCategory::PersistentReduction:
        return "persistent_reduction";
    case KernelCategory::Template:
        return "template";
    case KernelCategory::Triton:
        return "triton";
    case KernelCategory::Gemm:
        return "gemm";
    case KernelCategory::Conv:
        return "conv";
    case KernelCategory::Attention:
        return "attention";
    case KernelCategory::Communication:
        return "communication";
    case KernelCategory::Elementwise:
        return "elementwise";
    case KernelCategory::Reduce:
        return "reduce";
    case KernelCategory::Softmax:
        return "softmax";
    case KernelCategory::Normalization:
        return "normalization";
    case KernelCategory::Layout:
        return "layout";
    case KernelCategory::Other:
        return "other";
    }
    return "other";
}

namespace {
// "sm<digits>_xmma": cuBLAS's generated xmma kernels, named with the architecture they were built for.
bool hasSmXmma(std::string_view l) {
    for (std::size_t at = l.find("_xmma"); at != std::string_view::npos; at = l.find("_xmma", at + 1)) {
        std::size_t digits = at;
        while (digits > 0 && std::isdigit(static_cast<unsigned char>(l[digits - 1])))
            --digits;
        if (digits < at && digits >= 2 && l.substr(digits - 2, 2) == "sm") return true;
    }
    return false;
}
} // namespace

bool usesTensorCores(std::string_view name) {
    const std::string l = classificationText(name);
    if (!l.starts_with("triton_") && (hasAny(l, layoutFragments) || hasAny(l, helperFragments))) return false;
    // cuBLAS's xmma kernels (sm70_xmma ... sm120_xmma) say their operand types, and `ffma` marks one whose
    // inner loop is SIMT FP32 fused multiply-adds: FP32 operands and ffma run on the CUDA cores (a GH200's
    // sm80_xmma_gemm_f32f32_f32f32_f32_..._ffma_... kernels, which the plugin's "xmma_gemm" would call
    // tensor-core work).
    if (hasSmXmma(l))
        return !has(l, "ffma") && hasAny(l, {"f16", "tf32", "e4m3", "e5m2", "e2m1", "fp8", "s8", "i8"});
    // The TensorBoard plugin's allow-list (from NVIDIA PyProf), compared case-insensitively.
    if (hasAny(l, {"h884", "s884", "h1688", "s1688", "hmma", "i8816", "16816", "dgrad_1x1_stride_2x2",
                   "first_layer_wgrad_kernel", "conv1x1", "conv2d_c1_k1", "direct_group",
                   "xmma_implicit_gemm", "xmma_sparse_conv", "xmma_warp_specialized_implicit_gemm",
                   "xmma_gemm", "xmma_sparse_gemm", "c1688"}))
        return true;
    // Hopper/Blackwell: warpgroup MMA, cuBLAS's nvjet kernels, CUTLASS 3 and its tensorop kernels; flash
    // attention's kernels are MMA loops; AMD's matrix cores (MFMA, CK's XDL kernels, Tensile's `_MI16x16`).
    if (hasAny(l, {"gmma", "tcgen05", "utcmma", "nvjet", "tensorop", "cutlass3x_sm9", "cutlass3x_sm10",
                   "cutlass_90", "flash_fwd", "flash_bwd", "fmha", "mfma", "xdl", "deep_gemm"}))
        return true;
    if (hasTensileMatrixInstruction(l)) return true;
    // A GEMM or convolution kernel whose name gives a tensor-core operand type (FP8 grouped GEMMs, Triton's
    // matmul_ogs on MXFP4, TensorRT-LLM's bmm_E4m3). FP32 GEMMs (sgemm), matrix-vector kernels and split-K
    // reductions do not use them.
    const KernelCategory c = kernelCategory(name);
    if ((c == KernelCategory::Gemm || c == KernelCategory::Conv) && !has(l, "sgemm") && !has(l, "gemv") &&
        !has(l, "reduce"))
        return hasAny(l, {"bf16", "fp16", "f16", "half", "tf32", "e4m3", "e5m2", "e2m1", "fp8", "mxfp",
                          "bfloat16", "int8"});
    return false;
}

} // namespace kinetoscope
