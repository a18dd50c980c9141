#pragma once

// The top level of a trace's JSON document: where the event array starts and the other keys' values as text.
// The loader reads it before the events (and the keys Kineto writes after them); trim copies it as it is.

#include "model/importstats.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace kinetoscope {

struct LoadFailure {
    std::string reason;
    std::uint64_t offset = 0;
    bool hasOffset = true;
};

// Where the event array is, and the other top-level keys.
struct DocumentLayout {
    std::size_t arrayOpen = 0; // offset of '['
    bool bareArray = false;
    std::vector<std::pair<std::string, std::string>> topLevel;
};

// Finds the event array (a top-level object's traceEvents, or a bare array) and reads the keys before it.
std::optional<LoadFailure> findEventArray(std::string_view text, DocumentLayout& layout);
// Keys after the event array (Kineto writes traceName, displayTimeUnit, baseTimeNanoseconds there); a problem
// is noted in stats.trailingProblem.
void readTrailingKeys(std::string_view text, std::size_t arrayClose, DocumentLayout& layout,
                      ImportStats& stats);

} // namespace kinetoscope
