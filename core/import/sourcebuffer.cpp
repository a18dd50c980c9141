#include "sourcebuffer.h"

#include "model/gzipsize.h"

#include <libdeflate.h>
#include <zlib.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <optional>
#include <sys/mman.h>
#include <sys/stat.h>
#include <thread>
#include <unistd.h>

namespace kinetoscope {

namespace {

struct Fd {
    int fd = -1;
    ~Fd() {
        if (fd >= 0) ::close(fd);
    }
};

// Anonymous memory that can grow without copying (mremap).
struct GrowableMapping {
    void* data = nullptr;
    std::size_t capacity = 0;

    bool reserve(std::size_t bytes) {
        if (bytes <= capacity) return true;
        void* p = data ? ::mremap(data, capacity, bytes, MREMAP_MAYMOVE)
                       : ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p == MAP_FAILED) return false;
        data = p;
        capacity = bytes;
        return true;
    }
    void release() {
        if (data) ::munmap(data, capacity);
        data = nullptr;
        capacity = 0;
    }
};

std::size_t pageRound(std::size_t n) {
    const std::size_t page = 4096;
    return (n + page - 1) / page * page;
}

std::string formatBytes(std::uint64_t n) {
    char buf[64];
    if (n >= (1ull << 30))
        std::snprintf(buf, sizeof buf, "%.1f GiB", double(n) / double(1ull << 30));
    else
        std::snprintf(buf, sizeof buf, "%.1f MiB", double(n) / double(1ull << 20));
    return buf;
}

} // namespace

void SourceBuffer::release(std::size_t begin, std::size_t end) const {
    if (!m_fileMapped || end <= begin) return;
    // Only whole pages inside the range: a neighbour's bytes may still be being read on another thread (it
    // would simply fault them back in, but there is no need).
    const std::uintptr_t page = std::uintptr_t(::sysconf(_SC_PAGESIZE));
    const std::uintptr_t from = (std::uintptr_t(m_data) + begin + page - 1) & ~(page - 1);
    const std::uintptr_t to = (std::uintptr_t(m_data) + std::min(end, m_size)) & ~(page - 1);
    if (to > from) ::madvise(reinterpret_cast<void*>(from), to - from, MADV_DONTNEED);
}

void SourceBuffer::expectRandomReads() const {
    if (m_fileMapped) ::madvise(m_mapping, m_mappingSize, MADV_RANDOM);
}

std::uint64_t availableMemoryBytes() {
    // KINETOSCOPE_MEMORY_AVAILABLE=BYTES pretends only that much is free (tests; users who want a cap).
    if (const char* cap = std::getenv("KINETOSCOPE_MEMORY_AVAILABLE"); cap && *cap)
        return std::strtoull(cap, nullptr, 10);
    FILE* f = std::fopen("/proc/meminfo", "r");
    if (!f) return ~0ull;
    char line[256];
    std::uint64_t kb = 0;
    bool found = false;
    while (std::fgets(line, sizeof line, f)) {
        unsigned long long v;
        if (std::sscanf(line, "MemAvailable: %llu kB", &v) == 1) {
            kb = v;
            found = true;
            break;
        }
    }
    std::fclose(f);
    return found ? kb * 1024 : ~0ull;
}

SourceBuffer::~SourceBuffer() {
    if (m_mapping) ::munmap(m_mapping, m_mappingSize);
}

std::unique_ptr<SourceBuffer> SourceBuffer::forWriting(std::size_t size) {
    std::unique_ptr<SourceBuffer> b(new SourceBuffer);
    GrowableMapping m;
    if (!m.reserve(pageRound(size + 1))) return nullptr;
    b->m_mapping = m.data;
    b->m_mappingSize = m.capacity;
    b->m_data = static_cast<const char*>(m.data);
    b->m_size = size;
    b->m_fileSize = size;
    return b;
}

std::unique_ptr<SourceBuffer> SourceBuffer::fromText(std::string_view text) {
    std::unique_ptr<SourceBuffer> b = forWriting(text.size());
    if (b && !text.empty()) std::memcpy(b->writable(), text.data(), text.size());
    return b;
}

