#include "analysis/compiled/compiledmodel.h"

#include "analysis/compiled/inductor.h"

#include "analysis/ops/hosttree.h"
#include "analysis/ops/kernelclass.h"

#include <algorithm>
#include <charconv>
#include <set>
#include <unordered_map>

namespace kinetoscope {

std::pair<int, int> compiledRegionId(std::string_view name) {
    constexpr std::string_view prefix = "Torch-Compiled Region: ";
    if (!name.starts_with(prefix)) return {-1, -1};
    std::string_view id = name.substr(prefix.size());
    // Compiled autograd's regions read "!N/F/C": the frame and compile ids are the last two.
    if (id.starts_with('!')) {
        const auto slash = id.find('/');
        if (slash == std::string_view::npos) return {-1, -1};
        id = id.substr(slash + 1);
    }
    int frame = -1, compile = -1;
    const char* end = id.data() + id.size();
    auto [p, ec] = std::from_chars(id.data(), end, frame);
    if (ec != std::errc() || p == end || *p != '/') return {-1, -1};
    auto [q, ec2] = std::from_chars(p + 1, end, compile);
    if (ec2 != std::errc()) return {-1, -1};
    return {frame, compile}; // an "_attempt" suffix after q says which try compiled it: the id stays
}

namespace {

namespace Name {
enum : std::uint8_t {
    Region = 1,       // Torch-Compiled Region: F/C
    FxGraphCall = 2,  // ## Call CompiledFxGraph <hash> ##
    AutogradCall = 4, // CompiledFunction, CompiledFunctionBackward
    DynamoTimed = 8,  // "<phase> (dynamo_timed)": a compile phase or CUDA graph recording
    GraphLaunch = 16, // a CUDA graph replay or Inductor's CUDA graph tree at work
    Bookkeeping = 32, // Dynamo's and AOTAutograd's own ranges around compiled code: not the model's operators
    TritonKernel = 64,   // triton_*
    TritonTemplate = 128 // triton_tem_*
};
}

std::uint8_t classify(std::string_view n) {
    std::uint8_t c = 0;
    if (n.starts_with("Torch-Compiled Region: ")) c |= Name::Region;
    if (graphCallRank(n) == 2) c |= Name::FxGraphCall;
    if (n == "CompiledFunction" || n == "CompiledFunctionBackward") c |= Name::AutogradCall;
    if (n.ends_with(" (dynamo_timed)")) c |= Name::DynamoTimed;
    if (n == "cudaGraphLaunch" || n == "cudaGraphLaunch_v10000" || n == "hipGraphLaunch" ||
        n == "cuGraphLaunch" || n.starts_with("CUDAGraphNode"))
        c |= Name::GraphLaunch;
    if (n.starts_with("TorchDynamo ") || n.starts_with("AOTDispatcher ") || n == "Pregraph bytecode" ||
        n.starts_with("## "))
        c |= Name::Bookkeeping;
    if (n.starts_with("triton_")) c |= Name::TritonKernel;
    if (n.starts_with("triton_tem_")) c |= Name::TritonTemplate;
    return c;
}

constexpr TimeNs tinyKernel = 10'000;

// Whether `t` lies in one of the sorted, disjoint `ranges`.
bool within(const std::vector<std::pair<TimeNs, TimeNs>>& ranges, TimeNs t) {
    auto it = std::upper_bound(ranges.begin(), ranges.end(), t,
                               [](TimeNs x, const std::pair<TimeNs, TimeNs>& r) { return x < r.first; });
    return it != ranges.begin() && t < std::prev(it)->second;
}

std::string regionLabel(const CompiledRegion& r) {
    return std::to_string(r.frame) + "/" + std::to_string(r.compile);
}

} // namespace

CompiledModelFacts compiledModelFacts(const TraceStore& store,
                                      const std::vector<std::pair<TimeNs, TimeNs>>& steps, TimeNs lo,
                                      TimeNs hi) {
    CompiledModelFacts f;
    std::vector<std::uint8_t> nameClass(store.strings().size());
    std::uint8_t seen = 0;
    for (std::uint32_t i = 0; i < nameClass.size(); ++i)
        seen |= nameClass[i] = classify(store.strings().view(StringId(i)));
    if (!(seen & (Name::Region | Name::FxGraphCall | Name::AutogradCall | Name::TritonKernel))) return f;
    // Compiled graph calls: Inductor's own ranges where the trace has them, else AOTAutograd's, else the
    // regions themselves.
    const std::uint8_t callClass = (seen & Name::FxGraphCall)    ? Name::FxGraphCall
                                   : (seen & Name::AutogradCall) ? Name::AutogradCall
                                                                 : Name::Region;
    const auto classOf = [&](const Track& t, std::uint32_t r) { return nameClass[t.names[r].value]; };

    // The host side: regions, graph calls (outermost, per thread), compile phases, CUDA graph replays.
    std::unordered_map<std::uint32_t, std::vector<std::pair<TimeNs, TimeNs>>> callsOnTrack;
    for (std::uint32_t ti = 0; ti < store.tracks().size(); ++ti) {
        const Track& t = store.tracks()[ti];
        if (t.kind != TrackKind::CpuThread) continue;
        for (std::uint32_t r = 0; r < t.sliceCount(); ++r) {
            if (t.starts[r] < lo || t.starts[r] > hi) continue;
            const std::uint8_t c = classOf(t, r);
            if (!c) continue;
            const EventRef ref{TrackId(ti), EventIndex(r)};
            if (c & Name::Region) {
                const auto [frame, compile] = compiledRegionId(store.strings().view(t.names[r]));
                f.regions.push_back({ref, frame, compile});
            }
            if (c & Name::GraphLaunch) f.cudaGraphs = true;
            const auto outermost = [&](std::uint8_t cls) {
                for (auto p = t.parentOf(r); p; p = t.parentOf(*p))
                    if (classOf(t, *p) & cls) return false;
                return true;
            };
            if ((c & callClass) && outermost(callClass)) {
                ++f.graphCalls;
                callsOnTrack[ti].emplace_back(t.starts[r], t.endOf(r));
            }
            if ((c & Name::DynamoTimed) && outermost(Name::DynamoTimed)) {
                f.compileTime += t.durations[r];
                store.keepLongest(f.longestCompile, ref);
                f.compilePhases.emplace_back(t.starts[r], t.endOf(r));
            }
        }
    }
    for (auto& [ti, calls] : callsOnTrack)
        std::sort(calls.begin(), calls.end());
    // Compile phases of several threads may overlap: merged, so their length is the time something compiled.
    std::sort(f.compilePhases.begin(), f.compilePhases.end());
    std::vector<std::pair<TimeNs, TimeNs>> merged;
    for (const auto& p : f.compilePhases) {
        if (!merged.empty() && p.first <= merged.back().second)
            merged.back().second = std::max(merged.back().second, p.second);
        else
            merged.push_back(p);
    }
    f.compilePhases = std::move(merged);
    const auto startOf = [&](EventRef e) { return store.track(e.track).starts[e.index.value]; };
    std::sort(f.regions.begin(), f.regions.end(), [&](const CompiledRegion& a, const CompiledRegion& b) {
        return startOf(a.event) < startOf(b.event);
    });
    const auto launchedInGraph = [&](EventRef gpuSlice) {
        const auto launch = store.launchOf(gpuSlice);
        if (!launch) return false;
        const auto it = callsOnTrack.find(launch->track.value);
        return it != callsOnTrack.end() && within(it->second, startOf(*launch));
    };

    // The GPU side: kernels by where they were launched.
    std::unordered_map<std::uint32_t, KernelTime> triton;
    // A kernel's category by its name, found once a name (it reads the name's text; kernels repeat by the
    // million).
    std::unordered_map<std::uint32_t, KernelCategory> categoryOfName;
    for (std::uint32_t ti = 0; ti < store.tracks().size(); ++ti) {
        const Track& t = store.tracks()[ti];
        if (t.kind != TrackKind::GpuStream) continue;
        for (std::uint32_t r = 0; r < t.sliceCount(); ++r) {
            if (t.starts[r] < lo || t.starts[r] > hi) continue;
            if (store.categories()[t.categories[r]].kind != CategoryKind::Kernel) continue;
            const EventRef ref{TrackId(ti), EventIndex(r)};
            const TimeNs d = t.durations[r];
            const std::uint8_t c = classOf(t, r);
            const bool inGraph = launchedInGraph(ref);
            ++f.kernels;
            f.kernelTime += d;
            if (inGraph) {
                ++f.kernelsInGraphs;
                f.kernelTimeInGraphs += d;
            }
            if (d < tinyKernel) {
                ++(inGraph ? f.tinyInGraphs : f.tinyOutside);
                EventRef& example = inGraph ? f.tinyInGraphsExample : f.tinyOutsideExample;
                if (!example.isValid()) example = ref;
            }
            if (c & Name::TritonKernel) {
                f.tritonTime += d;
                f.tritonTemplates = f.tritonTemplates || (c & Name::TritonTemplate);
                KernelTime& k = triton[t.names[r].value];
                k.name = t.names[r];
                ++k.calls;
                k.total += d;
                store.keepLongest(k.longest, ref);
                continue;
            }
            auto [known, isNew] = categoryOfName.try_emplace(t.names[r].value, KernelCategory::Other);
            if (isNew) known->second = kernelCategory(store.strings().view(t.names[r]));
            const KernelCategory category = known->second;
            if (inGraph && category == KernelCategory::Gemm) f.gemmInGraphsTime += d;
            if (!inGraph && category == KernelCategory::Elementwise) {
                f.elementwiseOutsideTime += d;
                store.keepLongest(f.elementwiseOutsideExample, ref);
                if (launchedByOptimizerStep(store, ref)) {
                    f.elementwiseOptimizerTime += d;
                    store.keepLongest(f.elementwiseOptimizerExample, ref);
                }
            }
        }
    }
    for (const auto& [id, k] : triton)
        f.topTriton.push_back(k);
    std::sort(f.topTriton.begin(), f.topTriton.end(), [&](const KernelTime& a, const KernelTime& b) {
        return a.total != b.total ? a.total > b.total : a.name.value < b.name.value;
    });
    if (f.topTriton.size() > 3) f.topTriton.resize(3);
    f.compiled = !f.regions.empty() || f.graphCalls > 0 || f.tritonTime > 0;

    // Recompilation.
    for (const CompiledRegion& r : f.regions) {
        if (r.frame < 0) continue;
        std::vector<int>& compiles = f.compilesOfFrame[r.frame];
        if (std::find(compiles.begin(), compiles.end(), r.compile) == compiles.end())
            compiles.push_back(r.compile);
        if (r.compile > 0 && !f.recompiledRegion.isValid()) f.recompiledRegion = r.event;
    }
    for (auto& [frame, compiles] : f.compilesOfFrame)
        std::sort(compiles.begin(), compiles.end());

    // Graph breaks: per step and thread, the regions and what runs eagerly between them.
    std::set<EventRef> countedEager;
    TimeNs longestEagerGpu = -1;
    for (const auto& [from, to] : steps) {
        const auto first =
            std::lower_bound(f.regions.begin(), f.regions.end(), from,
                             [&](const CompiledRegion& r, TimeNs t) { return startOf(r.event) < t; });
        std::set<std::pair<int, int>> frames;
        std::map<std::uint32_t, std::pair<TimeNs, TimeNs>> windowOnTrack;
        std::map<std::uint32_t, int> regionsOnTrack;
        bool regionInRegion = false, regionsApart = false;
        for (auto it = first; it != f.regions.end() && startOf(it->event) < to; ++it) {
            if (it->frame >= 0) frames.insert({it->frame, it->compile});
            if (it != first) {
                const Track& t = store.track(it->event.track);
                bool inRegion = false;
                for (auto p = t.parentOf(it->event.index.value); p && !inRegion; p = t.parentOf(*p))
                    inRegion = classOf(t, *p) & Name::Region;
                (inRegion ? regionInRegion : regionsApart) = true;
            }
            const TimeNs s = startOf(it->event), e = s + store.durationOf(it->event);
            auto [w, fresh] = windowOnTrack.try_emplace(it->event.track.value, s, e);
            if (!fresh) w->second = {std::min(w->second.first, s), std::max(w->second.second, e)};
            ++regionsOnTrack[it->event.track.value];
        }
        std::set<int> distinctFrames;
        for (const auto& [frame, compile] : frames)
            distinctFrames.insert(frame);
        if (distinctFrames.size() > f.mostFramesInAStep) {
            f.mostFramesInAStep = distinctFrames.size();
            f.framesOfThatStep.clear();
            for (const auto& [frame, compile] : frames)
                f.framesOfThatStep +=
                    (f.framesOfThatStep.empty() ? "" : ", ") + regionLabel({EventRef{}, frame, compile});
            f.stepFrom = from;
            f.stepTo = to;
            f.nestedRegions = regionInRegion;
            f.separateRegions = regionsApart;
        }
        for (const auto& [ti, window] : windowOnTrack) {
            if (regionsOnTrack[ti] < 2) continue;
            const Track& t = store.tracks()[ti];
            const auto callsIt = callsOnTrack.find(ti);
            for (std::uint32_t d = 0; d < t.laneCount(); ++d) {
                const auto [r0, r1] = t.rowsInRange(d, window.first, window.second);
                for (std::uint32_t r = r0; r < r1; ++r) {
                    if (t.starts[r] < window.first || t.starts[r] >= window.second) continue;
                    if (store.categories()[t.categories[r]].kind != CategoryKind::CpuOp || classOf(t, r))
                        continue;
                    if (callsIt != callsOnTrack.end() && within(callsIt->second, t.starts[r])) continue;
                    // The outermost operator: none of its callers is an operator, nor Dynamo's own code.
                    bool nested = false;
                    for (auto p = t.parentOf(r); p && !nested; p = t.parentOf(*p)) {
                        const bool op = store.categories()[t.categories[*p]].kind == CategoryKind::CpuOp;
                        nested = (op && !(classOf(t, *p) & Name::Region)) ||
                                 (classOf(t, *p) & (Name::Bookkeeping | Name::DynamoTimed));
                    }
                    const EventRef ref{TrackId(ti), EventIndex(r)};
                    if (nested || !countedEager.insert(ref).second) continue;
                    TimeNs gpu = 0;
                    for (const LaunchedWork& w : gpuWorkLaunchedWithin(store, ref))
                        gpu += w.total;
                    ++f.eagerOps;
                    f.eagerHostTime += t.durations[r];
                    f.eagerGpuTime += gpu;
                    if (gpu > longestEagerGpu ||
                        (gpu == longestEagerGpu && t.durations[r] > store.durationOf(f.longestEagerOp))) {
                        longestEagerGpu = gpu;
                        f.longestEagerOp = ref;
                    }
                }
            }
        }
    }
    return f;
}

} // namespace kinetoscope
