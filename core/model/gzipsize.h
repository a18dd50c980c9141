#pragma once

// The inflated size of a gzip file, as far as its trailer tells it: ISIZE, the last member's size modulo
// 2^32. Both the trace loader (libdeflate inflates a member whole, into room it must be given, and starts
// again from the beginning when that is too small) and the snapshot tab (whether to preview, and how much
// there is) read it.

#include <cstdint>
#include <string>

namespace kinetoscope {

// The first size to reserve: ISIZE, read past 4 GiB as the first ISIZE + k·2^32 at or above four times the
// compressed size when that is a ratio JSON or a pickle has (at most 16×), else the larger of ISIZE and four
// times the compressed size.
std::uint64_t gzipTextSizeGuess(std::uint32_t isize, std::uint64_t fileSize);
// After `tooSmall` proved too small: the next size the trailer allows above it (exact for one member), or
// twice it where that would be a jump of more than eightfold (several members, whose trailers say little).
std::uint64_t gzipTextSizeAfter(std::uint32_t isize, std::uint64_t tooSmall);

// A file's text size: a plain file's size, a gzip file's gzipTextSizeGuess from its trailer. 0 when the file
// cannot be read.
std::uint64_t fileTextSize(const std::string& path);

} // namespace kinetoscope
