#pragma once

#include "analysis/jobs/job.h"

#include <cstdint>
#include <vector>

namespace kinetoscope {

// One collective's calls across the ranks (issue 61 item 10): from a Collectives row to its k-th call in a
// step on every rank, with who arrived when, who came last and what each waited. Computed on demand from a
// JobReport, by analyseJob's own matching: within a step, the k-th run of the collective (name, size and
// process group) on each rank is one call, its arrivals compared by the clock when the ranks share one, else
// each call aligned on its end.
struct CollectiveCallRank {
    std::size_t rank = 0;       // index into JobReport::ranks
    std::uint32_t instance = 0; // index into that rank's instances
    TimeNs arrival = 0;         // relative to the call's first arrival
    TimeNs waited = 0;          // for the last rank to arrive (0 for the last one)
    TimeNs start = 0, end = 0;  // the kernel, on the rank's own clock (its trace's times)
};
struct CollectiveCall {
    std::size_t step = 0;                  // index into JobReport::steps
    std::uint32_t k = 0;                   // its run in the step, from 0
    std::vector<CollectiveCallRank> ranks; // in arrival order
    bool tied = false;                     // two ranks or more arrived last together
    TimeNs othersWaited = 0;               // what the ranks waited in all
    std::size_t lastRank() const { return ranks.empty() ? 0 : ranks.back().rank; }
};

// The calls of JobReport::collectives[collective], by step then k.
std::vector<CollectiveCall> collectiveCalls(const JobReport& job, std::size_t collective);

} // namespace kinetoscope
