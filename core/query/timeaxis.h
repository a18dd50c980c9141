#pragma once

#include "model/timeconv.h"

#include <cstdint>
#include <string>
#include <vector>

namespace kinetoscope {

// The visible time range mapped onto a pixel width. Times stay int64 ns; only the pixel side is
// floating point, so a 1 µs window deep into an epoch-based trace keeps full precision.
struct TimeAxis {
    TimeNs start = 0;
    TimeNs end = 1;
    double width = 1;

    // The narrowest window a user can zoom to.
    static constexpr TimeNs minSpan = 100;

    TimeNs span() const { return end - start; }
    double nsPerPixel() const { return double(span()) / width; }
    double xOf(TimeNs t) const { return double(t - start) * width / double(span()); }
    TimeNs timeAt(double x) const;

    // Zooms by `factor` (< 1 zooms in) keeping the time under pixel `x` in place.
    TimeAxis zoomedAt(double x, double factor) const;
    // Moves the window by `dx` pixels (positive: later in time).
    TimeAxis pannedBy(double dx) const;
    // The window for [from, to], widened to minSpan if needed.
    TimeAxis withRange(TimeNs from, TimeNs to) const;
    // Keeps the window inside [lo, hi] (shrinking it if it is wider) without changing its span otherwise.
    TimeAxis clampedTo(TimeNs lo, TimeNs hi) const;

    bool operator==(const TimeAxis&) const = default;
};

struct RulerTick {
    TimeNs time = 0; // absolute
    bool major = false;
};

// A 1-2-5 tick step (in ns) giving ticks at least `minSpacingPx` apart.
TimeNs niceTickStep(const TimeAxis& axis, double minSpacingPx);
// Ticks at multiples of `step` relative to `origin`, covering the axis; every fifth/second is major.
std::vector<RulerTick> rulerTicks(const TimeAxis& axis, TimeNs origin, TimeNs step);
// The label of a tick at `relative` ns from the origin, in the unit that suits `step` ("1.25 ms", "300 µs").
std::string formatTickLabel(TimeNs relative, TimeNs step);
// A time as an offset from the trace start, with enough digits to tell `resolution` apart.
std::string formatTimeOffset(TimeNs relative, TimeNs resolution);
// The labels of a ruler's major ticks, in order. Zoomed in far from the origin, a label relative to the
// origin grows long ("1112165.72 µs"); then, as Perfetto does, the first tick carries the time from the
// origin
// ("1.11216572 s") and the others an offset from that tick ("+20 µs").
std::vector<std::string> rulerLabels(const std::vector<RulerTick>& majorTicks, TimeNs origin, TimeNs step);

} // namespace kinetoscope
