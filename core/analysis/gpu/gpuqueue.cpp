#include "analysis/gpu/gpuqueue.h"

#include "analysis/gpu/gpuidle.h"
#include "analysis/ops/summary.h"

#include <algorithm>
#include <map>
#include <tuple>

namespace kinetoscope {

std::vector<StreamQueue> gpuQueues(const TraceStore& store) {
    // Per GPU stream track: the launch calls' starts and the GPU events' starts, each nearly in order already
    // (calls come in their thread's order, GPU events in their stream's), so two small sorts and a merge
    // instead of one sort of everything.
    std::vector<std::vector<TimeNs>> launched(store.tracks().size()), started(store.tracks().size());
    forEachLaunch(store, [&](EventRef call, EventRef gpuEvent) {
        launched[gpuEvent.track.value].push_back(store.track(call.track).starts[call.index.value]);
        started[gpuEvent.track.value].push_back(store.track(gpuEvent.track).starts[gpuEvent.index.value]);
    });
    std::vector<StreamQueue> out;
    std::vector<std::pair<TimeNs, int>> c; // (time, +1 launch / -1 start)
    for (std::uint32_t trackIndex = 0; trackIndex < launched.size(); ++trackIndex) {
        std::vector<TimeNs>& calls = launched[trackIndex];
        std::vector<TimeNs>& starts = started[trackIndex];
        if (calls.empty()) continue;
        const Track& track = store.track(TrackId(trackIndex));
        for (auto* v : {&calls, &starts})
            if (!std::is_sorted(v->begin(), v->end())) std::sort(v->begin(), v->end());
        // At one time, the launch before the start (as HTA's concatenation orders them).
        c.clear();
        std::size_t a = 0, b = 0;
        while (a < calls.size() || b < starts.size()) {
            if (b == starts.size() || (a < calls.size() && calls[a] <= starts[b]))
                c.emplace_back(calls[a++], +1);
            else
                c.emplace_back(starts[b++], -1);
        }
        StreamQueue q;
        q.device = deviceOf(track);
        q.stream = track.tid;
        q.launches = c.size() / 2;
        std::int64_t length = 0;
        double area = 0;
        for (std::size_t i = 0; i < c.size(); ++i) {
            if (i > 0) {
                const TimeNs held = c[i].first - c[i - 1].first;
                area += double(length) * double(held);
                if (length >= queueFullLength) q.fullTime += held;
                if (length == 0) q.emptyTime += held;
            }
            length += c[i].second;
            q.maxLength = std::max(q.maxLength, length);
            if (!q.length.times.empty() && q.length.times.back() == c[i].first)
                q.length.values.back() = double(length);
            else {
                q.length.times.push_back(c[i].first);
                q.length.values.push_back(double(length));
            }
        }
        q.first = c.front().first;
        q.span = c.back().first - c.front().first;
        q.meanLength = q.span > 0 ? area / double(q.span) : 0;
        out.push_back(std::move(q));
    }
    std::sort(out.begin(), out.end(), [](const StreamQueue& a, const StreamQueue& b) {
        return std::tie(a.device, a.stream) < std::tie(b.device, b.stream);
    });
    return out;
}

DerivedTracks gpuQueueTracks(const TraceStore& store) {
    DerivedTracks tracks;
    for (StreamQueue& q : gpuQueues(store)) {
        // A stream whose queue ever filled gets a second lane: 1 while full, drawn as the share of each
        // pixel's time spent full (where launches blocked the CPU).
        StepSeries full;
        if (q.maxLength >= queueFullLength)
            for (std::size_t i = 0; i < q.length.times.size(); ++i) {
                const double isFull = q.length.values[i] >= queueFullLength ? 1.0 : 0.0;
                if (full.values.empty() || full.values.back() != isFull) {
                    full.times.push_back(q.length.times[i]);
                    full.values.push_back(isFull);
                }
            }
        DerivedTrack lane("Launch queue · stream " + std::to_string(q.stream), std::move(q.length),
                          CounterUnit::Plain, CounterFold::Peak);
        lane.gpu = q.device;
        lane.groupTitle = "GPU " + std::to_string(q.device);
        tracks.push_back(std::move(lane));
        if (full.times.empty()) continue;
        DerivedTrack fullLane("Launch queue full · stream " + std::to_string(q.stream), std::move(full),
                              CounterUnit::Ratio, CounterFold::Mean);
        fullLane.gpu = q.device;
        fullLane.groupTitle = "GPU " + std::to_string(q.device);
        tracks.push_back(std::move(fullLane));
    }
    return tracks;
}

} // namespace kinetoscope
