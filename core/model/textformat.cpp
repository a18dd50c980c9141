#include "textformat.h"

#include <cctype>

#include <cmath>
#include <cstdio>

namespace kinetoscope {

std::string countText(std::uint64_t n, std::string_view singular, std::string_view plural) {
    std::string out = std::to_string(n) + ' ';
    if (n == 1)
        out += singular;
    else if (plural.empty())
        out += std::string(singular) + 's';
    else
        out += plural;
    return out;
}

std::string formatBytes(double bytes) {
    static constexpr const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
    std::size_t u = 0;
    double v = bytes;
    while (std::abs(v) >= 1024 && u + 1 < std::size(units)) {
        v /= 1024;
        ++u;
    }
    char buf[48];
    const double a = std::abs(v);
    // Whole bytes exactly; otherwise three significant digits.
    const int decimals = u == 0 ? 0 : a < 10 ? 2 : a < 100 ? 1 : 0;
    std::snprintf(buf, sizeof buf, "%.*f %s", decimals, v, units[u]);
    return buf;
}

std::string asciiLower(std::string_view text) {
    std::string out(text);
    for (char& c : out)
        c = char(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

} // namespace kinetoscope
