#pragma once

#include "ids.h"

#include <deque>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace kinetoscope {

struct StringViewHash {
    using is_transparent = void;
    std::size_t operator()(std::string_view s) const noexcept;
};

// Interns strings once; ids are dense and stable. Storage is a list of large blocks so that
// string_views handed out never move.
class StringPool {
  public:
    StringPool();
    StringPool(const StringPool&) = delete;
    StringPool& operator=(const StringPool&) = delete;
    StringPool(StringPool&&) = default;
    StringPool& operator=(StringPool&&) = default;

    StringId intern(std::string_view text);
    // nullopt-like: an invalid id when the text was never interned.
    StringId find(std::string_view text) const;
    // Invalid ids read as the empty string, so optional names need no special case.
    std::string_view view(StringId id) const {
        return id.value < m_strings.size() ? m_strings[id.value] : std::string_view();
    }
    std::size_t size() const { return m_strings.size(); }
    std::size_t bytesHeld() const;

  private:
    std::string_view store(std::string_view text);

    std::vector<std::unique_ptr<char[]>> m_blocks;
    std::size_t m_blockUsed = 0;
    std::size_t m_blockSize = 0;
    std::vector<std::string_view> m_strings;
    std::unordered_map<std::string_view, std::uint32_t, StringViewHash, std::equal_to<>> m_index;
    std::size_t m_bytes = 0;
};

} // namespace kinetoscope
