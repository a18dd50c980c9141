#include "overview.h"
#include "roofline.h"

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
    // Tensor cores want each dimension a multiple of 16 bytes: 8 elements of 16-bit, 16 of 8-bit.
    const int multiple = r.compute == ComputeType::FP8 || r.compute == ComputeType::INT8 ? 16 : 8;
    if (r.family == OpFamily::Gemm &&
        (!multipleOf(r.m, multiple) || !multipleOf(r.n, multiple) || !multipleOf(r.k, multiple))) {
        std::snprintf(buf, sizeof buf,
                      "its shape M×N×K = %.0f×%.0f×%.0f is not a multiple of %d in every dimension: pad it "
                      "(vocabulary, hidden and batch sizes) to a multiple of %d, or 64",
                      r.m, r.n, r.k, multiple, multiple);
        return buf;
    }
    if (r.family == OpFamily::Attention && !multipleOf(r.k, 8)) {
        std::snprintf(buf, sizeof buf, "its head dimension %.0f is not a multiple of 8", r.k);
        return buf;
    }
    if (r.m < 64) {
        std::snprintf(
            buf, sizeof buf,
            "its batch is tiny (%.0f rows): the GPU cannot fill its units; batch more work per call", r.m);
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
    char buf[512];
    const double share = double(r.deviceUnion) / double(report.gpuTime);
    std::snprintf(
        buf, sizeof buf,
        "%s (%s) ×%llu: %.1f TFLOP/s, %.1f%% of the %s peak of %.1f; %s, %.1f%% of GPU time, of which "
        "%s would be saved at peak",
        r.name.c_str(), computeTypeName(r.compute), static_cast<unsigned long long>(r.count), *r.tflops(),
        100 * *r.peakFraction(), r.bound() == RooflineBound::Compute ? computeTypeName(r.compute) : "memory",
        r.bound() == RooflineBound::Compute ? *r.peakTflops : *r.peakTbps,
        formatDuration(r.deviceUnion).c_str(), 100 * share, formatDuration(*r.headroom()).c_str());
    rec.evidence = buf;
    rec.example = r.example;
    if (r.example.isValid()) {
        const Track& t = store.track(r.example.track);
        rec.from = t.starts[r.example.index.value];
        rec.to = t.endOf(r.example.index.value);
        rec.exampleName = r.name;
        rec.exampleStart = rec.from;
        rec.exampleDuration = rec.to - rec.from;
    }
    rec.figures = {{"peak_fraction", *r.peakFraction()}, {"gpu_share", share}, {"threshold", farBelow}};
    return out;
}

} // namespace kinetoscope
