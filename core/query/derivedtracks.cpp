#include "derivedtracks.h"

#include <algorithm>
#include <cmath>

namespace kinetoscope {

DerivedTrack::DerivedTrack(std::string title, StepSeries series, CounterUnit unit, CounterFold fold)
    : m_title(std::move(title)), m_unit(unit), m_fold(fold) {
    m_track.kind = TrackKind::Counter;
    m_track.counterTimes = std::move(series.times);
    m_track.counterValues = std::move(series.values);
    const auto& times = m_track.counterTimes;
    const auto& values = m_track.counterValues;
    m_integral.resize(times.size());
    double sum = 0;
    for (std::size_t i = 0; i < times.size(); ++i) {
        if (i) sum += values[i - 1] * double(times[i] - times[i - 1]);
        m_integral[i] = sum;
    }
    if (m_fold == CounterFold::Peak) m_blocks = CounterBlocks::of(m_track);
}

DerivedTrack::DerivedTrack(std::string title, Track slices, std::vector<EventRef> sources)
    : m_title(std::move(title)), m_track(std::move(slices)), m_unit(CounterUnit::Plain),
      m_fold(CounterFold::Peak), m_sources(std::move(sources)) {}

Track laneSlices(const std::vector<TimeNs>& starts, const std::vector<TimeNs>& durations,
                 std::vector<std::size_t>& order) {
    std::vector<std::size_t> byStart(starts.size());
    for (std::size_t i = 0; i < byStart.size(); ++i)
        byStart[i] = i;
    std::stable_sort(byStart.begin(), byStart.end(),
                     [&](std::size_t a, std::size_t b) { return starts[a] < starts[b]; });
    // Greedy: the first lane whose last slice has ended.
    std::vector<TimeNs> laneEnd;
    std::vector<std::vector<std::size_t>> lanes;
    for (std::size_t i : byStart) {
        std::size_t lane = 0;
        while (lane < laneEnd.size() && laneEnd[lane] > starts[i])
            ++lane;
        if (lane == laneEnd.size()) {
            laneEnd.push_back(0);
            lanes.emplace_back();
        }
        laneEnd[lane] = starts[i] + durations[i];
        lanes[lane].push_back(i);
    }
    Track t;
    t.kind = TrackKind::Async;
    order.clear();
    t.laneBegin.push_back(0);
    for (const auto& lane : lanes) {
        for (std::size_t i : lane) {
            order.push_back(i);
            t.starts.push_back(starts[i]);
            t.durations.push_back(durations[i]);
        }
        t.laneBegin.push_back(std::uint32_t(order.size()));
    }
    return t;
}

double DerivedTrack::integralTo(TimeNs t, std::size_t* next) const {
    const TimeNs* times = m_track.counterTimes.data();
    const TimeNs* end = times + m_track.counterTimes.size();
    // The first sample after t (times are integers: the first at or after t + 1).
    const TimeNs* after = next ? gallopTo(times + *next, end, t + 1) : std::upper_bound(times, end, t);
    if (next) *next = std::size_t(after - times);
    if (after == times) return 0;
    const std::size_t i = std::size_t(after - times) - 1;
    return m_integral[i] + m_track.counterValues[i] * double(t - times[i]);
}

double DerivedTrack::meanBetween(TimeNs from, TimeNs to) const {
    if (to <= from) return counterValueAt(m_track, from).value_or(0);
    return (integralTo(to) - integralTo(from)) / double(to - from);
}

void DerivedTrack::collectColumns(const TimeAxis& axis, std::vector<CounterColumn>& out) const {
    const auto& times = m_track.counterTimes;
    if (m_fold == CounterFold::Peak) {
        collectCounterColumns(m_track, axis, out, &m_blocks);
        return;
    }
    if (times.empty() || axis.width <= 0) return;
    const double scale = axis.width / double(axis.span());
    const int columns = int(std::ceil(axis.width));
    // Clamped as doubles: zoomed in far from the series' ends, these are beyond an int.
    const int first =
        int(std::clamp(std::floor(double(times.front() - axis.start) * scale), 0.0, double(columns)));
    const int last =
        int(std::clamp(std::ceil(double(times.back() - axis.start) * scale), 0.0, double(columns)));
    // The columns' edges ascend: each edge's sample is found by galloping from the previous edge's (a few
    // neighbouring cache lines, where two binary searches a column over a series of a million samples cost a
    // millisecond a lane), and the integral at each edge is computed once, for the columns on both sides.
    std::size_t next = 0; // the first sample past the previous edge
    TimeNs from = std::max(times.front(), axis.timeAt(first));
    double integralFrom = integralTo(from, &next);
    for (int c = first; c < last; ++c) {
        const TimeNs to = std::min(times.back(), axis.timeAt(c + 1));
        CounterColumn column;
        column.x = float(c);
        if (to <= from) {
            column.minValue = meanBetween(from, to);
        } else {
            const double integralAtTo = integralTo(to, &next);
            column.minValue = (integralAtTo - integralFrom) / double(to - from);
            from = to;
            integralFrom = integralAtTo;
        }
        column.maxValue = column.lastValue = column.minValue;
        out.push_back(column);
    }
}

} // namespace kinetoscope
