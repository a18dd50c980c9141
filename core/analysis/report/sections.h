#pragma once

// The columns of every table the reports write and the viewer shows (rows.h): one description per table,
// in the order of its JSON members. The viewer's tables pick and order the columns they show by title.

#include "analysis/compiled/inductor.h"
#include "analysis/gpu/criticalpath.h"
#include "analysis/gpu/gpuidle.h"
#include "analysis/gpu/gpuqueue.h"
#include "analysis/gpu/gputime.h"
#include "analysis/gpu/kernelsequences.h"
#include "analysis/jobs/diff.h"
#include "analysis/jobs/job.h"
#include "analysis/memory/snapshotreport.h"
#include "analysis/ops/kernels.h"
#include "analysis/ops/summary.h"
#include "analysis/overview/overview.h"
#include "analysis/report/rows.h"
#include "analysis/roofline/roofline.h"

namespace kinetoscope {

// The summed self times of an operator table, which its share columns divide by (self times add up to the
// whole, totals nest).
struct SelfTimeTotals {
    TimeNs host = 0;
    TimeNs device = 0;
    static SelfTimeTotals of(const std::vector<OperatorRow>& rows);
};

// Operators and annotations (key_averages' figures). The text names an operator with its input shapes when
// `shapesInTextName`; the viewer's share columns divide by `totals` (left out of the JSON and the text).
Columns<OperatorRow> operatorColumns(bool shapesInTextName, const SelfTimeTotals* totals = nullptr);
// The summary's kernels, one row per name.
const Columns<KernelRow>& kernelColumns();
// The viewer's kernel table: by name, or by name and launch properties.
const Columns<KernelTableRow>& kernelTableColumns();

// A ProfilerStep with the name the report gives it.
struct NamedStep {
    std::string_view name;
    TimeNs start = 0, end = 0;
};
const Columns<NamedStep>& stepColumns();
const Columns<Recommendation>& recommendationColumns();
const Columns<StreamIdle>& gpuIdleColumns();
const Columns<DeviceTime>& temporalBreakdownColumns();
const Columns<StreamQueue>& gpuQueueColumns();
const Columns<KernelSequence>& kernelSequenceColumns();

// The critical path's events, and its edges with the events they join (indexes into the events).
const Columns<PathEventRow>& pathEventColumns();
struct PathEdgeRow {
    const CriticalPathEdge* edge = nullptr;
    std::uint32_t from = 0, to = 0;
};
const Columns<PathEdgeRow>& pathEdgeColumns();

// The roofline: one row per op + input shapes + dtypes, and the GPU time no model covers.
const Columns<PerfModelRow>& perfModelColumns();
const Columns<NotModelledRow>& notModelledColumns();

// One rank's steps and collectives, in the summary's "distributed" block.
const Columns<RankStep>& rankStepColumns();
const Columns<CollectiveStats>& collectiveColumns();
const Columns<JobRankRow>& jobRankColumns();

// An allocation of a memory snapshot, with the snapshot that holds its stack.
struct SnapshotAllocationRow {
    const MemorySnapshot* snapshot = nullptr;
    const AllocationLifetime* allocation = nullptr;
};
const Columns<SnapshotAllocationRow>& snapshotAllocationColumns();

// TorchInductor's breakdown: a category, and a kernel of one, each with the breakdown they are part of (whose
// wall time their percentages divide).
struct InductorCategoryEntry {
    const InductorCategoryRow* row = nullptr;
    const InductorBreakdown* of = nullptr;
};
struct InductorKernelEntry {
    const InductorKernel* kernel = nullptr;
    const InductorBreakdown* of = nullptr;
};
const Columns<InductorCategoryEntry>& inductorCategoryColumns();
const Columns<InductorKernelEntry>& inductorKernelColumns();
// A compiled graph (CompiledFxGraph): its calls and its breakdown, categories nested.
const Columns<CompiledGraph>& compiledGraphColumns();

// The job report's tables, each row with the report whose ranks its indices point into.
struct JobStepEntry {
    const StepDistribution* step = nullptr;
    const JobReport* job = nullptr;
};
struct JobStragglerEntry {
    const StragglerRow* straggler = nullptr;
    const JobReport* job = nullptr;
};
struct JobCollectiveEntry {
    const CollectiveSpread* collective = nullptr;
    const JobReport* job = nullptr;
};
struct JobHostEntry {
    const HostGroup* host = nullptr;
    const JobReport* job = nullptr;
};
const Columns<UnreadableFile>& unreadableColumns();
const Columns<JobStepEntry>& jobStepColumns();
const Columns<JobStragglerEntry>& jobStragglerColumns();
const Columns<JobCollectiveEntry>& jobCollectiveColumns();
const Columns<JobHostEntry>& jobHostColumns();
// The entries of each of `job`'s tables, in its order.
template <typename Entry, typename Row>
std::vector<Entry> jobEntries(const std::vector<Row>& rows, const JobReport& job) {
    std::vector<Entry> entries;
    entries.reserve(rows.size());
    for (const Row& row : rows)
        entries.push_back({&row, &job});
    return entries;
}

// Two traces' operators (host) or kernels compared.
const Columns<DiffRow>& diffColumns(bool host);

} // namespace kinetoscope
