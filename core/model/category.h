#pragma once

#include <cstdint>
#include <string_view>

namespace kinetoscope {

// What a `cat` value means, compared case-insensitively; legacy (pre-2022) names map to the same kinds.
enum class CategoryKind : std::uint8_t {
    Other,
    CpuOp,             // cpu_op, Operator
    UserAnnotation,    // user_annotation
    GpuUserAnnotation, // gpu_user_annotation (once gpu_user_Annotation)
    PythonFunction,    // python_function
    Runtime,           // cuda_runtime, Runtime, xpu_runtime, ...
    Driver,            // cuda_driver, ...
    Kernel,            // kernel, Kernel, ...
    Memcpy,            // gpu_memcpy, Memcpy
    Memset,            // gpu_memset, Memset
    Sync,              // cuda_sync
    Event,             // cuda_event
    CpuInstant,        // cpu_instant_event
    Overhead,          // overhead
    Trace,             // Trace
    Collective,        // collective_comm
    HardwareCounters,  // hardware_counters
};

CategoryKind classifyCategory(std::string_view cat);

// The host events of the operator tables (docs/DEFINITIONS.md, "Nesting: one rule"): operators, annotations,
// runtime and driver calls. Python frames, GPU work and the profiler's own rows are not. One definition for
// the operator tables' host tree (analysis/ops/hosttree) and self time everywhere (query/selftime).
inline bool isHostEventKind(CategoryKind k) {
    return k == CategoryKind::CpuOp || k == CategoryKind::UserAnnotation || k == CategoryKind::Runtime ||
           k == CategoryKind::Driver;
}

// The kind of a RecordFunction the legacy autograd profiler wrote without a category, by its name
// (docs/DEFINITIONS.md, "Traces without categories"): CpuOp for an operator (a namespaced name such as
// aten::mm, an autograd node such as AddmmBackward0, detach), UserAnnotation for the rest (record_function
// ranges, ProfilerStep#N, Optimizer.step#..., TorchScript functions).
CategoryKind legacyRecordFunctionKind(std::string_view name);
std::string_view categoryKindName(CategoryKind kind);

// GPU work: what occupies a stream (kernels, copies, memsets); not syncs or GPU annotations.
inline bool isGpuWork(CategoryKind k) {
    return k == CategoryKind::Kernel || k == CategoryKind::Memcpy || k == CategoryKind::Memset;
}
inline bool isGpuCategory(CategoryKind k) {
    return k == CategoryKind::Kernel || k == CategoryKind::Memcpy || k == CategoryKind::Memset ||
           k == CategoryKind::GpuUserAnnotation;
}
inline bool isLaunchCategory(CategoryKind k) {
    return k == CategoryKind::Runtime || k == CategoryKind::Driver;
}
// Events whose correlation and External id the importer reads at load time (the launch and correlation
// indexes).
inline bool categoryNeedsIds(CategoryKind k) {
    return k == CategoryKind::CpuOp || k == CategoryKind::Runtime || k == CategoryKind::Driver ||
           k == CategoryKind::Kernel || k == CategoryKind::Memcpy || k == CategoryKind::Memset;
}

} // namespace kinetoscope
