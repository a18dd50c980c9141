// The columns of the tables over more than one trace: a job's ranks (the distributed block) and a diff.
#include "analysis/report/sections.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace kinetoscope {

using namespace cells;

const Columns<RankStep>& rankStepColumns() {
    using R = RankStep;
    using F = CellFormat;
    static const Columns<R> columns = {
        {.key = "name", .title = "Step", .value = [](const R& r) { return text(r.name); }},
        {.key = "start_us",
         .title = "Start",
         .format = F::Micros,
         .value = [](const R& r) { return integer(r.start); }},
        {.key = "end_us",
         .title = "End",
         .format = F::Micros,
         .value = [](const R& r) { return integer(r.end); }},
        {.key = "computation_us",
         .title = "Computation",
         .format = F::Micros,
         .value = [](const R& r) { return integer(r.computation); }},
        {.key = "communication_us",
         .title = "Communication",
         .format = F::Micros,
         .value = [](const R& r) { return integer(r.communication); }},
        {.key = "overlap_us",
         .title = "Overlap",
         .format = F::Micros,
         .value = [](const R& r) { return integer(r.overlap); }},
        {.key = "other_us",
         .title = "Other",
         .format = F::Micros,
         .value = [](const R& r) { return integer(r.other); }},
    };
    return columns;
}

const Columns<CollectiveStats>& collectiveColumns() {
    using R = CollectiveStats;
    using F = CellFormat;
    static const Columns<R> columns = {
        {.key = "name", .title = "Collective", .value = [](const R& r) { return text(r.name); }},
        {.key = "group",
         .title = "Group",
         .value = [](const R& r) { return r.group.empty() ? Cell::null() : text(r.group); },
         .tip = "the process group's ranks, from the trace's Process Group Ranks"},
        {.key = "message_bytes",
         .title = "Size",
         .format = F::Fixed,
         .value = [](const R& r) { return real(r.messageBytes); }},
        {.key = "calls",
         .title = "Calls",
         .format = F::Count,
         .value = [](const R& r) { return count(r.calls); }},
        {.key = "bytes",
         .title = "Bytes",
         .format = F::Fixed,
         .value = [](const R& r) { return real(r.bytes); }},
        {.key = "total_us",
         .title = "Total",
         .format = F::Micros,
         .value = [](const R& r) { return integer(r.total); }},
        {.key = "mean_us",
         .title = "Mean",
         .format = F::Micros,
         .value = [](const R& r) { return integer(r.mean()); }},
        {.key = "longest_us",
         .title = "Longest",
         .format = F::Micros,
         .value = [](const R& r) { return integer(r.longest); }},
    };
    return columns;
}
const Columns<JobRankRow>& jobRankColumns() {
    using R = JobRankRow;
    using F = CellFormat;
    const auto micros = [](std::string_view key, std::string_view title, TimeNs R::*member,
                           std::string_view tip) {
        return Column<R>{.key = key,
                         .title = title,
                         .format = F::Micros,
                         .value = [member](const R& r) { return integer(r.*member); },
                         .tip = tip};
    };
    static const Columns<R> columns = {
        {.key = "rank",
         .title = "Rank",
         .format = F::Integer,
         .value = [](const R& r) { return r.rank >= 0 ? integer(r.rank) : Cell::null(); },
         .tip = "distributedInfo.rank (empty when the trace does not say)"},
        {.key = "host",
         .title = "Host",
         .value = [](const R& r) { return r.host.empty() ? Cell::null() : text(r.host); },
         .tip = "from the trace's file name, as tensorboard_trace_handler writes it"},
        {.key = "steps",
         .title = "Steps",
         .format = F::Count,
         .value = [](const R& r) { return count(r.steps); }},
        micros("step_mean_us", "Mean step", &R::stepMean, "the mean of the rank's steps"),
        micros("computation_us", "Computation", &R::computation,
               "over the steps: time only compute kernels run"),
        micros("communication_us", "Communication", &R::communication,
               "over the steps: time only collectives run"),
        micros("overlap_us", "Overlap", &R::overlap, "over the steps: time both run"),
        micros("other_us", "Other", &R::other,
               "over the steps: time the GPU runs neither (waiting for the CPU, the data loader, a host "
               "synchronisation or another rank)"),
        micros("collectives_us", "Collectives", &R::collectives, "the collective kernels' total time"),
        micros("transfer_us", "Transfer", &R::transfer,
               "collective time moving data: the rest of each collective after the last rank arrived"),
        micros("synchronization_us", "Synchronising", &R::synchronization,
               "collective time waiting for the last rank to arrive"),
        {.key = "file",
         .title = "File",
         .value = [](const R& r) { return text(r.file); },
         .outputs = InJson | InText},
        // The viewer's column: the file's name (a job's files share their folder, which a cut path showed on
        // every row); the whole path is in the JSON and the text.
        {.key = "file_name",
         .title = "File",
         .value =
             [](const R& r) {
                 const std::size_t slash = r.file.find_last_of('/');
                 return text(slash == std::string::npos ? std::string_view(r.file)
                                                        : std::string_view(r.file).substr(slash + 1));
             },
         .outputs = InTable},
        {.key = "notes",
         .title = "Notes",
         .format = F::Json,
         .value =
             [](const R& r) {
                 return nested([&](JsonWriter<std::string>& w) {
                     w.beginArray();
                     for (const std::string& n : r.notes)
                         w.str(n);
                     w.endArray();
                 });
             },
         .outputs = InJson},
    };
    return columns;
}

