#include "analysis/ops/kernels.h"

#include "analysis/ops/hosttree.h"
#include "analysis/ops/tensorcores.h"
#include "model/argscan.h"
#include "query/kernelshortname.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <unordered_map>

namespace kinetoscope {

std::optional<double> blocksPerSm(const TraceStore& store, EventRef kernel) {
    const std::string_view args = store.argsText(kernel);
    if (auto v = argNumber(args, "blocks per SM")) return *v;
    // From the grid, when the device's SM count is known (looked up first: a trace that lists only some
    // devices need not have every kernel's grid read for nothing).
    const Track& t = store.track(kernel.track);
    for (const DeviceProperties& d : store.metadata().devices) {
        if (d.id != t.pid || d.numSms <= 0) continue;
        const auto grid = argTriple(args, "grid");
        if (!grid) return std::nullopt;
        return double((*grid)[0] * (*grid)[1] * (*grid)[2]) / double(d.numSms);
    }
    return std::nullopt;
}

namespace {
constexpr std::string_view estimatedGbKey = "kernel_num_gb";
constexpr std::string_view estimatedFlopKey = "kernel_flop";
} // namespace

std::vector<std::string> kernelTableHostKeys() {
    // A Triton template's tensor cores come from its launching operator's input types (tensorcores.h):
    // Inductor names the kernel in that operator's args. Every key starts with "kernel_, so the loader's
    // search for them stays one pass for that prefix (a key of another start would make it stop at every
    // quote).
    return {'"' + std::string(estimatedGbKey) + '"', '"' + std::string(estimatedFlopKey) + '"',
            "\"kernel_name\": \"triton_tem_", "\"kernel_name\":\"triton_tem_"};
}

KernelTable kernelTable(const TraceStore& store, KernelGrouping grouping, TimeNs from, TimeNs to) {
    KernelTable table;
    struct Acc {
        KernelTableRow row;
        double blocksSum = 0;
        std::uint64_t blocksCount = 0;
        double occupancyWeighted = 0;
        TimeNs occupancyTime = 0;
        double gbpsSum = 0, tflopsSum = 0;
        std::uint64_t gbpsCount = 0, tflopsCount = 0;
    };
    std::unordered_map<std::string, std::size_t> index;
    std::vector<Acc> accs;
    // What follows from a kernel's name alone, worked out once per name (a name has many calls, and with
    // launch grouping many rows).
    struct NameFacts {
        KernelCategory category = KernelCategory::Other;
        bool tensorCores = false;
        bool estimates = false; // its first call carries Inductor's kernel_num_gb or kernel_flop
    };
    // Where Inductor's estimates of a call are: the kernel's own args (a trace augmented by
    // profile_analysis), else the operator that launched it (Inductor's launch event, named after the
    // kernel).
    const auto estimatesOf = [&](EventRef kernel) {
        std::pair<std::optional<double>, std::optional<double>> e{};
        std::string_view args = store.argsText(kernel);
        for (int tries = 0; tries < 2; ++tries) {
            e = {argNumber(args, estimatedGbKey), argNumber(args, estimatedFlopKey)};
            if (e.first || e.second) break;
            const auto launch = store.launchOf(kernel);
            if (!launch) break;
            // The operator around the launch, past the Python frames with_stack puts between them.
            const auto op = launchingOperator(store, *launch);
            if (!op) break;
            args = store.argsText(*op);
        }
        return e;
    };
    std::unordered_map<std::uint32_t, NameFacts> byName; // by name id
    for (std::uint32_t ti = 0; ti < store.tracks().size(); ++ti) {
        const Track& t = store.tracks()[ti];
        if (t.kind != TrackKind::GpuStream) continue;
        for (std::uint32_t r = 0; r < t.sliceCount(); ++r) {
            if (store.categories()[t.categories[r]].kind != CategoryKind::Kernel) continue;
            if (t.starts[r] < from || t.starts[r] > to) continue;
            const EventRef ref{TrackId(ti), EventIndex(r)};
            const std::string_view name = store.strings().view(t.names[r]);
            auto [nit, fresh] = byName.try_emplace(t.names[r].value);
            if (fresh) {
                nit->second = {kernelCategory(name), kernelUsesTensorCores(store, ref)};
                const auto e = estimatesOf(ref);
                nit->second.estimates = e.first || e.second;
            }
            std::string key(name);
            std::string launch;
            const std::string_view args = store.argsText(ref);
            if (grouping == KernelGrouping::NameAndLaunch) {
                char buf[160];
                const auto grid = argTriple(args, "grid");
                const auto block = argTriple(args, "block");
                std::snprintf(buf, sizeof buf,
                              "grid [%lld,%lld,%lld] block [%lld,%lld,%lld] regs %.0f smem %.0f",
                              grid ? (*grid)[0] : 0, grid ? (*grid)[1] : 0, grid ? (*grid)[2] : 0,
                              block ? (*block)[0] : 0, block ? (*block)[1] : 0, block ? (*block)[2] : 0,
                              argNumber(args, "registers per thread").value_or(0),
                              argNumber(args, "shared memory").value_or(0));
                launch = buf;
                if (const auto l = store.launchOf(ref)) {
                    // The operator that launched it (not a Python frame in between, with with_stack).
                    if (const auto op = launchingOperator(store, *l))
                        launch += " · " + std::string(store.nameOf(*op));
                }
                key += '\x1f' + launch;
            }
            auto [it, inserted] = index.try_emplace(std::move(key), accs.size());
            if (inserted) {
                accs.emplace_back();
                accs.back().row.name = std::string(name);
                accs.back().row.launch = launch;
                accs.back().row.category = nit->second.category;
                accs.back().row.tensorCores = nit->second.tensorCores;
                accs.back().row.min = t.durations[r];
            }
            Acc& a = accs[it->second];
            const TimeNs dur = t.durations[r];
            ++a.row.count;
            a.row.total += dur;
            a.row.min = std::min(a.row.min, dur);
            if (dur >= a.row.max) {
                a.row.max = dur;
                a.row.example = ref;
            }
            if (const auto b = blocksPerSm(store, ref)) {
                a.blocksSum += *b;
                ++a.blocksCount;
            }
            if (const auto occ = argNumber(args, "est. achieved occupancy %")) {
                a.occupancyWeighted += *occ * double(dur);
                a.occupancyTime += dur;
            }
            if (nit->second.estimates && dur > 0) {
                const auto [gb, flop] = estimatesOf(ref);
                if (gb) {
                    a.gbpsSum += *gb / (double(dur) * 1e-9);
                    ++a.gbpsCount;
                }
                if (flop) {
                    a.tflopsSum += *flop / (double(dur) * 1e-9) / 1e12;
                    ++a.tflopsCount;
                }
            }
            table.byCategory[std::size_t(a.row.category)] += dur;
            table.totalKernelTime += dur;
            ++table.kernelCount;
        }
    }
    for (Acc& a : accs) {
        a.row.meanBlocksPerSm = a.blocksCount ? a.blocksSum / double(a.blocksCount) : 0;
        a.row.achievedOccupancy = a.occupancyTime ? a.occupancyWeighted / double(a.occupancyTime) : 0;
        a.row.achievedGbps = a.gbpsCount ? a.gbpsSum / double(a.gbpsCount) : 0;
        a.row.achievedTflops = a.tflopsCount ? a.tflopsSum / double(a.tflopsCount) : 0;
        a.row.shareOfGpuTime =
            table.totalKernelTime ? double(a.row.total) / double(table.totalKernelTime) : 0;
        table.rows.push_back(std::move(a.row));
    }
    std::sort(table.rows.begin(), table.rows.end(), [](const KernelTableRow& a, const KernelTableRow& b) {
        if (a.total != b.total) return a.total > b.total;
        return std::tie(a.name, a.launch) < std::tie(b.name, b.launch);
    });
    setDisplayNames(table.rows); // rows of one name (by launch) read alike: their launch column differs
    return table;
}

} // namespace kinetoscope
