#include "analysis/jobs/distributed.h"

#include "analysis/gpu/intervals.h"
#include "analysis/ops/hosttree.h"
#include "analysis/ops/steps.h"
#include "analysis/overview/overview.h"
#include "model/argscan.h"
#include "model/textformat.h"
#include "query/args.h"
#include "query/selftime.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <tuple>

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

// The element size NCCL's kernel name gives (ncclDevKernel_AllReduce_Sum_f16_RING_LL,
// ncclKernel_AllReduce_RING_LL_Sum_half), from its type token alone (its other tokens hold digits too:
// LL128).
std::optional<double> elementSizeInKernelName(std::string_view kernel) {
    static const std::pair<std::string_view, double> types[] = {
        {"f16", 2},   {"bf16", 2}, {"half", 2},   {"fp16", 2},   {"f32", 4}, {"float", 4},
        {"fp32", 4},  {"f64", 8},  {"double", 8}, {"i8", 1},     {"u8", 1},  {"int8", 1},
        {"uint8", 1}, {"fp8", 1},  {"f8e4m3", 1}, {"f8e5m2", 1}, {"i32", 4}, {"u32", 4},
        {"int32", 4}, {"i64", 8},  {"u64", 8},    {"int64", 8}};
    const std::string lower = asciiLower(kernel.substr(0, kernel.find('(')));
    std::size_t at = 0;
    while (at <= lower.size()) {
        const std::size_t end = std::min(lower.find('_', at), lower.size());
        const std::string_view token = std::string_view(lower).substr(at, end - at);
        for (const auto& [name, size] : types)
            if (token == name) return size;
        at = end + 1;
    }
    return std::nullopt;
}

// A collective's size where the trace writes no "In msg nelems" (PyTorch before 2.1: a Megatron job's
// record_param_comms carries only "Input Dims": [[4, 2048, 4096]]): the first input's elements, times the
// element size of its "Input type", else of the kernel's name. Not for an all-gather, whose input is one
// rank's part of the message.
std::optional<double> messageBytesFromShape(std::string_view args, std::string_view kernel,
                                            OperatorInputsDecoder& decoder) {
    OperatorInputs inputs;
    if (!decoder.decode(args, inputs) || inputs.dims.empty() || inputs.dims[0].list ||
        !inputs.dims[0].valid || inputs.dims[0].shape.empty())
        return std::nullopt;
    double elements = 1;
    for (const std::int64_t d : inputs.dims[0].shape) {
        if (d < 0) return std::nullopt;
        elements *= double(d);
    }
    if (!inputs.types.empty() && !inputs.types[0].empty()) return elements * elementSize(inputs.types[0]);
    if (const auto size = elementSizeInKernelName(kernel)) return elements * *size;
    return std::nullopt;
}

// A process group as the job compares it: its ranks as ranges ("0-7", "0, 8, 16, 24"), from
// `Process Group Ranks` ("[0, 1, 2, ...]"); a long list keeps its start and a hash of the whole, so two
// groups never share a key. Else "pg NAME" from `Process Group Name`.
std::optional<std::string> groupInArgs(std::string_view args) {
    if (const auto ranks = argString(args, "Process Group Ranks")) {
        std::vector<std::int64_t> members;
        std::int64_t value = 0;
        bool inNumber = false;
        for (const char c : *ranks) {
            if (c >= '0' && c <= '9') {
                value = value * 10 + (c - '0');
                inNumber = true;
            } else if (inNumber) {
                members.push_back(value);
                value = 0;
                inNumber = false;
            }
        }
        if (inNumber) members.push_back(value);
        std::sort(members.begin(), members.end());
        std::string text = rangesText(members);
        if (text.size() > 64) {
            std::uint64_t hash = 1469598103934665603ull; // FNV-1a of the whole list
            for (const char c : text)
                hash = (hash ^ std::uint8_t(c)) * 1099511628211ull;
            char suffix[24];
            std::snprintf(suffix, sizeof suffix, "… #%016llx", static_cast<unsigned long long>(hash));
            text = text.substr(0, 40) + suffix;
        }
        if (!text.empty()) return text;
    }
    if (const auto name = argString(args, "Process Group Name"); name && !name->empty())
        return "pg " + std::string(*name);
    return std::nullopt;
}

