#pragma once

#include "analysis/ops/kernels.h"
#include "analysis/ops/summary.h"
#include "analysis/overview/overview.h"

#include <climits>
#include <string>
#include <string_view>
#include <vector>

namespace kinetoscope {

// "What changed between these two?": operators and kernels joined by name, with deltas (B − A), the ones
// present in only one trace, and the step-time, breakdown and GPU-metric deltas. A is the baseline.
// Why a row joins names that differ on the two sides.
enum class DiffPairing : std::uint8_t {
    SameName,   // one name on both sides (or a row of one side only)
    Renumbered, // a TorchInductor kernel numbered apart by two compiles (nameA below)
    Vendor, // the same operation on another GPU vendor: aten::cudnn_convolution ↔ aten::miopen_convolution,
            // PyTorch's own kernels built for CUDA and for HIP, joined by their short name
};

struct DiffRow {
    std::string name;
    std::string displayName; // kernels: distinctShortKernelNames over the table's rows; operators: the name
    // A TorchInductor kernel of B matched to one of A under another name: A's name (its numeric suffix moved
    // between the two compiles; the fused ops, which the rest of the name spells, are the same), or A's names
    // ("triton_poi_fused__to_copy_6, triton_poi_fused__to_copy_7") when the row holds kernels of A that had
    // different names. Empty when the row holds A's kernel of its own name only.
    std::string nameA;
    DiffPairing pairing = DiffPairing::SameName;
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
    // What the row compares: device time, or for an operator that runs none on either side its host self
    // time (percentChange's measure).
    bool measuresDevice() const { return deviceA != 0 || deviceB != 0; }
    TimeNs measureA() const { return measuresDevice() ? deviceA : hostA; }
    TimeNs measureB() const { return measuresDevice() ? deviceB : hostB; }
    // Per call (the measure / calls): what a kernel or operator costs each time, whatever the two traces'
    // amounts of work. 3 steps in A against 1 in B read "two thirds faster" in total for a kernel 5 % slower
    // per call.
    TimeNs perCallA() const { return countA ? measureA() / TimeNs(countA) : 0; }
    TimeNs perCallB() const { return countB ? measureB() / TimeNs(countB) : 0; }
    TimeNs perCallDelta() const { return perCallB() - perCallA(); }
    // NaN unless both sides ran it.
    double perCallChange() const;
    // Per step, when both traces have ProfilerSteps (0 steps otherwise): the measure in a mean step, the
    // figure to compare when the two ran different numbers of steps.
    std::uint32_t stepsA = 0, stepsB = 0;
    bool hasPerStep() const { return stepsA > 0 && stepsB > 0; }
    TimeNs perStepA() const { return stepsA ? measureA() / TimeNs(stepsA) : 0; }
    TimeNs perStepB() const { return stepsB ? measureB() / TimeNs(stepsB) : 0; }
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

// torch.compile's compile phases within a side's steps, and its mean step without them: with a compiled side,
// the step deltas compare the model's steps, not a first call's compilation (issue 61 item 11).
TimeNs compileInSteps(const Overview& ov);
TimeNs stepMeanWithoutCompile(const Overview& ov);
// "Without torch.compile's compilation (B: 4.000 ms in its steps): mean step A 1.0 ms, B 2.0 ms (+1.0 ms)";
// empty when neither side compiled in its steps.
std::string stepsWithoutCompile(const TraceDiff& diff);

// What to compare: each trace whole, or a range of each (an area selected on one side and the same time on
// the other, by their alignment): slices that start in it count, as summarize and computeOverview take a
// range.
struct DiffScope {
    TimeNs fromA = INT64_MIN, toA = INT64_MAX;
    TimeNs fromB = INT64_MIN, toB = INT64_MAX;
    bool whole() const {
        return fromA == INT64_MIN && toA == INT64_MAX && fromB == INT64_MIN && toB == INT64_MAX;
    }
};
TraceDiff diffTraces(const TraceStore& a, const TraceStore& b, const DiffScope& scope = {});

// The GPU vendor a trace ran on, from its devices' names and its runtime calls (hip* on AMD).
enum class GpuVendor : std::uint8_t { Unknown, Nvidia, Amd };
GpuVendor gpuVendorOf(const TraceStore& store);
// An operator's name on the other vendor's library, where it has one (aten::cudnn_convolution ↔
// aten::miopen_convolution, aten::_cudnn_rnn ↔ aten::miopen_rnn); empty otherwise.
std::string vendorCounterpart(std::string_view op);
// The rows of the diff's table that moved most (by the measure's change), at most `n`, for a summary.
std::vector<const DiffRow*> movedMost(const std::vector<DiffRow>& rows, std::size_t n);

} // namespace kinetoscope
