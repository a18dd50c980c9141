#pragma once

#include "model/jsonwriter.h"
#include "model/tracestore.h"

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
};

struct CollectiveStats {
    std::string name; // "AllReduce", from the kernel's "Collective name" arg or its name
    std::uint64_t calls = 0;
    double bytes = 0; // message sizes as nccl-tests count them (docs/DEFINITIONS.md), when the trace has them
    TimeNs total = 0;
    TimeNs synchronization = 0; // waiting for the slowest rank to arrive (needs the other ranks; 0 alone)
    TimeNs transfer = 0;        // total − synchronization
    TimeNs mean() const { return calls ? total / TimeNs(calls) : 0; }
};

struct RankFigures {
    std::int64_t rank = -1; // distributedInfo.rank, or the position in the job
    std::int64_t worldSize = 0;
    std::string source; // file it came from
    std::vector<RankStep> steps;
    std::vector<CollectiveStats> collectives; // by total, descending
    TimeNs stepMean = 0;
    TimeNs computation = 0, communication = 0, overlap = 0, other = 0; // sums over the steps
};

RankFigures rankFigures(const TraceStore& store);

// The instances of each collective on a rank, in launch order: (start, end), for the cross-rank split.
struct CollectiveInstances {
    std::string name;
    std::vector<std::pair<TimeNs, TimeNs>> times;
};
std::vector<CollectiveInstances> collectiveInstances(const TraceStore& store);

// Fills each rank's synchronisation / transfer split: the k-th instance of a collective on every rank is one
// operation; a rank that arrives before the last one waits (synchronisation) until then, the rest is
// transfer. Clocks are aligned first by each rank's first step start (or trace start).
void splitCollectiveTime(std::vector<RankFigures>& ranks,
                         const std::vector<std::vector<CollectiveInstances>>& instances,
                         const std::vector<TimeNs>& alignment);

struct Straggler {
    std::int64_t rank = -1;
    double excess = 0; // computation per step relative to the median rank, e.g. 0.25 = 25% more
};
// Ranks whose computation per step exceeds the median rank's by more than 5% (the others wait for them).
std::vector<Straggler> findStragglers(const std::vector<RankFigures>& ranks);

// The per-rank JSON block that `kinetoscope-cli summary --json` writes, and its reader, so a job of thousands
// of ranks can be summarised in parallel by any batch system and viewed from the summaries alone.
void writeRankFigures(JsonWriter<std::string>& w, const RankFigures& r);
std::optional<RankFigures> rankFiguresFromSummaryJson(std::string_view summaryJson,
                                                      std::string* error = nullptr);

} // namespace kinetoscope