// What `find` reads in a collective kernel's args, else in those of the operators around its launch (the
// `record_param_comms` operator, where older Kineto writes a collective's size and group).
template <typename Find>
auto inKernelOrLauncher(const TraceStore& store, EventRef kernel, Find find)
    -> decltype(find(std::string_view())) {
    if (auto found = find(store.argsText(kernel))) return found;
    if (const auto launch = store.launchOf(kernel)) {
        const Track& t = store.track(launch->track);
        for (auto p = t.parentOf(launch->index.value); p; p = t.parentOf(*p))
            if (auto found = find(store.argsText({launch->track, EventIndex(*p)}))) return found;
    }
    return std::nullopt;
}
} // namespace

std::string rangesText(const std::vector<std::int64_t>& sorted, std::size_t most) {
    std::string out;
    std::size_t shown = 0;
    for (std::size_t i = 0; i < sorted.size();) {
        std::size_t j = i;
        while (j + 1 < sorted.size() && sorted[j + 1] == sorted[j] + 1)
            ++j;
        if (shown == most) {
            out += ", …";
            break;
        }
        out += (out.empty() ? "" : ", ") + std::to_string(sorted[i]);
        if (j > i) out += "-" + std::to_string(sorted[j]);
        ++shown;
        i = j + 1;
    }
    return out;
}

std::string collectiveLabel(const std::string& name, const std::string& group) {
    return group.empty() ? name : name + " [" + group + "]";
}

std::string hostFromTraceFileName(std::string_view path) {
    std::string_view name = path.substr(path.find_last_of('/') + 1);
    if (name.ends_with(".gz")) name.remove_suffix(3);
    constexpr std::string_view suffix = ".pt.trace.json";
    if (!name.ends_with(suffix)) return {};
    name.remove_suffix(suffix.size());
    // "<worker>.<time>": the time is time.time_ns() (19 digits) or, in older PyTorch, milliseconds (13).
    const auto dot = name.rfind('.');
    if (dot == std::string_view::npos) return {};
    const std::string_view time = name.substr(dot + 1);
    const auto allDigits = [](std::string_view t) {
        return !t.empty() && std::all_of(t.begin(), t.end(), [](char c) { return c >= '0' && c <= '9'; });
    };
    if (time.size() < 10 || !allDigits(time)) return {};
    // The worker name tensorboard_trace_handler makes by default: "<hostname>_<pid>".
    const std::string_view worker = name.substr(0, dot);
    const auto underscore = worker.rfind('_');
    if (underscore == std::string_view::npos || underscore == 0 || !allDigits(worker.substr(underscore + 1)))
        return {};
    return std::string(worker.substr(0, underscore));
}

