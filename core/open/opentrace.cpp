#include "opentrace.h"

#include "import/sourcebuffer.h"
#include "live/livecapture.h"

namespace kinetoscope {

LoadResult loadTrace(const std::string& path, const LoadOptions& options) {
    LoadResult failure;
    std::optional<TraceText> file = readTraceFile(path, options, failure);
    if (!file) return failure;
    // A live-capture spool (or a raw capture) is recovered into the same trace Capture > Save writes.
    LoadResult r = live::isWireStream(file->source->text())
                       ? live::loadWireStream(file->source->text(), options)
                       : loadJsonTrace(std::move(*file), options);
    if (r.store) r.store->sourcePath = path;
    return r;
}

} // namespace kinetoscope
