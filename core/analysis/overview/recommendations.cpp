// The overview's recommendations: a table of rules, each with the figure it measures, the threshold that
// fires it and the evidence it shows (the figure, the threshold, and where to look).
#include "analysis/overview/rules.h"

#include "analysis/gpu/criticalpath.h"
#include "analysis/gpu/gpuqueue.h"
#include "analysis/memory/memory.h"
#include "analysis/overview/attentionpattern.h"
#include "model/timeconv.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <optional>
#include <unordered_map>

namespace kinetoscope::overview {

std::string percent(double f) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f%%", f * 100);
    return buf;
}

std::string thresholdText(double threshold) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "threshold %g%%", threshold * 100);
    return buf;
}

void RuleContext::fire(const Rule& rule, std::string title, std::string evidence,
                       std::vector<std::pair<std::string, double>> figures, EventRef example, TimeNs a,
                       TimeNs b) const {
    if (example.isValid() && a == b) {
        a = store.track(example.track).starts[example.index.value];
        b = store.track(example.track).endOf(example.index.value);
    }
    figures.emplace_back("threshold", rule.threshold);
    Recommendation& r = ov.recommendations.emplace_back();
    r.id = std::string(rule.id);
    r.title = std::move(title);
    r.evidence = std::move(evidence);
    r.example = example;
    r.from = a;
    r.to = b;
    r.figures = std::move(figures);
    if (example.isValid()) {
        r.exampleName = std::string(store.nameOf(example));
        r.exampleStart = store.track(example.track).starts[example.index.value];
        r.exampleDuration = store.durationOf(example);
        r.exampleOnGpu = isGpuWork(store.categoryOf(example).kind);
    }
}

