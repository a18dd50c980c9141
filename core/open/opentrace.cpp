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
    if (std::string reason = notATraceReason(path); !reason.empty()) {
        failure.error = std::move(reason);
        return failure;
    }
    std::optional<TraceText> file = readTraceFile(path, named, failure);
    if (!file) return failure;
    return loadReadTrace(std::move(*file), named);
}

LoadResult loadReadTrace(TraceText file, const LoadOptions& options) {
    // A live-capture spool (or a raw capture) is recovered into the same trace Capture > Save writes.
    return live::isWireStream(file.source->text()) ? live::loadWireStream(file.source->text(), options, &file)
                                                   : loadJsonTrace(std::move(file), options);
}

std::string notATraceReason(const std::string& path) {
    return isPickleFile(path) ? "a CUDA memory snapshot, not a trace: `kinetoscope-cli memory FILE` reads it"
                              : std::string();
}

} // namespace kinetoscope
