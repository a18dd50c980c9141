#include "timeconv.h"

#include <cstdio>
#include <cstdlib>
#include <limits>

namespace kinetoscope {

namespace {
// The common shapes, "123" and "123.456" with at most 18 digits, in 64-bit arithmetic.
inline bool parseSimple(std::string_view text, TimeNs& out) {
    const char* p = text.data();
    const char* end = p + text.size();
    while (end > p && (end[-1] == ' ' || end[-1] == '\n' || end[-1] == '\r' || end[-1] == '\t'))
        --end;
    std::uint64_t whole = 0;
    int digits = 0;
    const char* q = p;
    while (q < end && unsigned(*q - '0') < 10)
        whole = whole * 10 + unsigned(*q++ - '0');
    digits = int(q - p);
    if (digits == 0 || digits > 15) return false;
    std::uint64_t ns = whole * 1000;
    if (q < end) {
        if (*q != '.') return false;
        ++q;
        int frac = 0;
        std::uint64_t f = 0;
        while (q < end && frac < 3 && unsigned(*q - '0') < 10) {
            f = f * 10 + unsigned(*q++ - '0');
            ++frac;
        }
        if (frac == 0 || q != end) return false; // more than 3 decimals, or anything else: the full path
        while (frac < 3) {
            f *= 10;
            ++frac;
        }
        ns += f;
    }
    out = TimeNs(ns);
    return true;
}
} // namespace

std::optional<TimeNs> parseMicrosecondsText(std::string_view text) {
    if (TimeNs fast; parseSimple(text, fast)) return fast;
    std::size_t i = 0;
    while (i < text.size() && (text[i] == ' ' || text[i] == '\t'))
        ++i;
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
    while (i < text.size() && (text[i] == ' ' || text[i] == '\t' || text[i] == '\n' || text[i] == '\r'))
        ++i;
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
    if (a < 1e3)
        std::snprintf(buf, sizeof buf, "%lld ns", static_cast<long long>(ns));
    else if (a < 1e6)
        std::snprintf(buf, sizeof buf, "%.3f us", v / 1e3);
    else if (a < 1e9)
        std::snprintf(buf, sizeof buf, "%.3f ms", v / 1e6);
    else
        std::snprintf(buf, sizeof buf, "%.3f s", v / 1e9);
    return buf;
}

} // namespace kinetoscope
