#include "analysis/jobs/job.h"

#include "model/timeconv.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>
#include <unordered_map>

namespace kinetoscope {

Spread spreadOf(std::vector<TimeNs>& values) {
    Spread s;
    if (values.empty()) return s;
    std::sort(values.begin(), values.end());
    const auto nearestRank = [&](double q) {
        const std::size_t n = values.size();
        const std::size_t k = std::size_t(std::max(1.0, std::ceil(q * double(n))));
        return values[std::min(n, k) - 1];
    };
    s.min = values.front();
    s.median = nearestRank(0.5);
    s.p90 = nearestRank(0.9);
    s.max = values.back();
    return s;
}

std::string rankLabel(const RankFigures& r) {
    if (r.rank >= 0) return "rank " + std::to_string(r.rank);
    return "rank ? (" + r.source.substr(r.source.find_last_of('/') + 1) + ")";
}

namespace {

void findProblems(JobReport& job) {
    std::map<std::int64_t, std::vector<std::size_t>> byRank;
    std::map<std::int64_t, std::size_t> worldSizes;
    for (std::size_t i = 0; i < job.ranks.size(); ++i) {
        if (job.ranks[i].rank >= 0) byRank[job.ranks[i].rank].push_back(i);
        if (job.ranks[i].worldSize > 0) ++worldSizes[job.ranks[i].worldSize];
    }
    std::size_t claimedTwice = 0;
    for (const auto& [rank, files] : byRank) {
        if (files.size() < 2) continue;
        // A folder holding both the traces and their rank files claims every rank twice: ten lines say it.
        if (++claimedTwice > 10) continue;
        std::string names;
        for (std::size_t f = 0; f < files.size() && f < 4; ++f)
            names += (f ? ", " : "") + job.ranks[files[f]].source;
        if (files.size() > 4) names += ", …";
        job.problems.push_back("rank " + std::to_string(rank) + " is claimed by " +
                               std::to_string(files.size()) + " files: " + names);
    }
    if (claimedTwice > 10)
        job.problems.push_back("… and " + std::to_string(claimedTwice - 10) +
                               " more ranks claimed by two files or more");
    if (worldSizes.size() > 1) {
        std::string sizes;
        for (const auto& [size, files] : worldSizes)
            sizes += (sizes.empty() ? "" : ", ") + std::to_string(size) + " in " + std::to_string(files) +
                     " files";
        job.problems.push_back("the ranks disagree on the world size: " + sizes);
    } else if (worldSizes.size() == 1) {
        job.worldSize = worldSizes.begin()->first;
        // The ranks not here, from the gaps between those that are (a file may claim any world size: the work
        // follows the files, not the number).
        std::uint64_t missingCount = 0;
        std::vector<std::pair<std::int64_t, std::int64_t>> gaps; // [first, last]
        std::int64_t expected = 0;
        const auto gap = [&](std::int64_t first, std::int64_t last) {
            if (first > last) return;
            missingCount += std::uint64_t(last - first) + 1;
            gaps.emplace_back(first, last);
        };
        for (const auto& [rank, files] : byRank) {
            if (rank >= job.worldSize) break;
            gap(expected, rank - 1);
            expected = rank + 1;
        }
        gap(expected, job.worldSize - 1);
        if (missingCount > 0 && missingCount < std::uint64_t(job.worldSize)) {
            std::string text;
            for (std::size_t g = 0; g < gaps.size() && g < 12; ++g)
                text +=
                    (g ? ", " : "") + std::to_string(gaps[g].first) +
                    (gaps[g].second > gaps[g].first ? "-" + std::to_string(gaps[g].second) : std::string());
            if (gaps.size() > 12) text += ", …";
            job.problems.push_back(std::to_string(missingCount) + " of the world's " +
                                   std::to_string(job.worldSize) + " ranks are not here: " + text);
        }
        std::vector<std::int64_t> outside;
        for (const auto& [rank, files] : byRank)
            if (rank >= job.worldSize) outside.push_back(rank);
        if (!outside.empty())
            job.problems.push_back("ranks beyond the world size of " + std::to_string(job.worldSize) + ": " +
                                   rangesText(outside, 12));
    }
    std::size_t unknown = 0;
    for (const RankFigures& r : job.ranks)
        unknown += r.rank < 0;
    if (unknown)
        job.problems.push_back(
            std::to_string(unknown) +
            " files do not say their rank (no distributedInfo); they are listed by file name");
}

} // namespace

JobReport analyseJob(std::vector<RankFigures> ranks, std::vector<UnreadableFile> unreadable) {
    JobReport job;
    job.inputIndex.resize(ranks.size());
    for (std::size_t i = 0; i < ranks.size(); ++i)
        job.inputIndex[i] = i;
    std::stable_sort(job.inputIndex.begin(), job.inputIndex.end(), [&](std::size_t x, std::size_t y) {
        const RankFigures &a = ranks[x], &b = ranks[y];
        if ((a.rank < 0) != (b.rank < 0)) return b.rank < 0;
        return a.rank != b.rank ? a.rank < b.rank : a.source < b.source;
    });
    job.ranks.reserve(ranks.size());
    for (std::size_t i : job.inputIndex)
        job.ranks.push_back(std::move(ranks[i]));
    job.unreadable = std::move(unreadable);
    findProblems(job);
    const std::size_t n = job.ranks.size();

    // Steps by name, in the order the ranks list them.
    std::unordered_map<std::string, std::uint32_t> stepIds;
    std::vector<std::vector<std::uint32_t>> stepOf(n); // rank's step index -> job step id
    for (std::size_t r = 0; r < n; ++r)
        for (const RankStep& s : job.ranks[r].steps) {
            const auto [it, added] = stepIds.try_emplace(s.name, std::uint32_t(job.steps.size()));
            if (added) {
                job.steps.emplace_back();
                job.steps.back().name = s.name;
            }
            stepOf[r].push_back(it->second);
        }
    const std::size_t stepCount = job.steps.size();
    std::vector<std::vector<std::pair<std::size_t, TimeNs>>> computationByStep(
        stepCount);                                                                 // (rank, computation)
    std::vector<std::vector<std::pair<std::size_t, TimeNs>>> idleByStep(stepCount); // (rank, GPU idle: other)
    {
        std::vector<std::vector<TimeNs>> time(stepCount), computation(stepCount), communication(stepCount);
        std::vector<TimeNs> slowest(stepCount, 0);
        for (std::size_t r = 0; r < n; ++r)
            for (std::size_t i = 0; i < job.ranks[r].steps.size(); ++i) {
                const RankStep& s = job.ranks[r].steps[i];
                const std::uint32_t id = stepOf[r][i];
                // The slowest rank of the step, the first of equals.
                if (time[id].empty() || s.end - s.start > slowest[id]) {
                    slowest[id] = s.end - s.start;
                    job.steps[id].slowestRank = r;
                    job.steps[id].slowestTied = false;
                } else if (s.end - s.start == slowest[id]) {
                    job.steps[id].slowestTied = true;
                }
                time[id].push_back(s.end - s.start);
                computation[id].push_back(s.computation);
                communication[id].push_back(s.communication);
                computationByStep[id].emplace_back(r, s.computation);
                idleByStep[id].emplace_back(r, s.other);
            }
        for (std::size_t id = 0; id < stepCount; ++id) {
            job.steps[id].ranks = time[id].size();
            job.steps[id].stepTime = spreadOf(time[id]);
            job.steps[id].computation = spreadOf(computation[id]);
            job.steps[id].communication = spreadOf(communication[id]);
        }
    }

    // Collectives by (name, size).
    std::map<std::tuple<std::string, double, std::string>, std::uint32_t> collectiveIds;
    std::vector<std::vector<std::uint32_t>> collectiveOf(n);
    for (std::size_t r = 0; r < n; ++r)
        for (const CollectiveStats& c : job.ranks[r].collectives) {
            const auto [it, added] = collectiveIds.try_emplace({c.name, c.messageBytes, c.group},
                                                               std::uint32_t(job.collectives.size()));
            if (added) {
                job.collectives.emplace_back();
                job.collectives.back().name = c.name;
                job.collectives.back().messageBytes = c.messageBytes;
                job.collectives.back().group = c.group;
            }
            collectiveOf[r].push_back(it->second);
        }

    // One operation = (step, collective, k-th run of it in the step on each rank). First the latest arrival
    // of each, then what each rank waited for it.
    //
    // Arrivals are compared by the clock when the ranks share one, else each call aligned on its end. A
    // collective's kernels end together on every rank (each waits for the last to arrive, then they transfer
    // together: a Megatron TP=8 job's all-reduces end within 49 µs on all eight), so when the ends agree by
    // the traces' clocks the clocks are one (ranks of one host, or synchronised hosts) and a start on that
    // clock is the arrival. Comparing from each rank's step start instead misreads ranks whose steps start
    // apart (up to 30.5 ms in that job): the rank that starts its step last looks early. When the ends
    // disagree (hosts' clocks apart), each call is aligned on its end: the arrival is its start less its end,
    // and the rank whose kernel is shortest came last.
    struct Operation {
        TimeNs latest = INT64_MIN;
        std::size_t lastRank = 0;
        std::uint32_t ranks = 0;
        std::uint32_t step = 0; // the job's step id
        bool tied = false;      // two ranks or more arrived last together: nobody was last
        TimeNs firstEnd = INT64_MAX, lastEnd = INT64_MIN;
    };
    std::unordered_map<std::uint64_t, std::uint32_t> pairIds;      // (step, collective) -> a dense id
    std::unordered_map<std::uint64_t, std::uint32_t> operationIds; // (pair id, run) -> operation
    std::vector<Operation> operations;
    std::vector<std::vector<std::uint32_t>> operationOf(n);
    const auto startOf = [&](std::size_t r, const CollectiveInstance& c) {
        return job.ranks[r].steps[c.step].start + c.start;
    };
    const auto endOf = [&](std::size_t r, const CollectiveInstance& c) {
        return job.ranks[r].steps[c.step].start + c.end;
    };
    for (std::size_t r = 0; r < n; ++r) {
        const RankFigures& rank = job.ranks[r];
        job.instancesDropped += rank.instancesDropped;
        std::unordered_map<std::uint64_t, std::uint32_t> seen; // (step, collective) -> runs so far
        operationOf[r].reserve(rank.instances.size());
        for (const CollectiveInstance& c : rank.instances) {
            const std::uint64_t step = stepOf[r][c.step], coll = collectiveOf[r][c.collective];
            const std::uint64_t pair = step << 32 | coll;
            const std::uint64_t k = seen[pair]++;
            const std::uint64_t dense =
                pairIds.try_emplace(pair, std::uint32_t(pairIds.size())).first->second;
            const std::uint64_t key = dense << 32 | (k & 0xFFFFFFFF);
            const auto [it, added] = operationIds.try_emplace(key, std::uint32_t(operations.size()));
            if (added) operations.emplace_back().step = std::uint32_t(step);
            Operation& op = operations[it->second];
            ++op.ranks;
            op.firstEnd = std::min(op.firstEnd, endOf(r, c));
            op.lastEnd = std::max(op.lastEnd, endOf(r, c));
            operationOf[r].push_back(it->second);
        }
    }
    {
        std::vector<TimeNs> endSpreads;
        for (const Operation& op : operations)
            if (op.ranks >= 2) endSpreads.push_back(op.lastEnd - op.firstEnd);
        if (!endSpreads.empty()) {
            job.collectiveEndSpread = spreadOf(endSpreads).median;
            job.sharedClock = job.collectiveEndSpread <= sharedClockTolerance;
        }
    }
    const auto arrivalOf = [&](std::size_t r, const CollectiveInstance& c) {
        return job.sharedClock ? startOf(r, c) : startOf(r, c) - endOf(r, c);
    };
    for (std::size_t r = 0; r < n; ++r)
        for (std::size_t i = 0; i < job.ranks[r].instances.size(); ++i) {
            Operation& op = operations[operationOf[r][i]];
            const TimeNs arrival = arrivalOf(r, job.ranks[r].instances[i]);
            if (arrival > op.latest) {
                op.latest = arrival;
                op.lastRank = r;
                op.tied = false;
            } else if (arrival == op.latest) {
                op.tied = true;
            }
        }
    std::vector<std::vector<TimeNs>> waitedInStep(n);
    std::vector<TimeNs> waitedForOperation(operations.size(), 0); // the others' waits for its last rank
    std::vector<std::vector<TimeNs>> syncByCollective(job.collectives.size());
    std::vector<std::vector<TimeNs>> totalByCollective(job.collectives.size());
    std::vector<std::map<std::size_t, std::uint64_t>> lastCounts(job.collectives.size());
    job.communication.resize(n);
    for (std::size_t r = 0; r < n; ++r) {
        RankFigures& rank = job.ranks[r];
        waitedInStep[r].assign(stepCount, 0);
        std::vector<TimeNs> sync(rank.collectives.size(), 0);
        for (std::size_t i = 0; i < rank.instances.size(); ++i) {
            const CollectiveInstance& c = rank.instances[i];
            const Operation& op = operations[operationOf[r][i]];
            if (op.ranks < 2) continue;
            const TimeNs waited =
                std::clamp<TimeNs>(op.latest - arrivalOf(r, c), 0, std::max<TimeNs>(0, c.end - c.start));
            sync[c.collective] += waited;
            waitedInStep[r][stepOf[r][c.step]] += waited;
            if (!op.tied && op.lastRank != r) waitedForOperation[operationOf[r][i]] += waited;
        }
        RankCommunication& comm = job.communication[r];
        for (std::size_t c = 0; c < rank.collectives.size(); ++c) {
            CollectiveStats& stats = rank.collectives[c];
            stats.synchronization = std::min(sync[c], stats.total);
            stats.transfer = stats.total - stats.synchronization;
            comm.total += stats.total;
            comm.synchronization += stats.synchronization;
            const std::uint32_t id = collectiveOf[r][c];
            syncByCollective[id].push_back(stats.synchronization);
            totalByCollective[id].push_back(stats.total);
            CollectiveSpread& spread = job.collectives[id];
            ++spread.ranks;
            spread.callsPerRank = std::max(spread.callsPerRank, stats.calls);
        }
        comm.transfer = comm.total - comm.synchronization;
    }
    for (std::size_t r = 0; r < n; ++r)
        for (std::size_t i = 0; i < job.ranks[r].instances.size(); ++i) {
            const Operation& op = operations[operationOf[r][i]];
            if (op.ranks < 2 || op.tied || op.lastRank != r) continue;
            const std::uint32_t id = collectiveOf[r][job.ranks[r].instances[i].collective];
            ++lastCounts[id][r];
        }
    for (std::size_t id = 0; id < job.collectives.size(); ++id) {
        CollectiveSpread& spread = job.collectives[id];
        spread.total = spreadOf(totalByCollective[id]);
        spread.synchronization = spreadOf(syncByCollective[id]);
        for (const auto& [rank, times] : lastCounts[id]) {
            spread.compared += times;
            spread.lastToArrive.push_back({rank, times});
        }
        std::sort(spread.lastToArrive.begin(), spread.lastToArrive.end(),
                  [](const LastArrival& a, const LastArrival& b) {
                      return a.times != b.times ? a.times > b.times : a.rank < b.rank;
                  });
        if (spread.lastToArrive.size() > 3) spread.lastToArrive.resize(3);
    }
    std::stable_sort(
        job.collectives.begin(), job.collectives.end(),
        [](const CollectiveSpread& a, const CollectiveSpread& b) { return a.total.median > b.total.median; });

    // Last arrivals per (rank, step), and the operations compared in each step.
    std::unordered_map<std::uint64_t, std::uint64_t>
        lastInStep;                                            // rank << 32 | step -> operations reached last
    std::unordered_map<std::uint64_t, TimeNs> waitedForInStep; // rank << 32 | step -> the others' waits
    std::vector<std::uint64_t> comparedInStep(stepCount, 0);
    for (std::uint32_t o = 0; o < operations.size(); ++o) {
        const Operation& op = operations[o];
        if (op.ranks < 2 || op.tied) continue;
        ++comparedInStep[op.step];
        ++lastInStep[std::uint64_t(op.lastRank) << 32 | op.step];
        waitedForInStep[std::uint64_t(op.lastRank) << 32 | op.step] += waitedForOperation[o];
    }

    // Stragglers: every (rank, step) over the step's median computation by more than 5%, and every one the
    // others wait for.
    for (std::size_t id = 0; id < stepCount; ++id) {
        std::vector<TimeNs> values;
        for (const auto& [r, computation] : computationByStep[id])
            values.push_back(computation);
        const TimeNs median = spreadOf(values).median;
        for (const auto& [r, computation] : computationByStep[id])
            if (computation == median) {
                job.steps[id].medianRank = r;
                break;
            }
        if (median <= 0) continue;
        std::vector<Victim> waiting; // this step's longest waits, shared by its stragglers
        for (std::size_t r = 0; r < n; ++r)
            if (waitedInStep[r][id] > 0) waiting.push_back({r, waitedInStep[r][id]});
        std::sort(waiting.begin(), waiting.end(), [](const Victim& a, const Victim& b) {
            return a.waited != b.waited ? a.waited > b.waited : a.rank < b.rank;
        });
        std::vector<TimeNs> waits;
        for (const auto& [r, computation] : computationByStep[id])
            waits.push_back(waitedInStep[r][id]);
        const TimeNs medianWait = spreadOf(waits).median;
        for (const auto& [r, computation] : computationByStep[id]) {
            const bool computes = double(computation) > 1.05 * double(median);
            const std::uint64_t key = std::uint64_t(r) << 32 | id;
            const auto last = lastInStep.find(key);
            const std::uint64_t lastCount = last == lastInStep.end() ? 0 : last->second;
            const auto waitedFor = waitedForInStep.find(key);
            const TimeNs othersWaitedFor = waitedFor == waitedForInStep.end() ? 0 : waitedFor->second;
            // Last at a quarter of the step's collectives or more, waiting less than the median rank, and
            // late enough to matter (each other rank waited stragglerMinimumLateness for it on average in
            // those): one the others wait for, whatever its computation. (A Megatron TP=8 job has two: rank
            // 0, last at 32 of 84 all-reduces, and rank 6 at 28; rank 3, last at 15, is not one.)
            const std::size_t otherRanks =
                computationByStep[id].size() > 1 ? computationByStep[id].size() - 1 : 1;
            const bool lateEnough =
                lastCount > 0 && othersWaitedFor / TimeNs(lastCount * otherRanks) >= stragglerMinimumLateness;
            const bool arrivesLast = lastCount > 0 && 4 * lastCount >= comparedInStep[id] && medianWait > 0 &&
                                     waitedInStep[r][id] <= medianWait && lateEnough;
            if (!computes && !arrivesLast) continue;
            StragglerRow row;
            row.rank = r;
            row.step = job.steps[id].name;
            row.computation = computation;
            row.medianComputation = median;
            row.excess = std::max<TimeNs>(0, computation - median);
            row.waitingRanks = waiting.size() - (waitedInStep[r][id] > 0 ? 1 : 0);
            for (const Victim& v : waiting) {
                if (row.victims.size() == 3) break;
                if (v.rank != r) row.victims.push_back(v);
            }
            row.arrivesLast = arrivesLast;
            row.lastArrivals = lastCount;
            row.operations = comparedInStep[id];
            row.waited = waitedInStep[r][id];
            std::vector<TimeNs> others;
            for (const auto& [o, computationOfOther] : computationByStep[id])
                if (o != r) others.push_back(waitedInStep[o][id]);
            row.othersWaited = spreadOf(others).median;
            row.othersWaitedFor = othersWaitedFor;
            job.stragglers.push_back(std::move(row));
        }
    }
    // What the trace shows as each straggler's cause. For one that arrives last: by how much it arrives after
    // the others, and whether its launches were that late too (the median over the collectives it reached
    // last, against the median of the other ranks in each).
    {
        std::map<std::pair<std::size_t, std::uint32_t>, std::size_t> rowOf; // (rank, step id) -> row
        for (std::size_t k = 0; k < job.stragglers.size(); ++k)
            rowOf[{job.stragglers[k].rank, stepIds.at(job.stragglers[k].step)}] = k;
        std::unordered_map<std::uint32_t, std::size_t> rowOfOperation;
        for (std::uint32_t o = 0; o < operations.size(); ++o) {
            const Operation& op = operations[o];
            if (op.ranks < 2 || op.tied) continue;
            const auto it = rowOf.find({op.lastRank, op.step});
            if (it != rowOf.end() && job.stragglers[it->second].arrivesLast) rowOfOperation[o] = it->second;
        }
        struct Arrival {
            TimeNs start = 0, issued = 0;
            bool issuedKnown = false;
        };
        std::unordered_map<std::uint32_t, std::vector<Arrival>> others;
        std::unordered_map<std::uint32_t, Arrival> lastOne;
        if (!rowOfOperation.empty())
            for (std::size_t r = 0; r < n; ++r)
                for (std::size_t i = 0; i < job.ranks[r].instances.size(); ++i) {
                    const std::uint32_t o = operationOf[r][i];
                    if (!rowOfOperation.contains(o)) continue;
                    const CollectiveInstance& c = job.ranks[r].instances[i];
                    // (on the arrivals' own basis: the clock, or the call's end)
                    const TimeNs issued = job.ranks[r].steps[c.step].start + c.issued;
                    const Arrival a{arrivalOf(r, c), job.sharedClock ? issued : issued - endOf(r, c),
                                    c.issuedKnown};
                    if (r == operations[o].lastRank)
                        lastOne[o] = a;
                    else
                        others[o].push_back(a);
                }
        std::vector<std::vector<TimeNs>> lateness(job.stragglers.size()),
            launchLateness(job.stragglers.size());
        for (const auto& [o, k] : rowOfOperation) {
            std::vector<TimeNs> starts, launches;
            bool known = lastOne[o].issuedKnown;
            for (const Arrival& a : others[o]) {
                starts.push_back(a.start);
                launches.push_back(a.issued);
                known = known && a.issuedKnown;
            }
            lateness[k].push_back(lastOne[o].start - spreadOf(starts).median);
            if (known) launchLateness[k].push_back(lastOne[o].issued - spreadOf(launches).median);
        }
        for (std::size_t k = 0; k < job.stragglers.size(); ++k) {
            StragglerRow& row = job.stragglers[k];
            const std::uint32_t id = stepIds.at(row.step);
            if (double(row.computation) > 1.05 * double(row.medianComputation))
                row.causes.push_back("more computation: " + formatDuration(row.excess) +
                                     " over the step's median rank");
            std::vector<TimeNs> idle;
            TimeNs own = 0;
            for (const auto& [r, other] : idleByStep[id]) {
                idle.push_back(other);
                if (r == row.rank) own = other;
            }
            const TimeNs late = spreadOf(lateness[k]).median;
            const TimeNs moreIdle = own - spreadOf(idle).median;
            // GPU idle that accounts for a good part of its lateness (or, for a computation straggler, any
            // beyond 5% of the step's computation).
            if (moreIdle > 0 && (row.arrivesLast ? 2 * moreIdle >= late
                                                 : double(moreIdle) > 0.05 * double(row.medianComputation)))
                row.causes.push_back("its GPU idle " + formatDuration(moreIdle) +
                                     " more than the median rank's in the step");
            // What its host did longer than the other ranks' hosts in the step (Megatron's rank 6: a
            // DataLoader
            // __next__ of 27.0 ms against a median of 2.3 ms): the range with the most time over the others'
            // median, 1 ms or more, and at least twice that median.
            {
                const RankStep* own = nullptr;
                std::vector<const RankStep*> othersSteps;
                for (std::size_t r = 0; r < n; ++r)
                    for (std::size_t i = 0; i < job.ranks[r].steps.size(); ++i) {
                        if (stepOf[r][i] != id) continue;
                        if (r == row.rank)
                            own = &job.ranks[r].steps[i];
                        else
                            othersSteps.push_back(&job.ranks[r].steps[i]);
                    }
                std::string worst;
                TimeNs worstTime = 0, worstMedian = 0, worstExcess = 0;
                if (own && !othersSteps.empty())
                    for (const auto& [name, time] : own->hostRanges) {
                        std::vector<TimeNs> times;
                        for (const RankStep* o : othersSteps) {
                            TimeNs t = 0;
                            for (const auto& [otherName, otherTime] : o->hostRanges)
                                if (otherName == name) t = otherTime;
                            times.push_back(t);
                        }
                        const TimeNs median = spreadOf(times).median;
                        const TimeNs excess = time - median;
                        if (excess >= 1'000'000 && time >= 2 * median && excess > worstExcess)
                            worst = name, worstTime = time, worstMedian = median, worstExcess = excess;
                    }
                if (!worst.empty())
                    row.causes.push_back("its host in " + worst + ": " + formatDuration(worstTime) +
                                         " against a median of " + formatDuration(worstMedian) +
                                         " on the other ranks");
            }
            if (!launchLateness[k].empty()) {
                const TimeNs launchLate = spreadOf(launchLateness[k]).median;
                if (launchLate > 0 && 2 * launchLate >= late)
                    row.causes.push_back("late launches on its host: its collectives launched " +
                                         formatDuration(launchLate) + " after the other ranks' (median)");
            }
            if (row.arrivesLast && row.causes.empty())
                row.causes.push_back(
                    "it arrives " + formatDuration(late) +
                    " after the others (median) with no more computation, GPU idle or later "
                    "launch in the trace: look at its host (CPU contention, data loading) and "
                    "its GPU's clocks");
        }
    }
    // The ranks the others wait for first, by the time the others waited for them; then the rest by their
    // excess.
    std::stable_sort(job.stragglers.begin(), job.stragglers.end(),
                     [](const StragglerRow& a, const StragglerRow& b) {
                         if (a.arrivesLast != b.arrivesLast) return a.arrivesLast;
                         if (a.arrivesLast && a.othersWaitedFor != b.othersWaitedFor)
                             return a.othersWaitedFor > b.othersWaitedFor;
                         return a.excess > b.excess;
                     });

    std::map<std::string, std::vector<std::size_t>> hosts;
    for (std::size_t r = 0; r < n; ++r)
        if (!job.ranks[r].host.empty()) hosts[job.ranks[r].host].push_back(r);
    for (auto& [host, members] : hosts)
        job.hosts.push_back({host, std::move(members)});
    return job;
}

std::vector<JobRankRow> jobRankRows(const JobReport& job) {
    std::vector<JobRankRow> rows;
    rows.reserve(job.ranks.size());
    for (std::size_t i = 0; i < job.ranks.size(); ++i) {
        const RankFigures& r = job.ranks[i];
        const RankCommunication& c = job.communication[i];
        JobRankRow row;
        row.name = rankLabel(r);
        row.rank = r.rank;
        row.host = r.host;
        row.file = r.source;
        row.steps = r.steps.size();
        row.stepMean = r.stepMean;
        row.computation = r.computation;
        row.communication = r.communication;
        row.overlap = r.overlap;
        row.other = r.other;
        row.collectives = c.total;
        row.transfer = c.transfer;
        row.synchronization = c.synchronization;
        row.notes = r.notes;
        rows.push_back(std::move(row));
    }
    return rows;
}

} // namespace kinetoscope
