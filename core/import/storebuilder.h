#pragma once

#include "model/tracestore.h"
#include "parsedchunk.h"
#include "phasetiming.h"

#include <memory>
#include <vector>

namespace kinetoscope {

class SourceBuffer;

// Turns parsed chunks (in file order) into the store: interns strings, groups events into tracks,
// sorts them and assigns lanes, matches B/E and async pairs, applies metadata, resolves flows and
// builds the correlation index. Chunks are consumed (freed as they are used).
// `timing` hears each build phase as it ends.
void buildStore(TraceStoreParts& store, std::vector<ParsedChunk>& chunks,
                std::shared_ptr<const SourceBuffer> source, const PhaseTimingFn& timing = {});

} // namespace kinetoscope
