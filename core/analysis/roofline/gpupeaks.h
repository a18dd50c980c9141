#pragma once

// The peak throughputs of the GPUs that real traces name in deviceProperties, from gpupeaks.tsv (built into
// the library; every row cites the vendor document its numbers come from). Dense figures, no sparsity.

#include "analysis/roofline/perfmodel.h"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kinetoscope {

struct GpuPeaks {
    std::string match; // the name patterns (gpupeaks.tsv explains them)
    std::string name;  // display name
    std::string source;
    // TFLOP/s (TOPS for INT8); none where the GPU has no such unit.
    std::optional<double> fp64, fp32, tf32, bf16, fp16, fp8, int8;
    std::optional<double> memoryTBps;
    std::optional<double> tflops(ComputeType type) const;
};

// The rows of a peaks table; malformed rows are skipped (the built-in table is checked by tst_roofline).
std::vector<GpuPeaks> parseGpuPeaks(std::string_view tsv);
const std::vector<GpuPeaks>& builtInGpuPeaks();
// The first row whose pattern matches a deviceProperties name (case-insensitive); none for an unknown GPU.
const GpuPeaks* findGpuPeaks(std::string_view deviceName,
                             const std::vector<GpuPeaks>& table = builtInGpuPeaks());

} // namespace kinetoscope
