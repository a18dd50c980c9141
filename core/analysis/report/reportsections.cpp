#include "analysis/report/reportsections.h"

namespace kinetoscope {

namespace {
struct SectionInfo {
    std::string_view name;
    std::vector<std::string_view> keys;
};

const SectionInfo& info(ReportSection section) {
    static const SectionInfo sections[reportSectionCount] = {
        {"overview",
         {"steps", "gpu_utilization", "gpu_metrics", "breakdown_us", "communication_overlapped_us",
          "warm_up_us"}},
        {"ops", {"operators", "annotations"}},
        {"kernels", {"kernels", "kernel_categories_us"}},
        {"memory", {"memory"}},
        {"recommendations", {"recommendations"}},
        {"distributed", {"distributed"}},
        {"gpu_waits", {"gpu_idle", "temporal_breakdown", "gpu_queue", "launch_stats"}},
        {"sequences", {"kernel_sequences"}},
        {"roofline", {"perf_model_gpu", "perf_model", "perf_model_coverage", "perf_model_not_modelled"}},
        {"inductor", {"inductor"}},
        {"critical_path", {"critical_path"}},
    };
    return sections[std::size_t(section)];
}
} // namespace

std::string_view reportSectionName(ReportSection section) {
    return info(section).name;
}

std::vector<std::string_view> reportSectionKeys(ReportSection section) {
    return info(section).keys;
}

std::optional<ReportSections> parseReportSections(std::string_view list, std::string& error) {
    ReportSections sections;
    while (!list.empty()) {
        const std::size_t comma = list.find(',');
        const std::string_view name = list.substr(0, comma);
        bool known = false;
        for (std::size_t s = 0; s < reportSectionCount; ++s)
            if (reportSectionName(ReportSection(s)) == name) {
                sections.set(s);
                known = true;
            }
        if (!known) {
            error = "unknown section '" + std::string(name) + "' (one of:";
            for (std::size_t s = 0; s < reportSectionCount; ++s)
                error += std::string(s ? ", " : " ") + std::string(reportSectionName(ReportSection(s)));
            error += ")";
            return std::nullopt;
        }
        if (comma == std::string_view::npos) break;
        list.remove_prefix(comma + 1);
    }
    if (sections.none()) {
        error = "no section named";
        return std::nullopt;
    }
    return sections;
}

} // namespace kinetoscope
