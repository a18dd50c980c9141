#pragma once

#include "analysis/ops/kernels.h"
#include "analysis/ops/summary.h"
#include "analysis/overview/overview.h"

#include <string>
#include <string_view>
#include <vector>

namespace kinetoscope {

// "What changed between these two?": operators and kernels joined by name, with deltas (B − A), the ones
// present in only one trace, and the step-time, breakdown and GPU-metric deltas. A is the baseline.
struct DiffRow {
    std::string name;
    std::string displayName; // kernels: distinctShortKernelNames over the table's rows; operators: the name
    // A TorchInductor kernel of B matched to one of A under another name: A's name (its numeric suffix moved
    // between the two compiles; the fused ops, which the rest of the name spells, are the same), or A's names
    // ("triton_poi_fused__to_copy_6, triton_poi_fused__to_copy_7") when the row holds kernels of A that had
    // different names. Empty when the row holds A's kernel of its own name only.
    std::string nameA;
    std::uint64_t countA = 0, countB = 0;
    TimeNs hostA = 0, hostB = 0;     // operators: host self; kernels: 0
    TimeNs deviceA = 0, deviceB = 0; // operators: device self; kernels: total
    // Kernels: Inductor's achieved GB/s and TFLOP/s on each side (KernelTableRow's), 0 without its estimates:
    // the columns of `python -m torch._inductor.analysis.profile_analysis --diff`.
    double gbpsA = 0, gbpsB = 0, tflopsA = 0, tflopsB = 0;
    bool onlyA() const { return countB == 0; }
    bool onlyB() const { return countA == 0; }
    TimeNs hostDelta() const { return hostB - hostA; }
    TimeNs deviceDelta() const { return deviceB - deviceA; }
    // Relative change of the device time, or of the host time for host-only rows; NaN when A is zero.
    double percentChange() const;
    // Per call (device time / calls): what a kernel costs each time, whatever the two traces' amounts of
    // work. 3 steps in A against 1 in B read "two thirds faster" in total for a kernel 5 % slower per call.
    TimeNs perCallA() const { return countA ? deviceA / TimeNs(countA) : 0; }
    TimeNs perCallB() const { return countB ? deviceB / TimeNs(countB) : 0; }
    TimeNs perCallDelta() const { return perCallB() - perCallA(); }
    // NaN unless both sides ran it.
    double perCallChange() const;
    // Per step, when both traces have ProfilerSteps (kernels only; 0 steps otherwise): a kernel's time in a
    // mean step, the figure to compare when the two ran different numbers of steps.
    std::uint32_t stepsA = 0, stepsB = 0;
    bool hasPerStep() const { return stepsA > 0 && stepsB > 0; }
    TimeNs perStepA() const { return stepsA ? deviceA / TimeNs(stepsA) : 0; }
    TimeNs perStepB() const { return stepsB ? deviceB / TimeNs(stepsB) : 0; }
};

// The operators row that holds, on each side, the operators run inside torch.compile's compile phases (not
// the model's work: Dynamo tracing and Inductor lowering a first call).
inline constexpr std::string_view compileWorkRow =
    "[compilation: operators inside torch.compile's compile phases]";

struct TraceDiff {
    std::vector<DiffRow> operators; // by |device delta| then |host delta|, descending
    std::vector<DiffRow> kernels;   // by |total delta|, descending
    Overview overviewA, overviewB;
    std::array<TimeNs, kernelCategoryCount> categoriesA{}, categoriesB{};
    std::uint64_t kernelsA = 0, kernelsB = 0; // kernel runs on each side
};

// When the two traces hold different amounts of work (other numbers of steps, or of kernel runs by more than
// a tenth), a sentence that says so and how to compare them (per call, per step); empty when they match.
std::string workDifference(const TraceDiff& diff);

TraceDiff diffTraces(const TraceStore& a, const TraceStore& b);

} // namespace kinetoscope
