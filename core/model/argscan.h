#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>

namespace kinetoscope {

// Reads one field of an `args` object straight from its JSON text, without building a document: the analyses
// need a few numbers from hundreds of thousands of kernels ("blocks per SM", "grid"), and a scan for `"key":`
// is ~20x cheaper than a DOM parse of each object. Kineto writes these keys at the top level of args, once.
std::optional<double> argNumber(std::string_view argsText, std::string_view key);
// The same as an integer: nullopt also when the number is out of int64's range (a damaged file; converting
// such a double would be undefined behaviour).
std::optional<std::int64_t> argInteger(std::string_view argsText, std::string_view key);
// A numeric array of up to three elements, e.g. "grid": [128, 1, 1]; missing elements are 1.
std::optional<std::array<long long, 3>> argTriple(std::string_view argsText, std::string_view key);
// A string value (without unescaping; Kineto's values here contain no escapes).
std::optional<std::string_view> argString(std::string_view argsText, std::string_view key);

} // namespace kinetoscope
