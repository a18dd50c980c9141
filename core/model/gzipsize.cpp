#include "gzipsize.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>

namespace kinetoscope {

namespace {
constexpr std::uint64_t wrap = std::uint64_t(1) << 32;
}

std::uint64_t gzipTextSizeGuess(std::uint32_t isize, std::uint64_t fileSize) {
    const std::uint64_t atLeast = std::max<std::uint64_t>(isize, fileSize * 4);
    std::uint64_t size = isize;
    while (size < atLeast)
        size += wrap;
    return size <= fileSize * 16 ? size : atLeast;
}

std::uint64_t gzipTextSizeAfter(std::uint32_t isize, std::uint64_t tooSmall) {
    std::uint64_t size = isize;
    while (size <= tooSmall)
        size += wrap;
    return size <= tooSmall * 8 ? size : tooSmall * 2;
}

std::uint64_t fileTextSize(const std::string& path) {
    std::error_code ec;
    const auto size = std::uint64_t(std::filesystem::file_size(path, ec));
    if (ec) return 0;
    std::FILE* f = std::fopen(path.c_str(), "rb");
    if (!f) return 0;
    unsigned char head[2] = {0, 0}, tail[4] = {0, 0, 0, 0};
    const bool gzip = std::fread(head, 1, 2, f) == 2 && head[0] == 0x1f && head[1] == 0x8b && size >= 18 &&
                      std::fseek(f, -4, SEEK_END) == 0 && std::fread(tail, 1, 4, f) == 4;
    std::fclose(f);
    if (!gzip) return size;
    const std::uint32_t isize = std::uint32_t(tail[0]) | std::uint32_t(tail[1]) << 8 |
                                std::uint32_t(tail[2]) << 16 | std::uint32_t(tail[3]) << 24;
    return gzipTextSizeGuess(isize, size);
}

} // namespace kinetoscope
