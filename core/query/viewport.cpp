#include "viewport.h"

#include <algorithm>
#include <cmath>

namespace kinetoscope {

namespace {
// lower_bound that probes 1, 2, 4, ... rows ahead first: the next fold boundary is usually close, so this
// touches a few neighbouring cache lines instead of a full binary search over a lane of millions.
const TimeNs* gallopTo(const TimeNs* first, const TimeNs* last, TimeNs value) {
    std::size_t step = 1;
    const TimeNs* lo = first;
    while (lo + step < last && lo[step] < value) {
        lo += step;
        step *= 2;
    }
    return std::lower_bound(lo, std::min(lo + step + 1, last), value);
}
} // namespace

void collectLaneBoxes(const Track& track, std::uint32_t depth, const TimeAxis& axis, double foldPx,
                      std::vector<SliceBox>& out) {
    if (depth + 1 >= track.laneBegin.size() || axis.width <= 0) return;
    const auto [first, last] = track.rowsInRange(depth, axis.start, axis.end);
    const std::uint32_t laneEnd = track.laneBegin[depth + 1];
    const TimeNs* starts = track.starts.data();
    const TimeNs* durations = track.durations.data();
    const double scale = axis.width / double(axis.span());
    const double foldNs = foldPx / scale;
    const float maxX = float(axis.width + 2);

    auto clampX = [&](double x) { return float(std::clamp(x, -2.0, double(maxX))); };

    std::uint32_t row = first;
    while (row < last) {
        const TimeNs s = starts[row];
        const TimeNs d = durations[row];
        if (double(d) >= foldNs) {
            SliceBox box;
            box.x0 = clampX(double(s - axis.start) * scale);
            box.x1 = std::max(clampX(double(s + d - axis.start) * scale), box.x0 + 1.0f);
            box.row = row;
            out.push_back(box);
            ++row;
            continue;
        }
        // A fold: take every narrow slice that starts before the fold's end, extending the end while slices
        // keep coming within foldNs of it. Wide slices end the fold.
        SliceBox box;
        box.row = row;
        box.folded = 0;
        TimeNs foldEnd = s + d;
        TimeNs longest = -1;
        const TimeNs foldStart = s;
        while (row < last) {
            const TimeNs rs = starts[row];
            if (double(rs - foldEnd) > foldNs || double(durations[row]) >= foldNs) break;
            // Every row starting in [rs, rs + foldNs) except the last ends before that last one starts, so it
            // is narrow: one binary search takes the whole window, and only its last row needs a width check.
            const TimeNs* jump = gallopTo(starts + row, starts + laneEnd, rs + TimeNs(std::ceil(foldNs)));
            std::uint32_t next = std::clamp(std::uint32_t(jump - starts), row + 1, last);
            if (next - 1 > row && double(durations[next - 1]) >= foldNs) --next;
            for (std::uint32_t sample : {row, next - 1}) {
                if (durations[sample] > longest) {
                    longest = durations[sample];
                    box.row = sample;
                }
            }
            foldEnd = std::max(foldEnd, starts[next - 1] + durations[next - 1]);
            box.folded += next - row;
            row = next;
        }
        box.x0 = clampX(double(foldStart - axis.start) * scale);
        box.x1 = std::max(clampX(double(foldEnd - axis.start) * scale), box.x0 + 1.0f);
        out.push_back(box);
    }
}

void collectCounterColumns(const Track& track, const TimeAxis& axis, std::vector<CounterColumn>& out) {
    const auto& times = track.counterTimes;
    const auto& values = track.counterValues;
    if (times.empty() || axis.width <= 0) return;
    const double scale = axis.width / double(axis.span());
    // Start from the sample in force at the left edge.
    std::size_t i = std::size_t(std::upper_bound(times.begin(), times.end(), axis.start) - times.begin());
    if (i > 0) --i;
    const int columns = int(std::ceil(axis.width));
    while (i < times.size() && times[i] <= axis.end) {
        const double x = std::max(0.0, double(times[i] - axis.start) * scale);
        const int column = std::min(int(x), columns);
        const TimeNs columnEnd = axis.start + TimeNs(std::ceil(double(column + 1) / scale));
        CounterColumn c;
        c.x = float(column);
        c.minValue = c.maxValue = c.lastValue = values[i];
        // Dense columns: scan at most a bounded number of samples for the range, then jump to the column's
        // last.
        const std::size_t columnStop =
            std::size_t(std::lower_bound(times.begin() + i, times.end(), columnEnd) - times.begin());
        const std::size_t scanStop = std::min(columnStop, i + 64);
        for (std::size_t j = i + 1; j < scanStop; ++j) {
            c.minValue = std::min(c.minValue, values[j]);
            c.maxValue = std::max(c.maxValue, values[j]);
        }
        if (columnStop > i + 1) {
            c.lastValue = values[columnStop - 1];
            c.minValue = std::min(c.minValue, c.lastValue);
            c.maxValue = std::max(c.maxValue, c.lastValue);
        }
        out.push_back(c);
        i = std::max(columnStop, i + 1);
    }
}

std::optional<double> counterValueAt(const Track& track, TimeNs t) {
    const auto& times = track.counterTimes;
    auto it = std::upper_bound(times.begin(), times.end(), t);
    if (it == times.begin()) return std::nullopt;
    return track.counterValues[std::size_t(it - times.begin()) - 1];
}

std::optional<std::uint32_t> sliceAt(const Track& track, std::uint32_t depth, TimeNs t, TimeNs slack) {
    if (depth + 1 >= track.laneBegin.size()) return std::nullopt;
    const auto [first, last] = track.rowsInRange(depth, t - slack, t + slack);
    std::optional<std::uint32_t> best;
    TimeNs bestDistance = 0;
    for (std::uint32_t row = first; row < last; ++row) {
        const TimeNs s = track.starts[row];
        const TimeNs e = track.endOf(row);
        const TimeNs distance = t < s ? s - t : (t > e ? t - e : 0);
        if (!best || distance < bestDistance) {
            best = row;
            bestDistance = distance;
            if (distance == 0) break;
        }
        if (row - first > 64) break; // a dense pile under the cursor: the first close one will do
    }
    return best;
}

std::pair<std::uint32_t, std::uint32_t> childRows(const Track& track, std::uint32_t row) {
    const std::uint32_t depth = track.depthOf(row);
    if (depth + 2 >= track.laneBegin.size()) return {0, 0};
    const TimeNs s = track.starts[row];
    const TimeNs e = track.endOf(row);
    const std::uint32_t lo = track.laneBegin[depth + 1];
    const std::uint32_t hi = track.laneBegin[depth + 2];
    const TimeNs* starts = track.starts.data();
    std::uint32_t first = std::uint32_t(std::lower_bound(starts + lo, starts + hi, s) - starts);
    std::uint32_t last = std::uint32_t(std::upper_bound(starts + first, starts + hi, e) - starts);
    // Keep only rows that end inside the parent (an overlapping slice on the next lane is not a child).
    while (last > first && track.endOf(last - 1) > e)
        --last;
    return {first, last};
}

TimeNs selfTime(const Track& track, std::uint32_t row) {
    const auto [first, last] = childRows(track, row);
    TimeNs covered = 0;
    for (std::uint32_t c = first; c < last; ++c)
        covered += track.durations[c];
    return std::max<TimeNs>(0, track.durations[row] - covered);
}

} // namespace kinetoscope
