#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace kinetoscope {

// "1 track", "2 tracks": a count with its noun in the right number. `plural` defaults to singular + "s".
std::string countText(std::uint64_t n, std::string_view singular, std::string_view plural = {});

// A byte size in the largest binary unit that keeps it at least 1 ("820.4 MiB", "12 B", "-1.50 GiB"), with
// three significant digits (four for values from 1000 to 1023 of a unit): what a reader compares at a glance.
std::string formatBytes(double bytes);

// ASCII lower case (names, dtypes, categories and filters compare case-insensitively).
std::string asciiLower(std::string_view text);

} // namespace kinetoscope
