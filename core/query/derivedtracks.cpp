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

double DerivedTrack::integralTo(TimeNs t) const {
    const auto& times = m_track.counterTimes;
    const auto it = std::upper_bound(times.begin(), times.end(), t);
    if (it == times.begin()) return 0;
    const std::size_t i = std::size_t(it - times.begin()) - 1;
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
    std::size_t sample = 0; // the last sample at or before the edge, or 0
    const auto integralAtEdge = [&](TimeNs t) {
        std::size_t step = 1;
        while (sample + step < times.size() && times[sample + step] <= t) {
            sample += step;
            step *= 2;
        }
        const auto end = times.begin() + std::ptrdiff_t(std::min(times.size(), sample + step + 1));
        const auto it = std::upper_bound(times.begin() + std::ptrdiff_t(sample), end, t);
        if (it == times.begin()) return 0.0;
        sample = std::size_t(it - times.begin()) - 1;
        if (times[sample] > t) return 0.0; // before the first sample
        return m_integral[sample] + m_track.counterValues[sample] * double(t - times[sample]);
    };
    TimeNs from = std::max(times.front(), axis.timeAt(first));
    double integralFrom = integralAtEdge(from);
    for (int c = first; c < last; ++c) {
        const TimeNs to = std::min(times.back(), axis.timeAt(c + 1));
        CounterColumn column;
        column.x = float(c);
        if (to <= from) {
            column.minValue = meanBetween(from, to);
        } else {
            const double integralTo = integralAtEdge(to);
            column.minValue = (integralTo - integralFrom) / double(to - from);
            from = to;
            integralFrom = integralTo;
        }
        column.maxValue = column.lastValue = column.minValue;
        out.push_back(column);
    }
}

} // namespace kinetoscope
