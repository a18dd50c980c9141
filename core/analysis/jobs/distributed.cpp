#include "analysis/jobs/distributed.h"

#include "analysis/gpu/intervals.h"
#include "analysis/ops/steps.h"
#include "analysis/overview/overview.h"
#include "analysis/report/summaryformat.h"
#include "model/argscan.h"
#include "model/textformat.h"

#include <algorithm>
#include <cstdio>
#include <map>

namespace kinetoscope {

namespace {
bool isCommunicationKernel(const TraceStore& store, const Track& t, std::uint32_t r) {
    const CategoryKind kind = store.categories()[t.categories[r]].kind;
    if (kind == CategoryKind::Collective) return true;
    return kind == CategoryKind::Kernel && isCommunicationName(store.strings().view(t.names[r]));
}

// "ncclKernel_AllReduce_RING_LL_Sum_float(ncclWorkElem)" -> "AllReduce"; "ncclDevKernel_SendRecv(...)" ->
// "SendRecv".
std::string collectiveName(std::string_view kernel, std::string_view args) {
    if (const auto n = argString(args, "Collective name"); n && !n->empty()) return std::string(*n);
    for (std::string_view prefix : {"ncclDevKernel_", "ncclKernel_", "rcclKernel_"}) {
        const auto p = kernel.find(prefix);
        if (p == std::string_view::npos) continue;
        const std::string_view rest = kernel.substr(p + prefix.size());
        return std::string(rest.substr(0, rest.find_first_of("_(<")));
    }
    return std::string(kernel.substr(0, kernel.find('(')));
}

double elementSize(std::string_view dtype) {
    const std::string d = asciiLower(dtype);
    if (d.find("double") != std::string::npos || d.find("long") != std::string::npos ||
        d.find("64") != std::string::npos)
        return 8;
    if (d.find("half") != std::string::npos || d.find("bfloat16") != std::string::npos ||
        d.find("16") != std::string::npos)
        return 2;
    if (d.find("char") != std::string::npos || d.find("byte") != std::string::npos ||
        d.find("bool") != std::string::npos || d.find("8") != std::string::npos)
        return 1;
    return 4;
}

bool isAllGather(std::string_view collective) {
    std::string n;
    for (char c : collective)
        if (c != '_') n += char(std::tolower(static_cast<unsigned char>(c)));
    return n.find("allgather") != std::string::npos;
}

// The size nccl-tests and TraceLens give a collective ("Full msg size"): an all-gather's whole gathered
// output ("Out msg nelems", every rank's part), the input of any other.
std::optional<double> messageBytesInArgs(std::string_view args, bool allGather) {
    const auto n = argNumber(args, allGather ? "Out msg nelems" : "In msg nelems");
    if (!n) return std::nullopt;
    return *n * elementSize(argString(args, "dtype").value_or("float"));
}

// A collective's message size: on the kernel (newer Kineto), else on the `record_param_comms` operator that
// launched it, which is where older traces write it.
std::optional<double> messageBytes(const TraceStore& store, EventRef kernel, bool allGather) {
    if (const auto bytes = messageBytesInArgs(store.argsText(kernel), allGather)) return bytes;
    if (const auto launch = store.launchOf(kernel)) {
        const Track& t = store.track(launch->track);
        for (auto p = t.parentOf(launch->index.value); p; p = t.parentOf(*p))
            if (const auto bytes =
                    messageBytesInArgs(store.argsText({launch->track, EventIndex(*p)}), allGather))
                return bytes;
    }
    return std::nullopt;
}
} // namespace

std::vector<CollectiveInstances> collectiveInstances(const TraceStore& store) {
    std::map<std::string, std::vector<std::pair<TimeNs, TimeNs>>> byName;
    for (std::uint32_t ti = 0; ti < store.tracks().size(); ++ti) {
        const Track& t = store.tracks()[ti];
        if (t.kind != TrackKind::GpuStream) continue;
        for (std::uint32_t r = 0; r < t.sliceCount(); ++r) {
            if (!isCommunicationKernel(store, t, r)) continue;
            byName[collectiveName(store.strings().view(t.names[r]),
                                  store.argsText({TrackId(ti), EventIndex(r)}))]
                .emplace_back(t.starts[r], t.endOf(r));
        }
    }
    std::vector<CollectiveInstances> out;
    for (auto& [name, times] : byName) {
        std::sort(times.begin(), times.end());
        out.push_back({name, std::move(times)});
    }
    return out;
}

RankFigures rankFigures(const TraceStore& store) {
    RankFigures f;
    f.rank = store.metadata().rank.value_or(-1);
    f.worldSize = store.metadata().worldSize.value_or(0);
    f.source = store.sourcePath();
    std::vector<IntervalSet> computeRuns, commRuns;
    std::map<std::string, CollectiveStats> collectives;
    for (std::uint32_t ti = 0; ti < store.tracks().size(); ++ti) {
        const Track& t = store.tracks()[ti];
        if (t.kind != TrackKind::GpuStream) continue;
        for (std::uint32_t d = 0; d < t.laneCount(); ++d) {
            IntervalSet compute, comm;
            for (std::uint32_t r = t.laneBegin[d]; r < t.laneBegin[d + 1]; ++r) {
                const CategoryKind kind = store.categories()[t.categories[r]].kind;
                if (isCommunicationKernel(store, t, r)) {
                    comm.emplace_back(t.starts[r], t.endOf(r));
                    const std::string_view args = store.argsText({TrackId(ti), EventIndex(r)});
                    const std::string name = collectiveName(store.strings().view(t.names[r]), args);
                    CollectiveStats& c = collectives[name];
                    ++c.calls;
                    c.total += t.durations[r];
                    if (const auto bytes =
                            messageBytes(store, {TrackId(ti), EventIndex(r)}, isAllGather(name)))
                        c.bytes += *bytes;
                } else if (kind == CategoryKind::Kernel) {
                    compute.emplace_back(t.starts[r], t.endOf(r));
                }
            }
            if (!compute.empty()) computeRuns.push_back(std::move(compute));
            if (!comm.empty()) commRuns.push_back(std::move(comm));
        }
    }
    const IntervalSet compute = unionOfRuns(computeRuns);
    const IntervalSet comm = unionOfRuns(commRuns);
    const IntervalSet overlap = intersect(compute, comm);
    const IntervalSet busy = unionOf(compute, comm);
    std::vector<StepRange> steps = findSteps(store);
    if (steps.empty()) {
        steps.push_back(activityStep(store, store.minTime(), store.maxTime()));
    }
    TimeNs span = 0;
    for (const StepRange& s : steps) {
        RankStep rs;
        rs.name = stepLabel(store, s);
        rs.start = s.start;
        rs.end = s.end;
        rs.overlap = lengthWithin(overlap, s.start, s.end);
        rs.computation = lengthWithin(compute, s.start, s.end) - rs.overlap;
        rs.communication = lengthWithin(comm, s.start, s.end) - rs.overlap;
        rs.other = (s.end - s.start) - lengthWithin(busy, s.start, s.end);
        f.computation += rs.computation;
        f.communication += rs.communication;
        f.overlap += rs.overlap;
        f.other += rs.other;
        span += s.end - s.start;
        f.steps.push_back(std::move(rs));
    }
    f.stepMean = f.steps.empty() ? 0 : span / TimeNs(f.steps.size());
    for (auto& [name, c] : collectives) {
        c.name = name;
        c.transfer = c.total;
        f.collectives.push_back(c);
    }
    std::sort(f.collectives.begin(), f.collectives.end(),
              [](const CollectiveStats& a, const CollectiveStats& b) {
                  return a.total != b.total ? a.total > b.total : a.name < b.name;
              });
    return f;
}

void splitCollectiveTime(std::vector<RankFigures>& ranks,
                         const std::vector<std::vector<CollectiveInstances>>& instances,
                         const std::vector<TimeNs>& alignment) {
    std::map<std::string, std::vector<const CollectiveInstances*>> byName; // name -> per rank
    for (std::size_t r = 0; r < instances.size(); ++r) {
        for (const CollectiveInstances& c : instances[r]) {
            auto& v = byName[c.name];
            v.resize(instances.size(), nullptr);
            v[r] = &c;
        }
    }
    for (auto& [name, perRank] : byName) {
        std::size_t common = SIZE_MAX;
        for (const CollectiveInstances* c : perRank)
            common = std::min(common, c ? c->times.size() : 0);
        if (common == 0 || common == SIZE_MAX) continue;
        std::vector<TimeNs> sync(perRank.size(), 0);
        for (std::size_t k = 0; k < common; ++k) {
            TimeNs latest = INT64_MIN;
            for (std::size_t r = 0; r < perRank.size(); ++r)
                latest = std::max(latest, perRank[r]->times[k].first - alignment[r]);
            for (std::size_t r = 0; r < perRank.size(); ++r) {
                const auto [s, e] = perRank[r]->times[k];
                sync[r] += std::clamp<TimeNs>(latest - (s - alignment[r]), 0, e - s);
            }
        }
        for (std::size_t r = 0; r < ranks.size() && r < perRank.size(); ++r) {
            for (CollectiveStats& c : ranks[r].collectives) {
                if (c.name != name) continue;
                c.synchronization = sync[r];
                c.transfer = c.total - sync[r];
            }
        }
    }
}

std::vector<Straggler> findStragglers(const std::vector<RankFigures>& ranks) {
    std::vector<Straggler> out;
    if (ranks.size() < 2) return out;
    std::vector<double> perStep;
    for (const RankFigures& r : ranks)
        perStep.push_back(r.steps.empty() ? 0 : double(r.computation) / double(r.steps.size()));
    std::vector<double> sorted = perStep;
    std::sort(sorted.begin(), sorted.end());
    const double median = sorted.size() % 2 ? sorted[sorted.size() / 2]
                                            : (sorted[sorted.size() / 2 - 1] + sorted[sorted.size() / 2]) / 2;
    if (median <= 0) return out;
    for (std::size_t i = 0; i < ranks.size(); ++i) {
        const double excess = perStep[i] / median - 1;
        if (excess > 0.05) out.push_back({ranks[i].rank, excess});
    }
    std::sort(out.begin(), out.end(),
              [](const Straggler& a, const Straggler& b) { return a.excess > b.excess; });
    return out;
}

} // namespace kinetoscope
