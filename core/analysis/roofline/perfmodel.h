#pragma once

// How much work an operator call does, from the shapes and dtypes `record_shapes=True` writes: the FLOPs it
// must compute and the bytes it must move at least, by the standard formulas (TraceLens' perf model,
// PerfModel/perf_model.py, with its argument-reading mistakes fixed; docs/DEFINITIONS.md, "Roofline").

#include "query/args.h"

#include <optional>
#include <string>
#include <string_view>

namespace kinetoscope {

enum class OpFamily : std::uint8_t {
    Gemm,          // mm, addmm, bmm, baddbmm, _scaled_mm, _grouped_mm
    Convolution,   // convolution, convolution_backward
    Attention,     // scaled-dot-product flash / efficient / cuDNN attention, forward and backward
    Normalization, // batch, layer, group, instance and RMS norm, forward and backward
    Softmax,       // softmax and log-softmax, forward and backward
    Elementwise,   // unary and binary (with broadcasting)
    Reduction,     // sum, mean, max, norm, var, cumsum, ...
    Triton, // a TorchInductor-generated Triton kernel, by its launch event (bytes; FLOPs when Inductor says)
};
const char* opFamilyName(OpFamily family);

// The arithmetic an op's FLOPs run in, which decides the peak they are held against.
enum class ComputeType : std::uint8_t { FP64, FP32, TF32, BF16, FP16, FP8, INT8 };
const char* computeTypeName(ComputeType type);

struct OpCost {
    OpFamily family = OpFamily::Elementwise;
    double flops = 0;
    double bytes = 0;
    // The dtype the FLOPs are in; `matrix`: the op can run on tensor (matrix) cores. A float32 matrix op is
    // FP32 here; the caller makes it TF32 when its kernels say so.
    ComputeType compute = ComputeType::FP32;
    bool matrix = false;
    // A GEMM's M×N×K (attention: queries × keys × head dim), for the advice on shapes; 0 for other ops.
    double m = 0, n = 0, k = 0;
};

// Whether `name` is an operator the model knows (a cheap test on the name alone, before its args are read).
bool isModelledOperator(std::string_view name);
// The cost of one call; none when the op is not modelled or its inputs do not have the shapes the op takes.
std::optional<OpCost> operatorCost(std::string_view name, const OperatorInputs& inputs);

// A Triton kernel of TorchInductor, by the cpu_op named after it that launches it: its tensor arguments are
// the kernel's inputs and outputs, and their sizes are the bytes it moves, as Inductor's own benchmark counts
// them without `kernel_num_gb` (an in-place buffer counted once); FLOPs unknown (0). The caller replaces both
// with the launch event's `kernel_num_gb` and `kernel_flop` where Inductor wrote them.
std::optional<OpCost> tritonKernelCost(const OperatorInputs& inputs);
// Inductor's own estimates on a launch event's args, into `cost`.
void applyInductorEstimates(std::string_view argsJson, OpCost& cost);

// The arithmetic of a profiler dtype name ("c10::BFloat16" → BF16; FP32 for what it does not know).
ComputeType computeTypeOfDtype(std::string_view dtype);
// Bytes per element of a profiler dtype name ("float", "c10::BFloat16", "c10::Float8_e4m3fn", "Scalar"), or
// 0.
int bytesPerElement(std::string_view dtype);

} // namespace kinetoscope
