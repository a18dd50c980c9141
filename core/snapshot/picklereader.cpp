#include "picklereader.h"

#include "model/prefaulter.h"
#include "pickleinput.h"

#ifdef __linux__
#include <sys/mman.h>
#endif

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <initializer_list>
#include <limits>
#include <new>

namespace kinetoscope {

std::optional<std::int64_t> PickleDocument::integerOf(std::uint32_t i) const {
    if (i >= nodes.size()) return std::nullopt;
    const PickleNode& n = nodes[i];
    if (n.kind == PickleKind::Int || n.kind == PickleKind::Bool) return n.integer;
    if (n.kind == PickleKind::Float && n.real > -9.2e18 && n.real < 9.2e18) return std::int64_t(n.real);
    return std::nullopt;
}

std::optional<double> PickleDocument::numberOf(std::uint32_t i) const {
    if (i >= nodes.size()) return std::nullopt;
    const PickleNode& n = nodes[i];
    if (n.kind == PickleKind::Float) return n.real;
    if (n.kind == PickleKind::Int || n.kind == PickleKind::Bool) return double(n.integer);
    return std::nullopt;
}

std::uint32_t PickleDocument::find(std::uint32_t dict, StringId key) const {
    std::uint32_t found = noNode;
    if (!key.isValid()) return found;
    forEachPair(dict, [&](std::uint32_t k, std::uint32_t v) {
        if (found == noNode && isText(k) && nodes[k].text == key.value) found = v;
    });
    return found;
}

namespace {

// Asks the kernel to back a large reserved table with huge pages: first touching 1 GB of 4 KiB pages costs a
// quarter million page faults, a second or more in a VM. Only advice: without transparent huge pages (or off
// Linux) nothing changes.
template <typename T> void adviseHugePages(const std::vector<T>& v) {
#ifdef __linux__
    constexpr std::uintptr_t huge = std::uintptr_t(2) << 20;
    const auto begin = reinterpret_cast<std::uintptr_t>(v.data());
    const std::uintptr_t first = (begin + huge - 1) & ~(huge - 1);
    const std::uintptr_t last = (begin + v.capacity() * sizeof(T)) & ~(huge - 1);
    if (last > first) madvise(reinterpret_cast<void*>(first), last - first, MADV_HUGEPAGE);
#else
    (void)v;
#endif
}

// Opcodes of the pickle protocols (Python's Lib/pickle.py names them).
enum Op : std::uint8_t {
    MARK = '(',
    STOP = '.',
    POP = '0',
    POP_MARK = '1',
    DUP = '2',
    BINSTRING = 'T',
    SHORT_BINSTRING = 'U',
    BININT = 'J',
    BININT1 = 'K',
    BININT2 = 'M',
    NONE = 'N',
    BINUNICODE = 'X',
    APPEND = 'a',
    BINBYTES = 'B',
    SHORT_BINBYTES = 'C',
    DICT = 'd',
    EMPTY_DICT = '}',
    APPENDS = 'e',
    BINGET = 'h',
    LONG_BINGET = 'j',
    LIST = 'l',
    EMPTY_LIST = ']',
    BINPUT = 'q',
    LONG_BINPUT = 'r',
    SETITEM = 's',
    TUPLE = 't',
    EMPTY_TUPLE = ')',
    SETITEMS = 'u',
    BINFLOAT = 'G',
    PROTO = 0x80,
    TUPLE1 = 0x85,
    TUPLE2 = 0x86,
    TUPLE3 = 0x87,
    NEWTRUE = 0x88,
    NEWFALSE = 0x89,
    LONG1 = 0x8a,
    LONG4 = 0x8b,
    SHORT_BINUNICODE = 0x8c,
    BINUNICODE8 = 0x8d,
    BINBYTES8 = 0x8e,
    EMPTY_SET = 0x8f,
    ADDITEMS = 0x90,
    FROZENSET = 0x91,
    MEMOIZE = 0x94,
    FRAME = 0x95,
    BYTEARRAY8 = 0x96,
};

// What a refused opcode would have done, for the error message.
const char* refusedOpcode(std::uint8_t op) {
    switch (op) {
    case 'c':
        return "GLOBAL (imports a Python object)";
    case 0x93:
        return "STACK_GLOBAL (imports a Python object)";
    case 'R':
        return "REDUCE (calls a Python object)";
    case 'b':
        return "BUILD (calls __setstate__)";
    case 'i':
        return "INST (imports and calls a class)";
    case 'o':
        return "OBJ (calls a class)";
    case 0x81:
        return "NEWOBJ (calls a class)";
    case 0x92:
        return "NEWOBJ_EX (calls a class)";
    case 0x82:
    case 0x83:
    case 0x84:
        return "EXT (imports a registered extension)";
    case 'P':
    case 'Q':
        return "PERSID (asks the caller for an object)";
    case 0x97:
    case 0x98:
        return "NEXT_BUFFER (an out-of-band buffer)";
    }
    return nullptr;
}

// Fixed-width little-endian fields (the pickle's byte order, and the host's: checked below).
static_assert(std::endian::native == std::endian::little, "the pickle reader assumes a little-endian host");
std::uint32_t le32(const std::uint8_t* p) {
    std::uint32_t v;
    std::memcpy(&v, p, 4);
    return v;
}
std::uint64_t le64(const std::uint8_t* p) {
    std::uint64_t v;
    std::memcpy(&v, p, 8);
    return v;
}

// A variable-width one (LONG1's bytes).
std::uint64_t readLittle(const std::uint8_t* p, int n) {
    std::uint64_t v = 0;
    for (int i = n - 1; i >= 0; --i)
        v = (v << 8) | p[i];
    return v;
}

class Machine {
  public:
    Machine(PickleInput& in, PickleDocument& doc, const PickleLimits& limits)
        : m_in(in), m_doc(doc), m_limits(limits) {}

