// The overview's one pass over the slices of the steps: what the breakdown, the GPU metrics and the rules
// need.
#include "analysis/overview/overviewfacts.h"

#include "analysis/ops/hosttree.h"
#include "analysis/ops/kernels.h"
#include "analysis/ops/tensorcores.h"
#include "model/argscan.h"

#include <algorithm>
#include <optional>
#include <tuple>

namespace kinetoscope::overview {

namespace {
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

std::vector<std::uint8_t> classifyNames(const TraceStore& store) {
    std::vector<std::uint8_t> c(store.strings().size(), 0);
    for (std::uint32_t i = 0; i < c.size(); ++i) {
        const std::string_view n = store.strings().view(StringId(i));
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

SliceFacts gatherSliceFacts(const TraceStore& store, const StepSpan& span) {
    SliceFacts f;
    f.nameClass = classifyNames(store);
    const std::vector<std::uint8_t>& nameClass = f.nameClass;
    auto [runs, kernelRuns, gpuWorkRuns, kernelsInSteps, occupancy, tensorTime, smData] =
        std::tie(f.runs, f.kernelRuns, f.gpuWorkRuns, f.kernelsInSteps, f.occupancy, f.tensorTime, f.smData);
    auto [categoryTime, categoryExample, totalKernelTime, kernelCount, tinyKernels] =
        std::tie(f.categoryTime, f.categoryExample, f.totalKernelTime, f.kernelCount, f.tinyKernels);
    auto [tinyExample, longestDataLoader, longestComm, longestSync, longestCopy, syncTime, copyTime] =
        std::tie(f.tinyExample, f.longestDataLoader, f.longestComm, f.longestSync, f.longestCopy, f.syncTime,
                 f.copyTime);
    std::vector<std::int8_t> tensorCoreName(store.strings().size(), -1); // kernels only, filled lazily
    std::vector<std::int8_t> kernelCategoryOf(store.strings().size(), -1);
    const TimeNs spanLo = span.lo, spanHi = span.hi, lo = span.rangeLo, hi = span.rangeHi;
    for (std::uint32_t ti = 0; ti < store.tracks().size(); ++ti) {
        const Track& t = store.tracks()[ti];
        if (t.kind != TrackKind::CpuThread && t.kind != TrackKind::GpuStream) continue;
        const bool gpu = t.kind == TrackKind::GpuStream;
        for (std::uint32_t d = 0; d < t.laneCount(); ++d) {
            std::array<IntervalSet, breakdownCategoryCount> lane;
            IntervalSet laneKernels, laneGpuWork, laneGpuCommunication;
            const auto [r0, r1] = t.rowsInRange(d, spanLo, spanHi);
            for (std::uint32_t r = r0; r < r1; ++r) {
                if (t.flags[r] & SliceFlag::Instant) continue;
                const TimeNs s = std::max(t.starts[r], spanLo), e = std::min(t.endOf(r), spanHi);
                if (e <= s) continue;
                const CategoryKind kind = store.categories()[t.categories[r]].kind;
                const std::uint8_t cls = nameClass[t.names[r].value];
                const EventRef ref{TrackId(ti), EventIndex(r)};
                int cat = -1;
                if (gpu) {
                    if (kind == CategoryKind::Kernel) {
                        std::int8_t& kc = kernelCategoryOf[t.names[r].value];
                        if (kc < 0) kc = std::int8_t(kernelCategory(store.strings().view(t.names[r])));
                        // Collectives by what the kernel is (NCCL/RCCL, DeepEP dispatch/combine, custom
                        // all-reduce).
                        const bool comm = KernelCategory(kc) == KernelCategory::Communication;
                        cat = int(comm ? BreakdownCategory::Communication : BreakdownCategory::Kernel);
                        if (comm) {
                            store.keepLongest(longestComm, ref);
                            laneGpuCommunication.emplace_back(s, e);
                        }
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
                        if (kc == std::int8_t(KernelCategory::Elementwise) &&
                            launchedByOptimizerStep(store, ref)) {
                            f.elementwiseOptimizerTime += t.durations[r];
                            store.keepLongest(f.elementwiseOptimizerExample, ref);
                        }
                        std::int8_t& tc = tensorCoreName[t.names[r].value];
                        if (tc < 0) tc = kernelUsesTensorCores(store, ref) ? 1 : 0;
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
                    // A wait counts once, at its outermost sync (aten::item holds _local_scalar_dense and a
                    // cudaStreamSynchronize), and is the sync's, also inside a copy op (a blocking .to() of a
                    // result): copyTime leaves it out.
                    const bool isSync =
                        (cls & NameClass::Sync) &&
                        (isLaunchCategory(kind) || kind == CategoryKind::Sync || kind == CategoryKind::CpuOp);
                    if (isSync) {
                        bool nestedSync = false;
                        std::optional<std::uint32_t> copyAround;
                        int levels = 0;
                        for (auto p = t.parentOf(r); p && levels < 6; p = t.parentOf(*p), ++levels) {
                            const std::uint8_t pc = nameClass[t.names[*p].value];
                            if (pc & NameClass::Sync) nestedSync = true;
                            if (pc & NameClass::Copy) copyAround = *p; // the outermost: what the user called
                        }
                        if (!nestedSync) {
                            syncTime += e - s;
                            store.keepLongest(longestSync, ref);
                            if (copyAround) {
                                f.syncInCopyTime += e - s;
                                store.keepLongest(f.longestSyncInCopy,
                                                  {TrackId(ti), EventIndex(*copyAround)});
                            }
                        }
                    }
                    if (isLaunchCategory(kind) || kind == CategoryKind::Sync) {
                        cat = int(BreakdownCategory::Runtime);
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
            if (!laneGpuCommunication.empty())
                f.gpuCommunicationRuns.push_back(std::move(laneGpuCommunication));
            // A device whose kernels all ran outside the steps still gets its (zero) utilisation.
            if (gpu && !kernelRuns.count(t.pid)) {
                const auto [a0, a1] = t.rowsInRange(d, lo, hi);
                for (std::uint32_t r = a0; r < a1; ++r) {
                    if (store.categories()[t.categories[r]].kind == CategoryKind::Kernel) {
                        kernelRuns[t.pid];
                        break;
                    }
                }
            }
            if (!laneGpuWork.empty()) gpuWorkRuns[t.pid].push_back(std::move(laneGpuWork));
        }
    }

    return f;
}

} // namespace kinetoscope::overview
