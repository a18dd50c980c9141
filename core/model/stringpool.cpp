#include "stringpool.h"

#include <algorithm>
#include <cstring>

namespace kinetoscope {

std::size_t StringViewHash::operator()(std::string_view s) const noexcept {
    // FNV-1a over 8-byte words: names are short and hashed once per event, so speed matters more
    // than distribution quality beyond what unordered_map needs.
    std::uint64_t h = 1469598103934665603ull;
    std::size_t i = 0;
    for (; i + 8 <= s.size(); i += 8) {
        std::uint64_t w;
        std::memcpy(&w, s.data() + i, 8);
        h = (h ^ w) * 1099511628211ull;
        h ^= h >> 29;
    }
    for (; i < s.size(); ++i)
        h = (h ^ static_cast<unsigned char>(s[i])) * 1099511628211ull;
    return h ^ (h >> 32);
}

StringPool::StringPool() {
    intern(std::string_view());
}

std::string_view StringPool::store(std::string_view text) {
    // Blocks grow from 16 KiB to 1 MiB: a loader chunk with a handful of names (and every tiny input) then
    // costs a small block, not a megabyte; blocks are not zeroed, every byte handed out is written first.
    constexpr std::size_t firstBlockSize = 16 << 10;
    constexpr std::size_t maxBlockSize = 1 << 20;
    if (text.size() > maxBlockSize / 4) {
        auto block = std::make_unique_for_overwrite<char[]>(text.size());
        std::memcpy(block.get(), text.data(), text.size());
        std::string_view v(block.get(), text.size());
        // Keep the current block last so that small strings keep filling it.
        m_blocks.insert(m_blocks.end() - (m_blocks.empty() ? 0 : 1), std::move(block));
        m_bytes += text.size();
        return v;
    }
    if (m_blocks.empty() || m_blockUsed + text.size() > m_blockSize) {
        const std::size_t size = m_blocks.empty() ? firstBlockSize : std::min(maxBlockSize, m_blockSize * 2);
        m_blocks.push_back(std::make_unique_for_overwrite<char[]>(std::max(size, text.size())));
        m_blockSize = std::max(size, text.size());
        m_blockUsed = 0;
        m_bytes += m_blockSize;
    }
    char* dst = m_blocks.back().get() + m_blockUsed;
    if (!text.empty()) std::memcpy(dst, text.data(), text.size());
    m_blockUsed += text.size();
    return {dst, text.size()};
}

StringId StringPool::intern(std::string_view text) {
    if (auto it = m_index.find(text); it != m_index.end()) return StringId(it->second);
    const std::string_view stored = store(text);
    const auto id = static_cast<std::uint32_t>(m_strings.size());
    m_strings.push_back(stored);
    m_index.emplace(stored, id);
    return StringId(id);
}

StringId StringPool::find(std::string_view text) const {
    if (auto it = m_index.find(text); it != m_index.end()) return StringId(it->second);
    return StringId();
}

std::size_t StringPool::bytesHeld() const {
    return m_bytes + m_strings.capacity() * sizeof(std::string_view) + m_index.size() * 48;
}

} // namespace kinetoscope
