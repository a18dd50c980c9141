#include "analysis/jobs/collectivecalls.h"

#include <algorithm>
#include <map>
#include <optional>
#include <tuple>

namespace kinetoscope {

std::vector<CollectiveCall> collectiveCalls(const JobReport& job, std::size_t collective) {
    if (collective >= job.collectives.size()) return {};
    const CollectiveSpread& wanted = job.collectives[collective];
    std::map<std::string, std::size_t> stepIds;
    for (std::size_t s = 0; s < job.steps.size(); ++s)
        stepIds.emplace(job.steps[s].name, s);
    std::map<std::pair<std::size_t, std::uint32_t>, CollectiveCall> calls; // (step, k)
    for (std::size_t r = 0; r < job.ranks.size(); ++r) {
        const RankFigures& rank = job.ranks[r];
        // This rank's index of the collective, if it ran it.
        std::optional<std::uint32_t> mine;
        for (std::uint32_t c = 0; c < rank.collectives.size(); ++c)
            if (rank.collectives[c].name == wanted.name &&
                rank.collectives[c].messageBytes == wanted.messageBytes &&
                rank.collectives[c].group == wanted.group)
                mine = c;
        if (!mine) continue;
        std::map<std::uint32_t, std::uint32_t> runs; // per step of the rank: runs so far
        for (std::uint32_t i = 0; i < rank.instances.size(); ++i) {
            const CollectiveInstance& in = rank.instances[i];
            if (in.collective != *mine || in.step >= rank.steps.size()) continue;
            const auto step = stepIds.find(rank.steps[in.step].name);
            if (step == stepIds.end()) continue;
            const std::uint32_t k = runs[in.step]++;
            CollectiveCall& call = calls[{step->second, k}];
            call.step = step->second;
            call.k = k;
            const TimeNs base = rank.steps[in.step].start;
            const TimeNs start = base + in.start, end = base + in.end;
            // analyseJob's arrival: the start by the shared clock, else the start less the end.
            call.ranks.push_back({r, i, job.sharedClock ? start : start - end, 0, start, end});
        }
    }
    std::vector<CollectiveCall> out;
    for (auto& [key, call] : calls) {
        std::stable_sort(
            call.ranks.begin(), call.ranks.end(),
            [](const CollectiveCallRank& a, const CollectiveCallRank& b) { return a.arrival < b.arrival; });
        const TimeNs first = call.ranks.front().arrival, latest = call.ranks.back().arrival;
        call.tied = call.ranks.size() >= 2 && call.ranks[call.ranks.size() - 2].arrival == latest;
        for (CollectiveCallRank& r : call.ranks) {
            r.waited = std::clamp<TimeNs>(latest - r.arrival, 0, std::max<TimeNs>(0, r.end - r.start));
            call.othersWaited += r.waited;
            r.arrival -= first;
        }
        out.push_back(std::move(call));
    }
    return out;
}

} // namespace kinetoscope