    std::optional<PickleError> run();
    // Closes what is open at the cut (PickleDocument::complete) and makes the outermost value the root.
    void closeAtCut();

  private:
    std::optional<PickleError> fail(std::string message) {
        return PickleError{m_opOffset, std::move(message)};
    }
    std::uint32_t add(PickleNode n) {
        m_doc.nodes.push_back(n);
        return std::uint32_t(m_doc.nodes.size() - 1);
    }
    std::uint32_t addInteger(std::int64_t v) {
        PickleNode n;
        n.kind = PickleKind::Int;
        n.integer = v;
        return add(n);
    }
    std::uint32_t addText(PickleKind kind, std::string_view text) {
        PickleNode n;
        n.kind = kind;
        n.text = m_doc.strings.intern(text).value;
        return add(n);
    }
    std::uint32_t addContainer(PickleKind kind) {
        PickleNode n;
        n.kind = kind;
        n.items = {PickleDocument::noChunk, PickleDocument::noChunk};
        return add(n);
    }
    // Moves stack[from..] into container `c` as one chunk.
    void appendItems(std::uint32_t c, std::size_t from) {
        const std::size_t count = m_stack.size() - from;
        if (count == 0) return;
        PickleChunk chunk;
        chunk.count = std::uint32_t(count);
        const std::uint32_t* items = m_stack.data() + from;
        if (count >= sharedChunkMin && m_doc.nodes[c].kind != PickleKind::Dict) {
            chunk.begin = sharedItems(items, count);
        } else {
            chunk.begin = std::uint32_t(m_doc.itemNodes.size());
            m_doc.itemNodes.insert(m_doc.itemNodes.end(), items, items + count);
        }
        m_stack.resize(from);
        const auto id = std::uint32_t(m_doc.chunks.size());
        m_doc.chunks.push_back(chunk);
        PickleNode& n = m_doc.nodes[c];
        if (n.items.head == PickleDocument::noChunk)
            n.items.head = id;
        else
            m_doc.chunks[n.items.tail].next = id;
        n.items.tail = id;
        n.count += std::uint32_t(count);
    }
    // Where the items of a list, tuple or set chunk lie in itemNodes: an earlier chunk's when it holds the
    // same items, else a new copy. A snapshot pickles a frames list per event, each the same few hundred memo
    // references to the same frame dicts: shared, the items of a 1 GB file take 0.2 GB instead of 0.8 (and
    // first touching memory is what costs most here). Chunks never change once made, so sharing is safe;
    // dicts are left alone (an event's values are its own).
    static constexpr std::size_t sharedChunkMin = 4;
    std::uint32_t sharedItems(const std::uint32_t* items, std::size_t count);

