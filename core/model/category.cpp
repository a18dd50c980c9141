#include "category.h"

#include <array>
#include <cctype>
#include <string>

namespace kinetoscope {

namespace {
bool equalsLower(std::string_view text, std::string_view lower) {
    if (text.size() != lower.size()) return false;
    for (std::size_t i = 0; i < text.size(); ++i)
        if (std::tolower(static_cast<unsigned char>(text[i])) != lower[i]) return false;
    return true;
}
bool endsWithLower(std::string_view text, std::string_view lowerSuffix) {
    return text.size() >= lowerSuffix.size() &&
           equalsLower(text.substr(text.size() - lowerSuffix.size()), lowerSuffix);
}
} // namespace

CategoryKind classifyCategory(std::string_view cat) {
    struct Entry {
        std::string_view name;
        CategoryKind kind;
    };
    static constexpr std::array<Entry, 20> exact = {{
        {"cpu_op", CategoryKind::CpuOp},
        {"operator", CategoryKind::CpuOp},
        {"user_annotation", CategoryKind::UserAnnotation},
        {"gpu_user_annotation", CategoryKind::GpuUserAnnotation},
        {"python_function", CategoryKind::PythonFunction},
        {"cuda_runtime", CategoryKind::Runtime},
        {"runtime", CategoryKind::Runtime},
        {"cuda_driver", CategoryKind::Driver},
        {"kernel", CategoryKind::Kernel},
        {"gpu_memcpy", CategoryKind::Memcpy},
        {"memcpy", CategoryKind::Memcpy},
        {"gpu_memset", CategoryKind::Memset},
        {"memset", CategoryKind::Memset},
        {"cuda_sync", CategoryKind::Sync},
        {"cuda_event", CategoryKind::Event},
        {"cpu_instant_event", CategoryKind::CpuInstant},
        {"overhead", CategoryKind::Overhead},
        {"trace", CategoryKind::Trace},
        {"collective_comm", CategoryKind::Collective},
        {"hardware_counters", CategoryKind::HardwareCounters},
    }};
    for (const Entry& e : exact)
        if (equalsLower(cat, e.name)) return e.kind;
    // Other back-ends (xpu_runtime, mtia_runtime, privateuse1_driver, ...) keep the suffix.
    if (endsWithLower(cat, "_runtime")) return CategoryKind::Runtime;
    if (endsWithLower(cat, "_driver")) return CategoryKind::Driver;
    if (endsWithLower(cat, "_sync")) return CategoryKind::Sync;
    return CategoryKind::Other;
}

CategoryKind legacyRecordFunctionKind(std::string_view name) {
    if (name.find("::") != std::string_view::npos || name == "detach") return CategoryKind::CpuOp;
    // Autograd nodes: a class name ending in "Backward" and a version number (AddmmBackward0,
    // CudnnConvolutionBackward).
    std::string_view stem = name;
    while (!stem.empty() && std::isdigit(static_cast<unsigned char>(stem.back())))
        stem.remove_suffix(1);
    if (stem.size() > 8 && stem.ends_with("Backward") && std::isupper(static_cast<unsigned char>(stem[0]))) {
        bool identifier = true;
        for (char c : stem)
            identifier = identifier && (std::isalnum(static_cast<unsigned char>(c)) || c == '_');
        if (identifier) return CategoryKind::CpuOp;
    }
    return CategoryKind::UserAnnotation;
}

std::string_view categoryKindName(CategoryKind kind) {
    switch (kind) {
    case CategoryKind::Other:
        return "other";
    case CategoryKind::CpuOp:
        return "cpu_op";
    case CategoryKind::UserAnnotation:
        return "user_annotation";
    case CategoryKind::GpuUserAnnotation:
        return "gpu_user_annotation";
    case CategoryKind::PythonFunction:
        return "python_function";
    case CategoryKind::Runtime:
        return "runtime";
    case CategoryKind::Driver:
        return "driver";
    case CategoryKind::Kernel:
        return "kernel";
    case CategoryKind::Memcpy:
        return "memcpy";
    case CategoryKind::Memset:
        return "memset";
    case CategoryKind::Sync:
        return "sync";
    case CategoryKind::Event:
        return "event";
    case CategoryKind::CpuInstant:
        return "cpu_instant_event";
    case CategoryKind::Overhead:
        return "overhead";
    case CategoryKind::Trace:
        return "trace";
    case CategoryKind::Collective:
        return "collective_comm";
    case CategoryKind::HardwareCounters:
        return "hardware_counters";
    }
    return "other";
}

} // namespace kinetoscope