namespace {
// "+1.500 us": a change, signed.
std::string signedMicrosText(TimeNs ns) {
    return (ns >= 0 ? "+" : "-") + formatMicros(std::llabs(ns)) + " us";
}
// "+5.0%": a relative change, signed.
std::string signedPercentText(double pct) {
    char change[32];
    std::snprintf(change, sizeof change, "%+.1f%%", pct);
    return change;
}
} // namespace

const Columns<DiffRow>& diffColumns(bool host) {
    using R = DiffRow;
    using F = CellFormat;
    // The text is fixed columns: the name, both call counts, the deltas signed and the change in percent.
    auto make = [](bool host) {
        // Kernels: the full name in the JSON, the short one everywhere.
        Columns<R> c = {{.key = "name",
                         .title = "Name",
                         .value = [](const R& r) { return text(r.name); },
                         .outputs = std::uint8_t(host ? Everywhere : InJson),
                         .textWidth = 58,
                         .fieldWidth = -60}};
        if (!host)
            c.push_back({.key = "display_name",
                         .title = "Name",
                         .value = [](const R& r) { return text(r.displayName); },
                         .textWidth = 58,
                         .fieldWidth = -60});
        // A Triton kernel matched across two compiles, or the other vendor's operator or kernel: A's own
        // name, and why the two are one row.
        c.push_back({.key = "name_a",
                     .title = "Name in A",
                     .value = [](const R& r) { return r.nameA.empty() ? Cell::null() : text(r.nameA); },
                     .outputs = InJson,
                     .omitWhenEmpty = true});
        c.push_back({.key = "paired_by",
                     .title = "Paired by",
                     .value =
                         [](const R& r) {
                             return r.pairing == DiffPairing::Renumbered ? text("renumbered compile")
                                    : r.pairing == DiffPairing::Vendor   ? text("vendor")
                                                                         : Cell::null();
                         },
                     .outputs = InJson,
                     .omitWhenEmpty = true});
        c.push_back({.key = "count_a",
                     .title = "Calls A",
                     .format = F::Count,
                     .value = [](const R& r) { return count(r.countA); },
                     .fieldWidth = 8});
        c.push_back({.key = "count_b",
                     .title = "Calls B",
                     .format = F::Count,
                     .value = [](const R& r) { return count(r.countB); },
                     .fieldWidth = 8});
        auto micros = [&c](std::string_view key, std::string_view title, TimeNs (*get)(const R&)) {
            c.push_back({.key = key,
                         .title = title,
                         .format = F::Micros,
                         .value = [get](const R& r) { return integer(get(r)); },
                         .outputs = InJson | InTable});
        };
        auto delta = [&c](std::string_view title, TimeNs (*get)(const R&)) {
            c.push_back(
                {.key = {},
                 .title = title,
                 .value = [get](const R& r) { return get ? text(signedMicrosText(get(r))) : text(""); },
                 .outputs = InText,
                 .fieldWidth = 14});
        };
        if (host) {
            micros("host_self_us_a", "Host self A", [](const R& r) { return r.hostA; });
            micros("host_self_us_b", "Host self B", [](const R& r) { return r.hostB; });
            micros("device_self_us_a", "Device self A", [](const R& r) { return r.deviceA; });
            micros("device_self_us_b", "Device self B", [](const R& r) { return r.deviceB; });
            micros("host_delta_us", "Host self Δ", [](const R& r) { return r.hostDelta(); });
            micros("device_delta_us", "Device self Δ", [](const R& r) { return r.deviceDelta(); });
            delta("Device self Δ", [](const R& r) { return r.deviceDelta(); });
            delta("Host self Δ", [](const R& r) { return r.hostDelta(); });
        } else {
            micros("total_us_a", "Total A", [](const R& r) { return r.deviceA; });
            micros("total_us_b", "Total B", [](const R& r) { return r.deviceB; });
            micros("delta_us", "Total Δ", [](const R& r) { return r.deviceDelta(); });
            // Inductor's estimates on each side, where the traces carry them.
            auto rate = [&c](std::string_view key, std::string_view title, double R::*field, int decimals) {
                c.push_back(
                    {.key = key,
                     .title = title,
                     .format = F::Fixed,
                     .value = [field](const R& r) { return r.*field > 0 ? real(r.*field) : Cell::null(); },
                     .outputs = InJson,
                     .decimals = decimals,
                     .omitWhenEmpty = true});
            };
            rate("achieved_gbps_a", "GB/s A", &R::gbpsA, 1);
            rate("achieved_gbps_b", "GB/s B", &R::gbpsB, 1);
            rate("achieved_tflops_a", "TFLOP/s A", &R::tflopsA, 2);
            rate("achieved_tflops_b", "TFLOP/s B", &R::tflopsB, 2);
            delta("Total Δ", [](const R& r) { return r.deviceDelta(); });
            delta("", nullptr); // the host column, empty: kernels have no host time
        }
        {
            // Per call: a kernel's or operator's cost each time it runs (its device time, or an operator's
            // host self time where it runs none), whatever the amounts of work on the two sides. Per step,
            // where both sides have ProfilerSteps (JSON only; null otherwise).
            for (const bool sideA : {true, false})
                c.push_back({.key = sideA ? "per_step_us_a" : "per_step_us_b",
                             .title = sideA ? "Per step A" : "Per step B",
                             .format = F::Micros,
                             .value =
                                 [sideA](const R& r) {
                                     if (!r.hasPerStep()) return Cell::null();
                                     return integer(sideA ? r.perStepA() : r.perStepB());
                                 },
                             .outputs = InJson});
            micros("per_call_us_a", "Per call A", [](const R& r) { return r.perCallA(); });
            micros("per_call_us_b", "Per call B", [](const R& r) { return r.perCallB(); });
            c.push_back({.key = "per_call_change_pct",
                         .title = "Per call Δ %",
                         .format = F::Fixed,
                         .value =
                             [](const R& r) {
                                 const double pct = r.perCallChange();
                                 return std::isnan(pct) ? Cell::null() : real(pct);
                             },
                         .outputs = InJson | InTable,
                         .decimals = 3});
            c.push_back({.key = {},
                         .title = "Per call",
                         .value =
                             [](const R& r) {
                                 const double pct = r.perCallChange();
                                 return text(std::isnan(pct) ? "-" : signedPercentText(pct));
                             },
                         .outputs = InText,
                         .fieldWidth = 9});
        }
        c.push_back({.key = "change_pct",
                     .title = "Change",
                     .format = F::Fixed,
                     .value = [](const R& r) { return real(r.percentChange()); },
                     .outputs = InJson | InTable,
                     .decimals = 3});
        c.push_back({.key = {},
                     .title = "Change",
                     .value =
                         [](const R& r) {
                             if (r.onlyA()) return text("only A");
                             if (r.onlyB()) return text("only B");
                             const double pct = r.percentChange();
                             return text(std::isnan(pct) ? "new time" : signedPercentText(pct));
                         },
                     .outputs = InText,
                     .fieldWidth = 9});
        c.push_back({.key = "only_in",
                     .title = "Only in",
                     .value =
                         [](const R& r) {
                             return r.onlyA() || r.onlyB() ? text(r.onlyA() ? "a" : "b") : Cell::null();
                         },
                     .outputs = InJson | InTable});
        return c;
    };
    static const Columns<R> hostColumns = make(true), kernelColumns = make(false);
    return host ? hostColumns : kernelColumns;
}
namespace {
// {"min", "median", "p90", "max"} in µs: a spread over the ranks, as one nested cell.
Cell spreadCell(const Spread& s) {
    return nested([&](JsonWriter<std::string>& w) {
        w.beginObject();
        w.microsField("min", s.min);
        w.microsField("median", s.median);
        w.microsField("p90", s.p90);
        w.microsField("max", s.max);
        w.endObject();
    });
}
// A rank's number, or null where its trace does not say.
Cell rankCell(const JobReport& job, std::size_t index) {
    return index < job.ranks.size() && job.ranks[index].rank >= 0 ? integer(job.ranks[index].rank)
                                                                  : Cell::null();
}
// [{"rank": 3, ...}, ...]: ranks each with a figure (`writeFigure(w, item)` writes the rest of its object).
template <typename Item, typename WriteFigure>
Cell rankObjects(const JobReport& job, const std::vector<Item>& items, WriteFigure writeFigure) {
    return nested([&](JsonWriter<std::string>& w) {
        w.beginArray();
        for (const Item& item : items) {
            w.beginObject();
            w.key("rank");
            writeCell(w, CellFormat::Integer, 0, rankCell(job, item.rank));
            writeFigure(w, item);
            w.endObject();
        }
        w.endArray();
    });
}
template <typename R>
Column<R> spreadColumn(std::string_view key, std::string_view title, Spread (*of)(const R&)) {
    return {.key = key,
            .title = title,
            .format = CellFormat::Json,
            .value = [of](const R& r) { return spreadCell(of(r)); },
            .outputs = InJson};
}
} // namespace

