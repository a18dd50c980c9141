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
LoadResult loadSqliteTrace(const std::string& path, LoadOptions options) {
    LoadResult failure;
    switch (sqliteTraceKind(path)) {
    case SqliteTraceKind::Nsight: {
        NsightJson converted = nsightToKinetoJson(path);
        if (!converted.error.empty()) {
            failure.error = "Nsight Systems export: " + converted.error;
            return failure;
        }
        options.sourceFormat = "nsys_sqlite";
        std::error_code ec;
        options.sourceFileBytes = std::filesystem::file_size(path, ec);
        return loadTraceText(converted.json, options);
    }
    case SqliteTraceKind::RocmRpd: {
        ConvertedTrace converted = rpdToKinetoJson(path);
        if (!converted.error.empty()) {
            failure.error = "rocm-profile-data database: " + converted.error;
            return failure;
        }
        options.sourceFormat = "rocm_rpd";
        std::error_code ec;
        options.sourceFileBytes = std::filesystem::file_size(path, ec);
        return loadTraceText(converted.json, options);
    }
    case SqliteTraceKind::Rocpd: {
        ConvertedTrace converted = rocpdToKinetoJson(path);
        if (!converted.error.empty()) {
            failure.error = "rocpd database: " + converted.error;
            return failure;
        }
        options.sourceFormat = "rocpd";
        std::error_code ec;
        options.sourceFileBytes = std::filesystem::file_size(path, ec);
        return loadTraceText(converted.json, options);
    }
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
    if (looksLikePerfettoTrace(file.source->text())) {
        PerfettoJson converted = perfettoToKinetoJson(file.source->text());
        if (!converted.error.empty()) {
            LoadResult failure;
            failure.error = "Perfetto trace: " + converted.error;
            return failure;
        }
        LoadOptions named = options;
        named.sourceFormat = "perfetto";
        named.sourceFileBytes = file.stats.fileBytes;
        return loadTraceText(converted.json, named);
    }
    return loadJsonTrace(std::move(file), options);
}

std::string notATraceReason(const std::string& path) {
    return isPickleFile(path) ? "a CUDA memory snapshot, not a trace: `kinetoscope-cli memory FILE` reads it"
                              : std::string();
}

} // namespace kinetoscope
