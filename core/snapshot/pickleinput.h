#pragma once

// The bytes of a pickle, streamed: from a file (plain or gzip, both through zlib's gz reader, which passes a
// plain file through) or from memory. The reader asks for a few bytes at a time; only the window it needs is
// held, so a gigabyte snapshot is never in memory as a whole.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace kinetoscope {

class PickleInput {
  public:
    // Opens `path`; check openError() before reading.
    explicit PickleInput(const std::string& path);
    // Reads `bytes` in place (tests, fuzzing); they must outlive the input.
    static PickleInput fromMemory(std::string_view bytes);
    ~PickleInput();
    PickleInput(PickleInput&& other) noexcept;
    PickleInput& operator=(PickleInput&&) = delete;
    PickleInput(const PickleInput&) = delete;
    PickleInput& operator=(const PickleInput&) = delete;

    const std::string& openError() const { return m_openError; }
    // `n` contiguous bytes at the cursor, which then moves past them; nullptr when the data ends first (the
    // cursor stays). The pointer is valid until the next call.
    const std::uint8_t* take(std::size_t n) {
        if (m_end - m_pos < n) return takeSlow(n);
        const std::uint8_t* p = m_base + m_pos; // the common case, inline: an opcode is a byte or a few
        m_pos += n;
        return p;
    }
    // Offset of the cursor in the (inflated) data: where the next opcode starts.
    std::uint64_t offset() const { return m_consumed + m_pos; }
    bool wasGzip() const { return m_gzip; }
    // A gzip stream that was damaged (not merely cut short) after this many inflated bytes.
    const std::string& readError() const { return m_readError; }

  private:
    PickleInput() = default;
    bool fill(std::size_t n);
    const std::uint8_t* takeSlow(std::size_t n);

    void* m_file = nullptr; // gzFile
    std::string_view m_memory;
    std::vector<std::uint8_t> m_buffer;
    const std::uint8_t* m_base = nullptr; // the window's first byte
    std::size_t m_pos = 0;                // cursor in the window
    std::size_t m_end = 0;                // bytes held in the window
    std::uint64_t m_consumed = 0;         // bytes dropped before the window
    bool m_eof = false;
    bool m_gzip = false;
    std::string m_openError;
    std::string m_readError;
};

} // namespace kinetoscope
