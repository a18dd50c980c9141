#pragma once

// A safe, bounded reader of the pickle subset that plain containers use (protocols 2 to 5): dict, list,
// tuple, set, str, bytes, int (any width up to 64 bits), float, bool, None, the memo and frames. Every opcode
// that would import or call something (GLOBAL, STACK_GLOBAL, REDUCE, BUILD, INST, OBJ, NEWOBJ, NEWOBJ_EX,
// EXT1/2/4, PERSID, BINPERSID) and out-of-band buffers are refused with the byte offset of the opcode:
// nothing is ever imported or run. No Debian library reads pickles from C++, and the subset is small
// (docs/ARCHITECTURE.md).
//
// The result is a graph of nodes in one table. A memo reference (BINGET) points at the same node again
// instead of copying it, so the frames and strings that a snapshot repeats thousands of times are held once,
// and a reader can recognise a repeat by its node index. Strings are interned, and a list, tuple or set whose
// items (node indices) equal an earlier chunk's shares that chunk's items: a snapshot's per-event frames
// lists are stored once per distinct stack.

#include "model/stringpool.h"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kinetoscope {

class PickleInput;

enum class PickleKind : std::uint8_t { None, Bool, Int, Float, String, Bytes, Tuple, List, Dict, Set };

struct PickleNode {
    PickleKind kind = PickleKind::None;
    std::uint32_t count = 0; // items of a container (a dict counts each key and each value)
    union {
        std::int64_t integer; // Int, Bool
        double real;          // Float
        std::uint32_t text;   // String, Bytes: a StringId of PickleDocument::strings
        struct {
            std::uint32_t head; // first chunk of items, or noChunk
            std::uint32_t tail;
        } items;
    };
    PickleNode() : integer(0) {}
};

// The items of one container arrive in batches (APPENDS, SETITEMS of up to 1000); each batch is a chunk of
// PickleDocument::itemNodes, chained.
struct PickleChunk {
    std::uint32_t begin = 0;
    std::uint32_t count = 0;
    std::uint32_t next = 0xffffffffu;
};

class PickleDocument {
  public:
    static constexpr std::uint32_t noNode = 0xffffffffu;
    static constexpr std::uint32_t noChunk = 0xffffffffu;

    std::vector<PickleNode> nodes;
    std::vector<PickleChunk> chunks;
    std::vector<std::uint32_t> itemNodes;
    StringPool strings;
    std::uint32_t root = noNode;

    const PickleNode& node(std::uint32_t i) const { return nodes[i]; }
    bool isText(std::uint32_t i) const {
        return nodes[i].kind == PickleKind::String || nodes[i].kind == PickleKind::Bytes;
    }
    std::string_view textOf(std::uint32_t i) const {
        return isText(i) ? strings.view(StringId(nodes[i].text)) : std::string_view();
    }
    // An Int or Bool node's value (a Float's, truncated), else nullopt.
    std::optional<std::int64_t> integerOf(std::uint32_t i) const;
    std::optional<double> numberOf(std::uint32_t i) const;

    // Calls f(item) for each item of a container, in order; nothing for other nodes.
    template <typename F> void forEachItem(std::uint32_t container, F f) const {
        const PickleNode& n = nodes[container];
        if (n.kind < PickleKind::Tuple) return;
        for (std::uint32_t c = n.items.head; c != noChunk; c = chunks[c].next)
            for (std::uint32_t k = 0; k < chunks[c].count; ++k)
                f(itemNodes[chunks[c].begin + k]);
    }
    // Calls f(keyNode, valueNode) for each pair of a dict.
    template <typename F> void forEachPair(std::uint32_t dict, F f) const {
        if (nodes[dict].kind != PickleKind::Dict) return;
        std::uint32_t key = noNode;
        forEachItem(dict, [&](std::uint32_t item) {
            if (key == noNode) {
                key = item;
            } else {
                f(key, item);
                key = noNode;
            }
        });
    }
    // The value of a dict's key given as an interned id (StringPool::find), or noNode.
    std::uint32_t find(std::uint32_t dict, StringId key) const;

    // A document cut short: the reader stopped at PickleLimits::stopAtOffset (a preview of a large file), or
    // the data ended or went wrong first. Each container still being filled there was closed with the items
    // read so far, as the APPENDS, SETITEMS or ADDITEMS to come would have added them (items waiting for a
    // TUPLE, LIST or DICT not yet read became a list), and `root` is the outermost value. The containers
    // closed so are listed: the innermost of them was cut in the middle of a value, and a reader of the
    // document should drop it rather than take a half-read record for a whole one.
    bool complete = true;
    std::uint64_t cutAt = 0;              // offset of the first opcode not read
    std::vector<std::uint32_t> openAtCut; // sorted
    bool wasOpenAtCut(std::uint32_t node) const {
        return !openAtCut.empty() && std::binary_search(openAtCut.begin(), openAtCut.end(), node);
    }
};

struct PickleError {
    std::uint64_t offset = 0; // of the opcode (or data) at fault
    std::string message;
};

struct PickleLimits {
    // The reader stops (an error, not a crash) rather than hold more nodes than this.
    std::size_t maxNodes = std::size_t(1) << 31;
    // The pickle's size when known (0 if not): the tables are reserved from it up front, so they never grow
    // by copying (real snapshots hold about one node per 23 bytes and one item per 5). Pages reserved and
    // never written cost no memory.
    std::uint64_t expectedBytes = 0;
    // Stop at the first opcode at or past this offset of the (inflated) data, as if the pickle ended there,
    // and close what is open (PickleDocument::complete); 0 reads to the STOP.
    std::uint64_t stopAtOffset = 0;
    // Looked at every 64 Ki opcodes: once set, the reader stops with the error "cancelled".
    const std::atomic<bool>* cancel = nullptr;
};

// Reads one pickle from `in` up to its STOP (or PickleLimits::stopAtOffset). On failure returns the error and
// leaves in `out` what was read before it, closed as a cut document (unless cancelled or out of memory).
std::optional<PickleError> readPickle(PickleInput& in, PickleDocument& out, const PickleLimits& limits = {});

} // namespace kinetoscope
