#include "timeconv.h"

#include <cstdio>
#include <cstdlib>
#include <limits>

namespace kinetoscope {

std::optional<TimeNs> parseMicrosecondsText(std::string_view text) {
    std::size_t i = 0;
    while (i < text.size() && (text[i] == ' ' || text[i] == '\t')) ++i;
    bool negative = false;
    if (i < text.size() && (text[i] == '-' || text[i] == '+')) negative = text[i++] == '-';

    // Mantissa digits are accumulated as an unsigned integer with a decimal exponent; digits beyond
    // what 19 places can hold only matter for rounding and are folded into a sticky flag.
    unsigned __int128 mantissa = 0;
    int exponent = 0; // value = mantissa * 10^exponent microseconds
    int significant = 0;
    bool anyDigit = false;
    int firstDropped = -1;
    for (; i < text.size() && text[i] >= '0' && text[i] <= '9'; ++i) {
        anyDigit = true;
        if (significant < 30) {
            mantissa = mantissa * 10 + unsigned(text[i] - '0');
            if (mantissa != 0) ++significant;
        } else {
            ++exponent;
            if (firstDropped < 0) firstDropped = text[i] - '0';
        }
    }
    if (i < text.size() && text[i] == '.') {
        ++i;
        for (; i < text.size() && text[i] >= '0' && text[i] <= '9'; ++i) {
            anyDigit = true;
            if (significant < 30) {
                mantissa = mantissa * 10 + unsigned(text[i] - '0');
                if (mantissa != 0) ++significant;
                --exponent;
            } else if (firstDropped < 0) {
                firstDropped = text[i] - '0';
            }
        }
    }
    if (!anyDigit) return std::nullopt;
    if (i < text.size() && (text[i] == 'e' || text[i] == 'E')) {
        ++i;
        bool expNegative = false;
        if (i < text.size() && (text[i] == '-' || text[i] == '+')) expNegative = text[i++] == '-';
        long e = 0;
        bool expDigit = false;
        for (; i < text.size() && text[i] >= '0' && text[i] <= '9'; ++i) {
            expDigit = true;
            if (e < 100000) e = e * 10 + (text[i] - '0');
        }
        if (!expDigit) return std::nullopt;
        exponent += int(expNegative ? -e : e);
    }
    while (i < text.size() && (text[i] == ' ' || text[i] == '\t' || text[i] == '\n' || text[i] == '\r')) ++i;
    if (i != text.size()) return std::nullopt;

    // Microseconds to nanoseconds.
    exponent += 3;
    if (mantissa == 0) return TimeNs(0);
    constexpr unsigned __int128 limit = (unsigned __int128)1 << 63;
    while (exponent > 0) {
        if (mantissa > limit) return std::nullopt;
        mantissa *= 10;
        --exponent;
    }
    // Round half away from zero: only the first digit dropped decides.
    int roundDigit = firstDropped < 0 ? 0 : firstDropped;
    while (exponent < 0) {
        roundDigit = int(mantissa % 10);
        mantissa /= 10;
        ++exponent;
        if (mantissa == 0 && exponent < -40) break;
    }
    if (roundDigit >= 5) ++mantissa;
    if (mantissa > (negative ? limit : limit - 1)) return std::nullopt;
    const auto magnitude = static_cast<std::int64_t>(mantissa == limit ? 0 : mantissa);
    if (mantissa == limit) return std::numeric_limits<std::int64_t>::min();
    return negative ? -magnitude : magnitude;
}

std::string formatDuration(TimeNs ns) {
    char buf[64];
    const double v = double(ns);
    const double a = v < 0 ? -v : v;
    if (a < 1e3) std::snprintf(buf, sizeof buf, "%lld ns", static_cast<long long>(ns));
    else if (a < 1e6) std::snprintf(buf, sizeof buf, "%.3f us", v / 1e3);
    else if (a < 1e9) std::snprintf(buf, sizeof buf, "%.3f ms", v / 1e6);
    else std::snprintf(buf, sizeof buf, "%.3f s", v / 1e9);
    return buf;
}

} // namespace kinetoscope
