#pragma once

#include "model/jsonwriter.h"
#include "model/tracestore.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace kinetoscope {

// One rank of a distributed job, with the TensorBoard plugin's definitions, per step (the four add up to the
// step):
//   computation   = time computation kernels (all but NCCL/RCCL) run while no communication does,
//   overlap       = time both run,
//   communication = time communication runs while no computation does,
//   other         = the rest of the step (the GPU idle).
struct RankStep {
    std::string name;
    TimeNs start = 0, end = 0;
    TimeNs computation = 0, communication = 0, overlap = 0, other = 0;
    // What its host did: the ranges directly inside its ProfilerStep (a DataLoader's __next__, forward,
    // backward, the optimizer), by name with a trailing "#N" folded, summed, the longest first, at most
    // maxHostRanges. What a straggler's host spent its time on, against the other ranks'.
    std::vector<std::pair<std::string, TimeNs>> hostRanges = {};
};
inline constexpr std::size_t maxHostRanges = 8;

// One collective at one message size in one process group on a rank (AllReduce of 4 MB and AllReduce of 64 KB
// are two rows: they are different operations, and only the same operation can be compared across ranks).
struct CollectiveStats {
    std::string name;        // "AllReduce", from the kernel's "Collective name" arg or its name
    double messageBytes = 0; // one call's size as nccl-tests counts it (docs/DEFINITIONS.md); 0 when unknown
    // The process group's ranks, "0-7" (from `Process Group Ranks`, else "pg NAME"); empty when the trace
    // does not say. Only ranks of the same group run the same operation.
    std::string group = {};
    std::uint64_t calls = 0;
    double bytes = 0; // calls × messageBytes
    TimeNs total = 0;
    TimeNs longest = 0;
    TimeNs synchronization = 0; // waiting for the slowest rank to arrive (needs the other ranks; 0 alone)
    TimeNs transfer = 0;        // total − synchronization
    TimeNs mean() const { return calls ? total / TimeNs(calls) : 0; }
};

// One run of a collective kernel on a rank, for the cross-rank figures (who arrives last, who waits).
struct CollectiveInstance {
    std::uint32_t step = 0;       // index into RankFigures::steps
    std::uint32_t collective = 0; // index into RankFigures::collectives
    std::uint32_t issue = 0;      // issue order on this rank (launch order), from 0 over the whole trace
    TimeNs start = 0, end = 0;    // within its step: relative to the step's start
    // When the host launched it, relative to the step's start; unknown (a version 1 rank file) when
    // issuedKnown is false.
    TimeNs issued = 0;
    bool issuedKnown = false;
};

struct RankFigures {
    std::int64_t rank = -1;         // distributedInfo.rank; -1 when the trace does not say
    std::int64_t worldSize = 0;     // distributedInfo.world_size; 0 when the trace does not say
    std::string source;             // file it came from
    std::string host;               // from tensorboard_trace_handler's file name, when it has that form
    std::vector<std::string> notes; // what is missing or was dropped, said plainly
    std::vector<RankStep> steps;
    std::vector<CollectiveStats> collectives;  // by total, descending
    std::vector<CollectiveInstance> instances; // in issue order
    std::uint64_t instancesDropped = 0;        // not kept (outside every step, or over the rank file's size)
    TimeNs stepMean = 0;
    TimeNs computation = 0, communication = 0, overlap = 0, other = 0; // sums over the steps
};

RankFigures rankFigures(const TraceStore& store);

// Sorted rank numbers as ranges, "0-7, 9, 12-15"; past `most` ranges, ", …".
std::string rangesText(const std::vector<std::int64_t>& sorted, std::size_t most = SIZE_MAX);
// A collective as the reports and views name it: "AllReduce", or "AllReduce [0-7]" with its process group.
std::string collectiveLabel(const std::string& name, const std::string& group);

// The host in a file name tensorboard_trace_handler wrote, "<host>_<pid>.<time>.pt.trace.json[.gz]"; empty
// for any other name.
std::string hostFromTraceFileName(std::string_view path);

// The rank's JSON, one writer for all its uses. As a rank file (`kinetoscope-cli rank`): an object with a
// format name and version, at most rankFileBudget bytes (collective instances beyond it are dropped evenly
// over the steps, and counted). As the "distributed" member of `summary --json`: the same members, without
// the format.
enum class RankJson { File, SummaryBlock };
inline constexpr std::size_t rankFileBudget = 64 * 1024;
inline constexpr int rankFileVersion = 2; // 2: each instance's launch time
void writeRankFigures(JsonWriter<std::string>& w, const RankFigures& r, RankJson as = RankJson::SummaryBlock);
std::string rankFileJson(const RankFigures& r);

// The one reader: a rank file, or a `summary --json` with its "distributed" block. Recognised by content.
std::optional<RankFigures> readRankFigures(std::string_view json, std::string* error = nullptr);

} // namespace kinetoscope