namespace {

// The rules whose figure is one share: fire above the threshold, with the evidence "<before><share><after>
// (threshold N%)" and the figure under `figure`.
void fireAbove(const RuleContext& c, const Rule& rule, double share, const char* figure, EventRef example,
               std::string title, const std::string& before, const std::string& after) {
    if (share <= rule.threshold) return;
    c.fire(rule, std::move(title),
           before + percent(share) + after + " (" + thresholdText(rule.threshold) + ")", {{figure, share}},
           example);
}

void dataLoaderRule(const RuleContext& c, const Rule& rule, const GpuMetrics*) {
    fireAbove(c, rule, c.breakdownShare(BreakdownCategory::DataLoader), "dataloader_share",
              c.facts.longestDataLoader,
              "Data loading stalls the steps: use DataLoader(num_workers > 0, pin_memory=True) or prefetch",
              "DataLoader takes ", " of step time");
}

void communicationRule(const RuleContext& c, const Rule& rule, const GpuMetrics*) {
    fireAbove(c, rule, c.breakdownShare(BreakdownCategory::Communication), "communication_share",
              c.facts.longestComm,
              "Communication dominates: overlap it with compute (DDP bucket size, FSDP prefetch) or compress "
              "gradients",
              "Communication not overlapped by kernels takes ", " of step time");
}

void lowUtilizationRule(const RuleContext& c, const Rule& rule, const GpuMetrics* g) {
    if (g->kernelTime <= 0 || g->utilization >= rule.threshold) return;
    // Outside compile phases: a GPU idle while the host compiles is told so by compile_in_trace.
    if (c.compileTimeInSteps > 0) {
        const auto runs = c.facts.kernelRuns.find(g->device);
        const IntervalSet kernels = runs == c.facts.kernelRuns.end()
                                        ? IntervalSet{}
                                        : intersect(unionOfRuns(runs->second), c.span.set);
        const TimeNs busy = totalLength(subtract(kernels, c.compileInSteps));
        if (c.shareOfStepsOutsideCompile(busy) >= rule.threshold) return;
    }
    const std::string dev = "GPU " + std::to_string(g->device);
    c.fire(
        rule,
        dev +
            " is idle most of the time: look at the gaps between kernels (larger batches, fewer host syncs)",
        dev + " runs kernels " + percent(g->utilization) + " of the step time (" +
            thresholdText(rule.threshold) + ")",
        {{"device", double(g->device)}, {"gpu_utilization", g->utilization}}, {}, c.span.lo, c.span.hi);
}

// Fires when GEMMs and convolutions take more than the threshold of kernel time and tensor-core kernels less.
void tensorCoreRule(const RuleContext& c, const Rule& rule, const GpuMetrics* g) {
    const DeviceProperties* props = nullptr;
    for (const DeviceProperties& d : c.store.metadata().devices)
        if (d.id == g->device) props = &d;
    if (!props || props->computeMajor < 7) return; // tensor cores from Volta on
    const TimeNs gemm = c.facts.categoryTime[std::size_t(KernelCategory::Gemm)];
    const TimeNs conv = c.facts.categoryTime[std::size_t(KernelCategory::Conv)];
    const TimeNs total = c.facts.totalKernelTime;
    if (total <= 0) return;
    const double matmulShare = double(gemm + conv) / double(total);
    if (matmulShare <= rule.threshold || g->tensorCoreShare >= rule.threshold) return;
    const std::string dev = "GPU " + std::to_string(g->device);
    // TF32 exists from Ampere (compute capability 8) on.
    c.fire(rule,
           dev + " (" + props->name + ") has tensor cores, but its GEMMs and convolutions do not use them: " +
               (props->computeMajor >= 8
                    ? "let FP32 matmuls use TF32 (torch.set_float32_matmul_precision(\"high\")) or run "
                      "them in BF16 (torch.autocast)"
                    : "run them in FP16 (torch.autocast)"),
           "GEMM/conv kernels take " + percent(matmulShare) + " of GPU kernel time, tensor-core kernels " +
               percent(g->tensorCoreShare) + " of it (" + thresholdText(rule.threshold) + ")",
           {{"device", double(g->device)},
            {"gemm_conv_share_of_kernel_time", matmulShare},
            {"tensor_core_share", g->tensorCoreShare}},
           c.facts.categoryExample[std::size_t(gemm >= conv ? KernelCategory::Gemm : KernelCategory::Conv)]);
}

void memoryCapacityRule(const RuleContext& c, const Rule& rule, const GpuMetrics*) {
    for (const auto& [device, peak] : memoryPeaks(c.store)) {
        for (const DeviceProperties& d : c.store.metadata().devices) {
            if (d.id != device || d.totalGlobalMem <= 0) continue;
            const double share = peak.reserved / double(d.totalGlobalMem);
            if (share < rule.threshold) continue;
            c.fire(
                rule,
                "GPU " + std::to_string(device) +
                    " memory is nearly full: reduce the batch, use activation checkpointing, or free cached "
                    "tensors",
                "peak reserved " + percent(share) + " of " + std::to_string(d.totalGlobalMem >> 20) +
                    " MiB (" + thresholdText(rule.threshold) + ")",
                {{"device", double(device)},
                 {"peak_reserved_bytes", peak.reserved},
                 {"memory_bytes", double(d.totalGlobalMem)},
                 {"peak_reserved_share", share}},
                peak.at);
        }
    }
}

// The warm-up rule fires from the launch-bound rule's own pass over the gaps (one reading of them).
constexpr Rule warmUpRule{"warm_up", 0.2, false, nullptr};

// Launch-bound: times when a device has no GPU work at all, ended by work whose launch call began only after
// the device went idle (the GPU was waiting for the CPU to issue it), and which the host did not spend
// loading data or synchronising (those have rules of their own). A gap ended by a warm-up launch is warm-up,
// said as such (warmUpRule), never answered with CUDA graphs.
void launchBoundRule(const RuleContext& c, const Rule& rule, const GpuMetrics*) {
    const TraceStore& store = c.store;
    const TimeNs spanLo = c.span.lo, spanHi = c.span.hi;
    // A gap while the host compiles, loads data or waits in a sync is not a launch the host was late with.
    const IntervalSet hostBusyElsewhere = unionOf(
        unionOf(c.compileInSteps, unionOfRuns(c.facts.runs[std::size_t(BreakdownCategory::DataLoader)])),
        [&] {
            IntervalSet sync;
            for (std::uint32_t ti = 0; ti < store.tracks().size(); ++ti) {
                const Track& t = store.tracks()[ti];
                if (t.kind != TrackKind::CpuThread) continue;
                for (std::uint32_t r = 0; r < t.sliceCount(); ++r) {
                    if ((c.facts.nameClass[t.names[r].value] & NameClass::Sync) && t.endOf(r) > spanLo &&
                        t.starts[r] < spanHi)
                        sync.emplace_back(t.starts[r], t.endOf(r));
                }
            }
            std::sort(sync.begin(), sync.end());
            return unionOfRuns({sync});
        }());
    struct Work {
        TimeNs start, end;
        EventRef ref;
    };
    std::map<std::int64_t, std::vector<Work>> work;
    for (std::uint32_t ti = 0; ti < store.tracks().size(); ++ti) {
        const Track& t = store.tracks()[ti];
        if (t.kind != TrackKind::GpuStream) continue;
        for (std::uint32_t d = 0; d < t.laneCount(); ++d) {
            const auto [r0, r1] = t.rowsInRange(d, spanLo, spanHi);
            for (std::uint32_t r = r0; r < r1; ++r) {
                const CategoryKind kind = store.categories()[t.categories[r]].kind;
                if (!isGpuCategory(kind) || (t.flags[r] & SliceFlag::Instant)) continue;
                if (kind == CategoryKind::GpuUserAnnotation) continue;
                work[t.pid].push_back({t.starts[r], t.endOf(r), {TrackId(ti), EventIndex(r)}});
            }
        }
    }
    TimeNs waiting = 0, warmUp = 0;
    std::pair<TimeNs, TimeNs> worst{0, 0};
    EventRef longestWarmUp;
    // overviewfacts.h's rule: the medians are gathered only when a gap's launch is long enough to be warm-up.
    WarmUpCalls warmUpCalls(store);
    const auto isWarmUp = [&](EventRef call) { return warmUpCalls.contains(call); };
    for (auto& [device, list] : work) {
        std::sort(list.begin(), list.end(), [](const Work& x, const Work& y) { return x.start < y.start; });
        TimeNs busyUntil = list.empty() ? 0 : list.front().end;
        for (std::size_t i = 1; i < list.size(); ++i) {
            const Work& w = list[i];
            if (w.start > busyUntil) {
                const TimeNs gapStart = busyUntil, gapEnd = w.start;
                const auto launch = store.launchOf(w.ref);
                const bool insideStep = lengthWithin(c.span.set, gapStart, gapEnd) == gapEnd - gapStart;
                if (launch && insideStep &&
                    store.track(launch->track).starts[launch->index.value] > gapStart &&
                    2 * lengthWithin(hostBusyElsewhere, gapStart, gapEnd) < gapEnd - gapStart) {
                    if (isWarmUp(*launch)) {
                        warmUp += gapEnd - gapStart;
                        const Track& lt = store.track(launch->track);
                        if (!longestWarmUp.track.isValid() ||
                            lt.durations[launch->index.value] >
                                store.track(longestWarmUp.track).durations[longestWarmUp.index.value])
                            longestWarmUp = *launch;
                    } else {
                        waiting += gapEnd - gapStart;
                        if (gapEnd - gapStart > worst.second - worst.first) worst = {gapStart, gapEnd};
                    }
                }
            }
            busyUntil = std::max(busyUntil, w.end);
        }
    }
    const double warmUpShare = c.shareOfStepsOutsideCompile(warmUp);
    if (warmUpShare > warmUpRule.threshold) {
        const Track& lt = store.track(longestWarmUp.track);
        const std::string call(store.strings().view(lt.names[longestWarmUp.index.value]));
        c.fire(
            warmUpRule,
            "One-time warm-up, not launch overhead: first calls (lazy CUDA module loading, cuDNN's algorithm "
            "search) keep the GPU waiting; profile after a few warm-up steps "
            "(torch.profiler.schedule(wait=1, warmup=1, active=3))",
            "the GPU waits " + percent(warmUpShare) +
                " of the step time for launches that take 20 times their "
                "call's median or more; the longest, " +
                call + ", " + formatDuration(lt.durations[longestWarmUp.index.value]) + " (" +
                thresholdText(warmUpRule.threshold) + ")",
            {{"warm_up_share", warmUpShare}, {"warm_up_us", double(warmUp) / 1000.0}}, longestWarmUp);
    }
    const double share = c.shareOfStepsOutsideCompile(waiting);
    if (share <= rule.threshold) return;
    // A compiled model is told what its compiler can do: replay its graphs as CUDA graphs, or, where it
    // already does, cover what they leave out.
    const char* title =
        !c.compiled.compiled
            ? "The GPU waits for the CPU to launch work: capture the steps with CUDA graphs or use "
              "torch.compile(mode=\"reduce-overhead\")"
        : !c.compiled.cudaGraphs
            ? "The GPU waits for the CPU to launch the compiled model's kernels: compile with "
              "mode=\"reduce-overhead\" to replay them as CUDA graphs"
            : "The GPU waits for launches the CUDA graphs do not cover: look for graphs Inductor did not "
              "capture (TORCH_LOGS=perf_hints says why) and for eager code between the compiled regions";
    c.fire(rule, title,
           "GPUs sit idle until the host issues the next launch " + percent(share) + " of the step time" +
               (c.compileTimeInSteps > 0 ? " outside compile phases (" : " (") +
               thresholdText(rule.threshold) + ")",
           {{"launch_wait_share", share},
            {"launch_wait_us", double(waiting) / 1000.0},
            {"warm_up_excluded_us", double(warmUp) / 1000.0}},
           {}, worst.first, worst.second);
}

void syncBoundRule(const RuleContext& c, const Rule& rule, const GpuMetrics*) {
    const double share = c.shareOfSteps(c.facts.syncTime);
    if (share <= rule.threshold) return;
    const std::string evidence = "cudaStreamSynchronize/cudaDeviceSynchronize/aten::item take " +
                                 percent(share) + " of the step time (" + thresholdText(rule.threshold) + ")";
    // Most of the waiting inside a copy op: a blocking copy of a result to the host (an H100 inference run's
    // aten::to of its output, 73.3 ms, all of it cudaStreamSynchronize). The fix is about that copy.
    if (2 * c.facts.syncInCopyTime > c.facts.syncTime) {
        const double inCopies = double(c.facts.syncInCopyTime) / double(c.facts.syncTime);
        c.fire(
            rule,
            "The host waits for the GPU in blocking copies to the host (.to(\"cpu\"), .cpu(), .tolist()): "
            "copy "
            "results once the step's work is queued, or with non_blocking=True into pinned memory, and keep "
            "the rest on the device",
            evidence + ", " + percent(inCopies) + " of it inside copy ops",
            {{"sync_share", share}, {"sync_in_copies_share", inCopies}}, c.facts.longestSyncInCopy);
        return;
    }
    c.fire(rule,
           "Host time is dominated by synchronisation: avoid .item(), .cpu() and explicit synchronize calls "
           "inside the step",
           evidence, {{"sync_share", share}}, c.facts.longestSync);
}

// Fires when more than the threshold of at least this many kernels run under 10 µs.
constexpr std::uint64_t tinyKernelsMinimum = 1000;

void tinyKernelsRule(const RuleContext& c, const Rule& rule, const GpuMetrics*) {
    const auto [tiny, all] = std::pair(c.facts.tinyKernels, c.facts.kernelCount);
    if (all < tinyKernelsMinimum || double(tiny) / double(all) <= rule.threshold) return;
    const std::string evidence = std::to_string(tiny) + " of " + std::to_string(all) +
                                 " kernels run under 10 us (threshold: half of at least 1000)";
    const CompiledModelFacts& m = c.compiled;
    if (!m.compiled) {
        c.fire(rule,
               "Many tiny kernels: launch overhead dominates; fuse them with torch.compile or CUDA graphs",
               evidence, {{"tiny_kernels", double(tiny)}, {"kernels", double(all)}}, c.facts.tinyExample);
        return;
    }
    // The model is compiled already: say where the tiny kernels come from.
    const bool mostlyEager = m.tinyOutside >= m.tinyInGraphs;
    const char* title =
        mostlyEager
            ? "Many tiny kernels, most of them launched outside the compiled graphs: compile the code "
              "that launches them (graph breaks, modules left uncompiled)"
        : !m.cudaGraphs ? "Many tiny kernels in the compiled graphs: launch overhead dominates; compile with "
                          "mode=\"reduce-overhead\" to replay them as CUDA graphs"
                        : "Many tiny kernels, already replayed by CUDA graphs: each still costs the GPU its "
                          "start and tail; larger batches or larger compiled graphs amortise them";
    c.fire(rule, title,
           evidence + "; " + std::to_string(m.tinyInGraphs) + " launched by compiled graphs, " +
               std::to_string(m.tinyOutside) + " outside them",
           {{"tiny_kernels", double(tiny)},
            {"kernels", double(all)},
            {"tiny_in_compiled_graphs", double(m.tinyInGraphs)},
            {"tiny_outside_compiled_graphs", double(m.tinyOutside)}},
           mostlyEager ? m.tinyOutsideExample : m.tinyInGraphsExample);
}

void copyTrafficRule(const RuleContext& c, const Rule& rule, const GpuMetrics*) {
    // Without the waits inside the copies: those are sync_bound's (one cause for one wait).
    const TimeNs copying = std::max<TimeNs>(0, c.facts.copyTime - c.facts.syncInCopyTime);
    fireAbove(c, rule, c.shareOfSteps(copying), "copy_share", c.facts.longestCopy,
              "Heavy copy and layout traffic (aten::copy_/to/repeat/permute/contiguous): keep tensors on the "
              "device and in the layout the next op wants",
              "these ops take ", " of the step time on the host, waits for the GPU left out");
}

void elementwiseRule(const RuleContext& c, const Rule& rule, const GpuMetrics*) {
    if (c.facts.totalKernelTime <= 0) return;
    // Beside a compiled model, Inductor fused what it compiled: the eager elementwise kernels left are those
    // launched outside it.
    const bool compiled = c.compiled.compiled;
    const TimeNs elementwise = compiled ? c.compiled.elementwiseOutsideTime
                                        : c.facts.categoryTime[std::size_t(KernelCategory::Elementwise)];
    const TimeNs optimizer =
        compiled ? c.compiled.elementwiseOptimizerTime : c.facts.elementwiseOptimizerTime;
    const double share = double(elementwise) / double(c.facts.totalKernelTime);
    if (share <= rule.threshold) return;
    const std::string evidence =
        (compiled ? "PyTorch elementwise kernels launched outside compiled graphs take "
                  : "PyTorch elementwise kernels take ") +
        percent(share) + " of GPU kernel time";
    if (2 * optimizer > elementwise) {
        // Most of them the eager optimizer's multi-tensor kernels (AdamW with foreach): its fused
        // implementation, or compiling the step, is the change to make, not compiling the model.
        const double optimizerShare = double(optimizer) / double(elementwise);
        // Where the rest is a good part of them, it keeps its own advice.
        const std::string rest = optimizerShare >= 0.9 ? ""
                                 : compiled ? "; the rest are launched outside the compiled graphs (a graph "
                                              "break, or a module left uncompiled)"
                                            : "; the rest are fusion candidates for torch.compile";
        c.fire(
            rule,
            std::string(compiled
                            ? "The optimizer step runs eagerly beside the compiled model, and its "
                              "elementwise kernels take much GPU time"
                            : "Elementwise kernels dominate GPU time, most of them the optimizer step's") +
                ": use the optimizer's fused implementation (for example torch.optim.AdamW(..., fused=True)) "
                "or compile the step (torch.compile around optimizer.step())" +
                rest,
            evidence + ", " + percent(optimizerShare) + " of them in the optimizer step (" +
                thresholdText(rule.threshold) + ")",
            {{"elementwise_share_of_kernel_time", share}, {"optimizer_share_of_elementwise", optimizerShare}},
            compiled ? c.compiled.elementwiseOptimizerExample : c.facts.elementwiseOptimizerExample);
        return;
    }
    c.fire(rule,
           compiled
               ? "Eager elementwise kernels outside the compiled graphs take much GPU time: compile the code "
                 "that launches them (a graph break, or a module left uncompiled)"
               : "Elementwise kernels dominate GPU time: they are fusion candidates for torch.compile",
           evidence + " (" + thresholdText(rule.threshold) + ")",
           {{"elementwise_share_of_kernel_time", share}},
           compiled ? c.compiled.elementwiseOutsideExample
                    : c.facts.categoryExample[std::size_t(KernelCategory::Elementwise)]);
}

// Attention computed op by op (bmm -> softmax -> bmm per head) writes the scores to memory and reads them
// back twice; scaled_dot_product_attention runs it as one fused kernel. Fires above the threshold of GPU
// kernel time, over at least two sequences.
void unfusedAttentionRule(const RuleContext& c, const Rule& rule, const GpuMetrics*) {
    const TimeNs total = c.facts.totalKernelTime;
    if (total <= 0) return;
    const UnfusedAttention a = findUnfusedAttention(c.store, c.span.lo, c.span.hi);
    const double share = double(a.gpuTime) / double(total);
    const double softmaxShare = double(a.softmaxTime) / double(total);
    if (a.count < 2 || share <= rule.threshold) return;
    const bool mathFallback = 2 * a.underSdpa > a.count;
    c.fire(
        rule,
        mathFallback
            ? "scaled_dot_product_attention falls back to its unfused math path (bmm → softmax → bmm): give "
              "it "
              "inputs a fused kernel takes (FP16/BF16, a head dimension that is a multiple of 8, a supported "
              "mask) or pick one with torch.nn.attention.sdpa_kernel"
            : "Attention runs unfused, op by op (bmm → softmax → bmm): use "
              "torch.nn.functional.scaled_dot_product_attention, which runs it as one fused kernel",
        std::to_string(a.count) + " bmm → softmax → bmm sequences take " + formatDuration(a.gpuTime) +
            " of GPU kernel time, " + percent(share) + " of it; their softmax kernels alone " +
            formatDuration(a.softmaxTime) + ", " + percent(softmaxShare) + " (" +
            thresholdText(rule.threshold) + ")",
        {{"unfused_attention_share", share},
         {"softmax_share_of_kernel_time", softmaxShare},
         {"sequences", double(a.count)},
         {"unfused_attention_us", double(a.gpuTime) / 1000.0}},
        a.example);
}

// cuDNN and MIOpen convert NCHW tensors to the NHWC their fastest convolution kernels read, and back, around
// every convolution of a channels-first model. Fires when those conversions take more than the threshold of
// GPU kernel time in a model whose convolutions take at least a tenth of it (cuBLAS's transposes in a
// transformer are no reason for channels_last).
void channelsLastRule(const RuleContext& c, const Rule& rule, const GpuMetrics*) {
    const TimeNs total = c.facts.totalKernelTime;
    if (total <= 0) return;
    constexpr double convolutionalModel = 0.1;
    const TimeNs layout = c.facts.categoryTime[std::size_t(KernelCategory::Layout)];
    const TimeNs conv = c.facts.categoryTime[std::size_t(KernelCategory::Conv)];
    const double share = double(layout) / double(total), convShare = double(conv) / double(total);
    if (share <= rule.threshold || convShare < convolutionalModel) return;
    c.fire(
        rule,
        "Convolutions pay for tensor layout conversions (NCHW ↔ NHWC): convert the model and its inputs to "
        "channels_last (model.to(memory_format=torch.channels_last), "
        "x.to(memory_format=torch.channels_last))",
        "Layout-conversion kernels (convertTensor, nchwToNhwc/nhwcToNchw, transposes) take " +
            formatDuration(layout) + " of GPU kernel time, " + percent(share) + " of it, beside " +
            formatDuration(conv) + " (" + percent(convShare) + ") of convolution kernels (" +
            thresholdText(rule.threshold) + ")",
        {{"layout_share_of_kernel_time", share},
         {"conv_share_of_kernel_time", convShare},
         {"layout_us", double(layout) / 1000.0}},
        c.facts.categoryExample[std::size_t(KernelCategory::Layout)]);
}

// In the order they are listed; the ids are stable (reports and tests key on them).
constexpr Rule rules[] = {
    {"dataloader", 0.05, false, dataLoaderRule},        // DataLoader share of step time above
    {"communication", 0.2, false, communicationRule},   // unoverlapped communication share of step time above
    {"low_utilization", 0.5, true, lowUtilizationRule}, // a GPU's kernel time share of the steps below
    {"amp", 0.1, true, tensorCoreRule},                 // GEMM/conv share above, tensor-core share below
    {"memory_capacity", 0.9, false, memoryCapacityRule}, // peak reserved share of device memory at least
    {"launch_bound", 0.2, false, launchBoundRule},       // GPU waiting for launches, share of step time above
    {"sync_bound", 0.2, false, syncBoundRule},           // host synchronisation share of step time above
    {"tiny_kernels", 0.5, false, tinyKernelsRule},       // share of kernels under 10 µs above
    {"copy_traffic", 0.15, false, copyTrafficRule},      // host copy/layout op share of step time above
    {"elementwise_fusion", 0.3, false, elementwiseRule}, // elementwise share of kernel time above
    {"unfused_attention", 0.1, false, unfusedAttentionRule}, // bmm→softmax→bmm share of kernel time above
    {"channels_last", 0.05, false, channelsLastRule},        // layout-conversion share of kernel time above
    {"graph_breaks", 1, false, graphBreaksRule},             // compiled frames run in one step above
    {"recompilation", 0, false, recompilationRule},          // a region's compile id above
    {"compile_in_trace", 0.05, false, compileInTraceRule},   // compile phases' share of step time above
    {"max_autotune", 0.3, false, maxAutotuneRule}, // Triton + compiled GEMM share of kernel time above
};

} // namespace

