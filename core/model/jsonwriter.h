#pragma once

// The one JSON writer: strings quoted and escaped, integers and doubles through to_chars (no locale, no
// allocation), time as exact microseconds. Every JSON Kinetoscope writes goes through it: summary, diff and
// distributed reports, and a live capture saved as a Kineto trace (which also writes straight into the
// store's args buffer, hence any Text: a std::string or anything with append(const char*, size_t) and
// operator+=(char)).

#include "timeconv.h"

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <string>
#include <string_view>

namespace kinetoscope {

// Escaped for inside JSON quotes: ", \ and control characters.
std::string jsonEscape(std::string_view text);
// ns as µs with exactly three decimals ("-1.500"): exact, the way current Kineto writes ts and dur.
std::string formatMicros(TimeNs ns);

template <typename Text> class JsonWriter {
  public:
    explicit JsonWriter(Text& text) : m_text(text) {}

    // Structure and layout: braces, brackets, keys' quotes, commas and whitespace, as the document wants
    // them.
    void raw(std::string_view v) { m_text.append(v.data(), v.size()); }
    // (append with a length: the two-pointer form goes through the string's generic replace, several times
    // slower)
    template <typename Int> void num(Int v) {
        char b[24];
        m_text.append(b, std::size_t(std::to_chars(b, b + sizeof b, v).ptr - b));
    }
    // printf's %.6g, as Kineto writes its derived figures.
    void general(double v) {
        char b[32];
        m_text.append(b,
                      std::size_t(std::to_chars(b, b + sizeof b, v, std::chars_format::general, 6).ptr - b));
    }
    void micros(TimeNs ns) {
        const bool negative = ns < 0;
        const auto a =
            negative ? 0ull - static_cast<unsigned long long>(ns) : static_cast<unsigned long long>(ns);
        if (negative) m_text += '-';
        num(a / 1000);
        const int frac = int(a % 1000);
        const char digits[4] = {'.', char('0' + frac / 100), char('0' + frac / 10 % 10),
                                char('0' + frac % 10)};
        m_text.append(digits, 4);
    }
    // A string value or key, quoted.
    void str(std::string_view v) {
        m_text += '"';
        if (std::none_of(v.begin(), v.end(), [](char c) {
                return c == '"' || c == '\\' || static_cast<unsigned char>(c) < 0x20;
            }))
            m_text.append(v.data(), v.size());
        else
            raw(jsonEscape(v));
        m_text += '"';
    }
    Text& text() { return m_text; }

  private:
    Text& m_text;
};

} // namespace kinetoscope
