#include "overview.h"

#include "argscan.h"
#include "intervals.h"
#include "kernels.h"
#include "memory.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <map>

namespace kinetoscope {

namespace {
std::string percent(double f) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f%%", f * 100);
    return buf;
}

bool startsWith(std::string_view s, std::string_view p) {
    return s.substr(0, p.size()) == p;
}

bool isSyncName(std::string_view n) {
    return n == "cudaStreamSynchronize" || n == "cudaDeviceSynchronize" || n == "cudaEventSynchronize" ||
           n == "aten::item" || n == "aten::_local_scalar_dense" || n == "hipStreamSynchronize" ||
           n == "hipDeviceSynchronize" || n == "cuStreamSynchronize" || n == "cuCtxSynchronize";
}

bool isCopyTrafficName(std::string_view n) {
    return n == "aten::copy_" || n == "aten::repeat" || n == "aten::permute" || n == "aten::contiguous" ||
           n == "aten::clone" || n == "aten::to" || n == "aten::_to_copy" || n == "aten::repeat_interleave" ||
           n == "aten::transpose" || n == "aten::t";
}
} // namespace

bool isCommunicationName(std::string_view name) {
    std::string l(name.substr(0, 64));
    for (char& c : l)
        c = char(std::tolower(static_cast<unsigned char>(c)));
    return l.find("nccl") != std::string::npos || l.find("rccl") != std::string::npos ||
           startsWith(l, "gloo:") || startsWith(l, "c10d::") ||
           l.find("record_param_comms") != std::string::npos;
}

std::string_view breakdownCategoryName(BreakdownCategory c) {
    static constexpr std::string_view names[] = {"kernel",  "memcpy",     "memset",   "communication",
                                                 "runtime", "dataloader", "cpu_exec", "other"};
    return names[std::size_t(c)];
}

RunFacts runFacts(const TraceStore& store) {
    RunFacts f;
    f.devices = store.metadata.devices;
    auto add = [&](const char* label, const std::string* value) {
        if (!value) return;
        std::string v = *value;
        if (v.size() >= 2 && v.front() == '"' && v.back() == '"') v = v.substr(1, v.size() - 2);
        f.facts.emplace_back(label, v);
    };
    add("PyTorch", store.metadata.find("pytorch_version"));
    add("CUDA runtime", store.metadata.find("cuda_runtime_version"));
    add("CUDA driver", store.metadata.find("cuda_driver_version"));
    add("CUPTI", store.metadata.find("cupti_version"));
    add("HIP runtime", store.metadata.find("hip_runtime_version"));
    add("Schema version", store.metadata.find("schemaVersion"));
    add("Trace name", store.metadata.find("traceName"));
    add("Record shapes", store.metadata.find("record_shapes"));
    add("Profile memory", store.metadata.find("profile_memory"));
    add("With stack", store.metadata.find("with_stack"));
    add("With FLOPs", store.metadata.find("with_flops"));
    add("With modules", store.metadata.find("with_modules"));
    add("Display time unit", store.metadata.find("displayTimeUnit"));
    if (store.metadata.rank) f.facts.emplace_back("Rank", std::to_string(*store.metadata.rank));
    if (store.metadata.worldSize)
        f.facts.emplace_back("World size", std::to_string(*store.metadata.worldSize));
    if (!store.metadata.distributedBackend.empty())
        f.facts.emplace_back("Backend", store.metadata.distributedBackend);
    return f;
}