SourceBuffer::OpenResult SourceBuffer::open(const std::string& path, const std::atomic<bool>* cancel,
                                            const ProgressFn& progress, const GzipSampler::SampleFn& sample,
                                            std::uint64_t sampleMinBytes) {
    OpenResult result;
    Fd fd;
    fd.fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd.fd < 0) {
        result.error = std::strerror(errno);
        return result;
    }
    struct stat st {};
    if (::fstat(fd.fd, &st) != 0) {
        result.error = std::strerror(errno);
        return result;
    }
    if (S_ISDIR(st.st_mode)) {
        result.error = "is a directory";
        return result;
    }
    if (!S_ISREG(st.st_mode)) {
        result.error = "not a regular file";
        return result;
    }
    const std::size_t fileSize = static_cast<std::size_t>(st.st_size);
    if (fileSize == 0) {
        result.error = "empty file";
        return result;
    }
    // No MAP_POPULATE: measured slower here, as it faults the whole file in on one core while the
    // parser threads would otherwise share the page faults.
    void* map = ::mmap(nullptr, fileSize, PROT_READ, MAP_PRIVATE, fd.fd, 0);
    if (map == MAP_FAILED) {
        result.error = std::string("cannot map file: ") + std::strerror(errno);
        return result;
    }
    const auto* bytes = static_cast<const unsigned char*>(map);
    const bool gzip = fileSize >= 2 && bytes[0] == 0x1f && bytes[1] == 0x8b;

    std::unique_ptr<SourceBuffer> buffer(new SourceBuffer);
    buffer->m_fileSize = fileSize;
    if (!gzip) {
        // The mapped text needs no memory of its own, but the columns and parse buffers do: about half a byte
        // per byte of JSON at the peak (bench/RESULTS.md). Say so before allocating rather than meet the OOM
        // killer.
        const std::uint64_t need = std::uint64_t(fileSize) / 2;
        const std::uint64_t available = availableMemoryBytes();
        if (need > available) {
            ::munmap(map, fileSize);
            result.error = "needs about " + formatBytes(need) + " of memory to load, only " +
                           formatBytes(available) + " available";
            return result;
        }
        ::madvise(map, fileSize, MADV_SEQUENTIAL);
        buffer->m_mapping = map;
        buffer->m_mappingSize = fileSize;
        buffer->m_data = static_cast<const char*>(map);
        buffer->m_size = fileSize;
        buffer->m_fileMapped = true;
        if (progress) progress(fileSize, fileSize);
        result.buffer = std::move(buffer);
        return result;
    }

    // gzip: the trailer of the last member gives the size modulo 2^32; guess from it and grow when a member
    // (or several concatenated ones) needs more. Each try inflates from the start again: a 5 GB trace guessed
    // at four times its compressed size took three (read+parse 14.1 s, where the plain file takes 5.3).
    std::uint32_t isize = 0;
    if (fileSize >= 18) std::memcpy(&isize, bytes + fileSize - 4, 4);
    const std::uint64_t guess = gzipTextSizeGuess(isize, fileSize);
    // The text's size as the trailer tells it, for the first screen's threshold.
    const std::uint64_t textSize = std::max<std::uint64_t>(isize, fileSize);
    const std::uint64_t available = availableMemoryBytes();

    GrowableMapping out;
    std::size_t outSize = 0;
    auto growTo = [&](std::uint64_t want) -> bool {
        if (want > available) {
            result.error = "needs " + formatBytes(want) + " of memory to decompress, only " +
                           formatBytes(available) + " available";
            return false;
        }
        if (!out.reserve(pageRound(want))) {
            result.error = "out of memory decompressing (" + formatBytes(want) + ")";
            return false;
        }
        return true;
    };
    if (!growTo(guess + 4096)) {
        ::munmap(map, fileSize);
        return result;
    }

    // Fast path: libdeflate, member by member. A corrupted or cut stream falls back to zlib, which
    // inflates everything up to the damage so that the whole events before it still load.
    libdeflate_decompressor* d = libdeflate_alloc_decompressor();
    std::size_t inPos = 0;
    bool needZlib = false;
    // Inflation runs on one core and a quarter of its time is the kernel handing out fresh pages: fault the
    // output in on the other core meanwhile (MADV_POPULATE_WRITE leaves contents alone, so it may run ahead
    // of the writer).
    std::optional<GzipSampler> sampler; // see below
    std::atomic<bool> stopPopulating{false};
    std::thread populate;
    auto startPopulating = [&] {
        stopPopulating = false;
        populate = std::thread([&, base = static_cast<char*>(out.data), size = out.capacity] {
            for (int i = 0; sampler && i < 10 && !stopPopulating.load(std::memory_order_relaxed); ++i)
                sampler->waitForFirstSample(std::chrono::milliseconds(10));
            // Small steps: each holds the address space's lock, which the viewer's thread needs to allocate.
            constexpr std::size_t step = 4u << 20;
            for (std::size_t at = 0; at < size && !stopPopulating.load(std::memory_order_relaxed); at += step)
                if (::madvise(base + at, std::min(step, size - at), MADV_POPULATE_WRITE) != 0)
                    break; // old kernel
        });
    };
    auto stopPopulatingNow = [&] {
        stopPopulating = true;
        if (populate.joinable()) populate.join();
    };
    // The first screen while this inflates, on the other core (stopped before the input is unmapped); the
    // output is faulted in once it is on screen.
    if (sample && textSize >= sampleMinBytes) sampler.emplace(bytes, fileSize, sample, cancel);
    if (d && out.capacity >= (64u << 20)) startPopulating();
    if (progress) progress(0, fileSize);
    while (inPos < fileSize && d) {
        if (cancel && cancel->load(std::memory_order_relaxed)) break;
        if (fileSize - inPos < 2 || bytes[inPos] != 0x1f || bytes[inPos + 1] != 0x8b)
            break; // trailing garbage
        std::size_t inUsed = 0, produced = 0;
        const libdeflate_result r = libdeflate_gzip_decompress_ex(
            d, bytes + inPos, fileSize - inPos, static_cast<char*>(out.data) + outSize,
            out.capacity - outSize - 1, &inUsed, &produced);
        if (r == LIBDEFLATE_SUCCESS) {
            inPos += inUsed;
            outSize += produced;
            if (progress) progress(inPos, fileSize);
            continue;
        }
        if (r == LIBDEFLATE_INSUFFICIENT_SPACE) {
            stopPopulatingNow(); // the mapping may move
            std::uint64_t want = gzipTextSizeAfter(isize, out.capacity) + 4096;
            // A jump the trailer suggests that memory cannot hold (several members): double instead.
            if (want > available && std::uint64_t(out.capacity) * 2 <= available) want = out.capacity * 2;
            if (!growTo(want)) break;
            if (out.capacity >= (64u << 20)) startPopulating();
            continue;
        }
        needZlib = true;
        break;
    }
    stopPopulatingNow();
    if (d) libdeflate_free_decompressor(d);
    if (!d) needZlib = true;

    if (needZlib && result.error.empty()) {
        z_stream zs{};
        if (inflateInit2(&zs, 16 + MAX_WBITS) == Z_OK) {
            zs.next_in = const_cast<Bytef*>(bytes + inPos);
            std::size_t inLeft = fileSize - inPos;
            bool done = false;
            while (!done) {
                if (cancel && cancel->load(std::memory_order_relaxed)) break;
                if (out.capacity - outSize < (1u << 20) && !growTo(std::uint64_t(out.capacity) * 2)) break;
                const std::size_t inChunk = std::min<std::size_t>(inLeft, 1u << 30);
                zs.avail_in = static_cast<uInt>(inChunk);
                const std::size_t outChunk = std::min<std::size_t>(out.capacity - outSize - 1, 1u << 30);
                zs.next_out = reinterpret_cast<Bytef*>(static_cast<char*>(out.data) + outSize);
                zs.avail_out = static_cast<uInt>(outChunk);
                const int rc = inflate(&zs, Z_NO_FLUSH);
                outSize += outChunk - zs.avail_out;
                inLeft -= inChunk - zs.avail_in;
                if (rc == Z_STREAM_END) {
                    const std::size_t consumed = fileSize - inLeft;
                    if (inLeft >= 2 && bytes[consumed] == 0x1f && bytes[consumed + 1] == 0x8b) {
                        inflateReset(&zs);
                        continue;
                    }
                    done = true;
                } else if (rc == Z_BUF_ERROR && inLeft == 0) {
                    result.gzipCutShort = true;
                    result.gzipCutAt = fileSize;
                    done = true;
                } else if (rc != Z_OK && rc != Z_BUF_ERROR) {
                    result.gzipCutShort = true;
                    result.gzipCutAt = fileSize - inLeft;
                    done = true;
                }
            }
            inflateEnd(&zs);
        }
    }
    if (sampler && std::getenv("KINETOSCOPE_GZIP_SAMPLE_TO_END")) sampler->finish(); // tests
    sampler.reset();
    ::munmap(map, fileSize);
    if (!result.error.empty()) {
        out.release();
        return result;
    }
    if (cancel && cancel->load(std::memory_order_relaxed)) {
        out.release();
        result.cancelled = true;
        result.error = "cancelled";
        return result;
    }
    if (outSize == 0) {
        out.release();
        result.error =
            result.gzipCutShort ? "gzip data is corrupt or cut short before any data" : "empty gzip stream";
        return result;
    }
    // Give back what the guess over-reserved.
    if (pageRound(outSize + 1) < out.capacity) {
        void* p = ::mremap(out.data, out.capacity, pageRound(outSize + 1), 0);
        if (p != MAP_FAILED) out.capacity = pageRound(outSize + 1);
    }
    buffer->m_gzip = true;
    buffer->m_mapping = out.data;
    buffer->m_mappingSize = out.capacity;
    buffer->m_data = static_cast<const char*>(out.data);
    buffer->m_size = outSize;
    result.buffer = std::move(buffer);
    return result;
}

} // namespace kinetoscope
