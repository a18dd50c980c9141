#pragma once

// A SQLite database file written directly, page by page, as SQLite's file format document describes it
// (https://www.sqlite.org/fileformat2.html), for `export --sqlite`. SQLite's own insert costs 1.5–2.5 µs a
// row (a B-tree descent and balance each time); a file written once, in key order, needs none of that: each
// table is a B-tree built bottom up, leaves filled in rowid order and written as they fill, interior pages
// built from the leaves' last keys once the table ends. Only what an export needs: rowid tables, indexes over
// integer columns, UTF-8, no free pages, no journal. tst_sqlitefile reads every file back with SQLite
// (`PRAGMA integrity_check`, and each row).

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace kinetoscope::sql {

// Copies `n` bytes: the short copies of a record's values (a few to a few dozen bytes, tens of millions of
// them in an export) inline, without a call to memcpy each.
inline void copyBytes(void* to, const void* from, std::size_t n) {
    auto* d = static_cast<unsigned char*>(to);
    const auto* s = static_cast<const unsigned char*>(from);
    if (n > 16) {
        std::memcpy(d, s, n);
    } else if (n >= 8) { // two 8-byte moves that may overlap
        std::uint64_t a, b;
        std::memcpy(&a, s, 8);
        std::memcpy(&b, s + n - 8, 8);
        std::memcpy(d, &a, 8);
        std::memcpy(d + n - 8, &b, 8);
    } else if (n >= 4) {
        std::uint32_t a, b;
        std::memcpy(&a, s, 4);
        std::memcpy(&b, s + n - 4, 4);
        std::memcpy(d, &a, 4);
        std::memcpy(d + n - 4, &b, 4);
    } else {
        for (std::size_t i = 0; i < n; ++i)
            d[i] = s[i];
    }
}

// Bytes whose length is ours (no terminator or size kept at each append, as std::string does), in room that
// only grows: an export appends tens of millions of records.
struct ByteBuffer {
    std::vector<std::uint8_t> room;
    std::size_t used = 0;
    // Room for `n` more bytes, which the caller fills.
    std::uint8_t* extend(std::size_t n) {
        if (used + n > room.size()) room.resize(std::max(2 * room.size(), used + n + 256));
        return room.data() + std::exchange(used, used + n);
    }
    void clear() { used = 0; }
    std::string_view view() const { return {reinterpret_cast<const char*>(room.data()), used}; }
};

// One row in SQLite's record format: a header (its own size, then each value's serial type) and the values,
// kept until written (write(), record()) with one copy of each value. Its hot steps inline.
class RecordEncoder {
  public:
    void clear() {
        m_types.clear();
        m_owned.clear();
        m_pieces.clear();
        m_bodySize = 0;
    }
    void null() { *m_types.extend(1) = 0; }
    void integer(std::int64_t value) {
        int bytes = 0;
        *m_types.extend(1) = std::uint8_t(integerSerialType(value, bytes));
        if (bytes) putBigEndian(owned(std::size_t(bytes)), std::uint64_t(value), bytes);
    }
    void real(double value);
    void text(std::string_view value);
    // A text referred to, not copied, until the record is written: what it views must last until then.
    void lastingText(std::string_view value);
    // The record's size, and the record written there (room for size() bytes).
    std::size_t size() const;
    void write(std::uint8_t* to) const;
    // The record in one piece (valid until the next call).
    std::string_view record();

    // An integer's serial type and its size in the record: 8 and 9 are the constants 0 and 1 (schema
    // format 4), 1–6 a big-endian integer of 1, 2, 3, 4, 6 or 8 bytes.
    static int integerSerialType(std::int64_t v, int& bytes) {
        bytes = 0;
        if (v == 0 || v == 1) return int(8 + v);
        const std::uint64_t magnitude = v < 0 ? ~std::uint64_t(v) : std::uint64_t(v);
        if (magnitude <= 0x7f) return bytes = 1, 1;
        if (magnitude <= 0x7fff) return bytes = 2, 2;
        if (magnitude <= 0x7fffff) return bytes = 3, 3;
        if (magnitude <= 0x7fffffff) return bytes = 4, 4;
        if (magnitude <= 0x7fffffffffffULL) return bytes = 6, 5;
        return bytes = 8, 6;
    }
    // The low `bytes` bytes (0 to 8) of `v`, most significant first: moved to the top of a word, whose
    // bytes are then reversed and copied.
    static void putBigEndian(std::uint8_t* at, std::uint64_t v, int bytes) {
        if (bytes <= 0) return;
        const std::uint64_t big = __builtin_bswap64(v << (8 * (8 - bytes)));
        copyBytes(at, &big, std::size_t(bytes));
    }

  private:
    // The body in order: a lasting text (viewed where it lives), or the next `size` bytes of m_owned.
    struct Piece {
        const char* text;
        std::size_t size;
    };
    // Room for the body's next bytes, kept here (joined to the piece before when that is kept here too).
    std::uint8_t* owned(std::size_t bytes) {
        if (!m_pieces.empty() && !m_pieces.back().text)
            m_pieces.back().size += bytes;
        else
            m_pieces.push_back({nullptr, bytes});
        m_bodySize += bytes;
        return m_owned.extend(bytes);
    }
    void textType(std::size_t size);
    // The header's size: its own varint's length counts in it.
    std::size_t headerSize() const;

    ByteBuffer m_types; // the serial types, each a varint
    ByteBuffer m_owned; // numbers, and texts that do not last
    std::vector<Piece> m_pieces;
    std::size_t m_bodySize = 0;
    std::string m_record;
};

// A record of integers and NULLs only (an index entry: its keys, then the rowid), appended to `out`: the
// bytes RecordEncoder gives for the same values. 1 to 15 values.
void appendIntegerRecord(ByteBuffer& out, const std::int64_t* values, const bool* nulls, int count);

// An entry of an index over one or two integer columns (NULL sorting first, as in SQLite's order), then the
// row's rowid.
struct IndexEntry {
    std::int64_t key[2] = {0, 0};
    bool null[2] = {false, false};
    std::int64_t rowid = 0;
};
// Whether `a` goes before `b` in the index (of `columns` key columns).
inline bool entryBefore(const IndexEntry& a, const IndexEntry& b, int columns) {
    for (int c = 0; c < columns; ++c) {
        if (a.null[c] != b.null[c]) return a.null[c];
        if (!a.null[c] && a.key[c] != b.key[c]) return a.key[c] < b.key[c];
    }
    return a.rowid < b.rowid;
}
// The entry's record (its keys, then the rowid), appended to `out`.
void appendIndexRecord(ByteBuffer& out, const IndexEntry& entry, int columns);

class SqliteFileWriter {
  public:
    // Writes into `fd` (an empty file opened for writing; not closed here). `pageSize`: a power of two from
    // 512 to 65536. `lockByte`: the offset of the byte whose page SQLite never uses (its file locks live
    // there); 2^30 in every SQLite, moved only by a test (SQLITE_TESTCTRL_PENDING_BYTE) to reach it cheaply.
    explicit SqliteFileWriter(int fd, std::uint32_t pageSize = 65536, std::uint64_t lockByte = 0x40000000);
    ~SqliteFileWriter();
    SqliteFileWriter(const SqliteFileWriter&) = delete;
    SqliteFileWriter& operator=(const SqliteFileWriter&) = delete;

    class BTree;
    // A table's B-tree: rows added in strictly ascending rowid order.
    std::unique_ptr<BTree> table();
    // An index's B-tree: entries (records ending with the row's rowid) added in the index's order, each no
    // larger than fits in its page (short keys: every entry of an export's integer indexes does).
    std::unique_ptr<BTree> index();

    // A row of sqlite_schema: `type` "table" or "index", the root page a BTree's finish() gave, its SQL.
    void addSchema(std::string_view type, std::string_view name, std::string_view table, std::uint32_t root,
                   std::string_view sql);
    // Writes the schema (page 1) and the file's header; false, with error() saying why, when anything failed.
    bool finish();
    const std::string& error() const;

    struct Pages;

  private:
    std::unique_ptr<Pages> m_pages;
    struct SchemaRow {
        std::string type, name, table, sql;
        std::uint32_t root;
    };
    std::vector<SchemaRow> m_schema;
};

class SqliteFileWriter::BTree {
  public:
    BTree(Pages& pages, bool index);
    ~BTree();
    // A table row (`rowid` above the previous one's); for an index, `rowid` is ignored.
    void add(std::int64_t rowid, std::string_view record);
    // Writes what is left and returns the root page.
    std::uint32_t finish();

    struct Page; // (public for page 1, which the writer fills itself)

  private:
    struct Child {
        std::uint32_t page;
        std::int64_t key;      // a table's: the largest rowid under the child
        std::string separator; // an index's: the entry between this child and the next
    };
    void place(std::string_view entry);
    std::uint32_t flushLeaf();
    std::vector<Child> buildLevel(std::vector<Child> children);

    Pages& m_pages;
    bool m_index;
    std::unique_ptr<Page> m_leaf;
    std::int64_t m_lastRowid = 0;
    struct {
        std::uint32_t at = 0, size = 0;
    } m_lastEntry; // an index's entry last placed in the leaf, where it is in the leaf's page
    std::vector<Child> m_children;
};

} // namespace kinetoscope::sql
