#include "sql/sqlitefile.h"

#include <sqlite3.h>

#include <cerrno>
#include <cstring>
#include <optional>
#include <unistd.h>

namespace kinetoscope::sql {

namespace {

// The length of v as SQLite's variable-length integer (below).
std::size_t varintSize(std::uint64_t v) {
    if (v >> 56) return 9;
    std::size_t n = 1;
    while (v >>= 7)
        ++n;
    return n;
}

// SQLite's variable-length integer into memory: big-endian groups of 7 bits, a set high bit meaning "more
// follows"; the ninth byte, when there is one, holds 8 bits. Returns its length. (Every row's rowid past 127
// comes through here.)
std::size_t putVarint(std::uint8_t* at, std::uint64_t v) {
    if (v <= 0x7f) {
        *at = std::uint8_t(v);
        return 1;
    }
    if (v >> 56) {
        at[8] = std::uint8_t(v);
        v >>= 8;
        for (int i = 7; i >= 0; --i, v >>= 7)
            at[i] = std::uint8_t((v & 0x7f) | 0x80);
        return 9;
    }
    const std::size_t n = varintSize(v);
    at[n - 1] = std::uint8_t(v & 0x7f); // the last byte ends the number
    v >>= 7;
    for (std::size_t i = n - 1; i-- > 0; v >>= 7)
        at[i] = std::uint8_t((v & 0x7f) | 0x80);
    return n;
}

void appendVarint(std::string& out, std::uint64_t v) {
    std::uint8_t bytes[9];
    out.append(reinterpret_cast<const char*>(bytes), putVarint(bytes, v));
}

void putBig16(std::uint8_t* at, std::uint32_t v) {
    at[0] = std::uint8_t(v >> 8);
    at[1] = std::uint8_t(v);
}
void putBig32(std::uint8_t* at, std::uint32_t v) {
    for (int i = 3; i >= 0; --i, v >>= 8)
        at[i] = std::uint8_t(v);
}
void appendBig32(std::string& out, std::uint32_t v) {
    std::uint8_t bytes[4];
    putBig32(bytes, v);
    out.append(reinterpret_cast<const char*>(bytes), 4);
}

// B-tree page kinds (the first byte of a page's header).
constexpr std::uint8_t IndexInterior = 2, TableInterior = 5, IndexLeaf = 10, TableLeaf = 13;

} // namespace

void appendIntegerRecord(ByteBuffer& out, const std::int64_t* values, const bool* nulls, int count) {
    // Every serial type here fits one byte, and so does the header's size: 1 + count.
    std::uint8_t record[1 + 15 + 15 * 8];
    std::uint8_t* body = record + 1 + count;
    record[0] = std::uint8_t(1 + count);
    for (int i = 0; i < count; ++i) {
        int bytes = 0;
        record[1 + i] = nulls[i] ? 0 : std::uint8_t(RecordEncoder::integerSerialType(values[i], bytes));
        RecordEncoder::putBigEndian(body, std::uint64_t(values[i]), bytes);
        body += bytes;
    }
    const std::size_t size = std::size_t(body - record);
    copyBytes(out.extend(size), record, size);
}

void RecordEncoder::real(double value) {
    *m_types.extend(1) = 7;
    std::uint64_t u = 0;
    std::memcpy(&u, &value, sizeof u);
    putBigEndian(owned(8), u, 8);
}

void RecordEncoder::textType(std::size_t size) {
    m_types.used -= 9 - putVarint(m_types.extend(9), 13 + 2 * std::uint64_t(size));
}

void RecordEncoder::text(std::string_view value) {
    textType(value.size());
    if (!value.empty()) copyBytes(owned(value.size()), value.data(), value.size());
}

void RecordEncoder::lastingText(std::string_view value) {
    textType(value.size());
    if (value.empty()) return;
    m_pieces.push_back({value.data(), value.size()});
    m_bodySize += value.size();
}

std::size_t RecordEncoder::headerSize() const {
    std::size_t own = 1;
    while (varintSize(m_types.used + own) > own)
        ++own;
    return m_types.used + own;
}

std::size_t RecordEncoder::size() const {
    return headerSize() + m_bodySize;
}

void RecordEncoder::write(std::uint8_t* to) const {
    to += putVarint(to, headerSize());
    copyBytes(to, m_types.room.data(), m_types.used);
    to += m_types.used;
    const std::uint8_t* kept = m_owned.room.data();
    for (const Piece& piece : m_pieces) {
        if (piece.text) {
            copyBytes(to, piece.text, piece.size);
        } else {
            copyBytes(to, kept, piece.size);
            kept += piece.size;
        }
        to += piece.size;
    }
}

std::string_view RecordEncoder::record() {
    m_record.resize(size());
    write(reinterpret_cast<std::uint8_t*>(m_record.data()));
    return m_record;
}

// An index entry's record: its key columns, then the rowid.
void appendIndexRecord(ByteBuffer& out, const IndexEntry& entry, int columns) {
    std::int64_t values[3];
    bool nulls[3] = {false, false, false};
    for (int k = 0; k < columns; ++k)
        values[k] = entry.key[k], nulls[k] = entry.null[k];
    values[columns] = entry.rowid;
    appendIntegerRecord(out, values, nulls, columns + 1);
}

// The file's pages, numbered in the order they are written, each written whole as it is done (one copy, the
// kernel's: a buffer of ours would add another).
struct SqliteFileWriter::Pages {
    int fd;
    std::uint32_t size;
    std::uint32_t next = 1; // the page number the next page written gets
    std::uint32_t lockByte; // the page holding byte 2^30, which SQLite leaves unused
    std::string zeros;
    std::vector<std::uint8_t> overflow;
    std::string error;