void addRecommendations(const TraceStore& store, Overview& ov, const SliceFacts& facts,
                        const StepSpan& span) {
    const CompiledModelFacts compiled = compiledModelFacts(store, span.set, span.rangeLo, span.rangeHi);
    ov.compiledModel = compiled.compiled;
    ov.cudaGraphs = compiled.cudaGraphs;
    const IntervalSet phases(compiled.compilePhases.begin(), compiled.compilePhases.end());
    IntervalSet compileInSteps = intersect(phases, span.set);
    const TimeNs compileTime = totalLength(compileInSteps);
    RuleContext context{store, ov, facts, span, compiled, std::move(compileInSteps), compileTime};
    ov.compilePhases = context.compileInSteps;
    const std::size_t count = std::size(rules);
    for (std::size_t i = 0; i < count;) {
        if (!rules[i].perDevice) {
            rules[i].check(context, rules[i], nullptr);
            ++i;
            continue;
        }
        std::size_t end = i;
        while (end < count && rules[end].perDevice)
            ++end;
        for (const GpuMetrics& g : ov.gpus)
            for (std::size_t k = i; k < end; ++k)
                rules[k].check(context, rules[k], &g);
        i = end;
    }
}

} // namespace kinetoscope::overview

namespace kinetoscope {

std::optional<Recommendation> criticalPathRecommendation(const StepCriticalPath& step) {
    constexpr double threshold = 1.0 / 3;
    const CriticalPath& path = step.path;
    if (path.length <= 0) return std::nullopt;
    const TimeNs communication = path.bound[std::size_t(BoundBy::GpuCommunication)];
    const double share = double(communication) / double(path.length);
    if (share <= threshold) return std::nullopt;
    Recommendation r;
    r.id = "communication_on_critical_path";
    r.title =
        "Collectives bound the step: its critical path waits on GPU communication; overlap it with compute "
        "(DDP bucket_cap_mb and gradient_as_bucket_view, FSDP forward/backward prefetch), send less "
        "(gradient compression, a smaller data-parallel group), and check the job view for a rank the "
        "others wait for";
    r.evidence = "GPU communication is " + overview::percent(share) + " of the critical path of " +
                 step.step + " (" + formatDuration(communication) + " of " + formatDuration(path.length) +
                 "; threshold " + overview::percent(threshold) + ")";
    r.figures = {{"communication_share_of_critical_path", share}, {"threshold", threshold}};
    // The longest communication kernel on the path is where to look.
    TimeNs longest = -1;
    for (const CriticalPathEdge& e : path.edges)
        if (e.bound == BoundBy::GpuCommunication && e.weight > longest) {
            longest = e.weight;
            r.example = e.attributed.isValid() ? e.attributed : e.to;
        }
    for (const PathEventRow& row : step.events)
        if (row.ref == r.example) {
            r.exampleName = row.name;
            r.exampleStart = row.start;
            r.exampleDuration = row.duration;
            r.exampleOnGpu = row.gpu;
            r.from = row.start;
            r.to = row.start + row.duration;
        }
    if (!r.example.isValid()) {
        r.from = step.stepStart;
        r.to = step.stepEnd;
    }
    return r;
}

void addQueueRecommendations(Overview& ov, const std::vector<StreamQueue>& queues) {
    // Thresholds: full a tenth of the time; empty three quarters of it with less than one launch waiting on
    // average (a host that keeps ahead of the GPU keeps some queued), over at least this many launches.
    constexpr double fullShare = 0.1, emptyShare = 0.75, emptyMeanLength = 1;
    constexpr std::uint64_t fewestLaunches = 100;
    const auto busiest = std::max_element(
        queues.begin(), queues.end(), [](const auto& a, const auto& b) { return a.launches < b.launches; });
    if (busiest == queues.end() || busiest->launches < fewestLaunches || busiest->span <= 0) return;
    const StreamQueue& q = *busiest;
    const double full = double(q.fullTime) / double(q.span);
    // The queue is empty while the host compiles (nothing is launched then): those phases are left out.
    const TimeNs compiling = lengthWithin(ov.compilePhases, q.first, q.first + q.span);
    const TimeNs outside = q.span - compiling;
    const double empty =
        outside > 0 ? double(std::max<TimeNs>(0, q.emptyTime - compiling)) / double(outside) : 0;
    const std::string where = "GPU " + std::to_string(q.device) + " stream " + std::to_string(q.stream);
    char mean[32];
    std::snprintf(mean, sizeof mean, "%.2f", q.meanLength);
    auto add = [&](const char* id, std::string title, std::string evidence,
                   std::vector<std::pair<std::string, double>> figures) {
        Recommendation& r = ov.recommendations.emplace_back();
        r.id = id;
        r.title = std::move(title);
        r.evidence = std::move(evidence);
        r.figures = std::move(figures);
        r.figures.emplace_back("launches", double(q.launches));
        r.figures.emplace_back("mean_length", q.meanLength);
        r.from = q.first; // where to look: the queue's whole span
        r.to = q.first + q.span;
    };
    if (full > fullShare) {
        add("queue_full",
            "The GPU is the bottleneck: launches wait for room in a full queue, so host-side work is hidden; "
            "speed up the kernels themselves",
            "The launch queue of " + where + " holds " + std::to_string(queueFullLength) +
                " or more launches for " + overview::percent(full) + " of its time (" +
                overview::thresholdText(fullShare) + ")",
            {{"queue_full_share", full}, {"threshold", fullShare}});
    } else if (empty > emptyShare && q.meanLength < emptyMeanLength) {
        add("queue_empty",
            !ov.compiledModel
                ? "The host launches each kernel just in time: the launch queue is mostly empty, so "
                  "the steps are CPU-bound; cut host overhead (CUDA graphs, torch.compile) before "
                  "tuning kernels"
            : !ov.cudaGraphs
                ? "The host launches each kernel just in time: the launch queue is mostly empty, so "
                  "the steps are CPU-bound; compile with mode=\"reduce-overhead\" (CUDA graphs) "
                  "before tuning kernels"
                : "The host launches each kernel just in time: the launch queue is mostly empty, so "
                  "the steps are CPU-bound; bring more of the step into the CUDA graphs before "
                  "tuning kernels",
            "The launch queue of " + where + " is empty " + overview::percent(empty) + " of its time over " +
                std::to_string(q.launches) + " launches, " + mean + " launches waiting on average (" +
                overview::thresholdText(emptyShare) + ")",
            {{"queue_empty_share", empty}, {"threshold", emptyShare}});
    }
}

} // namespace kinetoscope
