#include "analysis/jobs/diff.h"

#include "analysis/compiled/compiledmatch.h"
#include "analysis/gpu/intervals.h"

#include "model/textformat.h"
#include "query/kernelshortname.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <tuple>

namespace kinetoscope {

double DiffRow::perCallChange() const {
    if (!countA || !countB || perCallA() == 0) return std::numeric_limits<double>::quiet_NaN();
    return 100.0 * double(perCallDelta()) / double(perCallA());
}

std::string workDifference(const TraceDiff& d) {
    const std::size_t stepsA = d.overviewA.syntheticStep ? 0 : d.overviewA.steps.size();
    const std::size_t stepsB = d.overviewB.syntheticStep ? 0 : d.overviewB.steps.size();
    const double ka = double(d.kernelsA), kb = double(d.kernelsB);
    const bool kernelsDiffer = std::abs(ka - kb) > 0.1 * std::max(ka, kb);
    // A side without ProfilerStep has one "step", all of its activity: its compilation counted as step time
    // (1.725 s, utilisation 0.2 %) with nothing to say so.
    std::string noSteps;
    for (const auto& [label, ov] : {std::pair<const char*, const Overview*>{"A", &d.overviewA},
                                    std::pair<const char*, const Overview*>{"B", &d.overviewB}}) {
        if (!ov->syntheticStep) continue;
        TimeNs compile = 0;
        for (const auto& [from, to] : ov->compilePhases)
            compile += to - from;
        noSteps +=
            std::string(" ") + label + " has no ProfilerStep: its one step is all of its activity" +
            (compile > 0 ? ", " + formatDuration(compile) + " of torch.compile compilation included" : "") +
            ", so its step time and utilisation are not a training step's (profile with a schedule: "
            "wait, warmup, active).";
    }
    if (stepsA == stepsB && !kernelsDiffer) return noSteps.empty() ? std::string() : noSteps.substr(1);
    auto side = [](std::size_t steps, std::uint64_t kernels) {
        return (steps ? countText(steps, "step") : std::string("no ProfilerStep")) + " and " +
               countText(kernels, "kernel run");
    };
    return "The traces hold different amounts of work: A " + side(stepsA, d.kernelsA) + ", B " +
           side(stepsB, d.kernelsB) +
           ". Totals compare the two amounts; compare per call (the per-call columns)" +
           (stepsA && stepsB ? " or per step (the step time and breakdown, per mean step)." : ".") + noSteps;
}

TimeNs compileInSteps(const Overview& ov) {
    return totalLength(ov.compilePhases); // the overview keeps them clipped to the steps already
}

TimeNs stepMeanWithoutCompile(const Overview& ov) {
    if (ov.steps.empty()) return 0;
    TimeNs total = 0;
    for (const StepRange& step : ov.steps)
        total += step.end - step.start;
    return (total - compileInSteps(ov)) / TimeNs(ov.steps.size());
}

std::string stepsWithoutCompile(const TraceDiff& d) {
    const TimeNs a = compileInSteps(d.overviewA), b = compileInSteps(d.overviewB);
    if (a == 0 && b == 0) return {};
    std::string in;
    if (a > 0) in += "A: " + formatDuration(a);
    if (b > 0) in += std::string(in.empty() ? "" : ", ") + "B: " + formatDuration(b);
    const TimeNs ma = stepMeanWithoutCompile(d.overviewA), mb = stepMeanWithoutCompile(d.overviewB);
    return "Without torch.compile's compilation (" + in + " in the steps): mean step A " +
           formatDuration(ma) + ", B " + formatDuration(mb) + " (" + (mb >= ma ? "+" : "-") +
           formatDuration(std::llabs(mb - ma)) + ")";
}

double DiffRow::percentChange() const {
    if (measureA() == 0) return std::nan("");
    return 100.0 * double(measureB() - measureA()) / double(measureA());
}

GpuVendor gpuVendorOf(const TraceStore& store) {
    for (const DeviceProperties& d : store.metadata().devices) {
        if (d.name.find("AMD") != std::string::npos || d.name.find("Instinct") != std::string::npos ||
            d.name.find("Radeon") != std::string::npos)
            return GpuVendor::Amd;
        if (d.name.find("NVIDIA") != std::string::npos || d.name.find("Tesla") != std::string::npos)
            return GpuVendor::Nvidia;
    }
    // No device properties: the runtime's own calls say (hipLaunchKernel, cudaLaunchKernel).
    for (const Track& t : store.tracks()) {
        if (t.kind != TrackKind::CpuThread) continue;
        for (std::uint32_t r = 0; r < t.sliceCount(); ++r) {
            const CategoryKind kind = store.categories()[t.categories[r]].kind;
            if (kind != CategoryKind::Runtime) continue;
            const std::string_view n = store.strings().view(t.names[r]);
            if (n.starts_with("hip")) return GpuVendor::Amd;
            if (n.starts_with("cuda") || n.starts_with("cu")) return GpuVendor::Nvidia;
        }
    }
    return GpuVendor::Unknown;
}

std::string vendorCounterpart(std::string_view op) {
    // The recurrent networks' names differ beyond the library's.
    if (op == "aten::_cudnn_rnn") return "aten::miopen_rnn";
    if (op == "aten::miopen_rnn") return "aten::_cudnn_rnn";
    if (op == "aten::_cudnn_rnn_backward") return "aten::miopen_rnn_backward";
    if (op == "aten::miopen_rnn_backward") return "aten::_cudnn_rnn_backward";
    for (const auto& [from, to] :
         {std::pair<std::string_view, std::string_view>{"aten::cudnn_", "aten::miopen_"},
          {"aten::miopen_", "aten::cudnn_"}})
        if (op.starts_with(from)) return std::string(to) + std::string(op.substr(from.size()));
    return {};
}

std::vector<const DiffRow*> movedMost(const std::vector<DiffRow>& rows, std::size_t n) {
    std::vector<const DiffRow*> out;
    for (const DiffRow& r : rows)
        if (r.measureB() != r.measureA()) out.push_back(&r);
    std::stable_sort(out.begin(), out.end(), [](const DiffRow* x, const DiffRow* y) {
        return std::llabs(x->measureB() - x->measureA()) > std::llabs(y->measureB() - y->measureA());
    });
    if (out.size() > n) out.resize(n);
    return out;
}

namespace {
void sortByDelta(std::vector<DiffRow>& rows) {
    std::sort(rows.begin(), rows.end(), [](const DiffRow& x, const DiffRow& y) {
        const TimeNs dx = std::llabs(x.deviceDelta()), dy = std::llabs(y.deviceDelta());
        if (dx != dy) return dx > dy;
        const TimeNs hx = std::llabs(x.hostDelta()), hy = std::llabs(y.hostDelta());
        if (hx != hy) return hx > hy;
        return x.name < y.name;
    });
}
} // namespace

TraceDiff diffTraces(const TraceStore& a, const TraceStore& b, const DiffScope& scope) {
    TraceDiff d;
    const Summary sa = summarize(a, OperatorGrouping::Name, scope.fromA, scope.toA);
    const Summary sb = summarize(b, OperatorGrouping::Name, scope.fromB, scope.toB);
    d.overviewA = computeOverview(a, scope.fromA, scope.toA);
    d.overviewB = computeOverview(b, scope.fromB, scope.toB);
    std::map<std::string, DiffRow> ops;
    // Each side's operators, those that start inside a compile phase (Dynamo tracing, Inductor lowering: the
    // prims::* of a first call) moved to one row of their own: they flooded the table as "only in B".
    const auto addOperators = [&](const TraceStore& store, const Summary& s, const Overview& ov, bool sideA) {
        std::map<std::string, OperatorRow> compileWork;
        for (const auto& [from, to] : ov.compilePhases)
            for (const OperatorRow& o :
                 summarize(store, OperatorGrouping::Name, from, to, true, false).operators) {
                OperatorRow& c = compileWork[o.name];
                c.count += o.count;
                c.hostSelf += o.hostSelf;
                c.deviceSelf += o.deviceSelf;
            }
        const auto add = [&](const std::string& name, std::uint64_t count, TimeNs host, TimeNs device) {
            if (count == 0) return;
            DiffRow& r = ops[name];
            r.name = name;
            (sideA ? r.countA : r.countB) += count;
            (sideA ? r.hostA : r.hostB) += host;
            (sideA ? r.deviceA : r.deviceB) += device;
        };
        std::uint64_t compileCalls = 0;
        TimeNs compileHost = 0, compileDevice = 0;
        for (const OperatorRow& o : s.operators) {
            const auto c = compileWork.find(o.name);
            const OperatorRow none;
            const OperatorRow& in = c == compileWork.end() ? none : c->second;
            const std::uint64_t calls = std::min(in.count, o.count);
            add(o.name, o.count - calls, o.hostSelf - std::min(in.hostSelf, o.hostSelf),
                o.deviceSelf - std::min(in.deviceSelf, o.deviceSelf));
            compileCalls += calls;
            compileHost += std::min(in.hostSelf, o.hostSelf);
            compileDevice += std::min(in.deviceSelf, o.deviceSelf);
        }
        add(std::string(compileWorkRow), compileCalls, compileHost, compileDevice);
    };
    addOperators(a, sa, d.overviewA, true);
    addOperators(b, sb, d.overviewB, false);
    const GpuVendor vendorA = gpuVendorOf(a), vendorB = gpuVendorOf(b);
    const bool acrossVendors =
        vendorA != GpuVendor::Unknown && vendorB != GpuVendor::Unknown && vendorA != vendorB;
    if (acrossVendors) {
        // A's cuDNN operator and B's MIOpen one (or the reverse) are one row, under B's name.
        for (auto it = ops.begin(); it != ops.end();) {
            const std::string other = vendorCounterpart(it->first);
            const auto b = other.empty() ? ops.end() : ops.find(other);
            if (!it->second.onlyA() || b == ops.end() || !b->second.onlyB()) {
                ++it;
                continue;
            }
            b->second.nameA = it->first;
            b->second.pairing = DiffPairing::Vendor;
            b->second.countA = it->second.countA;
            b->second.hostA = it->second.hostA;
            b->second.deviceA = it->second.deviceA;
            it = ops.erase(it);
        }
    }
    const std::size_t stepsA = d.overviewA.syntheticStep ? 0 : d.overviewA.steps.size();
    const std::size_t stepsB = d.overviewB.syntheticStep ? 0 : d.overviewB.steps.size();
    for (auto& [name, row] : ops) {
        if (stepsA && stepsB) row.stepsA = std::uint32_t(stepsA), row.stepsB = std::uint32_t(stepsB);
        d.operators.push_back(row);
    }
    sortByDelta(d.operators);
    std::map<std::string, DiffRow> kernels;
    for (const KernelRow& k : sa.kernels) {
        DiffRow& r = kernels[k.name];
        r.name = k.name;
        r.countA += k.count;
        r.deviceA += k.total;
    }
    for (const KernelRow& k : sb.kernels) {
        DiffRow& r = kernels[k.name];
        r.name = k.name;
        r.countB += k.count;
        r.deviceB += k.total;
    }
    // Two compiles of one model number their Triton kernels apart, and a name can be two kernels (a forward
    // and a backward graph's). Each graph's kernels are matched by their place in its launches
    // (compiledmatch.h): A's launches of a kernel in that graph move to the row of B's kernel they match.
    struct MovedIn {
        std::vector<std::string> names; // the A kernels moved into a row
        std::uint64_t launches = 0;     // and their launches
    };
    std::map<std::string, MovedIn> movedIn; // by B's row
    for (const CompiledKernelMatch& m : matchCompiledKernels(a, inductorReport(a), b, inductorReport(b))) {
        const auto from = kernels.find(m.nameA), to = kernels.find(m.nameB);
        if (from == kernels.end() || to == kernels.end() || to->second.countB == 0) continue;
        const std::uint64_t count = std::min(m.countA, from->second.countA);
        const TimeNs device = std::min(m.deviceA, from->second.deviceA);
        if (count == 0) continue;
        from->second.countA -= count;
        from->second.deviceA -= device;
        to->second.countA += count;
        to->second.deviceA += device;
        MovedIn& into = movedIn[m.nameB];
        into.names.push_back(m.nameA);
        into.launches += count;
    }
    std::erase_if(kernels, [](const auto& k) { return k.second.countA == 0 && k.second.countB == 0; });
    // What the moves left behind: a kernel of A whose only launches moved has no row of its own any more, and
    // a row holding A's launches of another name says so.
    for (auto& [name, row] : kernels) {
        const auto moved = movedIn.find(name);
        if (moved == movedIn.end()) continue;
        std::vector<std::string> names = moved->second.names;
        // A's own launches of this name still here too (a kernel of A matched elsewhere in one graph only).
        if (row.countA > moved->second.launches) names.push_back(name);
        std::sort(names.begin(), names.end());
        names.erase(std::unique(names.begin(), names.end()), names.end());
        for (const std::string& n : names)
            row.nameA += (row.nameA.empty() ? "" : ", ") + n;
        row.pairing = DiffPairing::Renumbered;
    }
    // The same model compiled with no graph call ranges in its trace: a kernel only in A and one only in B
    // whose names differ only in that number, and are the only such pair, are one kernel.
    std::map<std::string, std::pair<std::vector<std::string>, std::vector<std::string>>> byStem;
    for (const auto& [name, row] : kernels) {
        const std::string stem = tritonKernelStem(name);
        if (stem.empty() || !row.nameA.empty() || !(row.onlyA() || row.onlyB())) continue;
        (row.onlyA() ? byStem[stem].first : byStem[stem].second).push_back(name);
    }
    for (const auto& [stem, names] : byStem) {
        if (names.first.size() != 1 || names.second.size() != 1) continue;
        DiffRow& b = kernels[names.second.front()];
        const DiffRow& a = kernels[names.first.front()];
        b.nameA = a.name;
        b.pairing = DiffPairing::Renumbered;
        b.countA = a.countA;
        b.deviceA = a.deviceA;
        kernels.erase(names.first.front());
    }
    // Across vendors, PyTorch's own kernels (at::native::) are one source built twice: their full names
    // differ (vector widths, at::detail::Array against std::array, HIP's template spelling) where their short
    // names agree, "vectorized_elementwise_kernel<...> (mul)". Rows of one side only are joined by that short
    // name, every variant of a side together, under B's first name.
    if (acrossVendors) {
        std::map<std::string, std::pair<std::vector<std::string>, std::vector<std::string>>> byShort;
        for (const auto& [name, row] : kernels)
            if (name.find("at::native::") != std::string::npos && (row.onlyA() || row.onlyB()))
                (row.onlyA() ? byShort[shortKernelName(name)].first : byShort[shortKernelName(name)].second)
                    .push_back(name);
        for (const auto& [shortName, sides] : byShort) {
            if (sides.first.empty() || sides.second.empty()) continue;
            DiffRow& into = kernels[sides.second.front()];
            for (std::size_t i = 1; i < sides.second.size(); ++i) {
                const DiffRow& other = kernels[sides.second[i]];
                into.countB += other.countB;
                into.deviceB += other.deviceB;
                kernels.erase(sides.second[i]);
            }
            for (const std::string& nameA : sides.first) {
                const DiffRow& other = kernels[nameA];
                into.countA += other.countA;
                into.deviceA += other.deviceA;
                into.nameA += (into.nameA.empty() ? "" : ", ") + nameA;
                kernels.erase(nameA);
            }
            into.pairing = DiffPairing::Vendor;
        }
    }
    // Inductor's estimates, where either trace has them: A's of the kernel of A a row holds (the first, when
    // it holds several).
    const auto estimates = [](const TraceStore& store) {
        std::map<std::string, std::pair<double, double>> out;
        for (const KernelTableRow& k : kernelTable(store).rows)
            if (k.achievedGbps > 0 || k.achievedTflops > 0) out[k.name] = {k.achievedGbps, k.achievedTflops};
        return out;
    };
    const auto estimatesA = estimates(a), estimatesB = estimates(b);
    for (auto& [name, row] : kernels) {
        const std::string nameA = row.nameA.empty() ? name : row.nameA.substr(0, row.nameA.find(", "));
        if (const auto it = estimatesA.find(nameA); it != estimatesA.end() && row.countA > 0)
            std::tie(row.gbpsA, row.tflopsA) = it->second;
        if (const auto it = estimatesB.find(name); it != estimatesB.end() && row.countB > 0)
            std::tie(row.gbpsB, row.tflopsB) = it->second;
    }
    for (auto& [name, row] : kernels) {
        if (stepsA && stepsB) row.stepsA = std::uint32_t(stepsA), row.stepsB = std::uint32_t(stepsB);
        d.kernels.push_back(row);
        d.kernelsA += row.countA;
        d.kernelsB += row.countB;
    }
    sortByDelta(d.kernels);
    setDisplayNames(d.kernels);
    for (const KernelRow& k : sa.kernels)
        d.categoriesA[std::size_t(kernelCategory(k.name))] += k.total;
    for (const KernelRow& k : sb.kernels)
        d.categoriesB[std::size_t(kernelCategory(k.name))] += k.total;
    return d;
}

} // namespace kinetoscope
