#include "analysis/gpu/gpuseries.h"

#include "analysis/gpu/intervals.h"
#include "analysis/ops/kernels.h"

#include "model/argscan.h"

#include <algorithm>
#include <cmath>
#include <map>

namespace kinetoscope {

namespace {
struct DeviceKernels {
    std::vector<IntervalSet> runs;                // one per lane, sorted by start
    std::vector<std::pair<TimeNs, double>> edges; // (time, ± blocks per SM)
    bool hasSmData = false;
};

// Appends (t, v), replacing a sample at the same time and skipping one that changes nothing.
void push(StepSeries& s, TimeNs t, double v) {
    if (!s.times.empty() && s.times.back() == t) {
        s.values.back() = v;
        if (s.values.size() > 1 && s.values[s.values.size() - 2] == v) {
            s.times.pop_back();
            s.values.pop_back();
        }
        return;
    }
    if (!s.values.empty() && s.values.back() == v) return;
    s.times.push_back(t);
    s.values.push_back(v);
}

StepSeries busySeries(const IntervalSet& busy, TimeNs from, TimeNs to) {
    StepSeries s;
    push(s, from, 0);
    for (const auto& [a, b] : busy) {
        push(s, a, 1);
        push(s, b, 0);
    }
    s.times.push_back(std::max(to, s.times.back()));
    s.values.push_back(0);
    return s;
}

// The sum of (time, ±value) edges as a step function from `from` to `to`, at most `ceiling`.
StepSeries edgeSeries(std::vector<std::pair<TimeNs, double>>& edges, TimeNs from, TimeNs to, double ceiling) {
    // (The edges of one lane come in time order already: a device with one stream needs no sort.)
    auto byTime = [](const auto& a, const auto& b) { return a.first < b.first; };
    if (!std::is_sorted(edges.begin(), edges.end(), byTime)) std::sort(edges.begin(), edges.end(), byTime);
    StepSeries s;
    push(s, from, 0);
    double level = 0;
    for (std::size_t i = 0; i < edges.size(); ++i) {
        level += edges[i].second;
        if (i + 1 < edges.size() && edges[i + 1].first == edges[i].first) continue;
        // (A sum of ± doubles can end a hair off 0.)
        const double v = std::abs(level) < 1e-9 * std::max(1.0, std::abs(edges[i].second)) ? 0 : level;
        push(s, edges[i].first, std::min(std::max(v, 0.0), ceiling));
    }
    s.times.push_back(std::max(to, s.times.back()));
    s.values.push_back(0);
    return s;
}
} // namespace

std::vector<GpuActivitySeries> gpuActivitySeries(const TraceStore& store) {
    std::map<std::int64_t, DeviceKernels> devices;
    for (std::uint32_t ti = 0; ti < store.tracks().size(); ++ti) {
        const Track& t = store.tracks()[ti];
        if (t.kind != TrackKind::GpuStream) continue;
        DeviceKernels* dev = nullptr; // made at the track's first kernel
        for (std::uint32_t d = 0; d < t.laneCount(); ++d) {
            IntervalSet lane;
            for (std::uint32_t r = t.laneBegin[d]; r < t.laneBegin[d + 1]; ++r) {
                if (t.flags[r] & SliceFlag::Instant || t.durations[r] <= 0) continue;
                if (store.categories()[t.categories[r]].kind != CategoryKind::Kernel) continue;
                lane.emplace_back(t.starts[r], t.endOf(r));
                if (!dev) dev = &devices[t.pid];
                const auto blocks = blocksPerSm(store, EventRef{TrackId(ti), EventIndex(r)});
                if (blocks) dev->hasSmData = true;
                dev->edges.emplace_back(t.starts[r], blocks.value_or(0));
                dev->edges.emplace_back(t.endOf(r), -blocks.value_or(0));
            }
            if (!lane.empty()) dev->runs.push_back(std::move(lane));
        }
    }
    std::vector<GpuActivitySeries> out;
    for (auto& [device, kernels] : devices) {
        GpuActivitySeries g;
        g.device = device;
        g.utilization = busySeries(unionOfRuns(kernels.runs), store.minTime(), store.maxTime());
        if (kernels.hasSmData)
            g.smEfficiency = edgeSeries(kernels.edges, store.minTime(), store.maxTime(), 1);
        out.push_back(std::move(g));
    }
    return out;
}

DerivedTracks gpuActivityTracks(const TraceStore& store) {
    DerivedTracks tracks;
    for (GpuActivitySeries& g : gpuActivitySeries(store)) {
        // Both lanes are busy shares: a mean per pixel column, full scale 100 %.
        auto add = [&](const char* title, StepSeries series) {
            DerivedTrack lane(title, std::move(series), CounterUnit::Ratio, CounterFold::Mean);
            lane.gpu = g.device;
            lane.groupTitle = "GPU " + std::to_string(g.device);
            lane.fullScale = 1;
            tracks.push_back(std::move(lane));
        };
        add("GPU utilisation", std::move(g.utilization));
        if (!g.smEfficiency.times.empty()) add("est. SM efficiency", std::move(g.smEfficiency));
    }
    return tracks;
}

std::string copyKind(std::string_view name, CategoryKind kind) {
    if (kind == CategoryKind::Memset) return "Memset";
    // "Memcpy HtoD (Pinned -> Device)": the direction is the second word.
    if (name.starts_with("Memcpy ")) {
        const std::string_view rest = name.substr(7);
        return "Memcpy " + std::string(rest.substr(0, rest.find(' ')));
    }
    return "Memcpy";
}

std::vector<GpuBandwidthSeries> gpuBandwidthSeries(const TraceStore& store) {
    std::map<std::pair<std::int64_t, std::string>, std::vector<std::pair<TimeNs, double>>> edges;
    std::map<std::pair<std::int64_t, std::string>, double> bytes;
    for (std::uint32_t ti = 0; ti < store.tracks().size(); ++ti) {
        const Track& t = store.tracks()[ti];
        if (t.kind != TrackKind::GpuStream) continue;
        for (std::uint32_t r = 0; r < t.sliceCount(); ++r) {
            const CategoryKind kind = store.categories()[t.categories[r]].kind;
            if ((kind != CategoryKind::Memcpy && kind != CategoryKind::Memset) || t.durations[r] <= 0 ||
                (t.flags[r] & SliceFlag::Instant))
                continue;
            const auto b = argNumber(store.argsText(EventRef{TrackId(ti), EventIndex(r)}), "bytes");
            if (!b || *b <= 0) continue;
            const auto key = std::make_pair(t.pid, copyKind(store.strings().view(t.names[r]), kind));
            const double rate = *b * 1e9 / double(t.durations[r]); // bytes per second
            auto& e = edges[key];
            e.emplace_back(t.starts[r], rate);
            e.emplace_back(t.endOf(r), -rate);
            bytes[key] += *b;
        }
    }
    std::vector<GpuBandwidthSeries> out;
    for (auto& [key, e] : edges) {
        GpuBandwidthSeries g;
        g.device = key.first;
        g.kind = key.second;
        g.bytes = bytes[key];
        g.bytesPerSecond = edgeSeries(e, store.minTime(), store.maxTime(), INFINITY);
        out.push_back(std::move(g));
    }
    return out;
}

DerivedTracks gpuBandwidthTracks(const TraceStore& store) {
    DerivedTracks tracks;
    for (GpuBandwidthSeries& g : gpuBandwidthSeries(store)) {
        // A mean per pixel column: the column's bytes over its time, whatever the zoom.
        DerivedTrack lane(g.kind + " bandwidth", std::move(g.bytesPerSecond), CounterUnit::BytesPerSecond,
                          CounterFold::Mean);
        lane.gpu = g.device;
        lane.groupTitle = "GPU " + std::to_string(g.device);
        tracks.push_back(std::move(lane));
    }
    return tracks;
}

} // namespace kinetoscope
