#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace kinetoscope {

// Time is int64 nanoseconds everywhere.
using TimeNs = std::int64_t;

// The times a trace may hold: within ±2^61 ns (±73 years around the epoch, to 2043; real traces use epoch or
// relative microseconds). An event's start and end both lie within it, so any difference of two times and any
// time plus such a difference fits in int64: the views and analyses add and subtract them unchecked.
inline constexpr TimeNs traceTimeLimitNs = TimeNs(1) << 61;

// Converts the decimal text of a microsecond value ("1698438996453838", "3603029046213.755",
// "-12.5", "1.5e3") to nanoseconds exactly, rounding half away from zero below 1 ns.
// A double cannot hold absolute epoch nanoseconds, so the digits are read as integers.
// Returns nullopt for text that is not a finite number or does not fit in int64 ns.
std::optional<TimeNs> parseMicrosecondsText(std::string_view text);

// "12.345 ms" style, with adaptive units; for CLI and UI labels.
std::string formatDuration(TimeNs ns);

} // namespace kinetoscope