const Columns<UnreadableFile>& unreadableColumns() {
    using R = UnreadableFile;
    static const Columns<R> columns = {
        {.key = "file", .title = "File", .value = [](const R& u) { return text(u.path); }},
        {.key = "error", .title = "Error", .value = [](const R& u) { return text(u.error); }},
    };
    return columns;
}

const Columns<JobStepEntry>& jobStepColumns() {
    using R = JobStepEntry;
    static const Columns<R> columns = {
        {.key = "name", .title = "Step", .value = [](const R& r) { return text(r.step->name); }},
        {.key = "ranks",
         .title = "Ranks",
         .format = CellFormat::Count,
         .value = [](const R& r) { return count(r.step->ranks); }},
        spreadColumn<R>("step_us", "Step time", [](const R& r) { return r.step->stepTime; }),
        {.key = "slowest_rank",
         .title = "Slowest rank",
         .format = CellFormat::Integer,
         .value = [](const R& r) { return rankCell(*r.job, r.step->slowestRank); }},
        // Two ranks or more with the longest step time: no one rank is the slowest (slowest_rank is the
        // first).
        {.key = "slowest_tied",
         .title = "Slowest tied",
         .format = CellFormat::Json,
         .value = [](const R& r) { return text(r.step->slowestTied ? "true" : "false"); },
         .outputs = InJson},
        spreadColumn<R>("computation_us", "Computation", [](const R& r) { return r.step->computation; }),
        spreadColumn<R>("communication_us", "Communication",
                        [](const R& r) { return r.step->communication; }),
    };
    return columns;
}

