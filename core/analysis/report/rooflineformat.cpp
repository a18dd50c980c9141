#include "analysis/report/rooflineformat.h"

#include "model/textformat.h"

#include <algorithm>
#include <cstdio>

namespace kinetoscope {

namespace {

constexpr JsonLayout rowPerLine{"\n  ", ",\n  ", "\n "};

// Six significant digits: the figures span from 1e-6 (a tiny op's GFLOPs) to 1e3.
void optionalGeneral(JsonWriter<std::string>& w, std::string_view key, std::optional<double> v) {
    w.key(key);
    if (v)
        w.general(*v);
    else
        w.null();
}

// The modelled rows with GPU time, for the text: (fraction of peak, row).
std::vector<const PerfModelRow*> rated(const PerfModelReport& r) {
    std::vector<const PerfModelRow*> rows;
    for (const PerfModelRow& row : r.rows)
        if (row.peakFraction() && row.deviceUnion > 0) rows.push_back(&row);
    return rows;
}

} // namespace

void writePerfModel(JsonWriter<std::string>& w, const PerfModelReport& r) {
    w.key("perf_model_gpu");
    w.beginObject();
    w.strField("device", r.deviceName);
    w.key("peaks");
    if (r.peaks)
        w.str(r.peaks->name);
    else
        w.null();
    w.key("source");
    if (r.peaks)
        w.str(r.peaks->source);
    else
        w.null();
    w.endObject();
    w.key("perf_model");
    w.beginArray(rowPerLine);
    for (const PerfModelRow& row : r.rows) {
        const double calls = double(std::max<std::uint64_t>(1, row.count));
        w.beginObject();
        w.strField("name", row.name);
        w.key("input_dims");
        w.json(row.inputDims);
        w.key("input_types");
        w.json(row.inputTypes);
        w.strField("category", opFamilyName(row.family));
        w.strField("compute_type", computeTypeName(row.compute));
        w.numField("count", row.count);
        w.key("gflops");
        w.exact(row.flops / calls / 1e9);
        w.fixedField("bytes", row.bytes / calls, 0);
        w.microsField("device_union_us", row.deviceUnion);
        optionalGeneral(w, "tflops", row.tflops());
        optionalGeneral(w, "tbps", row.tbps());
        optionalGeneral(w, "intensity", row.intensity());
        optionalGeneral(w, "peak_tflops", row.peakTflops);
        optionalGeneral(w, "peak_tbps", row.peakTbps);
        const auto fraction = row.peakFraction();
        optionalGeneral(w, "peak_pct", fraction ? std::optional<double>(*fraction * 100) : std::nullopt);
        w.key("bound");
        if (const char* b = boundName(row.bound()))
            w.str(b);
        else
            w.null();
        w.key("headroom_us");
        if (const auto h = row.headroom())
            w.micros(*h);
        else
            w.null();
        w.endObject();
    }
    w.endArray();
    w.fixedField("perf_model_coverage", r.coverage(), 4);
    w.key("perf_model_not_modelled");
    w.beginArray(rowPerLine);
    for (std::size_t i = 0; i < std::min<std::size_t>(20, r.notModelled.size()); ++i) {
        const NotModelledRow& n = r.notModelled[i];
        w.beginObject();
        w.strField("launched_by", n.name);
        w.numField("gpu_events", n.count);
        w.microsField("gpu_us", n.gpuTime);
        w.endObject();
    }
    w.endArray();
}

std::string perfModelText(const PerfModelReport& r) {
    std::string out;
    char buf[512];
    if (!r.hasShapes) return out; // record_shapes was off: nothing to say per op
    std::snprintf(buf, sizeof buf, "Roofline (%s): modelled ops cover %.1f%% of GPU time\n",
                  r.peaks
                      ? r.peaks->name.c_str()
                      : (r.deviceName.empty() ? "no GPU named" : (r.deviceName + ", peaks unknown").c_str()),
                  100 * r.coverage());
    out += buf;
    std::vector<const PerfModelRow*> rows = rated(r);
    if (rows.empty()) return out;
    auto line = [&](const PerfModelRow& row) {
        const auto fraction = row.peakFraction();
        std::snprintf(buf, sizeof buf, "  %5.1f%% of %s peak  %-36.36s %-28.28s ×%llu  %s\n", *fraction * 100,
                      row.bound() == RooflineBound::Compute ? computeTypeName(row.compute) : "memory",
                      row.name.c_str(), row.inputDims.c_str(), static_cast<unsigned long long>(row.count),
                      formatDuration(row.deviceUnion).c_str());
        out += buf;
    };
    std::sort(rows.begin(), rows.end(), [](const PerfModelRow* a, const PerfModelRow* b) {
        return *a->peakFraction() > *b->peakFraction();
    });
    out += " Closest to peak:\n";
    for (std::size_t i = 0; i < std::min<std::size_t>(3, rows.size()); ++i)
        line(*rows[i]);
    std::sort(rows.begin(), rows.end(),
              [](const PerfModelRow* a, const PerfModelRow* b) { return *a->headroom() > *b->headroom(); });
    out += " Farthest from peak (by GPU time it would save):\n";
    for (std::size_t i = 0; i < std::min<std::size_t>(3, rows.size()); ++i)
        line(*rows[i]);
    return out;
}

} // namespace kinetoscope