    std::optional<std::size_t> popMark() {
        if (m_marks.empty()) return std::nullopt;
        const std::size_t m = m_marks.back();
        m_marks.pop_back();
        return m;
    }
    std::size_t floor() const { return m_marks.empty() ? 0 : m_marks.back(); }
    bool needs(std::size_t items) const { return m_stack.size() >= floor() + items; }
    std::optional<PickleError> memoPut(std::uint64_t index);
    std::optional<PickleError> readText(PickleKind kind, std::uint64_t length);

    PickleInput& m_in;
    PickleDocument& m_doc;
    const PickleLimits& m_limits;
    std::vector<std::uint32_t> m_stack;
    std::vector<std::size_t> m_marks;
    std::vector<std::uint32_t> m_memo;
    // Open addressing over the shared chunks' first item index (noChunk when empty); a power of two in size.
    struct SharedChunk {
        std::uint64_t hash = 0;
        std::uint32_t begin = PickleDocument::noChunk;
        std::uint32_t count = 0;
    };
    std::vector<SharedChunk> m_shared = std::vector<SharedChunk>(1024);
    std::size_t m_sharedUsed = 0;
    std::size_t m_memoKeys = 0;
    std::uint64_t m_opOffset = 0;
    bool m_cancelled = false;

  public:
    bool cancelled() const { return m_cancelled; }
};

void Machine::closeAtCut() {
    m_doc.complete = false;
    m_doc.cutAt = m_opOffset;
    const auto isA = [&](std::uint32_t node, std::initializer_list<PickleKind> kinds) {
        return std::find(kinds.begin(), kinds.end(), m_doc.nodes[node].kind) != kinds.end();
    };
    // Moves stack[from..] into `c`, as the opcode that would have come next would have.
    const auto close = [&](std::uint32_t c, std::size_t from) {
        if (m_doc.nodes[c].kind == PickleKind::Dict) {
            // Pairs only. An odd value out is the item that an APPEND would have put into a list just before
            // it (Python writes a one-item list, or the last item after batches of 1000, so: the one device's
            // events of `device_traces`, a segment of a one-segment list), else a key whose value was not
            // read (after a whole list, which holds some other count of items).
            while ((m_stack.size() - from) % 2) {
                const std::size_t top = m_stack.size() - 1;
                if (top > from && isA(m_stack[top - 1], {PickleKind::List, PickleKind::Set}) &&
                    m_doc.nodes[m_stack[top - 1]].count % 1000 == 0) {
                    // An empty container was begun, not read; one whose items all came is whole.
                    const std::uint32_t item = m_stack[top];
                    if (isA(item, {PickleKind::Dict, PickleKind::List, PickleKind::Set}) &&
                        m_doc.nodes[item].count == 0)
                        m_doc.openAtCut.push_back(item);
                    m_doc.openAtCut.push_back(m_stack[top - 1]);
                    appendItems(m_stack[top - 1], top);
                } else {
                    m_stack.pop_back();
                }
            }
        }
        appendItems(c, from);
        m_doc.openAtCut.push_back(c);
    };
    // Innermost first, so that each container is whole (as far as it was read) before it joins the one
    // around it.
    while (!m_marks.empty()) {
        const std::size_t m = m_marks.back();
        m_marks.pop_back();
        const std::uint32_t below = m > 0 ? m_stack[m - 1] : PickleDocument::noNode;
        if (below != PickleDocument::noNode &&
            isA(below, {PickleKind::Dict, PickleKind::List, PickleKind::Set})) {
            close(below, m);
        } else { // items for a TUPLE, LIST or DICT not read yet
            const std::uint32_t c = addContainer(PickleKind::List);
            close(c, m);
            m_stack.push_back(c);
        }
    }
    // Values left above the outermost container are the items of an APPEND or SETITEM to come.
    if (m_stack.size() > 1 && isA(m_stack.front(), {PickleKind::Dict, PickleKind::List, PickleKind::Set}))
        close(m_stack.front(), 1);
    std::sort(m_doc.openAtCut.begin(), m_doc.openAtCut.end());
    m_doc.openAtCut.erase(std::unique(m_doc.openAtCut.begin(), m_doc.openAtCut.end()), m_doc.openAtCut.end());
    m_doc.root = m_stack.empty() ? PickleDocument::noNode : m_stack.front();
}

std::uint32_t Machine::sharedItems(const std::uint32_t* items, std::size_t count) {
    std::uint64_t h = count;
    for (std::size_t i = 0; i < count; ++i)
        h = (std::rotl(h, 5) ^ items[i]) * 0x517cc1b727220a95ull;
    std::size_t mask = m_shared.size() - 1;
    for (std::size_t i = std::size_t(h) & mask;; i = (i + 1) & mask) {
        SharedChunk& slot = m_shared[i];
        if (slot.begin == PickleDocument::noChunk) break;
        if (slot.hash == h && slot.count == count &&
            std::memcmp(m_doc.itemNodes.data() + slot.begin, items, count * sizeof *items) == 0)
            return slot.begin;
    }
    const auto begin = std::uint32_t(m_doc.itemNodes.size());
    m_doc.itemNodes.insert(m_doc.itemNodes.end(), items, items + count);
    if (2 * (m_sharedUsed + 1) > m_shared.size()) { // grow at half full
        std::vector<SharedChunk> old(m_shared.size() * 2);
        old.swap(m_shared);
        mask = m_shared.size() - 1;
        for (const SharedChunk& s : old) {
            if (s.begin == PickleDocument::noChunk) continue;
            std::size_t j = std::size_t(s.hash) & mask;
            while (m_shared[j].begin != PickleDocument::noChunk)
                j = (j + 1) & mask;
            m_shared[j] = s;
        }
    }
    std::size_t j = std::size_t(h) & mask;
    while (m_shared[j].begin != PickleDocument::noChunk)
        j = (j + 1) & mask;
    m_shared[j] = {h, begin, std::uint32_t(count)};
    ++m_sharedUsed;
    return begin;
}

std::optional<PickleError> Machine::memoPut(std::uint64_t index) {
    if (m_stack.size() <= floor()) return fail("memo store with an empty stack");
    if (index == m_memo.size()) { // the usual case: the next key
        m_memo.push_back(m_stack.back());
        ++m_memoKeys;
        return std::nullopt;
    }
    // Keys are dense in real pickles (0, 1, 2, ...); a far one is corrupt and must not allocate gigabytes.
    if (index > m_memo.size() + (1u << 20))
        return fail("memo key " + std::to_string(index) + " out of range");
    if (index >= m_memo.size()) m_memo.resize(std::size_t(index) + 1, PickleDocument::noNode);
    if (m_memo[std::size_t(index)] == PickleDocument::noNode) ++m_memoKeys;
    m_memo[std::size_t(index)] = m_stack.back();
    return std::nullopt;
}

std::optional<PickleError> Machine::readText(PickleKind kind, std::uint64_t length) {
    if (length > (std::uint64_t(1) << 40)) return fail("string of " + std::to_string(length) + " bytes");
    const std::uint8_t* p = m_in.take(std::size_t(length));
    if (!p) return fail("truncated: a string of " + std::to_string(length) + " bytes runs past the end");
    m_stack.push_back(addText(kind, std::string_view(reinterpret_cast<const char*>(p), std::size_t(length))));
    return std::nullopt;
}

std::optional<PickleError> Machine::run() {
    // Capped at 2 GiB of pickle: a larger file's tables grow past the reservation, and no single reservation
    // asks for more address space than a small machine would grant.
    const std::uint64_t expected = std::min<std::uint64_t>(m_limits.expectedBytes, std::uint64_t(2) << 30);
    m_doc.nodes.reserve(std::max<std::size_t>(1024, std::size_t(expected / 16)));
    m_doc.itemNodes.reserve(std::size_t(expected / 3));
    m_doc.chunks.reserve(std::size_t(expected / 64));
    m_memo.reserve(std::size_t(expected / 48));
    adviseHugePages(m_doc.nodes);
    adviseHugePages(m_doc.itemNodes);
    adviseHugePages(m_doc.chunks);
    Prefaulter prefaulter;
    // The tables are reserved for the most a file of this size could hold: followed, not populated whole.
    const int nodesSlot =
        prefaulter.watch(m_doc.nodes.data(), m_doc.nodes.capacity() * sizeof(PickleNode), true);
    const int itemsSlot =
        prefaulter.watch(m_doc.itemNodes.data(), m_doc.itemNodes.capacity() * sizeof(std::uint32_t), true);
    const int chunksSlot =
        prefaulter.watch(m_doc.chunks.data(), m_doc.chunks.capacity() * sizeof(PickleChunk), true);
    prefaulter.start();
    const std::uint64_t stopAt =
        m_limits.stopAtOffset ? m_limits.stopAtOffset : std::numeric_limits<std::uint64_t>::max();
    for (std::uint32_t ops = 0;; ++ops) {
        if ((ops & 0xffff) == 0) {
            prefaulter.written(nodesSlot, m_doc.nodes.size() * sizeof(PickleNode));
            prefaulter.written(itemsSlot, m_doc.itemNodes.size() * sizeof(std::uint32_t));
            prefaulter.written(chunksSlot, m_doc.chunks.size() * sizeof(PickleChunk));
            if (m_limits.cancel && m_limits.cancel->load(std::memory_order_relaxed)) {
                m_cancelled = true;
                return fail("cancelled");
            }
        }
        m_opOffset = m_in.offset();
        if (m_opOffset >= stopAt) {
            closeAtCut();
            return std::nullopt;
        }
        const std::uint8_t* op = m_in.take(1);
        if (!op) {
            if (!m_in.readError().empty()) return fail("damaged gzip data: " + m_in.readError());
            return fail(m_doc.nodes.empty() && m_opOffset == 0 ? "empty file" : "truncated: no STOP opcode");
        }
        if (m_doc.nodes.size() >= m_limits.maxNodes) return fail("more values than the reader's limit");
        auto arg = [&](std::size_t n) { return m_in.take(n); };
        const std::uint8_t code = *op;
        switch (code) {
        case PROTO: {
            const std::uint8_t* p = arg(1);
            if (!p) return fail("truncated");
            if (*p < 2 || *p > 5) return fail("pickle protocol " + std::to_string(*p) + " (2 to 5 are read)");
            break;
        }
        case FRAME:
            if (!arg(8)) return fail("truncated");
            break;
        case STOP:
            if (m_stack.size() != 1 || !m_marks.empty())
                return fail("STOP with " + std::to_string(m_stack.size()) + " values on the stack");
            m_doc.root = m_stack.back();
            return std::nullopt;
        case MARK:
            m_marks.push_back(m_stack.size());
            break;
        case POP:
            if (m_stack.size() > floor())
                m_stack.pop_back();
            else if (!popMark())
                return fail("POP with an empty stack");
            break;
        case POP_MARK: {
            const auto m = popMark();
            if (!m) return fail("POP_MARK without a MARK");
            m_stack.resize(*m);
            break;
        }
        case DUP:
            if (!needs(1)) return fail("DUP with an empty stack");
            m_stack.push_back(m_stack.back());
            break;
        case NONE: {
            m_stack.push_back(add(PickleNode{}));
            break;
        }
        case NEWTRUE:
        case NEWFALSE: {
            PickleNode n;
            n.kind = PickleKind::Bool;
            n.integer = code == NEWTRUE;
            m_stack.push_back(add(n));
            break;
        }
        case BININT: {
            const std::uint8_t* p = arg(4);
            if (!p) return fail("truncated");
            m_stack.push_back(addInteger(std::int32_t(le32(p))));
            break;
        }
        case BININT1: {
            const std::uint8_t* p = arg(1);
            if (!p) return fail("truncated");
            m_stack.push_back(addInteger(*p));
            break;
        }
        case BININT2: {
            const std::uint8_t* p = arg(2);
            if (!p) return fail("truncated");
            m_stack.push_back(addInteger(std::int64_t(p[0] | (p[1] << 8))));
            break;
        }
        case LONG1:
        case LONG4: {
            const std::uint8_t* p = arg(code == LONG1 ? 1 : 4);
            if (!p) return fail("truncated");
            const std::int64_t n = code == LONG1 ? *p : std::int32_t(le32(p));
            if (n < 0) return fail("negative integer length");
            if (n > 4096) return fail("integer of " + std::to_string(n) + " bytes");
            const std::uint8_t* b = arg(std::size_t(n));
            if (!b) return fail("truncated");
            // Two's complement, little-endian; bytes past the eighth may only extend the sign. A value from
            // 2^63 to 2^64 - 1 (an unsigned -1 written by the unwinder, as a frame's line) keeps its 64 bits:
            // it reads as the int64 with those bits (-1), docs/DEFINITIONS.md says so.
            const bool negative = n > 0 && (b[n - 1] & 0x80);
            for (std::int64_t i = 8; i < n; ++i)
                if (b[i] != (negative ? 0xff : 0x00)) return fail("integer wider than 64 bits");
            const int width = int(std::min<std::int64_t>(n, 8));
            std::uint64_t v = readLittle(b, width);
            if (negative && width < 8) v |= ~std::uint64_t(0) << (8 * width);
            if (n > 8 && negative && !(v >> 63)) return fail("integer wider than 64 bits");
            m_stack.push_back(addInteger(std::int64_t(v)));
            break;
        }
        case BINFLOAT: {
            const std::uint8_t* p = arg(8);
            if (!p) return fail("truncated");
            std::uint64_t bits = 0;
            for (int i = 0; i < 8; ++i)
                bits = (bits << 8) | p[i]; // big-endian
            PickleNode n;
            n.kind = PickleKind::Float;
            n.real = std::bit_cast<double>(bits);
            m_stack.push_back(add(n));
            break;
        }
        case SHORT_BINUNICODE:
        case SHORT_BINBYTES:
        case SHORT_BINSTRING: {
            const std::uint8_t* p = arg(1);
            if (!p) return fail("truncated");
            if (auto e = readText(code == SHORT_BINBYTES ? PickleKind::Bytes : PickleKind::String, *p))
                return e;
            break;
        }
        case BINUNICODE:
        case BINBYTES:
        case BINSTRING: {
            const std::uint8_t* p = arg(4);
            if (!p) return fail("truncated");
            const std::uint64_t length = le32(p);
            if (code == BINSTRING && (length >> 31)) return fail("negative string length");
            if (auto e = readText(code == BINBYTES ? PickleKind::Bytes : PickleKind::String, length))
                return e;
            break;
        }
        case BINUNICODE8:
        case BINBYTES8:
        case BYTEARRAY8: {
            const std::uint8_t* p = arg(8);
            if (!p) return fail("truncated");
            if (auto e = readText(code == BINUNICODE8 ? PickleKind::String : PickleKind::Bytes, le64(p)))
                return e;
            break;
        }
        case EMPTY_DICT:
            m_stack.push_back(addContainer(PickleKind::Dict));
            break;
        case EMPTY_LIST:
            m_stack.push_back(addContainer(PickleKind::List));
            break;
        case EMPTY_TUPLE:
            m_stack.push_back(addContainer(PickleKind::Tuple));
            break;
        case EMPTY_SET:
            m_stack.push_back(addContainer(PickleKind::Set));
            break;
        case TUPLE1:
        case TUPLE2:
        case TUPLE3: {
            const std::size_t n = std::size_t(code - TUPLE1 + 1);
            if (!needs(n)) return fail("TUPLE with too few values");
            const std::uint32_t t = addContainer(PickleKind::Tuple);
            appendItems(t, m_stack.size() - n);
            m_stack.push_back(t);
            break;
        }
        case TUPLE:
        case LIST:
        case DICT:
        case FROZENSET: {
            const auto m = popMark();
            if (!m) return fail("container without a MARK");
            if (code == DICT && (m_stack.size() - *m) % 2) return fail("DICT with an odd number of values");
            const std::uint32_t c = addContainer(code == TUPLE  ? PickleKind::Tuple
                                                 : code == LIST ? PickleKind::List
                                                 : code == DICT ? PickleKind::Dict
                                                                : PickleKind::Set);
            appendItems(c, *m);
            m_stack.push_back(c);
            break;
        }
        case APPEND:
        case SETITEM: {
            const std::size_t n = code == APPEND ? 1 : 2;
            if (!needs(n + 1)) return fail("APPEND or SETITEM with too few values");
            const std::uint32_t c = m_stack[m_stack.size() - n - 1];
            const PickleKind want = code == APPEND ? PickleKind::List : PickleKind::Dict;
            if (m_doc.nodes[c].kind != want) return fail("APPEND or SETITEM into a value of the wrong type");
            appendItems(c, m_stack.size() - n);
            break;
        }
        case APPENDS:
        case SETITEMS:
        case ADDITEMS: {
            const auto m = popMark();
            if (!m || *m == 0 || *m - 1 < floor())
                return fail("APPENDS, SETITEMS or ADDITEMS without a container before its MARK");
            const std::uint32_t c = m_stack[*m - 1];
            const PickleKind want = code == APPENDS    ? PickleKind::List
                                    : code == SETITEMS ? PickleKind::Dict
                                                       : PickleKind::Set;
            if (m_doc.nodes[c].kind != want) return fail("items added to a value of the wrong type");
            if (code == SETITEMS && (m_stack.size() - *m) % 2)
                return fail("SETITEMS with an odd number of values");
            appendItems(c, *m);
            break;
        }
        case BINPUT:
        case LONG_BINPUT: {
            const std::uint8_t* p = arg(code == BINPUT ? 1 : 4);
            if (!p) return fail("truncated");
            if (auto e = memoPut(code == BINPUT ? *p : le32(p))) return e;
            break;
        }
        case MEMOIZE: {
            // Python stores at len(memo): the number of keys so far (the vector's size when keys are dense).
            if (auto e = memoPut(m_memoKeys)) return e;
            break;
        }
        case BINGET:
        case LONG_BINGET: {
            const std::uint8_t* p = arg(code == BINGET ? 1 : 4);
            if (!p) return fail("truncated");
            const std::uint64_t index = code == BINGET ? *p : le32(p);
            if (index >= m_memo.size() || m_memo[std::size_t(index)] == PickleDocument::noNode)
                return fail("memo key " + std::to_string(index) + " was never stored");
            m_stack.push_back(m_memo[std::size_t(index)]);
            break;
        }
        default: {
            if (const char* what = refusedOpcode(code))
                return fail(std::string("refused opcode ") + what +
                            ": a memory snapshot holds only plain data, and nothing in a file is run");
            char hex[8];
            std::snprintf(hex, sizeof hex, "0x%02x", code);
            return fail(std::string("unknown or unsupported opcode ") + hex);
        }
        }
    }
}

} // namespace

std::optional<PickleError> readPickle(PickleInput& in, PickleDocument& out, const PickleLimits& limits) {
    try {
        Machine machine(in, out, limits);
        std::optional<PickleError> error = machine.run();
        if (error && !machine.cancelled()) machine.closeAtCut(); // what was read before the fault
        return error;
    } catch (const std::bad_alloc&) {
        out.complete = false;
        out.root = PickleDocument::noNode;
        return PickleError{in.offset(), "out of memory reading the snapshot"};
    }
}

} // namespace kinetoscope
