#pragma once

// A distributed job from its ranks' figures (rank files, summaries or traces, read by open/rankinput.h): how
// steps spread across ranks, which (rank, step) straggle and who waits for them, each collective's spread and
// who arrives last, and each rank's communication split into data transfer and synchronising. Built for 1 to
// 10,000+ ranks: everything is a pass over the ranks' instances, nothing is quadratic in ranks.

#include "analysis/jobs/distributed.h"

#include <string>
#include <vector>

namespace kinetoscope {

struct Spread {
    TimeNs min = 0, median = 0, p90 = 0, max = 0;
};
// Nearest-rank quantiles of `values` (reordered); all zero when empty.
Spread spreadOf(std::vector<TimeNs>& values);

struct UnreadableFile {
    std::string path;
    std::string error; // one line
};

struct StepDistribution {
    std::string name;
    std::size_t ranks = 0; // ranks that have this step
    Spread stepTime, computation, communication;
    std::size_t medianRank = 0;  // index into JobReport::ranks: the rank whose computation is the median
    std::size_t slowestRank = 0; // index into JobReport::ranks: the rank whose step time is stepTime.max
    bool slowestTied = false;    // two ranks or more have that time: no rank is the slowest
};

struct Victim {
    std::size_t rank = 0; // index into JobReport::ranks
    TimeNs waited = 0;    // synchronising in the step's collectives
};

// A (rank, step) the others wait for. Either its computation exceeds the step's median rank's by more than
// 5% (the others wait about `excess` for it in the next collective), or it arrives last at a quarter or more
// of the step's collectives while waiting less than the median rank itself, each other rank waiting
// stragglerMinimumLateness or more for it there on average (a rank 49 µs late is no straggler), whatever its
// computation. Those the others wait for are listed first, by the time the others waited for them.
struct StragglerRow {
    std::size_t rank = 0; // index into JobReport::ranks
    std::string step;
    TimeNs computation = 0, medianComputation = 0, excess = 0;
    std::vector<Victim> victims;  // the ranks that waited longest in this step's collectives, longest first
    std::size_t waitingRanks = 0; // all the other ranks that waited in this step's collectives
    // Arrivals: how many of the step's collectives (those two ranks or more ran, no tie for last) it reached
    // last, the median wait of the others in the step, and its own.
    bool arrivesLast = false;
    std::uint64_t lastArrivals = 0, operations = 0;
    TimeNs othersWaited = 0, waited = 0;
    TimeNs othersWaitedFor = 0; // what the other ranks waited in the collectives it reached last, in all
    // What the trace shows as the cause, said plainly: more computation, its GPU idle before the collectives,
    // late launches on its host (docs/DEFINITIONS.md, "Stragglers").
    std::vector<std::string> causes;
};

inline constexpr TimeNs stragglerMinimumLateness = 100'000; // 100 µs

struct LastArrival {
    std::size_t rank = 0;    // index into JobReport::ranks
    std::uint64_t times = 0; // instances in which it arrived last
};

struct CollectiveSpread {
    std::string name;
    double messageBytes = 0;
    std::string group;                     // the process group's ranks, when the traces say
    std::size_t ranks = 0;                 // ranks that ran it
    std::uint64_t callsPerRank = 0;        // the most on any rank
    Spread total;                          // per rank, total time in it
    Spread synchronization;                // per rank, waiting for the last to arrive
    std::uint64_t compared = 0;            // instances run by two ranks or more
    std::vector<LastArrival> lastToArrive; // most often last, at most 3
};

struct RankCommunication {
    TimeNs total = 0, transfer = 0, synchronization = 0;
};

struct HostGroup {
    std::string host;
    std::vector<std::size_t> ranks; // indices into JobReport::ranks
};

struct JobReport {
    std::vector<RankFigures> ranks;      // by rank number, unknown ranks last; collectives' split filled
    std::vector<std::size_t> inputIndex; // where each of `ranks` was in analyseJob's input
    std::vector<UnreadableFile> unreadable;
    std::vector<std::string> problems; // ranks claimed twice, world sizes that disagree, ranks missing
    std::int64_t worldSize = 0;        // when every rank that says agrees
    std::vector<StepDistribution> steps;
    std::vector<StragglerRow> stragglers;         // worst first
    std::vector<CollectiveSpread> collectives;    // by median total, descending
    std::vector<RankCommunication> communication; // per rank, as `ranks`
    std::vector<HostGroup> hosts;                 // by name; empty when no file name said
    std::uint64_t instancesDropped = 0;           // over all ranks (their rank files' budget)
    // How arrivals were compared: by the traces' clock when the collectives' kernels end together by it (the
    // median spread of their ends within sharedClockTolerance), else each call aligned on its end.
    bool sharedClock = false;
    TimeNs collectiveEndSpread = 0; // the median, over the operations two ranks or more ran
};

// Kernels of one collective end within tens of µs of each other on ranks that share a clock; clocks of hosts
// apart differ by milliseconds or more.
inline constexpr TimeNs sharedClockTolerance = 1'000'000;

// One rank's row of the job report (`"per_rank"`, the job view's Per rank tab).
struct JobRankRow {
    std::string name; // "rank 3", or "rank ? (file)"
    EventRef example; // none: a row of many traces jumps nowhere
    std::int64_t rank = -1;
    std::string host, file;
    std::size_t steps = 0;
    TimeNs stepMean = 0, computation = 0, communication = 0, overlap = 0, other = 0;
    TimeNs collectives = 0, transfer = 0, synchronization = 0;
    std::vector<std::string> notes;
};
std::vector<JobRankRow> jobRankRows(const JobReport& job);

// Steps match by name across ranks; within a step, the k-th run of a collective (name, size and process
// group) on each rank is one operation, its arrivals compared by the traces' clock when the ranks share one,
// else with each call aligned on its end (JobReport::sharedClock).
JobReport analyseJob(std::vector<RankFigures> ranks, std::vector<UnreadableFile> unreadable = {});

// "rank 3", or "rank ? (file name)" when the file did not say.
std::string rankLabel(const RankFigures& r);

} // namespace kinetoscope