namespace {
// What a name means to the breakdown and the rules, decided once per distinct string rather than per slice.
namespace NameClass {
enum : std::uint8_t { Communication = 1, Sync = 2, Copy = 4, DataLoader = 8, Step = 16, TensorCore = 32 };
}
std::vector<std::uint8_t> classifyNames(const TraceStore& store) {
    std::vector<std::uint8_t> c(store.strings.size(), 0);
    for (std::uint32_t i = 0; i < c.size(); ++i) {
        const std::string_view n = store.strings.view(StringId(i));
        std::uint8_t f = 0;
        if (isCommunicationName(n)) f |= NameClass::Communication;
        if (isSyncName(n)) f |= NameClass::Sync;
        if (isCopyTrafficName(n)) f |= NameClass::Copy;
        if (startsWith(n, "enumerate(DataLoader)")) f |= NameClass::DataLoader;
        if (startsWith(n, "ProfilerStep#")) f |= NameClass::Step;
        c[i] = f;
    }
    return c;
}
} // namespace

Overview computeOverview(const TraceStore& store, TimeNs from, TimeNs to) {
    Overview ov;
    const std::vector<std::uint8_t> nameClass = classifyNames(store);
    std::vector<std::int8_t> tensorCoreName(store.strings.size(), -1); // kernels only, filled lazily
    std::vector<std::int8_t> kernelCategoryOf(store.strings.size(), -1);
    std::array<TimeNs, kernelCategoryCount> categoryTime{};
    std::array<EventRef, kernelCategoryCount> categoryExample{};
    TimeNs totalKernelTime = 0;
    const TimeNs lo = std::max(from, store.minTime);
    const TimeNs hi = std::min(to, store.maxTime);
    for (const StepRange& s : findSteps(store)) {
        if (s.end > lo && s.start < hi) ov.steps.push_back(s);
    }
    if (ov.steps.empty()) {
        ov.steps.push_back(activityStep(store, lo, hi));
        ov.syntheticStep = true;
    }
    IntervalSet stepSet;
    TimeNs stepSpan = 0;
    std::vector<TimeNs> durations;
    for (const StepRange& s : ov.steps) {
        stepSet.emplace_back(s.start, s.end);
        stepSpan += s.end - s.start;
        durations.push_back(s.end - s.start);
    }
    std::sort(durations.begin(), durations.end());
    ov.stepMin = durations.front();
    ov.stepMax = durations.back();
    ov.stepMedian = durations.size() % 2
                        ? durations[durations.size() / 2]
                        : (durations[durations.size() / 2 - 1] + durations[durations.size() / 2]) / 2;
    ov.stepMean = stepSpan / TimeNs(durations.size());
    ov.stepsPerSecond = ov.stepMean > 0 ? 1e9 / double(ov.stepMean) : 0;
    // GPU metrics are measured over the whole run of steps, gaps between steps included (they are idle time),
    // as the TensorBoard plugin measures them.
    const TimeNs spanLo = ov.steps.front().start, spanHi = ov.steps.back().end;
    const TimeNs metricSpan = spanHi - spanLo;

    // Intervals of each breakdown category, as runs sorted by start (one per lane and category).
    std::array<std::vector<IntervalSet>, breakdownCategoryCount> runs;
    std::map<std::int64_t, std::vector<IntervalSet>> kernelRuns, gpuWorkRuns;
    struct KernelInfo {
        TimeNs start, end;
        double blocks;
        std::int64_t device;
    };
    std::vector<KernelInfo> kernelsInSteps;
    std::map<std::int64_t, std::pair<double, TimeNs>> occupancy; // device -> (Σ occ × dur, Σ dur with occ)
    std::map<std::int64_t, std::pair<TimeNs, TimeNs>> tensorTime; // device -> (tensor-core time, kernel time)
    std::map<std::int64_t, bool> smData;
    std::uint64_t kernelCount = 0, tinyKernels = 0;
    EventRef tinyExample, longestDataLoader, longestComm, longestSync, longestCopy;
    TimeNs syncTime = 0, copyTime = 0;
    for (std::uint32_t ti = 0; ti < store.tracks.size(); ++ti) {
        const Track& t = store.tracks[ti];
        if (t.kind != TrackKind::CpuThread && t.kind != TrackKind::GpuStream) continue;
        const bool gpu = t.kind == TrackKind::GpuStream;
        for (std::uint32_t d = 0; d < t.laneCount(); ++d) {
            std::array<IntervalSet, breakdownCategoryCount> lane;
            IntervalSet laneKernels, laneGpuWork;
            const auto [r0, r1] = t.rowsInRange(d, spanLo, spanHi);
            for (std::uint32_t r = r0; r < r1; ++r) {
                if (t.flags[r] & SliceFlag::Instant) continue;
                const TimeNs s = std::max(t.starts[r], spanLo), e = std::min(t.endOf(r), spanHi);
                if (e <= s) continue;
                const CategoryKind kind = store.categories[t.categories[r]].kind;
                const std::uint8_t cls = nameClass[t.names[r].value];
                const EventRef ref{TrackId(ti), r};
                int cat = -1;
                if (gpu) {
                    if (kind == CategoryKind::Kernel) {
                        std::int8_t& kc = kernelCategoryOf[t.names[r].value];
                        if (kc < 0) kc = std::int8_t(kernelCategory(store.strings.view(t.names[r])));
                        // Collectives by what the kernel is (NCCL/RCCL, DeepEP dispatch/combine, custom
                        // all-reduce).
                        const bool comm = KernelCategory(kc) == KernelCategory::Communication;
                        cat = int(comm ? BreakdownCategory::Communication : BreakdownCategory::Kernel);
                        if (comm) store.keepLongest(longestComm, ref);
                        laneKernels.emplace_back(s, e);
                        const std::string_view args = store.argsText(ref);
                        const auto blocks = blocksPerSm(store, ref);
                        if (blocks) smData[t.pid] = true;
                        kernelsInSteps.push_back({s, e, blocks.value_or(0), t.pid});
                        if (const auto occ = argNumber(args, "est. achieved occupancy %")) {
                            occupancy[t.pid].first += *occ * double(e - s);
                            occupancy[t.pid].second += e - s;
                        }
                        auto& tt = tensorTime[t.pid];
                        tt.second += e - s;
                        categoryTime[std::size_t(kc)] += t.durations[r];
                        totalKernelTime += t.durations[r];
                        EventRef& longest = categoryExample[std::size_t(kc)];
                        store.keepLongest(longest, ref);
                        std::int8_t& tc = tensorCoreName[t.names[r].value];
                        if (tc < 0) tc = usesTensorCores(store.strings.view(t.names[r])) ? 1 : 0;
                        if (tc) tt.first += e - s;
                        ++kernelCount;
                        if (t.durations[r] < 10'000) {
                            ++tinyKernels;
                            if (!tinyExample.isValid()) tinyExample = ref;
                        }
                    } else if (kind == CategoryKind::Memcpy)
                        cat = int(BreakdownCategory::Memcpy);
                    else if (kind == CategoryKind::Memset)
                        cat = int(BreakdownCategory::Memset);
                    if (cat >= 0) laneGpuWork.emplace_back(s, e);
                } else {
                    if (isLaunchCategory(kind) || kind == CategoryKind::Sync) {
                        cat = int(BreakdownCategory::Runtime);
                        if (cls & NameClass::Sync) {
                            syncTime += e - s;
                            store.keepLongest(longestSync, ref);
                        }
                    } else if (cls & NameClass::DataLoader) {
                        cat = int(BreakdownCategory::DataLoader);
                        store.keepLongest(longestDataLoader, ref);
                    } else if (kind == CategoryKind::Collective ||
                               ((kind == CategoryKind::CpuOp || kind == CategoryKind::UserAnnotation) &&
                                (cls & NameClass::Communication))) {
                        // On a CPU-only rank the collectives are the gloo:* / nccl:* annotation ranges.
                        cat = int(BreakdownCategory::Communication);
                    } else if ((kind == CategoryKind::CpuOp || kind == CategoryKind::UserAnnotation) &&
                               !(cls & NameClass::Step)) {
                        cat = int(BreakdownCategory::CpuExec);
                    }
                    if (kind == CategoryKind::CpuOp && (cls & NameClass::Sync)) {
                        syncTime += e - s;
                        store.keepLongest(longestSync, ref);
                    }
                    if (kind == CategoryKind::CpuOp && (cls & NameClass::Copy)) {
                        // Count only the outermost of nested copy ops (aten::to calls aten::copy_).
                        bool nested = false;
                        // aten::to → aten::_to_copy → aten::copy_: the copy ops that wrap each other sit
                        // within a few levels.
                        int levels = 0;
                        for (auto p = t.parentOf(r); p && !nested && levels < 4; p = t.parentOf(*p), ++levels)
                            nested = nameClass[t.names[*p].value] & NameClass::Copy;
                        if (!nested) {
                            copyTime += e - s;
                            store.keepLongest(longestCopy, ref);
                        }
                    }
                }
                if (cat >= 0) lane[std::size_t(cat)].emplace_back(s, e);
            }
            for (std::size_t c = 0; c < breakdownCategoryCount; ++c) {
                if (!lane[c].empty()) runs[c].push_back(std::move(lane[c]));
            }
            if (!laneKernels.empty()) kernelRuns[t.pid].push_back(std::move(laneKernels));
            // A device whose kernels all ran outside the steps still gets its (zero) utilisation.
            if (gpu && !kernelRuns.count(t.pid)) {
                const auto [a0, a1] = t.rowsInRange(d, lo, hi);
                for (std::uint32_t r = a0; r < a1; ++r) {
                    if (store.categories[t.categories[r]].kind == CategoryKind::Kernel) {
                        kernelRuns[t.pid];
                        break;
                    }
                }
            }
            if (!laneGpuWork.empty()) gpuWorkRuns[t.pid].push_back(std::move(laneGpuWork));
        }
    }

    // Priority subtraction, then per-step sums.
    std::array<IntervalSet, breakdownCategoryCount> exclusive;
    IntervalSet claimed;
    for (std::size_t c = 0; c + 1 < breakdownCategoryCount; ++c) {
        IntervalSet u = intersect(unionOfRuns(runs[c]), stepSet);
        exclusive[c] = subtract(u, claimed);
        claimed = unionOf(std::move(claimed), u);
    }
    for (const StepRange& s : ov.steps) {
        StepBreakdown b;
        b.step = s;
        TimeNs used = 0;
        for (std::size_t c = 0; c + 1 < breakdownCategoryCount; ++c) {
            b.time[c] = lengthWithin(exclusive[c], s.start, s.end);
            used += b.time[c];
        }
        b.time[std::size_t(BreakdownCategory::Other)] = std::max<TimeNs>(0, (s.end - s.start) - used);
        for (std::size_t c = 0; c < breakdownCategoryCount; ++c)
            ov.breakdownTotal[c] += b.time[c];
        ov.breakdown.push_back(b);
    }

    // GPU metrics per device.
    std::sort(kernelsInSteps.begin(), kernelsInSteps.end(),
              [](const KernelInfo& a, const KernelInfo& b) { return a.start < b.start; });
    const TimeNs wall = std::max<TimeNs>(1, hi - lo);
    for (auto& [device, laneRuns] : kernelRuns) {
        GpuMetrics g;
        g.device = device;
        g.kernelTime = totalLength(unionOfRuns(laneRuns));
        g.utilization = metricSpan ? double(g.kernelTime) / double(metricSpan) : 0;
        g.busyOfWall = double(totalLength(unionOfRuns(gpuWorkRuns[device]))) / double(wall);
        // SM efficiency: sweep kernel starts and ends, integrating min(Σ blocks per SM, 1).
        std::vector<std::pair<TimeNs, double>> edges;
        for (const KernelInfo& k : kernelsInSteps) {
            if (k.device != device) continue;
            edges.emplace_back(k.start, k.blocks);
            edges.emplace_back(k.end, -k.blocks);
        }
        std::sort(edges.begin(), edges.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
        double level = 0, integral = 0;
        for (std::size_t i = 0; i + 1 < edges.size(); ++i) {
            level += edges[i].second;
            integral += std::min(std::max(level, 0.0), 1.0) * double(edges[i + 1].first - edges[i].first);
        }
        g.hasSmData = smData[device];
        g.smEfficiency = metricSpan && g.hasSmData ? integral / double(metricSpan) : 0;
        const auto occ = occupancy[device];
        g.hasOccupancyData = occ.second > 0;
        g.achievedOccupancy = occ.second ? occ.first / double(occ.second) : 0;
        const auto tt = tensorTime[device];
        g.tensorCoreShare = tt.second ? double(tt.first) / double(tt.second) : 0;
        ov.gpus.push_back(g);
    }

    // Recommendations.
    // Each recommendation carries the figures that fired it (with its threshold) and where to look: its
    // example event's extent, or the range it names.
    auto add = [&](std::string id, std::string title, std::string evidence,
                   std::vector<std::pair<std::string, double>> figures, EventRef example = {}, TimeNs a = 0,
                   TimeNs b = 0) {
        if (example.isValid() && a == b) {
            a = store.tracks[example.track.value].starts[example.index];
            b = store.tracks[example.track.value].endOf(example.index);
        }
        Recommendation& r = ov.recommendations.emplace_back();
        r.id = std::move(id);
        r.title = std::move(title);
        r.evidence = std::move(evidence);
        r.example = example;
        r.from = a;
        r.to = b;
        r.figures = std::move(figures);
        if (example.isValid()) {
            r.exampleName = std::string(store.nameOf(example));
            r.exampleStart = store.tracks[example.track.value].starts[example.index];
            r.exampleDuration = store.durationOf(example);
        }
    };
    const double dataLoaderShare =
        stepSpan ? double(ov.breakdownTotal[std::size_t(BreakdownCategory::DataLoader)]) / double(stepSpan)
                 : 0;
    if (dataLoaderShare > 0.05) {
        add("dataloader",
            "Data loading stalls the steps: use DataLoader(num_workers > 0, pin_memory=True) or prefetch",
            "DataLoader takes " + percent(dataLoaderShare) + " of step time (threshold 5%)",
            {{"dataloader_share", dataLoaderShare}, {"threshold", 0.05}}, longestDataLoader);
    }
    const double commShare =
        stepSpan ? double(ov.breakdownTotal[std::size_t(BreakdownCategory::Communication)]) / double(stepSpan)
                 : 0;
    if (commShare > 0.2) {
        add("communication",
            "Communication dominates: overlap it with compute (DDP bucket size, FSDP prefetch) or compress "
            "gradients",
            "Communication not overlapped by kernels takes " + percent(commShare) +
                " of step time (threshold 20%)",
            {{"communication_share", commShare}, {"threshold", 0.2}}, longestComm);
    }
    for (const GpuMetrics& g : ov.gpus) {
        const std::string dev = "GPU " + std::to_string(g.device);
        if (g.kernelTime > 0 && g.utilization < 0.5) {
            add("low_utilization",
                dev + " is idle most of the time: look at the gaps between kernels (larger batches, fewer "
                      "host syncs)",
                dev + " runs kernels " + percent(g.utilization) + " of the step time (threshold 50%)",
                {{"device", double(g.device)}, {"gpu_utilization", g.utilization}, {"threshold", 0.5}}, {},
                spanLo, spanHi);
        }
        const DeviceProperties* props = nullptr;
        for (const DeviceProperties& d : store.metadata.devices) {
            if (d.id == g.device) props = &d;
        }
        if (props && props->computeMajor >= 7) {
            const TimeNs gemm = categoryTime[std::size_t(KernelCategory::Gemm)],
                         conv = categoryTime[std::size_t(KernelCategory::Conv)];
            const TimeNs matmul = gemm + conv;
            if (totalKernelTime > 0 && double(matmul) / double(totalKernelTime) > 0.1 &&
                g.tensorCoreShare < 0.1) {
                const EventRef example =
                    categoryExample[std::size_t(gemm >= conv ? KernelCategory::Gemm : KernelCategory::Conv)];
                // TF32 exists from Ampere (compute capability 8) on.
                add("amp",
                    dev + " (" + props->name +
                        ") has tensor cores, but its GEMMs and convolutions do not use them: enable " +
                        (props->computeMajor >= 8 ? "mixed precision (torch.autocast) or TF32 "
                                                    "(torch.backends.cuda.matmul.allow_tf32)"
                                                  : "mixed precision (torch.autocast)"),
                    "GEMM/conv kernels take " + percent(double(matmul) / double(totalKernelTime)) +
                        " of kernel time; tensor-core kernels " + percent(g.tensorCoreShare) +
                        " (threshold 10%)",
                    {{"device", double(g.device)},
                     {"gemm_conv_share_of_kernel_time", double(matmul) / double(totalKernelTime)},
                     {"tensor_core_share", g.tensorCoreShare},
                     {"threshold", 0.1}},
                    example);
            }
        }
    }
    if (auto peaks = memoryPeaks(store); !peaks.empty()) {
        for (const auto& [device, peak] : peaks) {
            for (const DeviceProperties& d : store.metadata.devices) {
                if (d.id != device || d.totalGlobalMem <= 0) continue;
                const double share = peak.reserved / double(d.totalGlobalMem);
                if (share >= 0.9) {
                    add("memory_capacity",
                        "GPU " + std::to_string(device) +
                            " memory is nearly full: reduce the batch, use activation checkpointing, or free "
                            "cached tensors",
                        "peak reserved " + percent(share) + " of " + std::to_string(d.totalGlobalMem >> 20) +
                            " MiB (threshold 90%)",
                        {{"device", double(device)},
                         {"peak_reserved_bytes", peak.reserved},
                         {"memory_bytes", double(d.totalGlobalMem)},
                         {"peak_reserved_share", share},
                         {"threshold", 0.9}},
                        peak.at);
                }
            }
        }
    }
    // Launch-bound: times when a device has no GPU work at all, ended by work whose launch call began only
    // after the device went idle (the GPU was waiting for the CPU to issue it), and which the host did not
    // spend loading data or synchronising (those have rules of their own).
    {
        const IntervalSet hostBusyElsewhere =
            unionOf(unionOfRuns(runs[std::size_t(BreakdownCategory::DataLoader)]), [&] {
                IntervalSet sync;
                for (std::uint32_t ti = 0; ti < store.tracks.size(); ++ti) {
                    const Track& t = store.tracks[ti];
                    if (t.kind != TrackKind::CpuThread) continue;
                    for (std::uint32_t r = 0; r < t.sliceCount(); ++r) {
                        if ((nameClass[t.names[r].value] & NameClass::Sync) && t.endOf(r) > spanLo &&
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
        for (std::uint32_t ti = 0; ti < store.tracks.size(); ++ti) {
            const Track& t = store.tracks[ti];
            if (t.kind != TrackKind::GpuStream) continue;
            for (std::uint32_t d = 0; d < t.laneCount(); ++d) {
                const auto [r0, r1] = t.rowsInRange(d, spanLo, spanHi);
                for (std::uint32_t r = r0; r < r1; ++r) {
                    if (!isGpuCategory(store.categories[t.categories[r]].kind) ||
                        (t.flags[r] & SliceFlag::Instant))
                        continue;
                    if (store.categories[t.categories[r]].kind == CategoryKind::GpuUserAnnotation) continue;
                    work[t.pid].push_back({t.starts[r], t.endOf(r), {TrackId(ti), r}});
                }
            }
        }
        TimeNs waiting = 0;
        std::pair<TimeNs, TimeNs> worst{0, 0};
        for (auto& [device, list] : work) {
            std::sort(list.begin(), list.end(),
                      [](const Work& x, const Work& y) { return x.start < y.start; });
            TimeNs busyUntil = list.empty() ? 0 : list.front().end;
            for (std::size_t i = 1; i < list.size(); ++i) {
                const Work& w = list[i];
                if (w.start > busyUntil) {
                    const TimeNs gapStart = busyUntil, gapEnd = w.start;
                    const auto launch = store.launchOf(w.ref);
                    const bool insideStep = lengthWithin(stepSet, gapStart, gapEnd) == gapEnd - gapStart;
                    if (launch && insideStep &&
                        store.tracks[launch->track.value].starts[launch->index] > gapStart &&
                        2 * lengthWithin(hostBusyElsewhere, gapStart, gapEnd) < gapEnd - gapStart) {
                        waiting += gapEnd - gapStart;
                        if (gapEnd - gapStart > worst.second - worst.first) worst = {gapStart, gapEnd};
                    }
                }
                busyUntil = std::max(busyUntil, w.end);
            }
        }
        const double share = stepSpan ? double(waiting) / double(stepSpan) : 0;
        if (share > 0.2) {
            add("launch_bound",
                "The GPU waits for the CPU to launch work: capture the steps with CUDA graphs or use "
                "torch.compile(mode=\"reduce-overhead\")",
                "GPUs sit idle until the host issues the next launch " + percent(share) +
                    " of the step time (threshold 20%)",
                {{"launch_wait_share", share},
                 {"launch_wait_us", double(waiting) / 1000.0},
                 {"threshold", 0.2}},
                {}, worst.first, worst.second);
        }
    }
    const double syncShare = stepSpan ? double(syncTime) / double(stepSpan) : 0;
    if (syncShare > 0.2) {
        add("sync_bound",
            "Host time is dominated by synchronisation: avoid .item(), .cpu() and explicit synchronize calls "
            "inside the step",
            "cudaStreamSynchronize/cudaDeviceSynchronize/aten::item take " + percent(syncShare) +
                " of the step time (threshold 20%)",
            {{"sync_share", syncShare}, {"threshold", 0.2}}, longestSync);
    }
    if (kernelCount >= 1000 && double(tinyKernels) / double(kernelCount) > 0.5) {
        add("tiny_kernels",
            "Many tiny kernels: launch overhead dominates; fuse them with torch.compile or CUDA graphs",
            std::to_string(tinyKernels) + " of " + std::to_string(kernelCount) +
                " kernels run under 10 us (threshold: half of at least 1000)",
            {{"tiny_kernels", double(tinyKernels)}, {"kernels", double(kernelCount)}, {"threshold", 0.5}},
            tinyExample);
    }
    const double copyShare = stepSpan ? double(copyTime) / double(stepSpan) : 0;
    if (copyShare > 0.15) {
        add("copy_traffic",
            "Heavy copy and layout traffic (aten::copy_/to/repeat/permute/contiguous): keep tensors on the "
            "device and in the layout the next op wants",
            "these ops take " + percent(copyShare) + " of the step time on the host (threshold 15%)",
            {{"copy_share", copyShare}, {"threshold", 0.15}}, longestCopy);
    }
    if (totalKernelTime > 0) {
        const TimeNs elementwise = categoryTime[std::size_t(KernelCategory::Elementwise)];
        const double share = double(elementwise) / double(totalKernelTime);
        if (share > 0.3) {
            add("elementwise_fusion",
                "Elementwise kernels dominate GPU time: they are fusion candidates for torch.compile",
                "PyTorch elementwise kernels take " + percent(share) + " of kernel time (threshold 30%)",
                {{"elementwise_share_of_kernel_time", share}, {"threshold", 0.3}},
                categoryExample[std::size_t(KernelCategory::Elementwise)]);
        }
    }
    return ov;
}

} // namespace kinetoscope