const Columns<JobStragglerEntry>& jobStragglerColumns() {
    using R = JobStragglerEntry;
    const auto micros = [](std::string_view key, std::string_view title, TimeNs StragglerRow::*member) {
        return Column<R>{.key = key,
                         .title = title,
                         .format = CellFormat::Micros,
                         .value = [member](const R& r) { return integer(r.straggler->*member); }};
    };
    const auto counted = [](std::string_view key, std::string_view title, std::size_t StragglerRow::*member) {
        return Column<R>{.key = key,
                         .title = title,
                         .format = CellFormat::Count,
                         .value = [member](const R& r) { return count(r.straggler->*member); }};
    };
    static const Columns<R> columns = {
        {.key = "rank",
         .title = "Rank",
         .format = CellFormat::Integer,
         .value = [](const R& r) { return rankCell(*r.job, r.straggler->rank); }},
        {.key = "step", .title = "Step", .value = [](const R& r) { return text(r.straggler->step); }},
        micros("excess_us", "Excess", &StragglerRow::excess),
        micros("computation_us", "Computation", &StragglerRow::computation),
        micros("median_computation_us", "Median computation", &StragglerRow::medianComputation),
        counted("waiting_ranks", "Waiting ranks", &StragglerRow::waitingRanks),
        {.key = "arrives_last",
         .title = "Arrives last",
         .format = CellFormat::Bool,
         .value = [](const R& r) { return Cell::of(r.straggler->arrivesLast); }},
        counted("last_arrivals", "Last arrivals", &StragglerRow::lastArrivals),
        counted("operations", "Collectives", &StragglerRow::operations),
        micros("waited_us", "Waited", &StragglerRow::waited),
        micros("others_waited_us", "Others waited", &StragglerRow::othersWaited),
        micros("waited_for_it_us", "Waited for it", &StragglerRow::othersWaitedFor),
        {.key = "causes",
         .title = "Causes",
         .format = CellFormat::Json,
         .value =
             [](const R& r) {
                 return nested([&](JsonWriter<std::string>& w) {
                     w.beginArray();
                     for (const std::string& c : r.straggler->causes)
                         w.str(c);
                     w.endArray();
                 });
             },
         .outputs = InJson},
        {.key = "file",
         .title = "File",
         .value = [](const R& r) { return text(r.job->ranks[r.straggler->rank].source); }},
        {.key = "victims",
         .title = "Victims",
         .format = CellFormat::Json,
         .value =
             [](const R& r) {
                 return rankObjects(*r.job, r.straggler->victims,
                                    [](JsonWriter<std::string>& w, const Victim& v) {
                                        w.microsField("waited_us", v.waited);
                                    });
             },
         .outputs = InJson},
    };
    return columns;
}

