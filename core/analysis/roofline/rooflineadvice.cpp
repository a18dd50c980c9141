#include "analysis/overview/overview.h"
#include "analysis/roofline/roofline.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace kinetoscope {

namespace {

bool multipleOf(double v, int of) {
    return std::fmod(v, of) == 0;
}

// The likeliest reason a matrix op runs far below its peak, from what the trace tells of it.
std::string likelyCause(const PerfModelRow& r) {
    char buf[256];
    if (r.compute == ComputeType::FP32 || r.compute == ComputeType::FP64) {
        std::snprintf(buf, sizeof buf,
                      "it runs in %s without tensor cores: allow TF32 "
                      "(torch.set_float32_matmul_precision(\"high\")) or autocast to BF16",
                      computeTypeName(r.compute));
        return buf;
    }
    // Tensor cores want each dimension a multiple of 16 bytes: 8 elements of 16-bit, 16 of 8-bit. Name the
    // dimensions that are off, as M, N and K: the trace cannot tell which is a vocabulary, a hidden size or a
    // batch.
    const int multiple = r.compute == ComputeType::FP8 || r.compute == ComputeType::INT8 ? 16 : 8;
    if (r.family == OpFamily::Gemm) {
        std::string off;
        int offCount = 0;
        for (const auto& [dim, v] : {std::pair{"M", r.m}, std::pair{"N", r.n}, std::pair{"K", r.k}})
            if (!multipleOf(v, multiple)) {
                const double padded = std::ceil(v / multiple) * multiple;
                std::snprintf(buf, sizeof buf, "%s%s = %.0f (pad to %.0f)", offCount++ ? ", " : "", dim, v,
                              padded);
                off += buf;
            }
        if (offCount > 0) {
            std::snprintf(
                buf, sizeof buf,
                "in M×N×K = %.0f×%.0f×%.0f, %s %s not a multiple of %d, which tensor cores want: pad "
                "%s to a multiple of %d",
                r.m, r.n, r.k, off.c_str(), offCount > 1 ? "are" : "is", multiple,
                offCount > 1 ? "them" : "it", multiple);
            return buf;
        }
    }
    if (r.family == OpFamily::Attention && !multipleOf(r.k, 8)) {
        std::snprintf(buf, sizeof buf,
                      "its head dimension %.0f is not a multiple of 8, which fused attention kernels want",
                      r.k);
        return buf;
    }
    if (r.m < 64) {
        std::snprintf(
            buf, sizeof buf,
            "its M dimension is small (%.0f rows per matrix): the GPU cannot fill its units; give each "
            "call more rows (batch more work per call)",
            r.m);
        return buf;
    }
    return "no shape or dtype reason shows: look at the kernel chosen for this shape (torch.compile with "
           "mode=\"max-autotune\" tries others)";
}

} // namespace

std::vector<Recommendation> perfModelRecommendations(const TraceStore& store, const PerfModelReport& report) {
    // Thresholds: a matrix op that is a large share of the GPU time, well under its peak.
    constexpr double largeShare = 0.05, farBelow = 0.3;
    std::vector<Recommendation> out;
    if (report.gpuTime <= 0) return out;
    const PerfModelRow* worst = nullptr;
    for (const PerfModelRow& r : report.rows) {
        if (r.family != OpFamily::Gemm && r.family != OpFamily::Attention) continue;
        const auto fraction = r.peakFraction();
        if (!fraction || *fraction >= farBelow || double(r.deviceUnion) < largeShare * double(report.gpuTime))
            continue;
        if (!worst || *r.headroom() > *worst->headroom()) worst = &r;
    }
    if (!worst) return out;
    const PerfModelRow& r = *worst;
    Recommendation& rec = out.emplace_back();
    rec.id = "below_peak";
    rec.title = r.name + " " + r.inputDims + " runs far below the GPU's peak: " + likelyCause(r);
    char achieved[192];
    if (r.bound() == RooflineBound::Compute)
        std::snprintf(achieved, sizeof achieved,
                      "%.1f TFLOP/s, %.1f%% of the %s compute peak of %.1f TFLOP/s", *r.tflops(),
                      100 * *r.peakFraction(), computeTypeName(r.compute), *r.peakTflops);
    else
        std::snprintf(achieved, sizeof achieved,
                      "%.2f TB/s, %.1f%% of the memory bandwidth peak of %.2f TB/s", *r.tbps(),
                      100 * *r.peakFraction(), *r.peakTbps);
    char buf[640];
    const double share = double(r.deviceUnion) / double(report.gpuTime);
    std::snprintf(
        buf, sizeof buf,
        "%s (%s) ×%llu call%s: %s; their GPU work takes %s of GPU time (%.1f%% of all GPU time), %s of "
        "which would be saved at peak",
        r.name.c_str(), computeTypeName(r.compute), static_cast<unsigned long long>(r.count),
        r.count == 1 ? "" : "s", achieved, formatDuration(r.deviceUnion).c_str(), 100 * share,
        formatDuration(*r.headroom()).c_str());
    rec.evidence = buf;
    // The example is GPU work, as the claim is: the longest kernel one of its calls launched (its call's CPU
    // time is not what runs far below the peak).
    const EventRef example = r.gpuExample.isValid() ? r.gpuExample : r.example;
    rec.example = example;
    if (example.isValid()) {
        const Track& t = store.track(example.track);
        rec.from = t.starts[example.index.value];
        rec.to = t.endOf(example.index.value);
        rec.exampleName = std::string(store.nameOf(example));
        rec.exampleStart = rec.from;
        rec.exampleDuration = rec.to - rec.from;
        rec.exampleOnGpu = r.gpuExample.isValid();
    }
    rec.figures = {{"peak_fraction", *r.peakFraction()},
                   {"gpu_share", share},
                   {"gpu_time_us", double(r.deviceUnion) / 1000.0},
                   {r.bound() == RooflineBound::Compute ? "achieved_tflops" : "achieved_tbps",
                    r.bound() == RooflineBound::Compute ? *r.tflops() : *r.tbps()},
                   {"threshold", farBelow}};
    return out;
}

} // namespace kinetoscope
