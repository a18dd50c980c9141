#include "viewlink.h"

#include <charconv>

namespace kinetoscope {

namespace {

constexpr std::string_view scheme = "kinetoscope://open";

bool unreserved(unsigned char c) {
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' ||
           c == '.' || c == '_' || c == '~' || c == '/' || c == ':';
}

template <typename Int> std::optional<Int> wholeNumber(std::string_view text) {
    Int v{};
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (error != std::errc() || end != text.data() + text.size() || text.empty()) return std::nullopt;
    return v;
}

} // namespace

std::string percentEncode(std::string_view text) {
    static constexpr char hex[] = "0123456789ABCDEF";
    std::string out;
    out.reserve(text.size());
    for (const char ch : text) {
        const auto c = static_cast<unsigned char>(ch);
        if (unreserved(c)) {
            out += ch;
        } else {
            out += '%';
            out += hex[c >> 4];
            out += hex[c & 15];
        }
    }
    return out;
}

std::optional<std::string> percentDecode(std::string_view text) {
    const auto digit = [](char c) -> int {
        if (c >= '0' && c <= '9') return c - '0';
        if (c >= 'a' && c <= 'f') return c - 'a' + 10;
        if (c >= 'A' && c <= 'F') return c - 'A' + 10;
        return -1;
    };
    std::string out;
    out.reserve(text.size());
    for (std::size_t i = 0; i < text.size(); ++i) {
        if (text[i] == '+') { // a form's space, as browsers and chat clients write it
            out += ' ';
        } else if (text[i] != '%') {
            out += text[i];
        } else {
            if (i + 2 >= text.size()) return std::nullopt;
            const int hi = digit(text[i + 1]), lo = digit(text[i + 2]);
            if (hi < 0 || lo < 0) return std::nullopt;
            out += char(hi * 16 + lo);
            i += 2;
        }
    }
    return out;
}

std::int64_t sliceIdOf(const TraceStore& store, EventRef ref) {
    std::int64_t id = 0;
    for (std::uint32_t t = 0; t < ref.track.value; ++t)
        id += std::int64_t(store.tracks()[t].sliceCount());
    return id + ref.index.value;
}

std::optional<EventRef> sliceOfId(const TraceStore& store, std::int64_t id) {
    if (id < 0) return std::nullopt;
    for (std::uint32_t t = 0; t < store.tracks().size(); ++t) {
        const auto n = std::int64_t(store.tracks()[t].sliceCount());
        if (id < n) return EventRef{TrackId(t), EventIndex(std::uint32_t(id))};
        id -= n;
    }
    return std::nullopt;
}

std::string viewLinkUrl(const ViewLink& link) {
    std::string url(scheme);
    char separator = '?';
    const auto add = [&](std::string_view key, std::string_view value) {
        url += separator;
        url += key;
        url += '=';
        url += percentEncode(value);
        separator = '&';
    };
    for (const std::string& file : link.files)
        add("file", file);
    if (link.range)
        add("range", std::to_string(link.range->first) + ":" + std::to_string(link.range->second));
    if (link.select) add("select", std::to_string(*link.select));
    for (const std::string& track : link.tracks)
        add("track", track);
    return url;
}

std::optional<ViewLink> parseViewLink(std::string_view url, std::string& error) {
    // "kinetoscope://open?…", or "kinetoscope:open?…" as some launchers hand it over; the host is "open".
    std::string_view rest;
    if (url.starts_with(scheme))
        rest = url.substr(scheme.size());
    else if (url.starts_with("kinetoscope:open"))
        rest = url.substr(std::string_view("kinetoscope:open").size());
    else {
        error = "not a kinetoscope link (kinetoscope://open?file=...)";
        return std::nullopt;
    }
    if (rest.starts_with('/')) rest.remove_prefix(1);
    if (!rest.starts_with('?')) {
        error = "the link has no query (kinetoscope://open?file=...)";
        return std::nullopt;
    }
    rest.remove_prefix(1);
    if (const auto hash = rest.find('#'); hash != std::string_view::npos) rest = rest.substr(0, hash);
    ViewLink link;
    while (!rest.empty()) {
        const auto amp = rest.find('&');
        const std::string_view pair = rest.substr(0, amp);
        rest = amp == std::string_view::npos ? std::string_view() : rest.substr(amp + 1);
        if (pair.empty()) continue;
        const auto eq = pair.find('=');
        const std::string_view key = pair.substr(0, eq);
        const auto value =
            percentDecode(eq == std::string_view::npos ? std::string_view() : pair.substr(eq + 1));
        if (!value) {
            error = std::string(key) + ": a bad %-escape";
            return std::nullopt;
        }
        if (key == "file") {
            if (!value->empty()) link.files.push_back(*value);
        } else if (key == "range") {
            const auto colon = value->find(':');
            const auto from = colon == std::string::npos
                                  ? std::nullopt
                                  : wholeNumber<TimeNs>(std::string_view(*value).substr(0, colon));
            const auto to = colon == std::string::npos
                                ? std::nullopt
                                : wholeNumber<TimeNs>(std::string_view(*value).substr(colon + 1));
            if (!from || !to || *from >= *to) {
                error = "range: expected START_NS:END_NS with START < END, not '" + *value + "'";
                return std::nullopt;
            }
            link.range = {*from, *to};
        } else if (key == "select") {
            const auto id = wholeNumber<std::int64_t>(*value);
            if (!id) {
                error = "select: expected a slice id, not '" + *value + "'";
                return std::nullopt;
            }
            link.select = *id;
        } else if (key == "track") {
            if (!value->empty()) link.tracks.push_back(*value);
        }
    }
    if (link.files.empty()) {
        error = "the link names no file (file=...)";
        return std::nullopt;
    }
    return link;
}

} // namespace kinetoscope
