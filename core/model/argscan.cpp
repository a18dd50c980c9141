#include "argscan.h"

#include <charconv>
#include <cstring>

namespace kinetoscope {

namespace {
// Kineto writes its args pretty-printed: a value, and an array's elements, may follow a line break.
bool isSpace(char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

// Position just after `"key"` and the colon that follows (and any space after it), or npos.
std::size_t valueStart(std::string_view text, std::string_view key) {
    std::size_t from = 0;
    while (true) {
        const std::size_t q = text.find(key, from);
        if (q == std::string_view::npos) return q;
        from = q + 1;
        if (q == 0 || text[q - 1] != '"' || q + key.size() >= text.size() || text[q + key.size()] != '"')
            continue;
        std::size_t p = q + key.size() + 1;
        while (p < text.size() && isSpace(text[p]))
            ++p;
        if (p >= text.size() || text[p] != ':') continue;
        ++p;
        while (p < text.size() && isSpace(text[p]))
            ++p;
        return p;
    }
}

std::optional<double> numberAt(std::string_view text, std::size_t& p) {
    double v = 0;
    const auto [end, ec] = std::from_chars(text.data() + p, text.data() + text.size(), v);
    if (ec != std::errc()) return std::nullopt;
    p = std::size_t(end - text.data());
    return v;
}
} // namespace

std::optional<std::int64_t> argInteger(std::string_view text, std::string_view key) {
    const auto v = argNumber(text, key);
    if (!v || !(*v > -9.2e18 && *v < 9.2e18)) return std::nullopt;
    return std::int64_t(*v);
}

std::optional<double> argNumber(std::string_view text, std::string_view key) {
    std::size_t p = valueStart(text, key);
    if (p == std::string_view::npos) return std::nullopt;
    if (p < text.size() && text[p] == '"') ++p; // some forks quote numbers
    return numberAt(text, p);
}

std::optional<std::array<long long, 3>> argTriple(std::string_view text, std::string_view key) {
    std::size_t p = valueStart(text, key);
    if (p == std::string_view::npos || p >= text.size() || text[p] != '[') return std::nullopt;
    ++p;
    std::array<long long, 3> out{1, 1, 1};
    for (int i = 0; i < 3; ++i) {
        while (p < text.size() && isSpace(text[p]))
            ++p;
        if (p < text.size() && text[p] == ']') break;
        const auto v = numberAt(text, p);
        if (!v) return std::nullopt;
        out[std::size_t(i)] = static_cast<long long>(*v);
        while (p < text.size() && (isSpace(text[p]) || text[p] == ','))
            ++p;
    }
    return out;
}

std::optional<std::string_view> argString(std::string_view text, std::string_view key) {
    const std::size_t p = valueStart(text, key);
    if (p == std::string_view::npos || p >= text.size() || text[p] != '"') return std::nullopt;
    const std::size_t end = text.find('"', p + 1);
    if (end == std::string_view::npos) return std::nullopt;
    return text.substr(p + 1, end - p - 1);
}

} // namespace kinetoscope
