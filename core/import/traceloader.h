#pragma once

#include "../model/tracestore.h"

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

namespace kinetoscope {

struct LoadProgress {
    enum class Stage { Reading, Parsing, Building };
    Stage stage = Stage::Reading;
    std::uint64_t bytesDone = 0;
    std::uint64_t bytesTotal = 0;
    std::uint64_t eventsDone = 0;
};

struct LoadOptions {
    unsigned threads = 0;                  // 0: all cores
    std::size_t chunkBytes = 8u << 20;     // unit of parallel work, progress and cancellation
    const std::atomic<bool>* cancel = nullptr;
    // Called from worker threads, at most every chunk; must be thread-safe and quick.
    std::function<void(const LoadProgress&)> progress;
};

struct LoadResult {
    std::unique_ptr<TraceStore> store; // null on failure
    std::string error;                 // one line, without the file name
    std::uint64_t errorOffset = 0;
    bool errorHasOffset = false;
    bool cancelled = false;
    double seconds = 0;

    bool ok() const { return store != nullptr; }
    // "FILE: byte N: reason" (or "FILE: reason" when no offset applies).
    std::string message(const std::string& path) const;
};

LoadResult loadTrace(const std::string& path, const LoadOptions& options = {});
LoadResult loadTraceText(std::string_view json, const LoadOptions& options = {});

} // namespace kinetoscope
