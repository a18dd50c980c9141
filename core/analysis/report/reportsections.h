#pragma once

// The report's sections: what a reader can ask for alone (`summary --json --sections kernels,roofline`), each
// with the JSON members it writes, so that a report costs only what it answers: computeAnalysis runs only the
// analyses the sections asked for need. The header members ("events", "run", "gpu_busy_us") come with every
// section.

#include <bitset>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kinetoscope {

enum class ReportSection : std::uint8_t {
    Overview,        // steps, GPU utilisation and metrics, the step-time breakdown
    Operators,       // the operator and annotation tables
    Kernels,         // the kernel table and GPU time by kernel category
    Memory,          // memory peaks
    Recommendations, // the advice (it reads the overview, the launch queues and the roofline)
    Distributed,     // this trace as one rank of a job
    GpuWaits,        // where the GPUs wait: idle time, temporal breakdown, launch queues, launch statistics
    Sequences,       // the kernel sequences operators launch
    Roofline,        // FLOPs and bytes against the GPU's peaks
    Inductor,        // TorchInductor's kernel breakdown (compiled models)
    CriticalPath,    // one step's critical path
};
inline constexpr std::size_t reportSectionCount = 11;
using ReportSections = std::bitset<reportSectionCount>;

inline ReportSections allReportSections() {
    return ReportSections().set();
}
inline bool has(const ReportSections& s, ReportSection section) {
    return s.test(std::size_t(section));
}
// "overview", "ops", "kernels", "memory", "recommendations", "distributed", "gpu_waits", "sequences",
// "roofline", "inductor", "critical_path".
std::string_view reportSectionName(ReportSection section);
// The JSON members the section writes.
std::vector<std::string_view> reportSectionKeys(ReportSection section);
// "kernels,roofline" as a set; nullopt and `error` ("unknown section 'x' (one of: ...)") on a bad name.
std::optional<ReportSections> parseReportSections(std::string_view list, std::string& error);

} // namespace kinetoscope
