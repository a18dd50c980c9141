#include "opentrace.h"

#include "import/sourcebuffer.h"
#include "live/livecapture.h"
#include "snapshot/snapshotloader.h"

namespace kinetoscope {

LoadResult loadTrace(const std::string& path, const LoadOptions& options) {
    LoadOptions named = options;
    named.sourcePath = path;
    LoadResult failure;
    // A CUDA memory snapshot is not a trace: say what it is rather than fail to parse it as JSON.
    if (isPickleFile(path)) {
        failure.error = "a CUDA memory snapshot, not a trace: `kinetoscope-cli memory FILE` reads it";
        return failure;
    }
    std::optional<TraceText> file = readTraceFile(path, named, failure);
    if (!file) return failure;
    // A live-capture spool (or a raw capture) is recovered into the same trace Capture > Save writes.
    return live::isWireStream(file->source->text()) ? live::loadWireStream(file->source->text(), named)
                                                    : loadJsonTrace(std::move(*file), named);
}

} // namespace kinetoscope
