#include "analysis/report/rooflineformat.h"

#include "analysis/report/sections.h"

#include "model/textformat.h"

#include <algorithm>
#include <cstdio>

namespace kinetoscope {

namespace {

constexpr JsonLayout rowPerLine{"\n  ", ",\n  ", "\n "};

// The modelled rows with GPU time, for the text: (fraction of peak, row).
std::vector<const PerfModelRow*> rated(const PerfModelReport& r) {
    std::vector<const PerfModelRow*> rows;
    for (const PerfModelRow& row : r.rows)
        if (row.peakFraction() && row.deviceUnion > 0) rows.push_back(&row);
    return rows;
}

} // namespace

void writePerfModel(JsonWriter<std::string>& w, const PerfModelReport& r, std::size_t notModelledRows) {
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
    writeRows(w, perfModelColumns(), r.rows, rowPerLine);
    w.fixedField("perf_model_coverage", r.coverage(), 4);
    w.key("perf_model_not_modelled");
    writeRows(w, notModelledColumns(), r.notModelled, rowPerLine, notModelledRows);
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
