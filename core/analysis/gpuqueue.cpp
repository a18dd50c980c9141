#include "gpuqueue.h"

#include "gpuidle.h"
#include "summary.h"

#include <algorithm>
#include <map>
#include <tuple>

namespace kinetoscope {

std::vector<StreamQueue> gpuQueues(const TraceStore& store) {
    // Per GPU stream track: (time, +1 launch / -1 start) changes.
    std::map<std::uint32_t, std::vector<std::pair<TimeNs, int>>> changes;
    forEachLaunch(store, [&](EventRef call, EventRef gpuEvent) {
        auto& c = changes[gpuEvent.track.value];
        c.emplace_back(store.track(call.track).starts[call.index.value], +1);
        c.emplace_back(store.track(gpuEvent.track).starts[gpuEvent.index.value], -1);
    });
    std::vector<StreamQueue> out;
    for (auto& [trackIndex, c] : changes) {
        const Track& track = store.track(TrackId(trackIndex));
        // At one time, the launch before the start (as HTA's concatenation orders them).
        std::sort(c.begin(), c.end(), [](const auto& a, const auto& b) {
            return a.first != b.first ? a.first < b.first : a.second > b.second;
        });
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