    Pages(int f, std::uint32_t s, std::uint64_t lockByteOffset)
        : fd(f), size(s), lockByte(std::uint32_t(lockByteOffset / s + 1)), zeros(s, '\0'), overflow(s) {}
    std::uint32_t upcoming() const { return next == lockByte ? next + 1 : next; }
    std::uint32_t after(std::uint32_t page) const { return page + 1 == lockByte ? page + 2 : page + 1; }
    std::uint32_t put(const std::uint8_t* data) {
        if (next == lockByte) {
            write(reinterpret_cast<const std::uint8_t*>(zeros.data()));
            ++next;
        }
        write(data);
        return next++;
    }
    // Writes a page at the file's end, or (`at` set) over the page that starts there.
    void write(const std::uint8_t* data, std::optional<off_t> at = std::nullopt) {
        std::size_t done = 0;
        while (error.empty() && done < size) {
            const ssize_t n = at ? ::pwrite(fd, data + done, size - done, *at + off_t(done))
                                 : ::write(fd, data + done, size - done);
            if (n < 0 && errno == EINTR) continue;
            if (n <= 0)
                error = std::strerror(n < 0 ? errno : ENOSPC);
            else
                done += std::size_t(n);
        }
    }
    void fail(std::string why) {
        if (error.empty()) error = std::move(why);
    }
    // How much of a payload stays in its cell (the file format's rule: a payload up to X bytes stays whole;
    // past it, M to X bytes stay, the rest goes to overflow pages).
    std::size_t localSize(std::size_t payload, bool index) const {
        const std::size_t u = size;
        const std::size_t most = index ? (u - 12) * 64 / 255 - 23 : u - 35;
        const std::size_t least = (u - 12) * 32 / 255 - 23;
        if (payload <= most) return payload;
        const std::size_t k = least + (payload - least) % (u - 4);
        return k <= most ? k : least;
    }
    // Writes what does not stay local as a chain of overflow pages; returns the first.
    std::uint32_t writeOverflow(std::string_view payload, std::size_t local) {
        const std::uint32_t first = upcoming();
        std::uint32_t page = first;
        const std::size_t total = payload.size();
        for (std::size_t at = local; at < total;) {
            const std::size_t n = std::min<std::size_t>(total - at, size - 4);
            const std::uint32_t following = at + n < total ? after(page) : 0;
            putBig32(overflow.data(), following);
            copyBytes(overflow.data() + 4, payload.data() + at, n);
            std::fill(overflow.begin() + std::ptrdiff_t(4 + n), overflow.end(), 0);
            put(overflow.data());
            page = following;
            at += n;
        }
        return first;
    }
    // A table row's cell: the payload's size, the rowid, the payload's local part, then the first overflow
    // page when the rest goes to overflow pages. `bytes`: the cell's size in its page.
    struct TableCell {
        std::size_t size, local, bytes;
        std::uint64_t rowid;
    };
    TableCell tableCell(std::int64_t rowid, std::string_view payload) const {
        const std::size_t size = payload.size(), local = localSize(size, false);
        const std::uint64_t key = std::uint64_t(rowid);
        return {size, local, varintSize(size) + varintSize(key) + local + (local < size ? 4 : 0), key};
    }
    // Writes the cell into `to` (room for cell.bytes in a page), its overflow pages (if any) to the file.
    void putTableCell(std::uint8_t* to, const TableCell& cell, std::string_view payload) {
        const std::uint32_t overflow = cell.local < cell.size ? writeOverflow(payload, cell.local) : 0;
        to += putVarint(to, cell.size);
        to += putVarint(to, cell.rowid);
        copyBytes(to, payload.data(), cell.local);
        if (cell.local < cell.size) putBig32(to + cell.local, overflow);
    }
};

// A B-tree page being filled: the header (at `head`: 100 on page 1, after the file's header), the cell
// pointers after it, the cells from the end of the page down.
struct SqliteFileWriter::BTree::Page {
    std::vector<std::uint8_t> data;
    std::uint32_t head, cells = 0, content;
    std::uint8_t type;
    Page(std::uint32_t size, std::uint8_t kind, std::uint32_t h = 0)
        : data(size), head(h), content(size), type(kind) {}
    bool leaf() const { return type == TableLeaf || type == IndexLeaf; }
    std::uint32_t headerSize() const { return leaf() ? 8 : 12; }
    bool fits(std::size_t cell) const { return head + headerSize() + 2 * (cells + 1) + cell <= content; }
    // Room for a cell of `n` bytes (fits(n) first), where the caller writes it.
    std::uint8_t* reserve(std::size_t n) {
        content -= std::uint32_t(n);
        putBig16(data.data() + head + headerSize() + 2 * cells, content);
        ++cells;
        return data.data() + content;
    }
    void add(std::string_view cell) { std::memcpy(reserve(cell.size()), cell.data(), cell.size()); }
    void removeLast(std::size_t cellSize) {
        --cells;
        content += std::uint32_t(cellSize);
    }
    const std::uint8_t* finish(std::uint32_t rightChild = 0) {
        std::uint8_t* h = data.data() + head;
        const std::uint32_t pointersEnd = head + headerSize() + 2 * cells;
        std::memset(data.data() + pointersEnd, 0, content - pointersEnd); // no stale bytes in the gap
        h[0] = type;
        putBig16(h + 1, 0); // no free blocks
        putBig16(h + 3, cells);
        putBig16(h + 5, content == 65536 ? 0 : content); // 0 stands for 65536
        h[7] = 0;
        if (!leaf()) putBig32(h + 8, rightChild);
        return data.data();
    }
    void reset() {
        cells = 0;
        content = std::uint32_t(data.size());
    }
};

SqliteFileWriter::BTree::BTree(Pages& pages, bool index)
    : m_pages(pages), m_index(index),
      m_leaf(std::make_unique<Page>(pages.size, index ? IndexLeaf : TableLeaf)) {}

SqliteFileWriter::BTree::~BTree() = default;

std::uint32_t SqliteFileWriter::BTree::flushLeaf() {
    const std::uint32_t page = m_pages.put(m_leaf->finish());
    m_leaf->reset();
    return page;
}

void SqliteFileWriter::BTree::add(std::int64_t rowid, std::string_view record) {
    if (m_index) return place(record);
    if (m_leaf->cells && rowid <= m_lastRowid) m_pages.fail("rows out of rowid order");
    // SQLite reads every cell as 4 bytes at least: a record of no values would make a shorter one.
    if (record.size() < 2) return m_pages.fail("a record without values");
    const Pages::TableCell cell = m_pages.tableCell(rowid, record);
    if (!m_leaf->fits(cell.bytes)) m_children.push_back({flushLeaf(), m_lastRowid, {}});
    m_pages.putTableCell(m_leaf->reserve(cell.bytes), cell, record);
    m_lastRowid = rowid;
}

void SqliteFileWriter::BTree::place(std::string_view entry) {
    const std::size_t size = entry.size();
    const std::size_t most = (m_pages.size - 12) * 64 / 255 - 23;
    if (size > most) return m_pages.fail("an index entry too long for its page");
    if (size < 3) return m_pages.fail("an index entry without a key"); // (a cell of 4 bytes at least)
    // A cell: the entry's size, then the entry (the whole of it: it never overflows).
    const std::size_t cell = varintSize(size) + size;
    if (!m_leaf->fits(cell)) {
        // A full leaf: its own last entry separates it from the next leaf, in their parent, and the entry
        // that did not fit begins the next one, so that no leaf is left empty whatever follows. (A leaf
        // holds four entries at least: each is a quarter of a page at most.)
        if (m_leaf->cells < 2) return m_pages.fail("an index entry too long for its page");
        std::string separator(reinterpret_cast<const char*>(m_leaf->data.data()) + m_lastEntry.at,
                              m_lastEntry.size);
        m_leaf->removeLast(varintSize(separator.size()) + separator.size());
        m_children.push_back({flushLeaf(), 0, std::move(separator)});
    }
    std::uint8_t* to = m_leaf->reserve(cell);
    to += putVarint(to, size);
    copyBytes(to, entry.data(), size);
    m_lastEntry = {std::uint32_t(to - m_leaf->data.data()), std::uint32_t(size)};
}

std::vector<SqliteFileWriter::BTree::Child> SqliteFileWriter::BTree::buildLevel(std::vector<Child> children) {
    std::vector<Child> parents;
    Page page(m_pages.size, m_index ? IndexInterior : TableInterior);
    std::string cell;
    // An interior cell: the child's page, then (a table) the largest rowid under it or (an index) the entry
    // separating it from the next child.
    const auto cellOf = [&](const Child& c) -> const std::string& {
        cell.clear();
        appendBig32(cell, c.page);
        if (m_index) {
            appendVarint(cell, c.separator.size());
            cell += c.separator;
        } else {
            appendVarint(cell, std::uint64_t(c.key));
        }
        return cell;
    };
    const std::size_t n = children.size();
    for (std::size_t first = 0; first < n;) {
        page.reset();
        std::size_t j = first;
        // Children first..j-1 as cells; child j, where the page fills or the level ends, its right child.
        while (j + 1 < n && page.fits(cellOf(children[j]).size())) {
            page.add(cell);
            ++j;
        }
        // A page after this one must hold two children at least: leave one more for it if need be.
        if (j + 2 == n && page.cells > 1) {
            --j;
            page.removeLast(cellOf(children[j]).size());
        }
        const Child& right = children[j];
        parents.push_back({m_pages.put(page.finish(right.page)), right.key, right.separator});
        first = j + 1;
    }
    return parents;
}

std::uint32_t SqliteFileWriter::BTree::finish() {
    if (m_children.empty()) return flushLeaf(); // one leaf (perhaps empty) is the whole tree
    m_children.push_back({flushLeaf(), m_lastRowid, {}});
    while (m_children.size() > 1)
        m_children = buildLevel(std::move(m_children));
    const std::uint32_t root = m_children.front().page;
    m_children.clear();
    return root;
}

SqliteFileWriter::SqliteFileWriter(int fd, std::uint32_t pageSize, std::uint64_t lockByte) {
    const bool readable = pageSize >= 512 && pageSize <= 65536 && !(pageSize & (pageSize - 1));
    m_pages = std::make_unique<Pages>(fd, readable ? pageSize : 4096, lockByte);
    if (!readable) m_pages->fail("a page size SQLite does not read");
    if (lockByte < m_pages->size) m_pages->fail("a lock byte on the first page"); // (only a test moves it)
    m_pages->put(reinterpret_cast<const std::uint8_t*>(m_pages->zeros.data()));   // page 1, written last
}

SqliteFileWriter::~SqliteFileWriter() = default;

std::unique_ptr<SqliteFileWriter::BTree> SqliteFileWriter::table() {
    return std::make_unique<BTree>(*m_pages, false);
}
std::unique_ptr<SqliteFileWriter::BTree> SqliteFileWriter::index() {
    return std::make_unique<BTree>(*m_pages, true);
}

void SqliteFileWriter::addSchema(std::string_view type, std::string_view name, std::string_view table,
                                 std::uint32_t root, std::string_view sql) {
    m_schema.push_back({std::string(type), std::string(name), std::string(table), std::string(sql), root});
}

const std::string& SqliteFileWriter::error() const {
    return m_pages->error;
}

bool SqliteFileWriter::finish() {
    Pages& pages = *m_pages;
    // Page 1: the file's header, then sqlite_schema as one leaf (an export's few tables fit in it).
    BTree::Page first(pages.size, TableLeaf, 100);
    RecordEncoder record;
    std::int64_t rowid = 0;
    for (const SchemaRow& row : m_schema) {
        record.clear();
        record.text(row.type);
        record.text(row.name);
        record.text(row.table);
        record.integer(row.root);
        record.text(row.sql);
        const std::string_view payload = record.record();
        const Pages::TableCell cell = pages.tableCell(++rowid, payload);
        if (!first.fits(cell.bytes)) {
            pages.fail("the schema does not fit on the first page");
            break;
        }
        pages.putTableCell(first.reserve(cell.bytes), cell, payload);
    }
    std::uint8_t* h = const_cast<std::uint8_t*>(first.finish());
    std::memcpy(h, "SQLite format 3", 16);
    putBig16(h + 16, pages.size == 65536 ? 1 : pages.size); // 1 stands for 65536
    h[18] = h[19] = 1;                                      // legacy (rollback journal) file format
    h[20] = 0;                                              // no reserved bytes a page
    h[21] = 64, h[22] = 32, h[23] = 32;                     // payload fractions, fixed by the format
    putBig32(h + 24, 1);                                    // change counter
    putBig32(h + 28, pages.next - 1);                       // pages in the file
    putBig32(h + 40, 1);                                    // schema cookie
    putBig32(h + 44, 4);                                    // schema format 4
    putBig32(h + 56, 1);                                    // UTF-8
    putBig32(h + 92, 1);                                    // the page count is valid for change 1
    putBig32(h + 96, SQLITE_VERSION_NUMBER);
    pages.write(h, off_t(0)); // over the zeros page 1 held until now
    return pages.error.empty();
}

} // namespace kinetoscope::sql