const Columns<JobCollectiveEntry>& jobCollectiveColumns() {
    using R = JobCollectiveEntry;
    static const Columns<R> columns = {
        {.key = "name", .title = "Collective", .value = [](const R& r) { return text(r.collective->name); }},
        {.key = "group",
         .title = "Group",
         .value =
             [](const R& r) {
                 return r.collective->group.empty() ? Cell::null() : text(r.collective->group);
             }},
        {.key = "message_bytes",
         .title = "Message bytes",
         .format = CellFormat::Fixed,
         .value = [](const R& r) { return real(r.collective->messageBytes); }},
        {.key = "ranks",
         .title = "Ranks",
         .format = CellFormat::Count,
         .value = [](const R& r) { return count(r.collective->ranks); }},
        {.key = "calls_per_rank",
         .title = "Calls per rank",
         .format = CellFormat::Count,
         .value = [](const R& r) { return count(r.collective->callsPerRank); }},
        spreadColumn<R>("total_us", "Total", [](const R& r) { return r.collective->total; }),
        spreadColumn<R>("synchronization_us", "Synchronising",
                        [](const R& r) { return r.collective->synchronization; }),
        {.key = "compared",
         .title = "Compared",
         .format = CellFormat::Count,
         .value = [](const R& r) { return count(r.collective->compared); }},
        {.key = "last_to_arrive",
         .title = "Last to arrive",
         .format = CellFormat::Json,
         .value =
             [](const R& r) {
                 return rankObjects(
                     *r.job, r.collective->lastToArrive,
                     [](JsonWriter<std::string>& w, const LastArrival& l) { w.numField("times", l.times); });
             },
         .outputs = InJson},
    };
    return columns;
}

const Columns<JobHostEntry>& jobHostColumns() {
    using R = JobHostEntry;
    static const Columns<R> columns = {
        {.key = "host", .title = "Host", .value = [](const R& r) { return text(r.host->host); }},
        {.key = "ranks",
         .title = "Ranks",
         .format = CellFormat::Json,
         .value =
             [](const R& r) {
                 return nested([&](JsonWriter<std::string>& w) {
                     w.beginArray();
                     for (std::size_t index : r.host->ranks)
                         writeCell(w, CellFormat::Integer, 0, rankCell(*r.job, index));
                     w.endArray();
                 });
             },
         .outputs = InJson},
    };
    return columns;
}

} // namespace kinetoscope
