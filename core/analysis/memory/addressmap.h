#pragma once

// Live allocations by address while a snapshot's trace is replayed: an open-addressing table (linear probing,
// deletion by backward shift). A node-based std::unordered_map made one heap allocation per alloc event; on a
// 1 GB snapshot that was a third of pairing its 4 million events.

#include <cstdint>
#include <vector>

namespace kinetoscope {

class AddressMap {
  public:
    explicit AddressMap(std::size_t expected = 1024) { rehash(expected * 2); }

    // The value stored for `addr`, or null.
    std::uint32_t* find(std::uint64_t addr) {
        for (std::size_t i = slot(addr);; i = (i + 1) & m_mask) {
            if (m_keys[i] == empty) return nullptr;
            if (m_keys[i] == addr) return &m_values[i];
        }
    }
    bool contains(std::uint64_t addr) { return find(addr) != nullptr; }
    void set(std::uint64_t addr, std::uint32_t value) {
        if (std::uint32_t* v = find(addr)) {
            *v = value;
            return;
        }
        if ((m_size + 1) * 2 > m_keys.size()) rehash(m_keys.size() * 2);
        std::size_t i = slot(addr);
        while (m_keys[i] != empty)
            i = (i + 1) & m_mask;
        m_keys[i] = addr;
        m_values[i] = value;
        ++m_size;
    }
    void erase(std::uint64_t addr) {
        std::size_t i = slot(addr);
        while (m_keys[i] != addr) {
            if (m_keys[i] == empty) return;
            i = (i + 1) & m_mask;
        }
        // Shift back the entries after it that probed past it, so that no probe chain breaks.
        for (std::size_t j = (i + 1) & m_mask; m_keys[j] != empty; j = (j + 1) & m_mask) {
            const std::size_t home = slot(m_keys[j]);
            if (((j - home) & m_mask) >= ((j - i) & m_mask)) {
                m_keys[i] = m_keys[j];
                m_values[i] = m_values[j];
                i = j;
            }
        }
        m_keys[i] = empty;
        --m_size;
    }
    std::size_t size() const { return m_size; }

  private:
    static constexpr std::uint64_t empty = ~std::uint64_t(0); // no allocation has this address
    std::size_t slot(std::uint64_t addr) const {
        return std::size_t((addr * 0x9e3779b97f4a7c15ull) >> m_shift) & m_mask;
    }
    void rehash(std::size_t atLeast) {
        std::size_t capacity = 16;
        int bits = 4;
        while (capacity < atLeast) {
            capacity *= 2;
            ++bits;
        }
        std::vector<std::uint64_t> keys(capacity, empty);
        std::vector<std::uint32_t> values(capacity);
        keys.swap(m_keys);
        values.swap(m_values);
        m_mask = capacity - 1;
        m_shift = 64 - bits;
        m_size = 0;
        for (std::size_t i = 0; i < keys.size(); ++i)
            if (keys[i] != empty) set(keys[i], values[i]);
    }

    std::vector<std::uint64_t> m_keys;
    std::vector<std::uint32_t> m_values;
    std::size_t m_mask = 0;
    int m_shift = 0;
    std::size_t m_size = 0;
};

} // namespace kinetoscope
