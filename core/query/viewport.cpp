#include "viewport.h"

#include <algorithm>
#include <cmath>

namespace kinetoscope {

const TimeNs* gallopTo(const TimeNs* first, const TimeNs* last, TimeNs value) {
    std::size_t step = 1;
    const TimeNs* lo = first;
    while (lo + step < last && lo[step] < value) {
        lo += step;
        step *= 2;
    }
    return std::lower_bound(lo, std::min(lo + step + 1, last), value);
}

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

CounterBlocks CounterBlocks::of(const Track& track) {
    CounterBlocks b;
    const std::vector<double>& values = track.counterValues;
    const std::size_t count = (values.size() + size - 1) / size;
    b.samples = values.size();
    b.firstTime.resize(count);
    b.min.resize(count);
    b.max.resize(count);
    for (std::size_t k = 0; k < count; ++k) {
        b.firstTime[k] = track.counterTimes[k * size];
        const auto first = values.begin() + std::ptrdiff_t(k * size);
        const auto last = values.begin() + std::ptrdiff_t(std::min(values.size(), (k + 1) * size));
        const auto [lo, hi] = std::minmax_element(first, last);
        b.min[k] = *lo;
        b.max[k] = *hi;
    }
    return b;
}

namespace {
// The range of values[from, to): the partial blocks at both ends read, the whole ones between taken from
// `blocks`.
void rangeOf(const std::vector<double>& values, const CounterBlocks* blocks, std::size_t from, std::size_t to,
             double& lo, double& hi) {
    constexpr std::size_t size = CounterBlocks::size;
    if (blocks && to - from >= 2 * size) {
        const std::size_t firstWhole = (from + size - 1) / size, lastWhole = to / size;
        rangeOf(values, nullptr, from, firstWhole * size, lo, hi);
        for (std::size_t k = firstWhole; k < lastWhole; ++k) {
            lo = std::min(lo, blocks->min[k]);
            hi = std::max(hi, blocks->max[k]);
        }
        rangeOf(values, nullptr, lastWhole * size, to, lo, hi);
        return;
    }
    for (std::size_t j = from; j < to; ++j) {
        lo = std::min(lo, values[j]);
        hi = std::max(hi, values[j]);
    }
}
} // namespace

void collectCounterColumns(const Track& track, const TimeAxis& axis, std::vector<CounterColumn>& out,
                           const CounterBlocks* blocks) {
    const auto& times = track.counterTimes;
    const auto& values = track.counterValues;
    if (times.empty() || axis.width <= 0) return;
    if (blocks && blocks->samples != values.size()) blocks = nullptr; // made before the track grew
    const double scale = axis.width / double(axis.span());
    // Start from the sample in force at the left edge.
    std::size_t i = std::size_t(std::upper_bound(times.begin(), times.end(), axis.start) - times.begin());
    if (i > 0) --i;
    const int columns = int(std::ceil(axis.width));
    const TimeNs* t = times.data();
    while (i < times.size() && times[i] <= axis.end) {
        const double x = std::max(0.0, double(times[i] - axis.start) * scale);
        const int column = std::min(int(x), columns);
        const TimeNs columnEnd = axis.start + TimeNs(std::ceil(double(column + 1) / scale));
        CounterColumn c;
        c.x = float(column);
        c.minValue = c.maxValue = values[i];
        // The column's samples, found from this one (the next column starts close by): through the blocks'
        // times, then inside one block.
        std::size_t columnStop;
        if (blocks) {
            const TimeNs* firsts = blocks->firstTime.data();
            const std::size_t block = std::size_t(
                gallopTo(firsts + i / CounterBlocks::size, firsts + blocks->firstTime.size(), columnEnd) -
                firsts);
            // Every sample of blocks from `block` on is at or past columnEnd; the one before may hold some.
            const std::size_t from = std::max(i, block == 0 ? 0 : (block - 1) * CounterBlocks::size);
            const std::size_t to = std::min(times.size(), block * CounterBlocks::size);
            columnStop = from >= to ? from : std::size_t(std::lower_bound(t + from, t + to, columnEnd) - t);
        } else {
            columnStop = std::size_t(gallopTo(t + i, t + times.size(), columnEnd) - t);
        }
        const std::size_t stop = std::max(columnStop, i + 1);
        rangeOf(values, blocks, i + 1, stop, c.minValue, c.maxValue);
        c.lastValue = values[stop - 1];
        out.push_back(c);
        i = stop;
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

} // namespace kinetoscope
