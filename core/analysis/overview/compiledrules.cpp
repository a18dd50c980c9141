// The advice for compiled models (torch.compile): graph breaks, recompilation, compilation inside the trace
// and max-autotune, each from the facts of analysis/compiled/compiledmodel.h, with its evidence and where to
// look on the timeline (docs/DEFINITIONS.md, "Advice for compiled models").
#include "analysis/overview/rules.h"

#include <cstdio>

namespace kinetoscope::overview {

namespace {

std::string count(std::uint64_t n, const char* one, const char* many) {
    return std::to_string(n) + " " + (n == 1 ? one : many);
}

} // namespace

// More than one compiled frame in a step: Dynamo split the model, at a graph break (its resume function is a
// frame of its own) or because several functions are compiled apart; either way what runs between the
// regions runs eagerly, unfused and launched one operator at a time.
void graphBreaksRule(const RuleContext& c, const Rule& rule, const GpuMetrics*) {
    const CompiledModelFacts& m = c.compiled;
    if (double(m.mostFramesInAStep) <= rule.threshold) return;
    std::string evidence = "A step runs " + std::to_string(m.mostFramesInAStep) + " compiled frames (" +
                           m.framesOfThatStep + "; threshold: more than 1)";
    if (m.eagerOps > 0)
        evidence +=
            "; " + count(m.eagerOps, "eager operator runs", "eager operators run") +
            " between the compiled regions (compile phases left out): " + formatDuration(m.eagerHostTime) +
            " on the host, " + formatDuration(m.eagerGpuTime) + " of GPU work";
    const bool example = m.longestEagerOp.isValid();
    // How the regions lie tells a graph break (the resume function's region inside its caller's) from
    // functions compiled apart (regions side by side); a step can hold both.
    std::string title;
    if (m.nestedRegions && !m.separateRegions) {
        title = "Graph breaks split the compiled model: find them with TORCH_LOGS=graph_breaks (or "
                "torch._dynamo.explain) and remove them, so the code between the regions is compiled too; "
                "fullgraph=True makes any that remain an error";
        evidence += "; a region runs inside another (a resume function after a graph break)";
    } else if (!m.nestedRegions) {
        title =
            "Several functions are compiled apart: their regions run one after another, none inside another, "
            "so no graph break splits them (a graph break would show its resume function's region inside "
            "its caller's); the code between them runs eagerly: if it runs every step, compile the function "
            "that calls them all";
        evidence += "; the regions run side by side";
    } else {
        title = "Graph breaks split the compiled model, and other functions are compiled apart: TORCH_LOGS="
                "graph_breaks names the breaks (a region inside another is a resume function); the regions "
                "side by side are separate compiled functions, whose callers run eagerly";
        evidence += "; some regions run inside others (graph breaks), some side by side (functions compiled "
                    "apart)";
    }
    c.fire(rule, title, evidence,
           {{"frames_in_a_step", double(m.mostFramesInAStep)},
            {"regions_nested", m.nestedRegions ? 1.0 : 0.0},
            {"regions_side_by_side", m.separateRegions ? 1.0 : 0.0},
            {"eager_ops_between_regions", double(m.eagerOps)},
            {"eager_host_us", double(m.eagerHostTime) / 1000.0},
            {"eager_gpu_us", double(m.eagerGpuTime) / 1000.0}},
           example ? m.longestEagerOp : EventRef{}, example ? 0 : m.stepFrom, example ? 0 : m.stepTo);
}

// A frame that runs as compile 1 or later was compiled again: a guard of its earlier compilation failed (a
// new shape, dtype, or Python value it specialised on). Each recompilation costs a compile, and frames past
// the recompile limit fall back to eager.
void recompilationRule(const RuleContext& c, const Rule& rule, const GpuMetrics*) {
    const CompiledModelFacts& m = c.compiled;
    if (!m.recompiledRegion.isValid()) return;
    std::string frames;
    int recompiled = 0, highest = 0;
    for (const auto& [frame, compiles] : m.compilesOfFrame) {
        if (compiles.back() <= 0) continue;
        ++recompiled;
        highest = std::max(highest, compiles.back());
        std::string ids;
        for (int id : compiles)
            ids += (ids.empty() ? "" : ", ") + std::to_string(frame) + "/" + std::to_string(id);
        frames +=
            (frames.empty() ? "" : "; ") + std::string("frame ") + std::to_string(frame) + " runs as " + ids;
    }
    c.fire(rule,
           "A compiled function was compiled again (a recompilation): TORCH_LOGS=recompiles names the guard "
           "that failed; mark dimensions that vary as dynamic (torch._dynamo.mark_dynamic, dynamic=True) and "
           "keep the Python values it specialises on fixed",
           frames + ": compile ids above 0 are later compilations of the same frame (threshold: above 0)",
           {{"recompiled_frames", double(recompiled)}, {"highest_compile_id", double(highest)}},
           m.recompiledRegion);
}

// Dynamo's and Inductor's compile phases, and Inductor's CUDA graph recording, run inside the profiled
// steps: the trace measures a warm-up, not the compiled model.
void compileInTraceRule(const RuleContext& c, const Rule& rule, const GpuMetrics*) {
    const CompiledModelFacts& m = c.compiled;
    const double share = c.shareOfSteps(m.compileTime);
    if (m.compileTime <= 0 || share <= rule.threshold) return;
    c.fire(rule,
           "The trace records compilation, not only the compiled model: profile steps after warm-up "
           "(torch.profiler.schedule with wait and warmup steps past the first calls)",
           "Compile phases and CUDA graph recording (\"... (dynamo_timed)\" ranges) take " +
               formatDuration(m.compileTime) + ", " + percent(share) + " of the step time (" +
               thresholdText(rule.threshold) + ")",
           {{"compile_share", share}, {"compile_us", double(m.compileTime) / 1000.0}}, m.longestCompile);
}

// Triton kernels, and the library GEMMs compiled graphs call, hold much of the GPU time, and no Triton
// template ran (max-autotune benchmarks templates against the library GEMMs, and tunes the generated kernels'
// block sizes and warps).
void maxAutotuneRule(const RuleContext& c, const Rule& rule, const GpuMetrics*) {
    const CompiledModelFacts& m = c.compiled;
    if (!m.compiled || m.tritonTemplates || m.kernelTime <= 0 || m.tritonTime <= 0) return;
    const double tritonShare = double(m.tritonTime) / double(m.kernelTime);
    const double gemmShare = double(m.gemmInGraphsTime) / double(m.kernelTime);
    const double share = tritonShare + gemmShare;
    if (share <= rule.threshold) return;
    std::string top;
    for (const KernelTime& k : m.topTriton)
        top += (top.empty() ? "" : ", ") + std::string(c.store.strings().view(k.name)) + " " +
               formatDuration(k.total) + " (" + count(k.calls, "call", "calls") + ")";
    c.fire(
        rule,
        "Compile with mode=\"max-autotune\": Inductor then benchmarks Triton templates against the library "
        "GEMMs and tunes its generated kernels; `python <kernel_file>` benchmarks one kernel alone",
        "Triton kernels take " + percent(tritonShare) + " of GPU kernel time (most: " + top +
            ") and library GEMMs called from compiled graphs " + percent(gemmShare) +
            "; no Triton template ran, so max-autotune is off (" + thresholdText(rule.threshold) + ")",
        {{"triton_share_of_kernel_time", tritonShare}, {"compiled_gemm_share_of_kernel_time", gemmShare}},
        m.topTriton.front().longest);
}

} // namespace kinetoscope::overview
