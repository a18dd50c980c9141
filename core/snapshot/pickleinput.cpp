#include "pickleinput.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <zlib.h>

namespace kinetoscope {

namespace {
constexpr std::size_t windowBytes = 4u << 20;
}

PickleInput::PickleInput(const std::string& path) {
    gzFile f = gzopen(path.c_str(), "rb");
    if (!f) {
        m_openError = errno ? std::strerror(errno) : "cannot open";
        return;
    }
    gzbuffer(f, 1u << 20);
    m_file = f;
    m_buffer.resize(windowBytes);
    m_base = m_buffer.data();
}

PickleInput PickleInput::fromMemory(std::string_view bytes) {
    PickleInput in;
    in.m_memory = bytes;
    in.m_base = reinterpret_cast<const std::uint8_t*>(bytes.data());
    in.m_end = bytes.size();
    in.m_eof = true;
    return in;
}

PickleInput::PickleInput(PickleInput&& other) noexcept
    : m_file(other.m_file), m_memory(other.m_memory), m_buffer(std::move(other.m_buffer)),
      m_base(other.m_file ? m_buffer.data() : other.m_base), m_pos(other.m_pos), m_end(other.m_end),
      m_consumed(other.m_consumed), m_eof(other.m_eof), m_gzip(other.m_gzip),
      m_openError(std::move(other.m_openError)), m_readError(std::move(other.m_readError)) {
    other.m_file = nullptr;
}

PickleInput::~PickleInput() {
    if (m_file) gzclose(static_cast<gzFile>(m_file));
}

// Makes `n` bytes available from the cursor: drops what was read, then reads more. A window grows only as far
// as data actually arrives, so a corrupt length cannot make it allocate more than the file holds.
bool PickleInput::fill(std::size_t n) {
    if (m_eof) return m_end - m_pos >= n;
    if (m_pos > 0) {
        std::memmove(m_buffer.data(), m_buffer.data() + m_pos, m_end - m_pos);
        m_end -= m_pos;
        m_consumed += m_pos;
        m_pos = 0;
    }
    auto* f = static_cast<gzFile>(m_file);
    while (m_end < n && !m_eof) {
        if (m_end == m_buffer.size()) m_buffer.resize(std::max(m_buffer.size() * 2, windowBytes));
        const std::size_t want = std::min<std::size_t>(m_buffer.size() - m_end, 1u << 30);
        const int got = gzread(f, m_buffer.data() + m_end, unsigned(want));
        if (m_consumed == 0 && m_end == 0) m_gzip = gzdirect(f) == 0;
        if (got < 0) {
            int code = 0;
            m_readError = gzerror(f, &code);
            m_eof = true;
        } else if (got == 0) {
            m_eof = true;
        } else {
            m_end += std::size_t(got);
        }
    }
    return m_end - m_pos >= n;
}

const std::uint8_t* PickleInput::takeSlow(std::size_t n) {
    const bool ok = fill(n);
    if (m_file) m_base = m_buffer.data(); // the window may have moved
    if (!ok) return nullptr;
    const std::uint8_t* p = m_base + m_pos;
    m_pos += n;
    return p;
}

} // namespace kinetoscope
