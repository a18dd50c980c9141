#pragma once

#include <bit>
#include <cstddef>
#include <iterator>
#include <memory>
#include <vector>

namespace kinetoscope::live {

// Append-only storage in blocks that double in size, for a capture's records. Growing never moves what is
// stored (a vector of a million records copies them all each time it doubles, on the thread that reads the
// socket), and a copy shares the blocks: the viewer's snapshot of a long capture costs a few pointers, not
// the records. Sharing is safe because an element is written once, before the size that makes it visible is
// (both under the capture session's lock), and never again; a copy only reads below its own size. The first
// block is small so that a short capture (and each of a fuzzer's thousands of inputs) does not pay for
// megabytes of blocks it never fills; doubling keeps the number of blocks logarithmic.
template <typename T> class AppendOnly {
  public:
    static constexpr std::size_t firstBlockBits = 6;
    static constexpr std::size_t firstBlockSize = std::size_t(1) << firstBlockBits;

    void push_back(const T& value) {
        const Slot slot = slotOf(m_size);
        if (slot.block == m_blocks.size())
            m_blocks.push_back(std::shared_ptr<T[]>(new T[firstBlockSize << slot.block]));
        m_blocks[slot.block][slot.offset] = value;
        ++m_size;
    }
    std::size_t size() const { return m_size; }
    bool empty() const { return m_size == 0; }
    const T& operator[](std::size_t i) const {
        const Slot slot = slotOf(i);
        return m_blocks[slot.block][slot.offset];
    }

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
    struct Slot {
        std::size_t block;
        std::size_t offset;
    };
    // Block k holds firstBlockSize << k elements and starts at element firstBlockSize * (2^k - 1), so the
    // block is the highest bit of i + firstBlockSize above the first block's, and the offset the bits below
    // it.
    static Slot slotOf(std::size_t i) {
        const std::size_t shifted = i + firstBlockSize;
        const std::size_t high = std::size_t(std::bit_width(shifted)) - 1;
        return {high - firstBlockBits, shifted - (std::size_t(1) << high)};
    }

    std::vector<std::shared_ptr<T[]>> m_blocks;
    std::size_t m_size = 0;
};

} // namespace kinetoscope::live
