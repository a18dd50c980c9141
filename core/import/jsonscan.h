#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace kinetoscope::jsonscan {

// Structural scanning only: where values begin and end, honouring strings and escapes. It never
// interprets values (simdjson does that); it splits the text so that pieces can be parsed in parallel
// and so that a damaged or truncated region can be stepped over event by event.

inline bool isSpace(char c) {
    return c == ' ' || c == '\n' || c == '\r' || c == '\t';
}

std::size_t skipSpace(std::string_view text, std::size_t pos);

enum class ScanStatus { Ok, Truncated, Invalid };

struct ScanResult {
    ScanStatus status = ScanStatus::Ok;
    std::size_t end = 0; // one past the value (Ok), or where scanning stopped
};

// Extent of the value starting at `pos` (object, array, string or scalar). Iterative: nesting depth
// costs a counter, not stack.
ScanResult scanValue(std::string_view text, std::size_t pos);

// From `pos`, the next place that looks like a boundary between two array elements that are objects:
// `}` then `,` then `{`, with optional whitespace. Returns the offset of that `,` (npos when none).
// A false positive inside a string is possible; the importer detects and repairs it.
std::size_t findObjectBoundary(std::string_view text, std::size_t pos, std::size_t limit);

} // namespace kinetoscope::jsonscan
