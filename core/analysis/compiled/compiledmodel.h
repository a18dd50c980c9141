#pragma once

// What a trace says about a compiled model (torch.compile), for the advice that speaks to one
// (docs/DEFINITIONS.md, "Advice for compiled models"): where its compiled code runs, what runs eagerly
// between its compiled regions, whether a function was compiled again or compiled inside the trace, whether
// it replays CUDA graphs, and where its GPU time goes, launched from compiled graphs or from eager code.

#include "model/tracestore.h"

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace kinetoscope {

// A `Torch-Compiled Region: F/C` range: Dynamo's compiled code of frame F, in its C-th compilation (C above
// 0: the frame was compiled again after a guard failed). -1 where the name carries no id.
struct CompiledRegion {
    EventRef event;
    int frame = -1;
    int compile = -1;
};
// "F/C" of a region's name (the compiled-autograd prefix `!N/` and an `_attempt` suffix dropped); {-1, -1}
// when the name is not a region's.
std::pair<int, int> compiledRegionId(std::string_view name);

struct KernelTime {
    StringId name;
    std::uint64_t calls = 0;
    TimeNs total = 0;
    EventRef longest;
};

struct CompiledModelFacts {
    bool compiled = false; // a compiled region, compiled graph call or Triton kernel in the span
    std::vector<CompiledRegion> regions; // in the span, in time order
    std::uint64_t graphCalls = 0; // `## Call CompiledFxGraph` ranges, else CompiledFunction(Backward) ranges

    // Graph breaks: the step running the most distinct compiled frames, and the eager operators that run
    // between the compiled regions of a step (outermost operators outside every compiled graph call, from
    // the first region's start to the last one's end), with their host time and the GPU work they launched.
    std::size_t mostFramesInAStep = 0;
    std::string framesOfThatStep; // "0/0, 1/0, 2/0"
    TimeNs stepFrom = 0, stepTo = 0;
    // How that step's regions lie: a region inside another's is a resume function's after a graph break
    // (Dynamo runs it from the compiled code of its caller); regions side by side are functions compiled
    // apart (a warm-up function, then the model), which no graph break split.
    bool nestedRegions = false, separateRegions = false;
    // Operators between the regions, outside compile phases: work inside `... (dynamo_timed)` is compiling.
    std::uint64_t eagerOps = 0;
    TimeNs eagerHostTime = 0, eagerGpuTime = 0;
    EventRef longestEagerOp; // by the GPU work it launched, then by its own duration

    // Recompilation: each frame's compile ids seen; the first region of a compile id above 0.
    std::map<int, std::vector<int>> compilesOfFrame;
    EventRef recompiledRegion;
    // Compilation inside the trace: the outermost `... (dynamo_timed)` ranges (Dynamo's and Inductor's
    // compile phases, CUDA graph recording).
    TimeNs compileTime = 0;
    EventRef longestCompile;
    std::vector<std::pair<TimeNs, TimeNs>> compilePhases; // those ranges, sorted and merged
    bool cudaGraphs =
        false; // replays CUDA graphs: cudaGraphLaunch/hipGraphLaunch, or Inductor's CUDAGraphNode

    // GPU kernels in the span, by whether a compiled graph call launched them.
    TimeNs kernelTime = 0, kernelTimeInGraphs = 0;
    std::uint64_t kernels = 0, kernelsInGraphs = 0;
    std::uint64_t tinyInGraphs = 0, tinyOutside = 0; // under 10 µs
    EventRef tinyInGraphsExample, tinyOutsideExample;
    TimeNs gemmInGraphsTime = 0;       // library GEMMs (extern kernels) a compiled graph called
    TimeNs tritonTime = 0;             // every triton_* kernel
    bool tritonTemplates = false;      // a triton_tem_ kernel ran: max-autotune's templates are on
    std::vector<KernelTime> topTriton; // the Triton kernels with the most time, at most three
    TimeNs elementwiseOutsideTime = 0; // PyTorch's eager elementwise kernels launched outside compiled graphs
    EventRef elementwiseOutsideExample; // the longest of them
    // Of them, those the optimizer step launched (inside an Optimizer.step# range, or by an aten::_foreach_
    // operator): an eager optimizer's multi-tensor kernels, which its fused implementation replaces.
    TimeNs elementwiseOptimizerTime = 0;
    EventRef elementwiseOptimizerExample;
};

// Over the steps (each [start, end)) within [lo, hi].
CompiledModelFacts compiledModelFacts(const TraceStore& store,
                                      const std::vector<std::pair<TimeNs, TimeNs>>& steps, TimeNs lo,
                                      TimeNs hi);

} // namespace kinetoscope
