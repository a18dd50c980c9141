#include "sql/indexkeys.h"

#include <numeric>
#include <utility>

namespace kinetoscope::sql {

void KeyPart::add(const std::int64_t* values, const bool* nulls, std::int64_t rowid) {
    const std::size_t first = m_rows * std::size_t(m_columns);
    for (int c = 0; c < m_columns; ++c) {
        m_values.push_back(nulls[c] ? 0 : values[c]);
        if (!nulls[c]) continue;
        const std::size_t bit = first + std::size_t(c);
        if (bit / 64 >= m_nullBits.size()) m_nullBits.resize(bit / 64 + 1, 0);
        m_nullBits[bit / 64] |= std::uint64_t(1) << (bit % 64);
    }
    // (Unsigned: a rowid near the top of the range must not overflow the comparison.)
    if (m_rows == 0) {
        m_firstRowid = rowid;
    } else if (m_rowids.empty() && std::uint64_t(rowid) != std::uint64_t(m_firstRowid) + m_rows) {
        m_rowids.resize(m_rows);
        for (std::size_t r = 0; r < m_rows; ++r)
            m_rowids[r] = std::int64_t(std::uint64_t(m_firstRowid) + r);
        m_firstRowid = 0;
    }
    if (!m_rowids.empty()) m_rowids.push_back(rowid);
    ++m_rows;
}

void KeyPart::shrink() {
    m_values.shrink_to_fit();
    m_nullBits.shrink_to_fit();
    m_rowids.shrink_to_fit();
}

std::size_t KeyPart::bytes() const {
    return m_values.capacity() * sizeof(std::int64_t) + m_nullBits.capacity() * sizeof(std::uint64_t) +
           m_rowids.capacity() * sizeof(std::int64_t);
}

MergedEntries::MergedEntries(const std::vector<KeyPart>& parts, std::vector<int> columns)
    : m_parts(parts), m_columns(std::move(columns)) {
    const Place end{std::uint32_t(parts.size()), 0};
    Place at;
    settle(at);
    if (at == end) return;
    // The runs: a new one wherever an entry does not go after the one before it.
    IndexEntry previous = load(at);
    m_at.push_back(at);
    m_head.push_back(previous);
    for (;;) {
        ++at.row;
        settle(at);
        if (at == end) break;
        const IndexEntry entry = load(at);
        if (!before(previous, entry)) {
            m_end.push_back(at);
            m_at.push_back(at);
            m_head.push_back(entry);
        }
        previous = entry;
    }
    m_end.push_back(end);
    // The tree, played leaf by leaf from a tree of "-1"s (which beat any run, and so rise to the top and
    // out as the real runs take their places).
    m_tree.assign(m_at.size(), -1);
    for (int run = int(m_at.size()) - 1; run >= 0; --run)
        replay(run);
}

void MergedEntries::settle(Place& place) const {
    while (place.part < m_parts.size() && place.row >= m_parts[place.part].rows()) {
        ++place.part;
        place.row = 0;
    }
}

IndexEntry MergedEntries::load(Place place) const {
    const KeyPart& part = m_parts[place.part];
    IndexEntry entry;
    for (std::size_t k = 0; k < m_columns.size(); ++k) {
        entry.null[k] = part.isNull(place.row, m_columns[k]);
        entry.key[k] = part.value(place.row, m_columns[k]);
    }
    entry.rowid = part.rowid(place.row);
    return entry;
}

bool MergedEntries::beats(int a, int b) const {
    if (a < 0) return true;
    if (b < 0) return false;
    if (ended(std::size_t(a))) return false;
    if (ended(std::size_t(b))) return true;
    return before(m_head[std::size_t(a)], m_head[std::size_t(b)]);
}

// Run `run`'s next entry plays its way up from its leaf: at each node the loser stays, the winner goes on.
void MergedEntries::replay(int run) {
    const std::size_t leaves = m_at.size();
    for (std::size_t node = (std::size_t(run) + leaves) / 2; node > 0; node /= 2)
        if (beats(m_tree[node], run)) std::swap(m_tree[node], run);
    m_tree[0] = run;
}

bool MergedEntries::next(IndexEntry& entry) {
    if (m_tree.empty()) return false;
    const int run = m_tree[0];
    if (run < 0 || ended(std::size_t(run))) return false;
    const std::size_t r = std::size_t(run);
    entry = m_head[r];
    ++m_at[r].row;
    settle(m_at[r]);
    if (!ended(r)) m_head[r] = load(m_at[r]);
    replay(run);
    return true;
}

} // namespace kinetoscope::sql
