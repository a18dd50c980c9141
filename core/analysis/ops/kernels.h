#pragma once

#include "analysis/ops/kernelclass.h"
#include "model/tracestore.h"

#include <array>
#include <string>
#include <string_view>
#include <vector>

namespace kinetoscope {

enum class KernelGrouping { Name, NameAndLaunch };

struct KernelTableRow {
    std::string name;        // as the trace has it
    std::string displayName; // shortKernelName(name), for tables
    std::string launch;      // "grid [..] block [..] regs N smem N · op" when grouped by launch properties
    KernelCategory category = KernelCategory::Other;
    bool tensorCores = false;
    std::uint64_t count = 0;
    TimeNs total = 0;
    TimeNs min = 0;
    TimeNs max = 0;
    double meanBlocksPerSm = 0;   // mean over calls that report it (or grid size / SMs)
    double achievedOccupancy = 0; // duration-weighted mean of "est. achieved occupancy %", in %
    double shareOfGpuTime = 0;    // of all kernel time in range, 0..1
    // Inductor's estimates (kernel_num_gb, kernel_flop) on the kernel or its launching operator, over each
    // call's duration, averaged over the calls that carry them (as torch._inductor.analysis.profile_analysis
    // does); 0 without them.
    double achievedGbps = 0;
    double achievedTflops = 0;
    EventRef example; // the longest call
    TimeNs mean() const { return count ? total / TimeNs(count) : 0; }
};

struct KernelTable {
    std::vector<KernelTableRow> rows; // by total, descending
    std::array<TimeNs, kernelCategoryCount> byCategory{};
    TimeNs totalKernelTime = 0;
    std::uint64_t kernelCount = 0;
};

// Kernels that start in [from, to] (the whole trace by default).
// Grouped by name, it reads only the GPU's work and the metadata, but for Inductor's estimates, which may sit
// on the operator that launched a kernel, and a Triton template's operand types (tensorcores.h): a store of
// the GPU's work alone (LoadOptions::gpuWorkOnly) gives the same table when the file holds none of
// kernelTableHostKeys() (the estimates' args keys and a template's kernel_name arg, quoted as in the text).
std::vector<std::string> kernelTableHostKeys();
KernelTable kernelTable(const TraceStore& store, KernelGrouping grouping = KernelGrouping::Name,
                        TimeNs from = INT64_MIN, TimeNs to = INT64_MAX);

// Blocks per SM of one kernel: its "blocks per SM" arg, else grid size / SM count of its device.
std::optional<double> blocksPerSm(const TraceStore& store, EventRef kernel);

} // namespace kinetoscope
