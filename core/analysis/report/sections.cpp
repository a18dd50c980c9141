#include "analysis/report/sections.h"

#include <algorithm>

namespace kinetoscope {

using namespace cells;

SelfTimeTotals SelfTimeTotals::of(const std::vector<OperatorRow>& rows) {
    SelfTimeTotals t;
    for (const OperatorRow& r : rows) {
        t.host += r.hostSelf;
        t.device += r.deviceSelf;
    }
    return t;
}

Columns<OperatorRow> operatorColumns(bool shapesInTextName, const SelfTimeTotals* totals) {
    using R = OperatorRow;
    using F = CellFormat;
    auto share = [](TimeNs part, TimeNs whole) { return real(whole ? double(part) / double(whole) : 0.0); };
    return {
        {.key = "name",
         .title = "Name",
         .value = [](const R& r) { return text(r.name); },
         .outputs = InJson | InTable,
         .tip = "Operator name (annotations: a trailing #N folded to #*)"},
        {.key = {},
         .title = "Name",
         .value =
             [shapesInTextName](const R& r) {
                 return text(shapesInTextName && !r.inputDims.empty() ? r.name + " " + r.inputDims : r.name);
             },
         .outputs = InText,
         .textWidth = 60},
        {.key = "input_dims",
         .title = "Input shapes",
         .value = [](const R& r) { return text(r.inputDims); },
         .outputs = InJson | InTable,
         .tip = "Input Dims of the calls (when grouped by shape)",
         .omitWhenEmpty = true},
        {.key = "count",
         .title = "Calls",
         .format = F::Count,
         .value = [](const R& r) { return count(r.count); },
         .tip =
             "Number of calls; an operator whose only child has its name counts once, as in key_averages()"},
        {.key = "host_total_us",
         .title = "Host total",
         .format = F::Micros,
         .value = [](const R& r) { return integer(r.hostTotal); },
         .tip = "Host time from start to end of the calls"},
        {.key = "host_self_us",
         .title = "Host self",
         .format = F::Micros,
         .value = [](const R& r) { return integer(r.hostSelf); },
         .tip = "Duration minus its direct children: operators, annotations, and runtime and driver calls "
                "(key_averages' Self CPU)"},
        {.key = "device_total_us",
         .title = "Device total",
         .format = F::Micros,
         .value = [](const R& r) { return integer(r.deviceTotal); },
         .tip = "Device self of the calls and of everything called inside them"},
        {.key = "device_self_us",
         .title = "Device self",
         .format = F::Micros,
         .value = [](const R& r) { return integer(r.deviceSelf); },
         .tip = "GPU time of the kernels, copies and memsets its own launch calls made (key_averages' Self "
                "CUDA)"},
        {.key = "host_self_share",
         .title = "Host self %",
         .format = F::Share,
         .value = [totals,
                   share](const R& r) { return totals ? share(r.hostSelf, totals->host) : Cell::null(); },
         .outputs = InTable,
         .decimals = 6,
         .tip = "Share of the summed host self time of all rows"},
        {.key = "device_self_share",
         .title = "Device self %",
         .format = F::Share,
         .value = [totals,
                   share](const R& r) { return totals ? share(r.deviceSelf, totals->device) : Cell::null(); },
         .outputs = InTable,
         .decimals = 6,
         .tip = "Share of the summed device self time of all rows"},
        {.key = "tensor_core_eligible",
         .title = "Tensor-core eligible",
         .format = F::Bool,
         .value = [](const R& r) { return Cell::of(r.tensorCoreEligible()); },
         .outputs = InTable,
         .tip = "A GEMM, convolution or attention operator that can run on tensor cores"},
        {.key = "tensor_core_share",
         .title = "Tensor-core share",
         .format = F::Share,
         .value = [](const R& r) { return r.deviceSelf ? real(r.tensorCoreShare()) : Cell::null(); },
         .outputs = InTable,
         .decimals = 6,
         .tip = "Share of its device self time spent in tensor-core kernels"},
    };
}

const Columns<KernelRow>& kernelColumns() {
    using R = KernelRow;
    using F = CellFormat;
    static const Columns<R> columns = {
        {.key = "name", .title = "Name", .value = [](const R& r) { return text(r.name); }, .outputs = InJson},
        {.key = "display_name",
         .title = "Name",
         .value = [](const R& r) { return text(r.displayName); },
         .outputs = InJson | InText,
         .textWidth = 80},
        {.key = "count",
         .title = "Calls",
         .format = F::Count,
         .value = [](const R& r) { return count(r.count); }},
        {.key = "total_us",
         .title = "Total",
         .format = F::Micros,
         .value = [](const R& r) { return integer(r.total); }},
        // The text puts the mean before the extremes, the JSON after them.
        {.key = {},
         .title = "Mean",
         .format = F::Micros,
         .value = [](const R& r) { return integer(r.mean()); },
         .outputs = InText},
        {.key = "min_us",
         .title = "Min",
         .format = F::Micros,
         .value = [](const R& r) { return integer(r.min); }},
        {.key = "max_us",
         .title = "Max",
         .format = F::Micros,
         .value = [](const R& r) { return integer(r.max); }},
        {.key = "mean_us",
         .title = "Mean",
         .format = F::Micros,
         .value = [](const R& r) { return integer(r.mean()); },
         .outputs = InJson},
        {.key = "category",
         .title = "Category",
         .value = [](const R& r) { return text(kernelCategoryName(kernelCategory(r.name))); },
         .outputs = InJson},
        {.key = "tensor_cores",
         .title = "Tensor cores",
         .format = F::Bool,
         .value = [](const R& r) { return Cell::of(r.tensorCores); },
         .outputs = InJson},
    };
    return columns;
}

const Columns<KernelTableRow>& kernelTableColumns() {
    using R = KernelTableRow;
    using F = CellFormat;
    static const Columns<R> columns = {
        {.key = "display_name",
         .title = "Name",
         .value = [](const R& r) { return text(r.displayName); },
         .tip = "Kernel name"},
        {.key = "category",
         .title = "Category",
         .value = [](const R& r) { return text(kernelCategoryName(r.category)); },
         .tip =
             "What the kernel does, from its name (docs/DEFINITIONS.md: TorchInductor's categories first)"},
        {.key = "count",
         .title = "Calls",
         .format = F::Count,
         .value = [](const R& r) { return count(r.count); },
         .tip = "Number of launches"},
        {.key = "total_us",
         .title = "Total",
         .format = F::Micros,
         .value = [](const R& r) { return integer(r.total); },
         .tip = "Summed duration"},
        {.key = "mean_us",
         .title = "Mean",
         .format = F::Micros,
         .value = [](const R& r) { return integer(r.mean()); },
         .tip = "Mean duration"},
        {.key = "min_us",
         .title = "Min",
         .format = F::Micros,
         .value = [](const R& r) { return integer(r.min); },
         .tip = "Shortest call"},
        {.key = "max_us",
         .title = "Max",
         .format = F::Micros,
         .value = [](const R& r) { return integer(r.max); },
         .tip = "Longest call"},
        {.key = "gpu_share",
         .title = "% GPU time",
         .format = F::Share,
         .value = [](const R& r) { return real(r.shareOfGpuTime); },
         .decimals = 6,
         .tip = "Share of all kernel time in scope"},
        {.key = "blocks_per_sm",
         .title = "Blocks per SM",
         .format = F::Fixed,
         .value = [](const R& r) { return r.meanBlocksPerSm > 0 ? real(r.meanBlocksPerSm) : Cell::null(); },
         .decimals = 2,
         .tip = "Mean blocks per SM (the trace's 'blocks per SM', or grid size / SMs)"},
        {.key = "achieved_occupancy_pct",
         .title = "Est. occupancy",
         .format = F::Percent,
         .value =
             [](const R& r) { return r.achievedOccupancy > 0 ? real(r.achievedOccupancy) : Cell::null(); },
         .decimals = 1,
         .tip = "Duration-weighted mean of 'est. achieved occupancy %'"},
        {.key = "achieved_gbps",
         .title = "GB/s",
         .format = F::Fixed,
         .value = [](const R& r) { return r.achievedGbps > 0 ? real(r.achievedGbps) : Cell::null(); },
         .decimals = 1,
         .tip = "Inductor's kernel_num_gb over each call's duration, averaged over the calls "
                "(profile_analysis's "
                "figure); empty without it",
         .omitWhenEmpty = true},
        {.key = "achieved_tflops",
         .title = "TFLOP/s",
         .format = F::Fixed,
         .value = [](const R& r) { return r.achievedTflops > 0 ? real(r.achievedTflops) : Cell::null(); },
         .decimals = 2,
         .tip = "Inductor's kernel_flop over each call's duration, averaged over the calls; empty without it",
         .omitWhenEmpty = true},
        {.key = "tensor_cores",
         .title = "Tensor cores",
         .format = F::Bool,
         .value = [](const R& r) { return Cell::of(r.tensorCores); },
         .tip = "Runs on tensor cores (HMMA/GMMA/MFMA), from its name: the TensorBoard plugin's list plus "
                "Hopper, Blackwell and AMD kernels"},
        {.key = "launch",
         .title = "Launch",
         .value = [](const R& r) { return text(r.launch); },
         .tip = "Grid, block, registers, shared memory and launching operator (when grouped by launch)"},
    };
    return columns;
}

const Columns<NamedStep>& stepColumns() {
    using R = NamedStep;
    static const Columns<R> columns = {
        {.key = "name", .title = "Step", .value = [](const R& r) { return text(r.name); }},
        {.key = "start_us",
         .title = "Start",
         .format = CellFormat::Micros,
         .value = [](const R& r) { return integer(r.start); }},
        {.key = "end_us",
         .title = "End",
         .format = CellFormat::Micros,
         .value = [](const R& r) { return integer(r.end); }},
    };
    return columns;
}

const Columns<Recommendation>& recommendationColumns() {
    using R = Recommendation;
    static const Columns<R> columns = {
        {.key = "id", .title = "Id", .value = [](const R& r) { return text(r.id); }},
        {.key = "title", .title = "Advice", .value = [](const R& r) { return text(r.title); }},
        {.key = "evidence_text", .title = "Evidence", .value = [](const R& r) { return text(r.evidence); }},
        {.key = "evidence",
         .title = "Figures",
         .format = CellFormat::Json,
         .value =
             [](const R& r) {
                 return nested([&](JsonWriter<std::string>& w) {
                     w.beginObject();
                     for (const auto& [figure, value] : r.figures)
                         w.fixedField(figure, value, 6);
                     w.endObject();
                 });
             },
         .outputs = InJson},
        {.key = "where",
         .title = "Where",
         .format = CellFormat::Json,
         .value =
             [](const R& r) {
                 return nested([&](JsonWriter<std::string>& w) {
                     w.beginObject();
                     w.microsField("start_us", r.from);
                     w.microsField("end_us", r.to);
                     if (r.example.isValid()) {
                         w.key("event");
                         w.beginObject();
                         w.strField("name", r.exampleName);
                         w.microsField("start_us", r.exampleStart);
                         w.microsField("dur_us", r.exampleDuration);
                         w.strField("time", r.exampleOnGpu ? "gpu" : "cpu"); // whose time dur_us is
                         w.endObject();
                     }
                     w.endObject();
                 });
             },
         .outputs = InJson},
    };
    return columns;
}

const Columns<StreamIdle>& gpuIdleColumns() {
    using R = StreamIdle;
    using F = CellFormat;
    auto ratio = [](TimeNs part, const R& r) {
        return real(double(part) / double(std::max<TimeNs>(1, r.idle())));
    };
    static const Columns<R> columns = {
        {.key = "device",
         .title = "GPU",
         .format = F::Integer,
         .value = [](const R& r) { return integer(r.device); }},
        {.key = "stream",
         .title = "Stream",
         .format = F::Integer,
         .value = [](const R& r) { return integer(r.stream); }},
        {.key = "host_wait_us",
         .title = "Host wait",
         .format = F::Micros,
         .value = [](const R& r) { return integer(r.hostWait); }},
        {.key = "kernel_wait_us",
         .title = "Kernel wait",
         .format = F::Micros,
         .value = [](const R& r) { return integer(r.kernelWait); }},
        {.key = "other_us",
         .title = "Other",
         .format = F::Micros,
         .value = [](const R& r) { return integer(r.other); }},
        {.key = "host_wait_ratio",
         .title = "Host wait share",
         .format = F::Share,
         .value = [ratio](const R& r) { return ratio(r.hostWait, r); },
         .decimals = 6},
        {.key = "kernel_wait_ratio",
         .title = "Kernel wait share",
         .format = F::Share,
         .value = [ratio](const R& r) { return ratio(r.kernelWait, r); },
         .decimals = 6},
        {.key = "other_ratio",
         .title = "Other share",
         .format = F::Share,
         .value = [ratio](const R& r) { return ratio(r.other, r); },
         .decimals = 6},
        {.key = "gaps",
         .title = "Gaps",
         .format = F::Count,
         .value = [](const R& r) { return count(r.gaps); }},
    };
    return columns;
}

const Columns<DeviceTime>& temporalBreakdownColumns() {
    using R = DeviceTime;
    using F = CellFormat;
    static const Columns<R> columns = {
        {.key = "rank",
         .title = "Rank",
         .format = F::Integer,
         .value = [](const R& r) { return r.rank ? integer(*r.rank) : Cell::null(); }},
        {.key = "device",
         .title = "GPU",
         .format = F::Integer,
         .value = [](const R& r) { return integer(r.device); }},
        {.key = "span_us",
         .title = "Span",
         .format = F::Micros,
         .value = [](const R& r) { return integer(r.span); }},
        {.key = "idle_us",
         .title = "Idle",
         .format = F::Micros,
         .value = [](const R& r) { return integer(r.idle); }},
        {.key = "compute_us",
         .title = "Compute",
         .format = F::Micros,
         .value = [](const R& r) { return integer(r.compute); }},
        {.key = "communication_us",
         .title = "Communication",
         .format = F::Micros,
         .value = [](const R& r) { return integer(r.communication); }},
        {.key = "memory_us",
         .title = "Memory",
         .format = F::Micros,
         .value = [](const R& r) { return integer(r.memory); }},
        {.key = "overlap_us",
         .title = "Overlap",
         .format = F::Micros,
         .value = [](const R& r) { return integer(r.overlap); }},
    };
    return columns;
}

const Columns<StreamQueue>& gpuQueueColumns() {
    using R = StreamQueue;
    using F = CellFormat;
    static const Columns<R> columns = {
        {.key = "device",
         .title = "GPU",
         .format = F::Integer,
         .value = [](const R& r) { return integer(r.device); }},
        {.key = "stream",
         .title = "Stream",
         .format = F::Integer,
         .value = [](const R& r) { return integer(r.stream); }},
        {.key = "launches",
         .title = "Launches",
         .format = F::Count,
         .value = [](const R& r) { return count(r.launches); }},
        {.key = "max_length",
         .title = "Longest",
         .format = F::Integer,
         .value = [](const R& r) { return integer(r.maxLength); }},
        {.key = "mean_length",
         .title = "Mean length",
         .format = F::Fixed,
         .value = [](const R& r) { return real(r.meanLength); },
         .decimals = 3},
        {.key = "full_us",
         .title = "Full",
         .format = F::Micros,
         .value = [](const R& r) { return integer(r.fullTime); }},
        {.key = "empty_us",
         .title = "Empty",
         .format = F::Micros,
         .value = [](const R& r) { return integer(r.emptyTime); }},
        {.key = "span_us",
         .title = "Span",
         .format = F::Micros,
         .value = [](const R& r) { return integer(r.span); }},
    };
    return columns;
}

const Columns<KernelSequence>& kernelSequenceColumns() {
    using R = KernelSequence;
    using F = CellFormat;
    static const Columns<R> columns = {
        {.key = "operator", .title = "Operator", .value = [](const R& r) { return text(r.op); }},
        {.key = "kernels",
         .title = "Kernels",
         .format = F::Json,
         .value =
             [](const R& r) {
                 return nested([&](JsonWriter<std::string>& w) {
                     w.beginArray();
                     for (const std::string& n : r.work)
                         w.str(n);
                     w.endArray();
                 });
             },
         .outputs = InJson},
        {.key = "count",
         .title = "Calls",
         .format = F::Count,
         .value = [](const R& r) { return count(r.count); }},
        {.key = "gpu_us",
         .title = "GPU",
         .format = F::Micros,
         .value = [](const R& r) { return integer(r.gpuTime); }},
        {.key = "cpu_us",
         .title = "CPU",
         .format = F::Micros,
         .value = [](const R& r) { return integer(r.cpuTime); }},
    };
    return columns;
}

const Columns<PathEventRow>& pathEventColumns() {
    using R = PathEventRow;
    using F = CellFormat;
    static const Columns<R> columns = {
        {.key = "name", .title = "Name", .value = [](const R& r) { return text(r.name); }},
        {.key = "on", .title = "On", .value = [](const R& r) { return text(r.gpu ? "gpu" : "cpu"); }},
        {.key = "pid",
         .title = "Pid",
         .format = F::Integer,
         .value = [](const R& r) { return integer(r.pid); }},
        {.key = "tid",
         .title = "Tid",
         .format = F::Integer,
         .value = [](const R& r) { return integer(r.tid); }},
        {.key = "ts_us",
         .title = "Start",
         .format = F::Micros,
         .value = [](const R& r) { return integer(r.start); }},
        {.key = "dur_us",
         .title = "Duration",
         .format = F::Micros,
         .value = [](const R& r) { return integer(r.duration); }},
    };
    return columns;
}

const Columns<PathEdgeRow>& pathEdgeColumns() {
    using R = PathEdgeRow;
    using F = CellFormat;
    static const Columns<R> columns = {
        {.key = "kind",
         .title = "Kind",
         .value = [](const R& r) { return text(pathEdgeKindName(r.edge->kind)); }},
        {.key = "bound_by",
         .title = "Bound by",
         .value = [](const R& r) { return text(boundByName(r.edge->bound)); }},
        {.key = "weight_us",
         .title = "Weight",
         .format = F::Micros,
         .value = [](const R& r) { return integer(r.edge->weight); }},
        {.key = "from",
         .title = "From",
         .format = F::Count,
         .value = [](const R& r) { return count(r.from); }},
        {.key = "from_at",
         .title = "From at",
         .value = [](const R& r) { return text(r.edge->fromStart ? "start" : "end"); }},
        {.key = "to", .title = "To", .format = F::Count, .value = [](const R& r) { return count(r.to); }},
        {.key = "to_at",
         .title = "To at",
         .value = [](const R& r) { return text(r.edge->toStart ? "start" : "end"); }},
    };
    return columns;
}

const Columns<PerfModelRow>& perfModelColumns() {
    using R = PerfModelRow;
    using F = CellFormat;
    auto perCall = [](const R& r) { return double(std::max<std::uint64_t>(1, r.count)); };
    static const Columns<R> columns = {
        {.key = "name",
         .title = "Name",
         .value = [](const R& r) { return text(r.name); },
         .tip = "Operator name (linear and matmul show as the mm, addmm or bmm they call)"},
        {.key = "input_dims",
         .title = "Input shapes",
         .format = F::Json,
         .value = [](const R& r) { return text(r.inputDims); },
         .tip = "Input Dims of the calls"},
        {.key = "input_types",
         .title = "Input types",
         .format = F::Json,
         .value = [](const R& r) { return text(r.inputTypes); },
         .tip = "Input type of the calls"},
        {.key = "category",
         .title = "Category",
         .value = [](const R& r) { return text(opFamilyName(r.family)); },
         .outputs = InJson},
        {.key = "compute_type",
         .title = "Compute type",
         .value = [](const R& r) { return text(computeTypeName(r.compute)); },
         .outputs = InJson},
        {.key = "kind",
         .title = "Kind",
         .value =
             [](const R& r) {
                 return text(std::string(opFamilyName(r.family)) + " · " + computeTypeName(r.compute));
             },
         .outputs = InTable,
         .tip = "What the FLOPs and bytes are counted as, and the arithmetic whose peak applies"},
        {.key = "count",
         .title = "Calls",
         .format = F::Count,
         .value = [](const R& r) { return count(r.count); },
         .tip = "Number of calls"},
        {.key = "gflops",
         .title = "GFLOP/call",
         .format = F::Exact,
         .value = [perCall](const R& r) { return real(r.flops / perCall(r) / 1e9); },
         .decimals = 3,
         .tip = "FLOPs of one call, in billions"},
        {.key = "bytes",
         .title = "Bytes/call",
         .format = F::Fixed,
         .value = [perCall](const R& r) { return real(r.bytes / perCall(r)); },
         .outputs = InJson},
        {.key = "device_union_us",
         .title = "Device time",
         .format = F::Micros,
         .value = [](const R& r) { return integer(r.deviceUnion); },
         .tip =
             "GPU time of the kernels, copies and memsets launched under each call, overlaps merged, summed "
             "over the calls"},
        {.key = "tflops",
         .title = "TFLOP/s",
         .format = F::General,
         .value = [](const R& r) { return optionalReal(r.tflops()); },
         .decimals = 1,
         .tip = "Achieved: all calls' FLOPs over their device time"},
        {.key = "tbps",
         .title = "TB/s",
         .format = F::General,
         .value = [](const R& r) { return optionalReal(r.tbps()); },
         .decimals = 3,
         .tip = "Achieved: the bytes the calls must move at least, over their device time"},
        {.key = "intensity",
         .title = "FLOP/byte",
         .format = F::General,
         .value = [](const R& r) { return optionalReal(r.intensity()); },
         .decimals = 1,
         .tip = "Arithmetic intensity: FLOPs per byte moved"},
        {.key = "peak_tflops",
         .title = "Peak TFLOP/s",
         .format = F::General,
         .value = [](const R& r) { return optionalReal(r.peakTflops); },
         .outputs = InJson},
        {.key = "peak_tbps",
         .title = "Peak TB/s",
         .format = F::General,
         .value = [](const R& r) { return optionalReal(r.peakTbps); },
         .outputs = InJson},
        {.key = "peak_pct",
         .title = "% of peak",
         .format = F::General,
         .value =
             [](const R& r) {
                 const auto fraction = r.peakFraction();
                 return fraction ? real(*fraction * 100) : Cell::null();
             },
         .outputs = InJson},
        {.key = "peak_fraction",
         .title = "% of peak",
         .format = F::Share,
         .value = [](const R& r) { return optionalReal(r.peakFraction()); },
         .outputs = InTable,
         .decimals = 6,
         .tip = "Achieved over the peak that bounds the op: FLOP/s when compute-bound, bandwidth when "
                "memory-bound"},
        {.key = "bound",
         .title = "Bound",
         .value =
             [](const R& r) {
                 const char* b = boundName(r.bound());
                 return b ? text(b) : Cell::null();
             },
         .tip = "Compute when the intensity reaches the GPU's ridge point (peak FLOP/s over peak bandwidth), "
                "else memory"},
        {.key = "headroom_us",
         .title = "Headroom",
         .format = F::Micros,
         .value =
             [](const R& r) {
                 const auto h = r.headroom();
                 return h ? integer(*h) : Cell::null();
             },
         .tip = "Device time that running at that peak would save"},
    };
    return columns;
}

const Columns<NotModelledRow>& notModelledColumns() {
    using R = NotModelledRow;
    static const Columns<R> columns = {
        {.key = "launched_by", .title = "Launched by", .value = [](const R& r) { return text(r.name); }},
        {.key = "gpu_events",
         .title = "GPU events",
         .format = CellFormat::Count,
         .value = [](const R& r) { return count(r.count); }},
        {.key = "gpu_us",
         .title = "GPU",
         .format = CellFormat::Micros,
         .value = [](const R& r) { return integer(r.gpuTime); }},
    };
    return columns;
}
const Columns<SnapshotAllocationRow>& snapshotAllocationColumns() {
    using R = SnapshotAllocationRow;
    static const Columns<R> columns = {
        {.key = "size",
         .title = "Size",
         .format = CellFormat::Integer,
         .value = [](const R& r) { return integer(r.allocation->size); }},
        {.key = "addr",
         .title = "Address",
         .format = CellFormat::Count,
         .value = [](const R& r) { return count(r.allocation->addr); }},
        {.key = "frames",
         .title = "Stack",
         .format = CellFormat::Json,
         .value =
             [](const R& r) {
                 return nested([&](JsonWriter<std::string>& w) {
                     const MemorySnapshot& s = *r.snapshot;
                     w.beginArray();
                     for (std::uint32_t f : s.stack(r.allocation->stack)) {
                         const SnapshotFrame& frame = s.frames[f];
                         w.beginObject();
                         w.strField("name", s.strings.view(frame.name));
                         w.strField("filename", s.strings.view(frame.filename));
                         w.numField("line", frame.line);
                         w.endObject();
                     }
                     w.endArray();
                 });
             },
         .outputs = InJson},
    };
    return columns;
}
const Columns<InductorKernelEntry>& inductorKernelColumns() {
    using R = InductorKernelEntry;
    static const Columns<R> columns = {
        {.key = "name",
         .title = "Kernel",
         .value = [](const R& r) { return text(r.kernel->name); },
         .textWidth = 120},
        {.key = "calls",
         .title = "Calls",
         .format = CellFormat::Count,
         .value = [](const R& r) { return count(r.kernel->calls); }},
        {.key = "self_us",
         .title = "Self device",
         .format = CellFormat::Micros,
         .value = [](const R& r) { return integer(r.kernel->self); }},
        {.key = "pct",
         .title = "% of wall",
         .format = CellFormat::Percent,
         .value = [](const R& r) { return real(r.of->percentOf(r.kernel->self)); },
         .decimals = 2},
        {.key = "pct_of_gpu",
         .title = "% of GPU time",
         .format = CellFormat::Percent,
         .value = [](const R& r) { return real(r.of->percentOfBusy(r.kernel->self)); },
         .decimals = 2},
    };
    return columns;
}

const Columns<InductorCategoryEntry>& inductorCategoryColumns() {
    using R = InductorCategoryEntry;
    static const Columns<R> columns = {
        {.key = "category",
         .title = "Category",
         .value = [](const R& r) { return text(inductorCategoryName(r.row->category)); }},
        {.key = "total_us",
         .title = "Self device",
         .format = CellFormat::Micros,
         .value = [](const R& r) { return integer(r.row->total); }},
        {.key = "pct",
         .title = "% of wall",
         .format = CellFormat::Percent,
         .value = [](const R& r) { return real(r.of->percentOf(r.row->total)); },
         .decimals = 2},
        {.key = "pct_of_gpu",
         .title = "% of GPU time",
         .format = CellFormat::Percent,
         .value = [](const R& r) { return real(r.of->percentOfBusy(r.row->total)); },
         .decimals = 2},
        {.key = "kernels",
         .title = "Kernels",
         .format = CellFormat::Json,
         .value =
             [](const R& r) {
                 std::vector<InductorKernelEntry> kernels;
                 for (const InductorKernel& k : r.row->kernels)
                     kernels.push_back({&k, r.of});
                 return nested(
                     [&](JsonWriter<std::string>& w) { writeRows(w, inductorKernelColumns(), kernels, {}); });
             },
         .outputs = InJson},
    };
    return columns;
}

const Columns<CompiledGraph>& compiledGraphColumns() {
    using R = CompiledGraph;
    static const Columns<R> columns = {
        {.key = "name", .title = "Graph", .value = [](const R& g) { return text(g.name); }},
        {.key = "calls",
         .title = "Calls",
         .format = CellFormat::Count,
         .value = [](const R& g) { return count(g.calls); }},
        {.key = "wall_us",
         .title = "Wall",
         .format = CellFormat::Micros,
         .value = [](const R& g) { return integer(g.breakdown.wall); }},
        {.key = "device_busy_pct",
         .title = "Device busy",
         .format = CellFormat::Percent,
         .value = [](const R& g) { return real(g.breakdown.busyPercent()); },
         .decimals = 2},
        {.key = "categories",
         .title = "Categories",
         .format = CellFormat::Json,
         .value =
             [](const R& g) {
                 std::vector<InductorCategoryEntry> categories;
                 for (const InductorCategoryRow& row : g.breakdown.categories)
                     categories.push_back({&row, &g.breakdown});
                 return nested([&](JsonWriter<std::string>& w) {
                     writeRows(w, inductorCategoryColumns(), categories, {});
                 });
             },
         .outputs = InJson},
    };
    return columns;
}

} // namespace kinetoscope
