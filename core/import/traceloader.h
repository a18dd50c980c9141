#pragma once

#include "model/tracestore.h"
#include "phasetiming.h"

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kinetoscope {

struct LoadProgress {
    enum class Stage { Reading, Parsing, Building };
    Stage stage = Stage::Reading;
    std::uint64_t bytesDone = 0;
    std::uint64_t bytesTotal = 0;
    std::uint64_t eventsDone = 0;
};

struct LoadOptions {
    unsigned threads = 0; // 0: all cores
    // The unit of parallel work, progress and cancellation. 1 MiB: a chunk and its structural index stay in
    // cache while it is parsed (8 MiB took 9 % longer to parse a 237 MB trace, bench/RESULTS.md).
    std::size_t chunkBytes = 1u << 20;
    const std::atomic<bool>* cancel = nullptr;
    // Called from worker threads, at most every chunk; must be thread-safe and quick.
    std::function<void(const LoadProgress&)> progress;
    // Called on the loading thread as each phase ends, with its name and duration (benchmarks; may be empty).
    PhaseTimingFn phaseTiming;
    // The viewer's first screen for a large file: when the JSON text is at least previewMinBytes, called once
    // on the loading thread, before the full parse, with a store built from pieces of the event array spread
    // over the whole file (256 pieces, 1/16 of it in all, at most 32 MiB; ImportStats::preview set). Its
    // events are the full store's, over about the same span; a piece that does not parse is left out. For a
    // gzip file, called before that too, while it inflates, on another thread, with samples of the text
    // inflated so far (GzipSampler; ImportStats::previewInflatedBytes says how far), from 4 MiB on, each
    // time that has grown fourfold. Calls never overlap and come in that order. Empty: no preview.
    std::function<void(std::unique_ptr<const TraceStore>)> preview;
    std::size_t previewMinBytes = std::size_t(64) << 20;
    // A store of the GPU's work alone, for reports that read nothing else (the kernel table): kernels, copies
    // and memsets (every event of such a category), the metadata and B/E pairs are kept; the other events are
    // read and checked as in a full load, not kept (ImportStats::gpuWorkOnly says so and counts their
    // complete slices). A full load instead when the JSON text holds any of gpuWorkOnlyUnlessTextHas (what
    // such a report would read from the other events, e.g. an args key written with its quotes). No
    // preview then.
    bool gpuWorkOnly = false;
    std::vector<std::string> gpuWorkOnlyUnlessTextHas;
    // What the store calls its source (TraceStore::sourcePath()): the file (open/opentrace sets it), or a
    // label such as "live capture". The store is sealed (const) once loaded, so it is named while it is
    // built.
    std::string sourcePath;
    // A file of another format read into Kineto's JSON first (an Nsight Systems export): its name for the
    // report ("nsys_sqlite", the summary's run.format) and its size on disk.
    std::string sourceFormat;
    std::uint64_t sourceFileBytes = 0;
    std::vector<std::string> sourceNotes; // what that reader could not read (ImportStats::conversionNotes)
};

struct LoadResult {
    std::unique_ptr<const TraceStore> store; // null on failure; immutable once loaded
    std::string error;                       // one line, without the file name
    std::uint64_t errorOffset = 0;
    bool errorHasOffset = false;
    bool cancelled = false;
    double seconds = 0;

    bool ok() const { return store != nullptr; }
    // The result of a load stopped through LoadOptions::cancel.
    static LoadResult cancelledLoad();
    // "FILE: byte N: reason" (or "FILE: reason" when no offset applies).
    std::string message(const std::string& path) const;
};

// What a load that succeeded skipped, one line each ("FILE: byte N: file is truncated; loaded the events
// before it"): the CLI prints them as warnings, Python raises them as warnings. Empty when the file was
// whole.
std::vector<std::string> loadWarnings(const ImportStats& stats, const std::string& path);

class SourceBuffer;

// A trace file read (mapped, or inflated from gzip) but not yet parsed, with what reading it found. Opening a
// file of any kind starts here (open/opentrace.h looks at the first bytes to pick the reader).
struct TraceText {
    std::shared_ptr<const SourceBuffer> source;
    ImportStats stats;
    std::chrono::steady_clock::time_point started;
};
// Reads `path`; on failure returns nothing and says why in `failure`.
std::optional<TraceText> readTraceFile(const std::string& path, const LoadOptions& options,
                                       LoadResult& failure);
// Parses the Chrome/Kineto JSON text of a file read by readTraceFile into a store.
LoadResult loadJsonTrace(TraceText file, const LoadOptions& options = {});
// The same for JSON text in memory.
LoadResult loadTraceText(std::string_view json, const LoadOptions& options = {});

} // namespace kinetoscope
