#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace kinetoscope {

// What a GPU kernel does, decided from its name. TorchInductor's own categories come first (its kernel names
// say what they are); every other kernel is classified by what it computes, whatever library or vendor wrote
// it.
enum class KernelCategory : std::uint8_t {
    Pointwise,           // triton_poi_
    Reduction,           // triton_red_
    PersistentReduction, // triton_per_
    Template,            // triton_tem_ that is neither a matmul, a convolution nor attention
    Triton,              // other Triton kernels
    Gemm,      // cuBLAS/cuBLASLt, CUTLASS, DeepGEMM, hipBLASLt/rocBLAS (Tensile Cijk_), Triton mm templates
    Conv,      // cuDNN/MIOpen/CUTLASS convolutions, implicit-GEMM fprop/dgrad/wgrad
    Attention, // flash / fmha / sdpa / paged attention
    Communication, // NCCL/RCCL collectives, expert-parallel all-to-all (DeepEP), custom all-reduce
    Elementwise,   // PyTorch's elementwise / vectorized kernels, foreach optimizer kernels
    Reduce,        // PyTorch's and CUB's reductions
    Softmax,       // softmax and log-softmax, forward and backward
    Normalization, // layer / RMS / batch / group / instance norm
    Layout, // layout conversions and transposes (cuDNN convertTensor / nchwToNhwc, MIOpen batched_transpose):
            // they move data, multiply nothing
    Other,
};
constexpr std::size_t kernelCategoryCount = std::size_t(KernelCategory::Other) + 1;

KernelCategory kernelCategory(std::string_view kernelName);
// The name used in `kernels[].category` and as `kernel_categories_us` keys.
std::string_view kernelCategoryName(KernelCategory c);
// Whether a kernel runs on tensor cores (NVIDIA HMMA/IMMA/GMMA, AMD MFMA), from its name: the TensorBoard
// plugin's allow-list plus Hopper/Blackwell and AMD kernels (docs/DEFINITIONS.md).
bool usesTensorCores(std::string_view kernelName);

} // namespace kinetoscope
