#include "jsonscan.h"

#include <cstring>

namespace kinetoscope::jsonscan {

std::size_t skipSpace(std::string_view text, std::size_t pos) {
    while (pos < text.size() && isSpace(text[pos]))
        ++pos;
    return pos;
}

namespace {

// End of a string whose opening quote is at `pos`: one past the closing quote.
ScanResult scanString(std::string_view text, std::size_t pos) {
    const char* base = text.data();
    std::size_t i = pos + 1;
    const std::size_t n = text.size();
    while (i < n) {
        // Jump to the next quote, then look back for an odd run of backslashes.
        const void* q = std::memchr(base + i, '"', n - i);
        if (!q) return {ScanStatus::Truncated, n};
        std::size_t j = static_cast<const char*>(q) - base;
        std::size_t backslashes = 0;
        while (j - backslashes > pos + 1 && base[j - backslashes - 1] == '\\')
            ++backslashes;
        if (backslashes % 2 == 0) return {ScanStatus::Ok, j + 1};
        i = j + 1;
    }
    return {ScanStatus::Truncated, n};
}

} // namespace

ScanResult scanValue(std::string_view text, std::size_t pos) {
    const std::size_t n = text.size();
    if (pos >= n) return {ScanStatus::Truncated, n};
    const char c = text[pos];
    if (c == '"') return scanString(text, pos);
    if (c != '{' && c != '[') {
        std::size_t i = pos;
        while (i < n && !isSpace(text[i]) && text[i] != ',' && text[i] != '}' && text[i] != ']' &&
               text[i] != ':')
            ++i;
        if (i == pos) return {ScanStatus::Invalid, pos};
        return {i == n ? ScanStatus::Truncated : ScanStatus::Ok, i};
    }
    std::size_t depth = 0;
    std::size_t i = pos;
    while (i < n) {
        const char ch = text[i];
        if (ch == '"') {
            const ScanResult s = scanString(text, i);
            if (s.status != ScanStatus::Ok) return s;
            i = s.end;
            continue;
        }
        if (ch == '{' || ch == '[') {
            ++depth;
        } else if (ch == '}' || ch == ']') {
            if (depth == 0) return {ScanStatus::Invalid, i};
            if (--depth == 0) return {ScanStatus::Ok, i + 1};
        }
        ++i;
    }
    return {ScanStatus::Truncated, n};
}

std::size_t findObjectBoundary(std::string_view text, std::size_t pos, std::size_t limit) {
    const char* base = text.data();
    limit = limit < text.size() ? limit : text.size();
    while (pos < limit) {
        const void* hit = std::memchr(base + pos, ',', limit - pos);
        if (!hit) return std::string_view::npos;
        const std::size_t comma = static_cast<const char*>(hit) - base;
        std::size_t before = comma;
        while (before > 0 && isSpace(base[before - 1]))
            --before;
        std::size_t after = comma + 1;
        while (after < text.size() && isSpace(base[after]))
            ++after;
        if (before > 0 && base[before - 1] == '}' && after < text.size() && base[after] == '{') return comma;
        pos = comma + 1;
    }
    return std::string_view::npos;
}

} // namespace kinetoscope::jsonscan