RankFigures rankFigures(const TraceStore& store) {
    RankFigures f;
    f.rank = store.metadata().rank.value_or(-1);
    f.worldSize = store.metadata().worldSize.value_or(0);
    f.source = store.sourcePath();
    f.host = hostFromTraceFileName(f.source);
    if (f.rank < 0) f.notes.push_back("the trace has no distributedInfo.rank: the rank is not known");
    if (f.worldSize <= 0) f.notes.push_back("the trace has no distributedInfo.world_size");
    if (const ImportStats& st = store.stats(); st.truncated)
        f.notes.push_back("the trace is truncated at byte " + std::to_string(st.truncatedAt) +
                          ": these figures cover the events before it");
    std::vector<IntervalSet> computeRuns, commRuns;
    OperatorInputsDecoder shapes;
    // Each collective kernel: its key (name, size), when it was issued, and where it ran.
    struct Run {
        std::size_t collective;
        TimeNs issued, start, end;
    };
    std::vector<Run> runs;
    std::map<std::tuple<std::string, double, std::string>, std::size_t> collectiveIndex;
    std::vector<CollectiveStats> collectives;
    for (std::uint32_t ti = 0; ti < store.tracks().size(); ++ti) {
        const Track& t = store.tracks()[ti];
        if (t.kind != TrackKind::GpuStream) continue;
        for (std::uint32_t d = 0; d < t.laneCount(); ++d) {
            IntervalSet compute, comm;
            for (std::uint32_t r = t.laneBegin[d]; r < t.laneBegin[d + 1]; ++r) {
                const CategoryKind kind = store.categories()[t.categories[r]].kind;
                if (isCommunicationKernel(store, t, r)) {
                    comm.emplace_back(t.starts[r], t.endOf(r));
                    const EventRef ref{TrackId(ti), EventIndex(r)};
                    const std::string name =
                        collectiveName(store.strings().view(t.names[r]), store.argsText(ref));
                    const bool allGather = isAllGather(name);
                    std::optional<double> found =
                        inKernelOrLauncher(store, ref, [allGather](std::string_view args) {
                            return messageBytesInArgs(args, allGather);
                        });
                    if (!found && !allGather)
                        found = inKernelOrLauncher(store, ref, [&](std::string_view args) {
                            return messageBytesFromShape(args, store.strings().view(t.names[r]), shapes);
                        });
                    const double bytes = found.value_or(0);
                    std::string group = inKernelOrLauncher(store, ref, groupInArgs).value_or(std::string());
                    const auto [it, added] =
                        collectiveIndex.try_emplace({name, bytes, group}, collectives.size());
                    if (added)
                        collectives.push_back(
                            {.name = name, .messageBytes = bytes, .group = std::move(group)});
                    CollectiveStats& c = collectives[it->second];
                    ++c.calls;
                    c.bytes += bytes;
                    c.total += t.durations[r];
                    c.longest = std::max(c.longest, t.durations[r]);
                    TimeNs issued = t.starts[r];
                    if (const auto launch = store.launchOf(ref))
                        issued = store.track(launch->track).starts[launch->index.value];
                    runs.push_back({it->second, issued, t.starts[r], t.endOf(r)});
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
        if (s.slice.isValid()) {
            std::map<std::string, TimeNs> byName;
            const Track& thread = store.track(s.slice.track);
            for (std::uint32_t child : directChildren(store, thread, s.slice.index.value))
                byName[annotationGroupName(store.strings().view(thread.names[child]))] +=
                    thread.durations[child];
            rs.hostRanges.assign(byName.begin(), byName.end());
            std::stable_sort(rs.hostRanges.begin(), rs.hostRanges.end(),
                             [](const auto& a, const auto& b) { return a.second > b.second; });
            if (rs.hostRanges.size() > maxHostRanges) rs.hostRanges.resize(maxHostRanges);
        }
        f.computation += rs.computation;
        f.communication += rs.communication;
        f.overlap += rs.overlap;
        f.other += rs.other;
        span += s.end - s.start;
        f.steps.push_back(std::move(rs));
    }
    f.stepMean = f.steps.empty() ? 0 : span / TimeNs(f.steps.size());

    // Collectives by total time; the instances refer to them by that order.
    std::vector<std::size_t> order(collectives.size());
    for (std::size_t i = 0; i < order.size(); ++i)
        order[i] = i;
    std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
        const CollectiveStats &x = collectives[a], &y = collectives[b];
        if (x.total != y.total) return x.total > y.total;
        return std::tie(x.name, x.messageBytes, x.group) < std::tie(y.name, y.messageBytes, y.group);
    });
    std::vector<std::uint32_t> position(collectives.size());
    for (std::size_t i = 0; i < order.size(); ++i) {
        position[order[i]] = std::uint32_t(i);
        collectives[order[i]].transfer = collectives[order[i]].total;
        f.collectives.push_back(collectives[order[i]]);
    }
    std::stable_sort(runs.begin(), runs.end(), [](const Run& a, const Run& b) {
        return a.issued != b.issued ? a.issued < b.issued : a.start < b.start;
    });
    for (std::size_t i = 0; i < runs.size(); ++i) {
        const Run& run = runs[i];
        // The step it ran in: the last one starting at or before it (steps are in time order, disjoint).
        const auto next = std::upper_bound(f.steps.begin(), f.steps.end(), run.start,
                                           [](TimeNs t, const RankStep& s) { return t < s.start; });
        if (next == f.steps.begin() || run.start >= std::prev(next)->end) {
            ++f.instancesDropped;
            continue;
        }
        const RankStep& step = *std::prev(next);
        f.instances.push_back({std::uint32_t(std::prev(next) - f.steps.begin()), position[run.collective],
                               std::uint32_t(i), run.start - step.start, run.end - step.start,
                               run.issued - step.start, true});
    }
    if (f.instancesDropped)
        f.notes.push_back(std::to_string(f.instancesDropped) + " collective runs fall outside every step");
    return f;
}

} // namespace kinetoscope
