#pragma once

// A link that opens the viewer at a view (issue 64):
// kinetoscope://open?file=…&range=START_NS:END_NS&select=ID &track=…, one `file` per trace (two for a
// comparison, several for a job). Times are the trace's own clock in integer ns (the store's time, SQL's
// `ts`); `select` is a slice id as the query layer numbers it (slice.id). The CLI's findings, the MCP
// server's evidence and the viewer's Edit › Copy Link write links here, and the viewer reads them here: one
// grammar.

#include "timeconv.h"
#include "tracestore.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kinetoscope {

struct ViewLink {
    std::vector<std::string> files;                 // absolute paths, in order
    std::optional<std::pair<TimeNs, TimeNs>> range; // start < end
    std::optional<std::int64_t> select;             // a slice id
    std::vector<std::string> tracks;                // track names to show (the rest stay as they are)
};

// The link's text: query values percent-encoded (RFC 3986's unreserved characters, '/' and ':' kept as they
// are: a path and a range stay readable).
std::string viewLinkUrl(const ViewLink& link);

// Reads a link; nullopt and `error` ("not a kinetoscope link", "range: expected START_NS:END_NS with START <
// END", "no file") when it is not one we can open. Unknown parameters are ignored (a newer writer's).
std::optional<ViewLink> parseViewLink(std::string_view url, std::string& error);

// A slice's id as links, the MCP server and the query layer (slice.id) give it: the store's slices numbered
// track by track, in track order (core/sql's SliceIndex keeps these offsets for its many lookups).
std::int64_t sliceIdOf(const TraceStore& store, EventRef ref);
// And back: the slice of an id, or nullopt for an id of none.
std::optional<EventRef> sliceOfId(const TraceStore& store, std::int64_t id);

// Percent-encoding of one query value and its inverse (nullopt on a bad escape).
std::string percentEncode(std::string_view text);
std::optional<std::string> percentDecode(std::string_view text);

} // namespace kinetoscope
