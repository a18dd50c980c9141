#pragma once

#include "gzipsample.h"

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

namespace kinetoscope {

// The JSON text of a trace: the file mapped read-only, or its gzip members inflated into anonymous memory.
// Slices keep byte ranges into it for their args, so it lives as long as the store.
class SourceBuffer {
  public:
    struct OpenResult {
        std::unique_ptr<SourceBuffer> buffer;
        std::string error;             // one line; empty on success
        std::uint64_t errorOffset = 0; // byte offset the error refers to
        bool cancelled = false;        // stopped because the caller asked (error says "cancelled")
        bool gzipCutShort = false;     // the gzip stream ended early; buffer holds what inflated
        std::uint64_t gzipCutAt = 0;   // compressed offset where inflation stopped
    };
    using ProgressFn = std::function<void(std::uint64_t done, std::uint64_t total)>;

    // `sample`: for a gzip file that may inflate to sampleMinBytes or more, samples of the text as it
    // inflates (GzipSampler), on another thread, all before open returns.
    static OpenResult open(const std::string& path, const std::atomic<bool>* cancel = nullptr,
                           const ProgressFn& progress = {}, const GzipSampler::SampleFn& sample = {},
                           std::uint64_t sampleMinBytes = 0);
    // For tests and in-memory sources.
    static std::unique_ptr<SourceBuffer> fromText(std::string_view text);
    // `size` bytes of zeroed anonymous memory for text made in memory (a live capture's args, written by
    // several threads into regions of their own), filled through writable() before the buffer is shared.
    // Pages never written cost nothing, so a writer may reserve the most it could need.
    static std::unique_ptr<SourceBuffer> forWriting(std::size_t size);
    char* writable() { return const_cast<char*>(m_data); }

    ~SourceBuffer();
    SourceBuffer(const SourceBuffer&) = delete;
    SourceBuffer& operator=(const SourceBuffer&) = delete;

    std::string_view text() const { return {m_data, m_size}; }
    const char* data() const { return m_data; }
    std::size_t size() const { return m_size; }
    std::uint64_t fileSize() const { return m_fileSize; }
    bool wasGzip() const { return m_gzip; }
    // Tells the kernel the loader is done with [begin, end) for now. For a mapped file this drops those pages
    // from the process (they stay in the page cache and fault back in when args are decoded), so resident
    // memory during a load does not grow with the file. Inflated gzip text is the only copy and is kept.
    void release(std::size_t begin, std::size_t end) const;
    // The load is done: the text is read from now on only where a slice's args lie, in no order the kernel
    // can foresee (a click in the viewer; an export's args, slice by slice, jumping over the whole file). For
    // a mapped file this turns readahead off (MADV_RANDOM), so that a page not in memory reads that page,
    // not 128 KB around it: under a memory cap (a container's) the readahead pushed out the pages still
    // being read and the export's args thrashed, reading the file from disk again and again
    // (bench/RESULTS.md).
    void expectRandomReads() const;

  private:
    SourceBuffer() = default;

    const char* m_data = nullptr;
    std::size_t m_size = 0;
    void* m_mapping = nullptr;
    std::size_t m_mappingSize = 0;
    std::uint64_t m_fileSize = 0;
    bool m_gzip = false;
    bool m_fileMapped = false;
};

// Bytes of physical memory the kernel says it could give us without swapping (MemAvailable).
std::uint64_t availableMemoryBytes();

} // namespace kinetoscope
