#include "opentrace.h"

#include "import/nsysimport.h"
#include "import/perfettoimport.h"
#include "import/rpdimport.h"
#include "import/sourcebuffer.h"
#include "import/sqlitetrace.h"
#include "live/livecapture.h"
#include "snapshot/snapshotloader.h"

#include <filesystem>
#include <fstream>

namespace kinetoscope {

namespace {

bool isSqliteFile(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    char header[16] = {};
    return in.read(header, sizeof header) && isSqliteHeader(std::string_view(header, sizeof header));
}

// A profiler's SQLite database: an Nsight Systems export is read into Kineto's events, then loaded as they
// are.
// A converted file loaded as Kineto's JSON, its format named for the report; `what` names the format in an
// error.
LoadResult loadConverted(const ConvertedTrace& converted, const char* what, const char* format,
                         std::uint64_t fileBytes, LoadOptions options) {
    if (!converted.error.empty()) {
        LoadResult failure;
        failure.error = std::string(what) + ": " + converted.error;
        return failure;
    }
    options.sourceFormat = format;
    options.sourceFileBytes = fileBytes;
    options.sourceNotes = converted.skipped;
    return loadTraceText(converted.json, options);
}

LoadResult loadSqliteTrace(const std::string& path, const LoadOptions& options) {
    LoadResult failure;
    std::error_code ec;
    const std::uint64_t bytes = std::filesystem::file_size(path, ec);
    switch (sqliteTraceKind(path)) {
    case SqliteTraceKind::Nsight:
        return loadConverted(nsightToKinetoJson(path), "Nsight Systems export", "nsys_sqlite", bytes,
                             options);
    case SqliteTraceKind::RocmRpd:
        return loadConverted(rpdToKinetoJson(path), "rocm-profile-data database", "rocm_rpd", bytes, options);
    case SqliteTraceKind::Rocpd:
        return loadConverted(rocpdToKinetoJson(path), "rocpd database", "rocpd", bytes, options);
    case SqliteTraceKind::None:
        break;
    }
    failure.error = "a SQLite database, but not a profiler's Kinetoscope reads (Nsight Systems' `nsys export "
                    "--type sqlite`)";
    return failure;
}

} // namespace

LoadResult loadTrace(const std::string& path, const LoadOptions& options) {
    LoadOptions named = options;
    named.sourcePath = path;
    LoadResult failure;
    // A CUDA memory snapshot is not a trace: say what it is rather than fail to parse it as JSON.
    if (std::string reason = notATraceReason(path); !reason.empty()) {
        failure.error = std::move(reason);
        return failure;
    }
    if (isSqliteFile(path)) return loadSqliteTrace(path, named);
    std::optional<TraceText> file = readTraceFile(path, named, failure);
    if (!file) return failure;
    return loadReadTrace(std::move(*file), named);
}

LoadResult loadReadTrace(TraceText file, const LoadOptions& options) {
    // A live-capture spool (or a raw capture) is recovered into the same trace Capture > Save writes.
    if (live::isWireStream(file.source->text()))
        return live::loadWireStream(file.source->text(), options, &file);
    // A Perfetto protobuf trace (raw or gzip: the file is inflated already) is read into Kineto's events.
    if (looksLikePerfettoTrace(file.source->text()))
        return loadConverted(perfettoToKinetoJson(file.source->text()), "Perfetto trace", "perfetto",
                             file.stats.fileBytes, options);
    return loadJsonTrace(std::move(file), options);
}

std::string notATraceReason(const std::string& path) {
    return isPickleFile(path) ? "a CUDA memory snapshot, not a trace: `kinetoscope-cli memory FILE` reads it"
                              : std::string();
}

} // namespace kinetoscope
