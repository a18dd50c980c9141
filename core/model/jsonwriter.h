#pragma once

// The one JSON writer: strings quoted and escaped, integers and doubles through to_chars (no locale, no
// allocation), time as exact microseconds. Every JSON Kinetoscope writes goes through it: summary, diff and
// distributed reports, and a live capture saved as a Kineto trace (which also writes straight into the
// store's args buffer, hence any Text: a std::string or anything with append(const char*, size_t) and
// operator+=(char)).

#include "timeconv.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace kinetoscope {

// Escaped for inside JSON quotes: ", \ and control characters.
std::string jsonEscape(std::string_view text);
// ns as µs with exactly three decimals ("-1.500"): exact, the way current Kineto writes ts and dur.
std::string formatMicros(TimeNs ns);

// Where a container's line breaks go: written before its first member, between members, and before its
// closing bracket (only when it has members). The default keeps everything on one line: {"a": 1, "b": 2}.
struct JsonLayout {
    std::string_view first;
    std::string_view between = ", ";
    std::string_view close;
};

template <typename Text> class JsonWriter {
  public:
    explicit JsonWriter(Text& text) : m_text(text) {}

    // Nesting: objects and arrays with their commas and layout. Inside an object, key() comes before each
    // value; inside an array, values follow one another. A container begun inside another is a value of it.
    void beginObject(JsonLayout layout = {}) { begin('{', layout); }
    void beginArray(JsonLayout layout = {}) { begin('[', layout); }
    void endObject() { end('}'); }
    void endArray() { end(']'); }
    void key(std::string_view name) {
        separate();
        quoted(name);
        m_text.append(": ", 2);
        m_afterKey = true;
    }

    // A key and its value in one call, for the common members.
    template <typename Int> void numField(std::string_view name, Int v) {
        key(name);
        num(v);
    }
    void microsField(std::string_view name, TimeNs ns) {
        key(name);
        micros(ns);
    }
    void strField(std::string_view name, std::string_view v) {
        key(name);
        str(v);
    }
    void fixedField(std::string_view name, double v, int decimals) {
        key(name);
        fixed(v, decimals);
    }

    // Values. In a container they bring their own separator; at the top level (the capture writer lays out
    // its own lines through raw) they are written as they are.
    template <typename Int> void num(Int v) {
        separate();
        digits(v);
    }
    // printf's %.6g, as Kineto writes its derived figures.
    void general(double v) {
        if (!std::isfinite(v)) return null(); // JSON has no inf or NaN
        separate();
        char b[32];
        m_text.append(b,
                      std::size_t(std::to_chars(b, b + sizeof b, v, std::chars_format::general, 6).ptr - b));
    }
    // The shortest text that reads back as the same double (a figure to compare exactly with another tool's).
    void exact(double v) {
        if (!std::isfinite(v)) return null();
        separate();
        char b[32];
        m_text.append(b, std::size_t(std::to_chars(b, b + sizeof b, v).ptr - b));
    }
    void micros(TimeNs ns) {
        separate();
        const bool negative = ns < 0;
        const auto a =
            negative ? 0ull - static_cast<unsigned long long>(ns) : static_cast<unsigned long long>(ns);
        if (negative) m_text += '-';
        digits(a / 1000);
        const int frac = int(a % 1000);
        const char fraction[4] = {'.', char('0' + frac / 100), char('0' + frac / 10 % 10),
                                  char('0' + frac % 10)};
        m_text.append(fraction, 4);
    }
    // printf's %.Nf; NaN and infinities as null.
    void fixed(double v, int decimals) {
        if (!std::isfinite(v)) return null();
        separate();
        char b[400]; // 1e308 in full, and the decimals
        m_text.append(
            b, std::size_t(std::to_chars(b, b + sizeof b, v, std::chars_format::fixed, decimals).ptr - b));
    }
    void boolean(bool v) { value(v ? "true" : "false"); }
    void null() { value("null"); }
    // A string value, quoted.
    void str(std::string_view v) {
        separate();
        quoted(v);
    }
    // A value that is JSON text already (an args array kept minified), written as it is.
    void json(std::string_view v) {
        separate();
        m_text.append(v.data(), v.size());
    }
    // Layout written as it is: braces, brackets, keys' quotes, commas and whitespace, for a writer that lays
    // out its own lines (the capture writer).
    void raw(std::string_view v) { m_text.append(v.data(), v.size()); }
    // (append with a length: the two-pointer form goes through the string's generic replace, several times
    // slower)
    Text& text() { return m_text; }

  private:
    template <typename Int> void digits(Int v) {
        char b[24];
        m_text.append(b, std::size_t(std::to_chars(b, b + sizeof b, v).ptr - b));
    }
    void quoted(std::string_view v) {
        m_text += '"';
        if (std::none_of(v.begin(), v.end(), [](char c) {
                return c == '"' || c == '\\' || static_cast<unsigned char>(c) < 0x20;
            }))
            m_text.append(v.data(), v.size());
        else
            raw(jsonEscape(v));
        m_text += '"';
    }
    struct Frame {
        JsonLayout layout;
        bool any = false;
    };
    // The separator before a member: none after a key, else the layout's first or between.
    void separate() {
        if (m_afterKey) {
            m_afterKey = false;
            return;
        }
        if (m_frames.empty()) return;
        Frame& f = m_frames.back();
        raw(f.any ? f.layout.between : f.layout.first);
        f.any = true;
    }
    void value(std::string_view literal) {
        separate();
        raw(literal);
    }
    void begin(char bracket, JsonLayout layout) {
        separate();
        m_text += bracket;
        m_frames.push_back({layout});
    }
    void end(char bracket) {
        if (m_frames.back().any) raw(m_frames.back().layout.close);
        m_frames.pop_back();
        m_text += bracket;
    }

    Text& m_text;
    std::vector<Frame> m_frames;
    bool m_afterKey = false;
};

} // namespace kinetoscope
