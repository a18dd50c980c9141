#pragma once

#include "model/tracestore.h"
#include "parsedchunk.h"

#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace kinetoscope {

// The one place that talks to simdjson (its header is heavy and must be included once).
// One EventParser per worker thread; it reuses its buffers across chunks.
class EventParser {
  public:
    // gpuWorkOnly: LoadOptions::gpuWorkOnly (events other than the GPU's work are checked and counted, not
    // kept).
    explicit EventParser(bool gpuWorkOnly = false);
    ~EventParser();
    EventParser(const EventParser&) = delete;
    EventParser& operator=(const EventParser&) = delete;

    // Fast path: `text[begin, end)` is a run of comma-separated events (from a `{` to a `}`).
    // Returns false when the run does not parse as a whole; `out` is then left for the robust path.
    bool parseRun(std::string_view text, std::size_t begin, std::size_t end, ParsedChunk& out);

    // Robust path: parses one event whose text is `text[begin, end)`; a bad one is counted in `out`.
    void parseOne(std::string_view text, std::size_t begin, std::size_t end, ParsedChunk& out);

  private:
    struct Impl;
    std::unique_ptr<Impl> m_impl;
};

// Fills `meta` from the top-level keys (name, JSON text) other than traceEvents.
void decodeTopLevelMetadata(TraceMetadata& meta);

// The version of the JSON library, for About boxes and `info`.
std::string jsonLibraryVersion();

} // namespace kinetoscope
