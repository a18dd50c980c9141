#include "timeaxis.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace kinetoscope {

TimeNs TimeAxis::timeAt(double x) const {
    return start + TimeNs(std::llround(x * nsPerPixel()));
}

TimeAxis TimeAxis::zoomedAt(double x, double factor) const {
    const TimeNs anchor = timeAt(x);
    double newSpan = std::max(double(minSpan), double(span()) * factor);
    newSpan = std::min(newSpan, 9.0e18);
    const double fraction = width > 0 ? std::clamp(x / width, 0.0, 1.0) : 0.5;
    TimeAxis out = *this;
    out.start = anchor - TimeNs(std::llround(newSpan * fraction));
    out.end = out.start + TimeNs(std::llround(newSpan));
    return out;
}

TimeAxis TimeAxis::pannedBy(double dx) const {
    const TimeNs shift = TimeNs(std::llround(dx * nsPerPixel()));
    TimeAxis out = *this;
    out.start += shift;
    out.end += shift;
    return out;
}

TimeAxis TimeAxis::withRange(TimeNs from, TimeNs to) const {
    if (to < from) std::swap(from, to);
    TimeAxis out = *this;
    if (to - from < minSpan) {
        const TimeNs mid = from + (to - from) / 2;
        from = mid - minSpan / 2;
        to = from + minSpan;
    }
    out.start = from;
    out.end = to;
    return out;
}

TimeAxis TimeAxis::clampedTo(TimeNs lo, TimeNs hi) const {
    TimeAxis out = *this;
    if (hi - lo < minSpan) hi = lo + minSpan;
    if (out.span() > hi - lo) {
        out.start = lo;
        out.end = hi;
        return out;
    }
    if (out.start < lo) {
        out.end += lo - out.start;
        out.start = lo;
    }
    if (out.end > hi) {
        out.start -= out.end - hi;
        out.end = hi;
    }
    return out;
}

TimeNs niceTickStep(const TimeAxis& axis, double minSpacingPx) {
    const double minStep = std::max(1.0, axis.nsPerPixel() * minSpacingPx);
    double magnitude = 1;
    while (magnitude * 10 <= minStep)
        magnitude *= 10;
    for (double m : {1.0, 2.0, 5.0, 10.0}) {
        if (magnitude * m >= minStep) return TimeNs(magnitude * m);
    }
    return TimeNs(magnitude * 10);
}

std::vector<RulerTick> rulerTicks(const TimeAxis& axis, TimeNs origin, TimeNs step) {
    std::vector<RulerTick> ticks;
    if (step <= 0) return ticks;
    // The major tick every 5 steps for 1- and 2-steps, every 2 steps for 5-steps, so majors land on round
    // values.
    TimeNs leading = step;
    while (leading >= 10)
        leading /= 10;
    const TimeNs majorEvery = leading == 5 ? 2 : 5;
    const TimeNs rel = axis.start - origin;
    TimeNs k = rel >= 0 ? rel / step : -((-rel + step - 1) / step);
    for (; origin + k * step <= axis.end; ++k) {
        const TimeNs t = origin + k * step;
        if (t < axis.start) continue;
        ticks.push_back({t, k % majorEvery == 0});
        if (ticks.size() > 10000) break;
    }
    return ticks;
}

namespace {
struct Unit {
    TimeNs ns;
    const char* name;
};
constexpr Unit units[] = {{1'000'000'000, "s"}, {1'000'000, "ms"}, {1'000, "µs"}, {1, "ns"}};

const Unit& unitFor(TimeNs magnitude) {
    for (const Unit& u : units) {
        if (magnitude >= u.ns) return u;
    }
    return units[3];
}

std::string formatIn(TimeNs value, const Unit& unit, int decimals) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f %s", decimals, double(value) / double(unit.ns), unit.name);
    return buf;
}

int decimalsFor(TimeNs resolution, const Unit& unit) {
    int decimals = 0;
    TimeNs r = unit.ns;
    while (r > std::max<TimeNs>(resolution, 1) && decimals < 9) {
        r /= 10;
        ++decimals;
    }
    return decimals;
}
} // namespace

std::string formatTickLabel(TimeNs relative, TimeNs step) {
    const TimeNs mag = std::max<TimeNs>(std::llabs(relative), step);
    const Unit& unit = unitFor(mag >= 1000 * step ? step * 1000 : mag);
    return formatIn(relative, unit, decimalsFor(step, unit));
}

std::vector<std::string> rulerLabels(const std::vector<RulerTick>& majorTicks, TimeNs origin, TimeNs step) {
    std::vector<std::string> labels;
    if (majorTicks.empty()) return labels;
    TimeNs farthest = 0;
    for (const RulerTick& t : majorTicks)
        farthest = std::max<TimeNs>(farthest, std::llabs(t.time - origin));
    // Short enough as they are: at most about four digits before the step's precision.
    if (farthest < 10'000 * step) {
        for (const RulerTick& t : majorTicks)
            labels.push_back(formatTickLabel(t.time - origin, step));
        return labels;
    }
    const TimeNs reference = majorTicks.front().time;
    labels.push_back(formatTimeOffset(reference - origin, step));
    for (std::size_t i = 1; i < majorTicks.size(); ++i)
        labels.push_back("+" + formatTickLabel(majorTicks[i].time - reference, step));
    return labels;
}

std::string formatTimeOffset(TimeNs relative, TimeNs resolution) {
    const Unit& unit = unitFor(std::max<TimeNs>(std::llabs(relative), 1));
    return formatIn(relative, unit, decimalsFor(std::max<TimeNs>(resolution, 1), unit));
}

} // namespace kinetoscope
