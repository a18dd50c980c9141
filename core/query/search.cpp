#include "search.h"
#include "model/textformat.h"

#include <algorithm>
#include <cctype>
#include <regex>

namespace kinetoscope {

namespace {
std::string lowered(std::string_view s) {
    return asciiLower(s);
}
} // namespace

SearchResult searchSlices(const TraceStore& store, const SearchQuery& query,
                          const std::atomic<bool>* cancel) {
    SearchResult result;
    if (query.text.empty()) return result;
    const std::size_t stringCount = store.strings().size();
    result.nameMatches.assign(stringCount, false);
    std::optional<std::regex> re;
    if (query.regex && !query.wholeName) {
        try {
            auto flags = std::regex::ECMAScript | std::regex::optimize;
            if (!query.caseSensitive) flags |= std::regex::icase;
            re.emplace(query.text, flags);
        } catch (const std::regex_error& e) {
            result.error = std::string("invalid regular expression: ") + e.what();
            return result;
        }
    }
    const std::string needle = query.caseSensitive ? query.text : lowered(query.text);
    bool any = false;
    for (std::uint32_t i = 0; i < stringCount; ++i) {
        const std::string_view name = store.strings().view(StringId(i));
        bool match;
        if (query.wholeName)
            match = name == query.text;
        else if (re)
            match = std::regex_search(name.begin(), name.end(), *re);
        else if (query.caseSensitive)
            match = name.find(needle) != std::string_view::npos;
        else
            match = lowered(name).find(needle) != std::string::npos;
        result.nameMatches[i] = match;
        any |= match;
    }
    if (!any) return result;
    for (std::uint32_t t = 0; t < store.tracks().size(); ++t) {
        const Track& track = store.tracks()[t];
        const std::size_t n = track.names.size();
        for (std::size_t r = 0; r < n; ++r) {
            if (result.nameMatches[track.names[r].value])
                result.matches.push_back({TrackId(t), EventIndex(std::uint32_t(r))});
            if ((r & 0xfffff) == 0xfffff && cancel && cancel->load(std::memory_order_relaxed)) {
                result.cancelled = true;
                return result;
            }
        }
    }
    std::sort(result.matches.begin(), result.matches.end(), [&](EventRef a, EventRef b) {
        const TimeNs sa = store.track(a.track).starts[a.index.value];
        const TimeNs sb = store.track(b.track).starts[b.index.value];
        return sa != sb ? sa < sb : a < b;
    });
    return result;
}

std::size_t firstMatchAtOrAfter(const TraceStore& store, const std::vector<EventRef>& matches, TimeNs t) {
    auto it = std::lower_bound(matches.begin(), matches.end(), t, [&](EventRef e, TimeNs v) {
        return store.track(e.track).starts[e.index.value] < v;
    });
    return std::size_t(it - matches.begin());
}

} // namespace kinetoscope
