#include "kernels.h"

#include "argscan.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <unordered_map>

namespace kinetoscope {

namespace {
bool contains(std::string_view haystack, std::string_view needle) { return haystack.find(needle) != std::string_view::npos; }

std::string lower(std::string_view s) {
    std::string out(s);
    for (char& c : out) c = char(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

// Name fragments, kept as data. Order matters: the first list that matches wins.
struct CategoryRule {
    KernelCategory category;
    std::vector<std::string_view> fragments; // matched against the lower-cased name
};
const std::vector<CategoryRule>& categoryRules() {
    static const std::vector<CategoryRule> rules = {
        {KernelCategory::Pointwise, {"triton_poi_"}},
        {KernelCategory::Reduction, {"triton_red_"}},
        {KernelCategory::PersistentReduction, {"triton_per_"}},
        {KernelCategory::Template, {"triton_tem_"}},
        {KernelCategory::Triton, {"triton_", "triton"}},
        {KernelCategory::Communication, {"nccl", "rccl"}},
        {KernelCategory::Attention, {"flash", "fmha", "sdpa", "attn", "attention", "softmax_warp"}},
        {KernelCategory::Conv, {"conv", "implicit_gemm", "cudnn", "winograd", "dgrad", "wgrad", "fprop"}},
        {KernelCategory::Gemm, {"gemm", "cublas", "cutlass", "cijk_", "nvjet", "matmul", "wgmma", "xmma", "hmma", "s884", "h884", "s1688", "h1688", "16816", "splitk"}},
        {KernelCategory::Reduce, {"reduce_kernel", "reduction", "reduce"}},
        {KernelCategory::Elementwise, {"elementwise", "unrolled_", "vectorized_", "at::native::", "fill_kernel", "copy_kernel"}},
    };
    return rules;
}

const std::vector<std::string_view>& tensorCoreFragments() {
    static const std::vector<std::string_view> fragments = {
        "h884", "s884", "h1688", "s1688", "hmma", "i8816", "16816", "xmma_gemm", "xmma_implicit_gemm", "xmma_sparse",
        "c1688", "884gemm", "1688gemm", "wgmma", "sm90_xmma", "sm80_xmma", "nvjet", "_tensorop_", "tensorop",
        "cutlass_80_tensorop", "cutlass_90", "sm90_gemm", "sm100_", "mfma", "cijk_alik_bljk_bbs", "cijk_alik_bljk_hhs",
    };
    return fragments;
}
} // namespace

KernelCategory kernelCategory(std::string_view name) {
    const std::string l = lower(name);
    for (const CategoryRule& rule : categoryRules()) {
        for (std::string_view f : rule.fragments) {
            if (contains(l, f)) return rule.category;
        }
    }
    return KernelCategory::Other;
}

std::string_view kernelCategoryName(KernelCategory c) {
    switch (c) {
    case KernelCategory::Pointwise: return "pointwise";
    case KernelCategory::Reduction: return "reduction";
    case KernelCategory::PersistentReduction: return "persistent_reduction";
    case KernelCategory::Template: return "template";
    case KernelCategory::Triton: return "triton";
    case KernelCategory::Gemm: return "gemm";
    case KernelCategory::Conv: return "conv";
    case KernelCategory::Attention: return "attention";
    case KernelCategory::Communication: return "communication";
    case KernelCategory::Elementwise: return "elementwise";
    case KernelCategory::Reduce: return "reduce";
    case KernelCategory::Other: return "other";
    }
    return "other";
}

bool usesTensorCores(std::string_view name) {
    const std::string l = lower(name);
    for (std::string_view f : tensorCoreFragments()) {
        if (contains(l, f)) return true;
    }
    return false;
}

std::optional<double> blocksPerSm(const TraceStore& store, EventRef kernel) {
    const std::string_view args = store.argsText(kernel);
    if (auto v = argNumber(args, "blocks per SM")) return *v;
    const auto grid = argTriple(args, "grid");
    if (!grid) return std::nullopt;
    const Track& t = store.tracks[kernel.track.value];
    for (const DeviceProperties& d : store.metadata.devices) {
        if (d.id == t.pid && d.numSms > 0) return double((*grid)[0] * (*grid)[1] * (*grid)[2]) / double(d.numSms);
    }
    return std::nullopt;
}

KernelTable kernelTable(const TraceStore& store, KernelGrouping grouping, TimeNs from, TimeNs to) {
    KernelTable table;
    struct Acc {
        KernelTableRow row;
        double blocksSum = 0;
        std::uint64_t blocksCount = 0;
        double occupancyWeighted = 0;
        TimeNs occupancyTime = 0;
    };
    std::unordered_map<std::string, std::size_t> index;
    std::vector<Acc> accs;
    std::unordered_map<std::uint32_t, std::pair<KernelCategory, bool>> byName; // name id -> (category, tensor cores)
    for (std::uint32_t ti = 0; ti < store.tracks.size(); ++ti) {
        const Track& t = store.tracks[ti];
        if (t.kind != TrackKind::GpuStream) continue;
        for (std::uint32_t r = 0; r < t.sliceCount(); ++r) {
            if (store.categories[t.categories[r]].kind != CategoryKind::Kernel) continue;
            if (t.starts[r] < from || t.starts[r] > to) continue;
            const EventRef ref{TrackId(ti), r};
            const std::string_view name = store.strings.view(t.names[r]);
            auto [nit, fresh] = byName.try_emplace(t.names[r].value);
            if (fresh) nit->second = {kernelCategory(name), usesTensorCores(name)};
            std::string key(name);
            std::string launch;
            const std::string_view args = store.argsText(ref);
            if (grouping == KernelGrouping::NameAndLaunch) {
                char buf[160];
                const auto grid = argTriple(args, "grid");
                const auto block = argTriple(args, "block");
                std::snprintf(buf, sizeof buf, "grid [%lld,%lld,%lld] block [%lld,%lld,%lld] regs %.0f smem %.0f",
                              grid ? (*grid)[0] : 0, grid ? (*grid)[1] : 0, grid ? (*grid)[2] : 0, block ? (*block)[0] : 0,
                              block ? (*block)[1] : 0, block ? (*block)[2] : 0,
                              argNumber(args, "registers per thread").value_or(0), argNumber(args, "shared memory").value_or(0));
                launch = buf;
                if (const auto l = store.launchOf(ref)) {
                    // The operator that launched it: the launch's enclosing slice on its thread.
                    const Track& lt = store.tracks[l->track.value];
                    if (const auto p = lt.parentOf(l->index)) launch += " · " + std::string(store.strings.view(lt.names[*p]));
                }
                key += '\x1f' + launch;
            }
            auto [it, inserted] = index.try_emplace(std::move(key), accs.size());
            if (inserted) {
                accs.emplace_back();
                accs.back().row.name = std::string(name);
                accs.back().row.launch = launch;
                accs.back().row.category = nit->second.first;
                accs.back().row.tensorCores = nit->second.second;
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
            table.byCategory[std::size_t(a.row.category)] += dur;
            table.totalKernelTime += dur;
            ++table.kernelCount;
        }
    }
    for (Acc& a : accs) {
        a.row.meanBlocksPerSm = a.blocksCount ? a.blocksSum / double(a.blocksCount) : 0;
        a.row.achievedOccupancy = a.occupancyTime ? a.occupancyWeighted / double(a.occupancyTime) : 0;
        a.row.shareOfGpuTime = table.totalKernelTime ? double(a.row.total) / double(table.totalKernelTime) : 0;
        table.rows.push_back(std::move(a.row));
    }
    std::sort(table.rows.begin(), table.rows.end(), [](const KernelTableRow& a, const KernelTableRow& b) {
        if (a.total != b.total) return a.total > b.total;
        return std::tie(a.name, a.launch) < std::tie(b.name, b.launch);
    });
    return table;
}

} // namespace kinetoscope
