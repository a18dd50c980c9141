#pragma once
// Shared by the importer fuzz targets: arbitrary bytes into the loader, plain text directly or gzip through the
// file path (an anonymous in-memory file, no disk).
#include "import/traceloader.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <string>

namespace kinetoscope::fuzz {

inline LoadResult loadBytes(const std::uint8_t* data, std::size_t size) {
    LoadOptions options;
    // Small pieces exercise the splitter and its repairs on small inputs; two threads only for some inputs (spawning
    // threads dominates the cost of a small input).
    options.threads = size > 0 && (data[size - 1] & 1) ? 2 : 1;
    options.chunkBytes = 256;
    if (size >= 2 && data[0] == 0x1f && data[1] == 0x8b) {
        const int fd = memfd_create("fuzz", 0);
        if (fd < 0) return {};
        if (write(fd, data, size) != ssize_t(size)) {
            close(fd);
            return {};
        }
        LoadResult r = loadTrace("/proc/self/fd/" + std::to_string(fd), options);
        close(fd);
        return r;
    }
    return loadTraceText(std::string_view(reinterpret_cast<const char*>(data), size), options);
}

} // namespace kinetoscope::fuzz
