#pragma once

#include "model/tracestore.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace kinetoscope {

struct KernelRow {
    std::string name;
    std::string displayName; // distinctShortKernelNames over the table's rows
    std::uint64_t count = 0;
    TimeNs total = 0;
    TimeNs min = 0;
    TimeNs max = 0;
    bool tensorCores = false; // kernelUsesTensorCores (tensorcores.h)
    TimeNs mean() const { return count ? total / TimeNs(count) : 0; }
};

struct OperatorRow {
    std::string name;      // with " [shapes]" when grouped by input shapes
    std::string inputDims; // the shapes, when grouped by them
    std::uint64_t count = 0;
    TimeNs hostTotal = 0;
    TimeNs hostSelf =
        0; // duration minus its direct children: operators, annotations, runtime and driver calls
    TimeNs deviceTotal = 0; // device self of the op and all its descendants
    TimeNs deviceSelf = 0;  // kernels, copies and memsets whose launch call the op owns (docs/DEFINITIONS.md)
    TimeNs deviceSelfTensorCore = 0; // the part of deviceSelf in tensor-core kernels
    EventRef example;                // the longest occurrence
    bool tensorCoreEligible() const; // a GEMM/convolution/attention op that could run on tensor cores
    double tensorCoreShare() const {
        return deviceSelf ? double(deviceSelfTensorCore) / double(deviceSelf) : 0;
    }
};

enum class OperatorGrouping { Name, NameAndShape };

struct Summary {
    std::uint64_t events = 0;           // X slices plus matched B/E pairs
    std::vector<KernelRow> kernels;     // sorted by total, descending
    std::vector<OperatorRow> operators; // sorted by device total, then host total, descending
    // Ranges that are not operators (record_function, ProfilerStep#*, Optimizer.step#..., DataLoader),
    // grouped by name with a trailing "#N" folded to "#*"; the same figures and order as operators.
    std::vector<OperatorRow> annotations;
    std::map<std::int64_t, TimeNs> gpuBusy; // device -> length of the union of its kernel intervals
};

// A pure function of the store: the GUI tables, the CLI and the tests all use it.
// Only slices starting in [from, to] count (the whole trace by default).
// Without `operators`, the kernel rows, events and GPU busy time only: no host tree is built (a kernel-only
// report). Without `kernels`, no kernel rows and no GPU busy time (an operator-only look, as a diff's of the
// operators inside torch.compile's compile phases).
Summary summarize(const TraceStore& store, OperatorGrouping grouping = OperatorGrouping::Name,
                  TimeNs from = INT64_MIN, TimeNs to = INT64_MAX, bool operators = true, bool kernels = true);

// Every call of a row of the operator table (`annotation` false) or of the annotation table, as summarize
// grouped them: by name (annotations by their group name, "ProfilerStep#*"), and by input shapes when the row
// has them.
std::vector<EventRef> callsOfRow(const TraceStore& store, const OperatorRow& row, bool annotation);

// GPU device index of a GPU track (Kineto writes the device as pid).
std::int64_t deviceOf(const Track& track);

} // namespace kinetoscope
