#include "analysis/report/jobformat.h"

#include "analysis/report/sections.h"
#include "model/jsonwriter.h"
#include "model/textformat.h"
#include "model/timeconv.h"

#include <algorithm>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <numeric>

namespace kinetoscope {

namespace {
constexpr JsonLayout topLevel{"\n", ",\n", "\n"};
constexpr JsonLayout rowPerLine{"\n  ", ",\n  ", "\n"};

// "607.3 / 607.3 / 607.9 / 612.0 ms": the four in one unit, the largest's.
std::string spreadText(const Spread& s) {
    const TimeNs largest = std::max({std::llabs(s.min), std::llabs(s.max)});
    const auto [scale, unit] = largest >= 1'000'000'000 ? std::pair{1e9, "s"}
                               : largest >= 1'000'000   ? std::pair{1e6, "ms"}
                                                        : std::pair{1e3, "us"};
    char buffer[128];
    std::snprintf(buffer, sizeof buffer, "%.1f / %.1f / %.1f / %.1f %s", double(s.min) / scale,
                  double(s.median) / scale, double(s.p90) / scale, double(s.max) / scale, unit);
    return buffer;
}

std::string sizeText(double bytes) {
    return bytes > 0 ? formatBytes(bytes) : std::string("size ?");
}

__attribute__((format(printf, 2, 3))) void line(std::string& out, const char* format, ...) {
    char buffer[2048];
    va_list args;
    va_start(args, format);
    std::vsnprintf(buffer, sizeof buffer, format, args);
    va_end(args);
    out += buffer;
}
} // namespace

std::string jobReportJson(const JobReport& job) {
    std::string out;
    JsonWriter w(out);
    w.beginObject(topLevel);
    w.strField("format", "kinetoscope-job");
    w.numField("version", jobReportVersion);
    w.numField("ranks", job.ranks.size());
    w.key("world_size");
    if (job.worldSize > 0)
        w.num(job.worldSize);
    else
        w.null();
    w.key("unreadable");
    writeRows(w, unreadableColumns(), job.unreadable, rowPerLine);
    w.key("problems");
    w.beginArray(rowPerLine);
    for (const std::string& p : job.problems)
        w.str(p);
    w.endArray();
    w.numField("instances_dropped", job.instancesDropped);
    // How arrivals were compared (docs/DEFINITIONS.md, "Arrivals"): "clock" or "collective_ends".
    w.strField("arrivals_by", job.sharedClock ? "clock" : "collective_ends");
    w.fixedField("collective_end_spread_us", double(job.collectiveEndSpread) / 1000.0, 3);
    w.key("steps");
    writeRows(w, jobStepColumns(), jobEntries<JobStepEntry>(job.steps, job), rowPerLine);
    w.key("stragglers");
    writeRows(w, jobStragglerColumns(), jobEntries<JobStragglerEntry>(job.stragglers, job), rowPerLine);
    w.key("collectives");
    writeRows(w, jobCollectiveColumns(), jobEntries<JobCollectiveEntry>(job.collectives, job), rowPerLine);
    w.key("per_rank");
    writeRows(w, jobRankColumns(), jobRankRows(job), rowPerLine);
    w.key("hosts");
    writeRows(w, jobHostColumns(), jobEntries<JobHostEntry>(job.hosts, job), rowPerLine);
    w.endObject();
    out += '\n';
    return out;
}

std::string jobReportText(const JobReport& job, std::size_t top) {
    std::string out;
    line(out, "Job: %s", countText(job.ranks.size(), "rank").c_str());
    if (job.worldSize > 0) line(out, " of a world of %lld", static_cast<long long>(job.worldSize));
    line(out, ", %s", countText(job.steps.size(), "step").c_str());
    if (!job.unreadable.empty()) line(out, "; %s not read", countText(job.unreadable.size(), "file").c_str());
    out += "\n";
    if (!job.unreadable.empty()) {
        out += "\nNot read (the job goes on without them):\n";
        for (std::size_t i = 0; i < job.unreadable.size() && i < top; ++i)
            line(out, "  %s\n", job.unreadable[i].error.c_str());
        if (job.unreadable.size() > top)
            line(out, "  … and %zu more (--json lists all)\n", job.unreadable.size() - top);
    }
    if (!job.problems.empty()) {
        out += "\nProblems:\n";
        for (const std::string& p : job.problems)
            line(out, "  %s\n", p.c_str());
    }
    if (job.instancesDropped)
        line(out,
             "\n%llu collective runs were not kept in the rank files (their budget, or outside every step): "
             "the synchronising figures count the others\n",
             static_cast<unsigned long long>(job.instancesDropped));

    if (job.ranks.size() > 1 && job.collectiveEndSpread > 0)
        line(
            out,
            job.sharedClock
                ? "\nArrivals compared by the traces' clock: the collectives' kernels end within %s of each "
                  "other (median)\n"
                : "\nArrivals compared with each call aligned on its end: the collectives' ends differ by %s "
                  "(median) by the traces' clocks, which are not one\n",
            formatDuration(job.collectiveEndSpread).c_str());
    out += "\nSteps across ranks (min / median / p90 / max):\n";
    line(out, "  %-22s %6s  %-34s  %-34s  %-34s  %s\n", "Step", "Ranks", "Step time", "Computation",
         "Communication", "Slowest");
    for (std::size_t i = 0; i < job.steps.size() && i < top; ++i) {
        const StepDistribution& s = job.steps[i];
        const std::string slowest = s.slowestTied                      ? "tie"
                                    : s.slowestRank < job.ranks.size() ? rankLabel(job.ranks[s.slowestRank])
                                                                       : "-";
        line(out, "  %-22s %6zu  %-34s  %-34s  %-34s  %s\n", s.name.c_str(), s.ranks,
             spreadText(s.stepTime).c_str(), spreadText(s.computation).c_str(),
             spreadText(s.communication).c_str(), slowest.c_str());
    }
    if (job.steps.size() > top) line(out, "  … and %zu more steps\n", job.steps.size() - top);

    out +=
        "\nStragglers: a rank the others wait for. One that arrives last at a quarter or more of a step's\n"
        "collectives, 100 us late or more, while waiting less than the median rank comes first, whatever "
        "its\n"
        "computation; then a rank whose computation in a step exceeds the step's median rank's by more than "
        "5%\n"
        "(the others wait about the excess).\n";
    if (job.stragglers.empty()) out += "  none\n";
    for (std::size_t i = 0; i < job.stragglers.size() && i < top; ++i) {
        const StragglerRow& s = job.stragglers[i];
        std::string victims;
        for (const Victim& v : s.victims)
            victims +=
                (victims.empty() ? "" : ", ") + rankLabel(job.ranks[v.rank]) + " " + formatDuration(v.waited);
        const std::string waiting =
            victims.empty() ? std::string()
                            : "  " + countText(s.waitingRanks, "rank") + " waited, longest: " + victims;
        if (s.arrivesLast)
            line(out, "  %-12s %-20s last at %llu of %llu collectives, waited %s; the others %s (median)%s\n",
                 rankLabel(job.ranks[s.rank]).c_str(), s.step.c_str(),
                 static_cast<unsigned long long>(s.lastArrivals),
                 static_cast<unsigned long long>(s.operations), formatDuration(s.waited).c_str(),
                 formatDuration(s.othersWaited).c_str(), waiting.c_str());
        else
            line(out, "  %-12s %-20s +%-10s (%s, median %s)%s\n", rankLabel(job.ranks[s.rank]).c_str(),
                 s.step.c_str(), formatDuration(s.excess).c_str(), formatDuration(s.computation).c_str(),
                 formatDuration(s.medianComputation).c_str(), waiting.c_str());
        for (const std::string& cause : s.causes)
            line(out, "      cause: %s\n", cause.c_str());
    }
    if (job.stragglers.size() > top)
        line(out, "  … and %zu more (--json lists all)\n", job.stragglers.size() - top);

    if (!job.collectives.empty()) {
        out += "\nCollectives across ranks (time per rank: min / median / p90 / max):\n";
        line(out, "  %-18s %10s %6s %6s  %-34s  %-14s  %s\n", "Collective", "Size", "Ranks", "Calls", "Total",
             "Waiting (med.)", "Last to arrive");
        for (std::size_t i = 0; i < job.collectives.size() && i < top; ++i) {
            const CollectiveSpread& c = job.collectives[i];
            std::string last;
            for (const LastArrival& l : c.lastToArrive)
                last += (last.empty() ? "" : ", ") + rankLabel(job.ranks[l.rank]) + " (" +
                        std::to_string(l.times) + " of " + std::to_string(c.compared) + ")";
            const std::string name = collectiveLabel(c.name, c.group);
            line(out, "  %-18s %10s %6zu %6llu  %-34s  %-14s  %s\n", name.c_str(),
                 sizeText(c.messageBytes).c_str(), c.ranks, static_cast<unsigned long long>(c.callsPerRank),
                 spreadText(c.total).c_str(), formatDuration(c.synchronization.median).c_str(),
                 last.empty() ? "-" : last.c_str());
        }
        if (job.collectives.size() > top) line(out, "  … and %zu more\n", job.collectives.size() - top);

        // The ranks that wait most: where the time goes that the stragglers cost.
        std::vector<std::size_t> order(job.ranks.size());
        std::iota(order.begin(), order.end(), std::size_t(0));
        std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
            return job.communication[a].synchronization > job.communication[b].synchronization;
        });
        out += "\nCommunication per rank, split as the TensorBoard plugin does (the ranks that wait most "
               "first):\n";
        line(out, "  %-14s %-16s %14s %14s %14s\n", "Rank", "Host", "Collectives", "Transfer",
             "Synchronising");
        for (std::size_t i = 0; i < order.size() && i < top; ++i) {
            const RankFigures& r = job.ranks[order[i]];
            const RankCommunication& c = job.communication[order[i]];
            line(out, "  %-14s %-16s %14s %14s %14s\n", rankLabel(r).c_str(),
                 r.host.empty() ? "-" : r.host.c_str(), formatDuration(c.total).c_str(),
                 formatDuration(c.transfer).c_str(), formatDuration(c.synchronization).c_str());
        }
        if (order.size() > top) line(out, "  … and %zu more ranks (--json lists all)\n", order.size() - top);
    }
    if (!job.hosts.empty()) {
        line(out, "\nHosts: %s\n", countText(job.hosts.size(), "host").c_str());
        for (std::size_t i = 0; i < job.hosts.size() && i < top; ++i) {
            std::string ranks;
            for (std::size_t k = 0; k < job.hosts[i].ranks.size() && k < 16; ++k)
                ranks += (k ? ", " : "") + rankLabel(job.ranks[job.hosts[i].ranks[k]]).substr(5);
            if (job.hosts[i].ranks.size() > 16) ranks += ", …";
            line(out, "  %-24s %s: %s\n", job.hosts[i].host.c_str(),
                 countText(job.hosts[i].ranks.size(), "rank").c_str(), ranks.c_str());
        }
    }
    return out;
}

} // namespace kinetoscope
