#pragma once

#include "model/tracestore.h"

namespace kinetoscope {

// Whether a kernel ran on tensor cores. Most kernels say so in their names (usesTensorCores in
// kernelclass.h). Inductor's Triton template GEMMs and convolutions (triton_tem_*, which max-autotune picks)
// do not: their tl.dot runs on tensor cores when its two operands are BF16, FP16 or FP8, and the operator
// Inductor wraps around the launch records them as its first two "Input type"s (with record_shapes). FP32
// operands count as CUDA-core work: whether tl.dot used TF32 for them is a setting of the run that the trace
// does not hold.
bool kernelUsesTensorCores(const TraceStore& store, EventRef kernel);

} // namespace kinetoscope
