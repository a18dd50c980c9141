#pragma once

#include "model/tracestore.h"

#include <atomic>
#include <string>
#include <vector>

namespace kinetoscope {

struct SearchQuery {
    std::string text;
    bool regex = false;
    bool caseSensitive = false;
    bool wholeName = false; // the name is the text, exactly (a table row's name marked on the timeline)
};

// Slices whose name matches, in time order. Names are matched once per distinct string, then the columns are
// scanned for those ids, so a search over tens of millions of slices costs one pass of integer compares.
struct SearchResult {
    std::string error;             // a regex that does not compile
    std::vector<bool> nameMatches; // by StringId: whether that name matches (for highlighting)
    std::vector<EventRef> matches; // ordered by (start, track, row)
    bool cancelled = false;
};

SearchResult searchSlices(const TraceStore& store, const SearchQuery& query,
                          const std::atomic<bool>* cancel = nullptr);

// Index of the first match starting at or after `t` (matches.size() when none).
std::size_t firstMatchAtOrAfter(const TraceStore& store, const std::vector<EventRef>& matches, TimeNs t);

} // namespace kinetoscope
