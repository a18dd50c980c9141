#pragma once

#include <cstddef>
#include <iterator>
#include <memory>
#include <vector>

namespace kinetoscope::live {

// Append-only storage in fixed blocks, for a capture's records. Growing never moves what is stored (a vector
// of a million records copies them all each time it doubles, on the thread that reads the socket), and a copy
// shares the blocks: the viewer's snapshot of a long capture costs a few pointers, not the records. Sharing
// is safe because an element is written once, before the size that makes it visible is (both under the
// capture session's lock), and never again; a copy only reads below its own size.
template <typename T> class AppendOnly {
  public:
    static constexpr std::size_t blockSize = std::size_t(1) << 14;

    void push_back(const T& value) {
        if (m_size % blockSize == 0 && m_size / blockSize == m_blocks.size())
            m_blocks.push_back(std::shared_ptr<T[]>(new T[blockSize]));
        m_blocks[m_size / blockSize][m_size % blockSize] = value;
        ++m_size;
    }
    std::size_t size() const { return m_size; }
    bool empty() const { return m_size == 0; }
    const T& operator[](std::size_t i) const { return m_blocks[i / blockSize][i % blockSize]; }

    class const_iterator {
      public:
        using iterator_category = std::forward_iterator_tag;
        using value_type = T;
        using difference_type = std::ptrdiff_t;
        using pointer = const T*;
        using reference = const T&;
        const_iterator(const AppendOnly* owner, std::size_t index) : m_owner(owner), m_index(index) {}
        reference operator*() const { return (*m_owner)[m_index]; }
        pointer operator->() const { return &(*m_owner)[m_index]; }
        const_iterator& operator++() {
            ++m_index;
            return *this;
        }
        bool operator==(const const_iterator& other) const { return m_index == other.m_index; }

      private:
        const AppendOnly* m_owner;
        std::size_t m_index;
    };
    const_iterator begin() const { return {this, 0}; }
    const_iterator end() const { return {this, m_size}; }

  private:
    std::vector<std::shared_ptr<T[]>> m_blocks;
    std::size_t m_size = 0;
};

} // namespace kinetoscope::live
