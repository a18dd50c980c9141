#pragma once

// The keys of an export's sorted indexes (slices by track and time, by time, by parent; flows by their ends),
// held while the table's rows are written and then given out in each index's order. What an export holds
// beyond the loaded trace is mostly these, so they are held as small as they can be: the key values only
// (8 bytes each, a column shared by the indexes that read it), a NULL as a bit, a rowid only where it is not
// the one before plus one; and no sorted copy: the entries come out of a merge of the runs the rows already
// come in.

#include "sqlitefile.h"

#include <cstdint>
#include <vector>

namespace kinetoscope::sql {

// The key values of a part of a table's rows, in the rows' order: `columns` values a row (the columns the
// table's sorted indexes read, each once).
class KeyPart {
  public:
    explicit KeyPart(int columns = 0) : m_columns(columns) {}
    // Room for `rows` rows.
    void reserve(std::size_t rows) { m_values.reserve(rows * std::size_t(m_columns)); }
    // A row's values (`nulls[c]`: column c is NULL) and its rowid.
    void add(const std::int64_t* values, const bool* nulls, std::int64_t rowid);
    // Gives back room reserved and not used.
    void shrink();
    // Adds `offset` to every rowid: a part of a table the writer numbers counts its rows from 1 until the
    // rows of the parts before it are known.
    void offsetRowids(std::int64_t offset) { m_rowidOffset += offset; }

    std::size_t rows() const { return m_rows; }
    std::int64_t value(std::size_t row, int column) const {
        return m_values[row * std::size_t(m_columns) + std::size_t(column)];
    }
    bool isNull(std::size_t row, int column) const {
        const std::size_t bit = row * std::size_t(m_columns) + std::size_t(column);
        return bit / 64 < m_nullBits.size() && ((m_nullBits[bit / 64] >> (bit % 64)) & 1);
    }
    std::int64_t rowid(std::size_t row) const {
        const std::uint64_t own =
            m_rowids.empty() ? std::uint64_t(m_firstRowid) + row : std::uint64_t(m_rowids[row]);
        return std::int64_t(own + std::uint64_t(m_rowidOffset));
    }
    // Bytes held (tst_sqlitefile checks the compact form by it).
    std::size_t bytes() const;

  private:
    int m_columns;
    std::size_t m_rows = 0;
    std::vector<std::int64_t> m_values;    // row after row, `m_columns` each; 0 where NULL
    std::vector<std::uint64_t> m_nullBits; // a bit a value, up to the last NULL's; empty while none is
    std::vector<std::int64_t> m_rowids;    // empty while each rowid is the one before plus one
    std::int64_t m_firstRowid = 0, m_rowidOffset = 0;
};

// One index's entries from the parts (a table's rows in order), in the index's order: the rows are cut into
// the runs that are already in order (an export's slices come in 97 to 611 runs for 3.4 million, a lane's in
// time order), and the runs merged through a tree of losers (Knuth, TAOCP 5.4.1): log2(runs) comparisons an
// entry, nothing held but a place in each run.
class MergedEntries {
  public:
    // `columns`: the index's key columns, as the parts' column numbers (1 or 2 of them). The parts must
    // outlive this and not change.
    MergedEntries(const std::vector<KeyPart>& parts, std::vector<int> columns);
    // The next entry in the index's order; false after the last.
    bool next(IndexEntry& entry);
    std::size_t runs() const { return m_at.size(); }

  private:
    struct Place {
        std::uint32_t part = 0, row = 0;
        bool operator==(const Place&) const = default;
    };
    void settle(Place& place) const; // past the end of a part: the next part's first row, or the end
    IndexEntry load(Place place) const;
    bool before(const IndexEntry& a, const IndexEntry& b) const {
        return m_columns.size() == 1 ? entryBefore(a, b, 1) : entryBefore(a, b, 2);
    }
    bool ended(std::size_t run) const { return m_at[run] == m_end[run]; }
    bool beats(int a, int b) const; // run a's next entry goes before run b's (an ended run after any)
    void replay(int run);

    const std::vector<KeyPart>& m_parts;
    std::vector<int> m_columns;
    std::vector<Place> m_at, m_end; // each run's next entry and its end
    std::vector<IndexEntry> m_head; // each run's next entry, as the tree compares it
    std::vector<int> m_tree;        // [0] the winning run; [1..] the run that lost at each node; -1 at start
};

} // namespace kinetoscope::sql
