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
        collectCounterColumns(m_track, axis, out);
        return;
    }
    if (times.empty() || axis.width <= 0) return;
    const double scale = axis.width / double(axis.span());
    const int columns = int(std::ceil(axis.width));
    const int first = std::max(0, int(std::floor(double(times.front() - axis.start) * scale)));
    const int last = std::min(columns, int(std::ceil(double(times.back() - axis.start) * scale)));
    for (int c = first; c < last; ++c) {
        const TimeNs from = std::max(times.front(), axis.timeAt(c));
        const TimeNs to = std::min(times.back(), axis.timeAt(c + 1));
        CounterColumn column;
        column.x = float(c);
        column.minValue = column.maxValue = column.lastValue = meanBetween(from, to);
        out.push_back(column);
    }
}

} // namespace kinetoscope
