#include "snapshotloader.h"

#include "pickleinput.h"
#include "picklereader.h"

#include "model/gzipsize.h"
#include "model/prefaulter.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <new>
#include <unordered_map>
#include <zlib.h>

namespace kinetoscope {

std::string_view allocatorActionName(AllocatorAction a) {
    switch (a) {
    case AllocatorAction::Alloc:
        return "alloc";
    case AllocatorAction::FreeRequested:
        return "free_requested";
    case AllocatorAction::FreeCompleted:
        return "free_completed";
    case AllocatorAction::SegmentAlloc:
        return "segment_alloc";
    case AllocatorAction::SegmentFree:
        return "segment_free";
    case AllocatorAction::SegmentMap:
        return "segment_map";
    case AllocatorAction::SegmentUnmap:
        return "segment_unmap";
    case AllocatorAction::Snapshot:
        return "snapshot";
    case AllocatorAction::Oom:
        return "oom";
    case AllocatorAction::Other:
        break;
    }
    return "other";
}

const DeviceHistory* MemorySnapshot::device(std::int64_t d) const {
    for (const DeviceHistory& h : devices)
        if (h.device == d) return &h;
    return nullptr;
}

std::string SnapshotLoadResult::message(const std::string& path) const {
    if (errorHasOffset) return path + ": byte " + std::to_string(errorOffset) + ": " + error;
    return path + ": " + error;
}

namespace {

// Builds the model from the pickle's graph. Frames and stacks are interned twice over: by node (a memo
// reference is the same node, the common case, one hash lookup) and by content (the same stack pickled
// twice).
class SnapshotBuilder {
  public:
    SnapshotBuilder(PickleDocument& doc, MemorySnapshot& out, const std::atomic<bool>* cancel)
        : m_doc(doc), m_out(out), m_cancel(cancel) {
        auto key = [&](std::string_view k) { return m_doc.strings.find(k); };
        k_action = key("action");
        k_addr = key("addr");
        k_deviceFree = key("device_free");
        k_size = key("size");
        k_stream = key("stream");
        k_time = key("time_us");
        k_frames = key("frames");
        k_name = key("name");
        k_filename = key("filename");
        k_line = key("line");
        k_device = key("device");
        k_address = key("address");
        k_totalSize = key("total_size");
        k_allocatedSize = key("allocated_size");
        k_activeSize = key("active_size");
        k_requestedSize = key("requested_size");
        k_segmentType = key("segment_type");
        k_isExpandable = key("is_expandable");
        k_blocks = key("blocks");
        k_state = key("state");
        k_stage = key("stage");
        k_segments = key("segments");
        k_traces = key("device_traces");
        k_settings = key("allocator_settings");
        k_annotations = key("external_annotations");
        k_history = key("history");
        k_realSize = key("real_size");
        k_poolId = key("segment_pool_id");
        // Zeroed by calloc, not by a pass over it: for a large file the kernel's zero pages cost nothing
        // until touched, where filling a vector wrote hundreds of megabytes up front.
        m_internedByNode.reset(
            static_cast<std::uint32_t*>(std::calloc(m_doc.nodes.size() + 1, sizeof(std::uint32_t))));
        if (!m_internedByNode) throw std::bad_alloc();
    }

    std::optional<std::string> build();

  private:
    std::int64_t integer(std::uint32_t dict, StringId key, std::int64_t fallback = 0) const {
        const std::uint32_t v = m_doc.find(dict, key);
        return v == PickleDocument::noNode ? fallback : m_doc.integerOf(v).value_or(fallback);
    }
    // A size: out of [0, maxSnapshotBytes] it is counted and read as 0.
    std::int64_t bytes(std::int64_t v) {
        if (v >= 0 && v <= maxSnapshotBytes) return v;
        ++m_out.stats.sizesOutOfRange;
        return 0;
    }
    std::int64_t bytes(std::uint32_t dict, StringId key, std::int64_t fallback = 0) {
        return bytes(integer(dict, key, fallback));
    }
    StringId text(std::uint32_t dict, StringId key) const {
        const std::uint32_t v = m_doc.find(dict, key);
        return v != PickleDocument::noNode && m_doc.isText(v) ? StringId(m_doc.node(v).text) : StringId();
    }
    std::uint32_t frameOf(std::uint32_t node);
    std::uint32_t stackOf(std::uint32_t framesNode);
    DeviceHistory& history(std::int64_t device);
    void readSegment(std::uint32_t seg);
    void readEvent(DeviceHistory& h, std::uint32_t ev);
    void readSettings(std::uint32_t dict);
    std::string valueText(std::uint32_t node, int depth) const;

    PickleDocument& m_doc;
    MemorySnapshot& m_out;
    const std::atomic<bool>* m_cancel;
    std::uint32_t m_sinceCancelCheck = 0;
    // Every 64 Ki records read: whether the load was called off.
    bool cancelled() {
        return (++m_sinceCancelCheck & 0xffff) == 0 && m_cancel && m_cancel->load(std::memory_order_relaxed);
    }
    // By node: a memo reference is the same node, so most lookups end here (dense: one slot per node, holding
    // 1 + the frame of a frame dict or 1 + the stack of a frames list; 0 for unseen). A node is either.
    struct FreeDeleter {
        void operator()(std::uint32_t* p) const { std::free(p); }
    };
    std::unique_ptr<std::uint32_t[], FreeDeleter> m_internedByNode;
    struct FrameHash {
        std::size_t operator()(const SnapshotFrame& f) const {
            return std::hash<std::uint64_t>()((std::uint64_t(f.name.value) << 32) ^ f.filename.value) ^
                   std::hash<std::int64_t>()(f.line);
        }
    };
    std::unordered_map<SnapshotFrame, std::uint32_t, FrameHash> m_frameByContent;
    struct StackHash {
        std::size_t operator()(const std::vector<std::uint32_t>& v) const {
            std::uint64_t h = 0xcbf29ce484222325ull;
            for (std::uint32_t x : v)
                h = (h ^ x) * 0x100000001b3ull;
            return std::size_t(h);
        }
    };
    std::unordered_map<std::vector<std::uint32_t>, std::uint32_t, StackHash> m_stackByContent;
    std::unordered_map<std::uint64_t, std::uint32_t> m_stackByChunk; // (first item, count) -> stack
    std::vector<std::uint32_t> m_scratch;
    std::vector<AllocatorAction> m_actionOf; // by the action string's id, worked out once per string
    std::vector<bool> m_actionKnown;
    StringId k_action, k_addr, k_deviceFree, k_size, k_stream, k_time, k_frames, k_name, k_filename, k_line,
        k_device, k_address, k_totalSize, k_allocatedSize, k_activeSize, k_requestedSize, k_segmentType,
        k_isExpandable, k_blocks, k_state, k_stage, k_segments, k_traces, k_settings, k_annotations,
        k_history, k_realSize, k_poolId;
};

std::uint32_t SnapshotBuilder::frameOf(std::uint32_t node) {
    if (m_internedByNode[node]) return m_internedByNode[node] - 1;
    SnapshotFrame f;
    m_doc.forEachPair(node, [&](std::uint32_t k, std::uint32_t v) {
        if (!m_doc.isText(k)) return;
        const std::uint32_t key = m_doc.node(k).text;
        if (key == k_name.value && m_doc.isText(v))
            f.name = StringId(m_doc.node(v).text);
        else if (key == k_filename.value && m_doc.isText(v))
            f.filename = StringId(m_doc.node(v).text);
        else if (key == k_line.value)
            f.line = m_doc.integerOf(v).value_or(0);
    });
    auto [it, added] = m_frameByContent.try_emplace(f, std::uint32_t(m_out.frames.size()));
    if (added) m_out.frames.push_back(f);
    m_internedByNode[node] = it->second + 1;
    return it->second;
}

std::uint32_t SnapshotBuilder::stackOf(std::uint32_t framesNode) {
    // (A dict where the frames list belongs is malformed, and would share its slot with a frame.)
    if (framesNode == PickleDocument::noNode || m_doc.node(framesNode).count == 0 ||
        m_doc.node(framesNode).kind == PickleKind::Dict)
        return 0;
    // Lists with the same items share one chunk of them (the reader shares them), so a one-chunk list's chunk
    // names its stack: a lookup in a table of a few hundred, where the slot by node would touch a new page
    // for nearly every event of a large file.
    const PickleNode& list = m_doc.node(framesNode);
    const bool oneChunk = list.kind >= PickleKind::Tuple && list.items.head != PickleDocument::noChunk &&
                          list.items.head == list.items.tail;
    std::uint64_t chunkKey = 0;
    if (oneChunk) {
        const PickleChunk& c = m_doc.chunks[list.items.head];
        chunkKey = (std::uint64_t(c.begin) << 32) | c.count;
        if (const auto it = m_stackByChunk.find(chunkKey); it != m_stackByChunk.end()) return it->second;
    } else if (m_internedByNode[framesNode]) {
        return m_internedByNode[framesNode] - 1;
    }
    m_scratch.clear();
    m_doc.forEachItem(framesNode, [&](std::uint32_t f) {
        if (m_doc.node(f).kind == PickleKind::Dict) m_scratch.push_back(frameOf(f));
    });
    std::uint32_t id = 0;
    if (!m_scratch.empty()) {
        auto [it, added] = m_stackByContent.try_emplace(m_scratch, std::uint32_t(m_out.stackCount()));
        if (added) {
            m_out.stackFrames.insert(m_out.stackFrames.end(), m_scratch.begin(), m_scratch.end());
            m_out.stackBegin.push_back(std::uint32_t(m_out.stackFrames.size()));
        }
        id = it->second;
    }
    if (oneChunk)
        m_stackByChunk.emplace(chunkKey, id);
    else
        m_internedByNode[framesNode] = id + 1;
    return id;
}

DeviceHistory& SnapshotBuilder::history(std::int64_t device) {
    for (DeviceHistory& h : m_out.devices)
        if (h.device == device) return h;
    m_out.devices.emplace_back().device = device;
    return m_out.devices.back();
}

void SnapshotBuilder::readSegment(std::uint32_t seg) {
    if (m_doc.node(seg).kind != PickleKind::Dict) {
        ++m_out.stats.malformedSegments;
        return;
    }
    SnapshotSegment s;
    s.device = integer(seg, k_device);
    s.address = std::uint64_t(integer(seg, k_address));
    s.totalSize = bytes(seg, k_totalSize);
    s.allocatedSize = bytes(seg, k_allocatedSize);
    s.activeSize = bytes(seg, k_activeSize);
    s.requestedSize = bytes(seg, k_requestedSize);
    s.stream = integer(seg, k_stream);
    s.segmentType = text(seg, k_segmentType);
    s.isExpandable = integer(seg, k_isExpandable) != 0;
    s.stack = stackOf(m_doc.find(seg, k_frames));
    // segment_pool_id: (0, 0) is the allocator's default pool; another pair, a private pool (a CUDA graph's
    // capture, a torch.cuda.MemPool).
    if (const std::uint32_t pool = m_doc.find(seg, k_poolId); pool != PickleDocument::noNode) {
        int item = 0;
        m_doc.forEachItem(pool, [&](std::uint32_t v) {
            const std::int64_t id = m_doc.integerOf(v).value_or(0);
            if (item == 0) s.poolId.first = id;
            if (item == 1) s.poolId.second = id;
            ++item;
        });
    }
    s.firstBlock = std::uint32_t(m_out.blocks.size());
    // Blocks are listed in address order, each following the last: PyTorch 2.0's blocks carry no address
    // of their own, and are placed by that running offset.
    std::uint64_t nextAddress = s.address;
    const std::uint32_t blocks = m_doc.find(seg, k_blocks);
    if (blocks != PickleDocument::noNode) {
        m_doc.forEachItem(blocks, [&](std::uint32_t b) {
            if (m_doc.wasOpenAtCut(b)) return;
            if (m_doc.node(b).kind != PickleKind::Dict) {
                ++m_out.stats.malformedSegments;
                return;
            }
            SnapshotBlock block;
            block.size = bytes(b, k_size);
            const std::uint32_t address = m_doc.find(b, k_address);
            block.address = address != PickleDocument::noNode
                                ? std::uint64_t(m_doc.integerOf(address).value_or(0))
                                : nextAddress;
            nextAddress = block.address + std::uint64_t(block.size);
            block.requestedSize = bytes(b, k_requestedSize, block.size);
            block.stateName = text(b, k_state);
            const std::string_view state = m_doc.strings.view(block.stateName);
            block.state = state == "active_allocated"      ? BlockState::ActiveAllocated
                          : state == "active_pending_free" ? BlockState::ActivePendingFree
                          : state == "inactive"            ? BlockState::Inactive
                                                           : BlockState::Other;
            std::uint32_t frames = m_doc.find(b, k_frames);
            // PyTorch 2.0: the stack and the size asked for are in `history`, newest first ({addr, real_size,
            // frames} for each allocation the block served), as memory_viz reads them.
            if (const std::uint32_t history = m_doc.find(b, k_history);
                frames == PickleDocument::noNode && history != PickleDocument::noNode) {
                bool first = true;
                m_doc.forEachItem(history, [&](std::uint32_t h) {
                    if (!first || m_doc.node(h).kind != PickleKind::Dict) return;
                    first = false;
                    frames = m_doc.find(h, k_frames);
                    if (m_doc.find(h, k_realSize) != PickleDocument::noNode &&
                        m_doc.find(b, k_requestedSize) == PickleDocument::noNode)
                        block.requestedSize = bytes(h, k_realSize);
                });
            }
            block.stack = stackOf(frames);
            m_out.blocks.push_back(block);
        });
    }
    s.blockCount = std::uint32_t(m_out.blocks.size() - s.firstBlock);
    history(s.device);
    m_out.segments.push_back(s);
}

void SnapshotBuilder::readEvent(DeviceHistory& h, std::uint32_t ev) {
    // One pass over the event's pairs (a real event has six to eight): the hot loop of a large snapshot.
    StringId action;
    std::int64_t addr = 0, size = 0, stream = 0, time = noTimeUs;
    std::uint32_t frames = PickleDocument::noNode;
    m_doc.forEachPair(ev, [&](std::uint32_t k, std::uint32_t v) {
        if (!m_doc.isText(k)) return;
        const std::uint32_t key = m_doc.node(k).text;
        if (key == k_action.value) {
            if (m_doc.isText(v)) action = StringId(m_doc.node(v).text);
        } else if (key == k_addr.value || key == k_deviceFree.value) {
            // An oom event carries the bytes the device had free where others carry the address.
            addr = m_doc.integerOf(v).value_or(0);
        } else if (key == k_size.value) {
            size = m_doc.integerOf(v).value_or(0);
        } else if (key == k_stream.value) {
            stream = m_doc.integerOf(v).value_or(0);
        } else if (key == k_time.value) {
            time = m_doc.integerOf(v).value_or(noTimeUs);
        } else if (key == k_frames.value) {
            frames = v;
        }
    });
    if (!action.isValid()) {
        ++m_out.stats.malformedEvents;
        return;
    }
    if (action.value >= m_actionOf.size()) {
        m_actionOf.resize(action.value + 1, AllocatorAction::Other);
        m_actionKnown.resize(action.value + 1, false);
    }
    if (!m_actionKnown[action.value]) {
        static const std::pair<std::string_view, AllocatorAction> known[] = {
            {"alloc", AllocatorAction::Alloc},
            {"free_requested", AllocatorAction::FreeRequested},
            {"free_completed", AllocatorAction::FreeCompleted},
            {"segment_alloc", AllocatorAction::SegmentAlloc},
            {"segment_free", AllocatorAction::SegmentFree},
            {"segment_map", AllocatorAction::SegmentMap},
            {"segment_unmap", AllocatorAction::SegmentUnmap},
            {"snapshot", AllocatorAction::Snapshot},
            {"oom", AllocatorAction::Oom},
        };
        const std::string_view name = m_doc.strings.view(action);
        for (const auto& [n, a] : known)
            if (n == name) m_actionOf[action.value] = a;
        m_actionKnown[action.value] = true;
    }
    h.actions.push_back(m_actionOf[action.value]);
    h.actionNames.push_back(action);
    h.addrs.push_back(std::uint64_t(addr));
    h.sizes.push_back(bytes(size));
    h.streams.push_back(stream);
    h.timesUs.push_back(time);
    h.stacks.push_back(stackOf(frames));
}

// A settings value as Python's repr would show it, shortened for nested containers.
std::string SnapshotBuilder::valueText(std::uint32_t node, int depth) const {
    const PickleNode& n = m_doc.node(node);
    switch (n.kind) {
    case PickleKind::None:
        return "None";
    case PickleKind::Bool:
        return n.integer ? "True" : "False";
    case PickleKind::Int:
        return std::to_string(n.integer);
    case PickleKind::Float: {
        char buf[32];
        std::snprintf(buf, sizeof buf, "%g", n.real);
        return buf;
    }
    case PickleKind::String:
    case PickleKind::Bytes:
        return "'" + std::string(m_doc.textOf(node)) + "'";
    default:
        break;
    }
    if (depth > 2) return "...";
    std::string out = n.kind == PickleKind::Dict ? "{" : n.kind == PickleKind::List ? "[" : "(";
    bool first = true;
    if (n.kind == PickleKind::Dict) {
        m_doc.forEachPair(node, [&](std::uint32_t k, std::uint32_t v) {
            out += (first ? "" : ", ") + valueText(k, depth + 1) + ": " + valueText(v, depth + 1);
            first = false;
        });
    } else {
        m_doc.forEachItem(node, [&](std::uint32_t v) {
            out += (first ? "" : ", ") + valueText(v, depth + 1);
            first = false;
        });
    }
    return out + (n.kind == PickleKind::Dict ? "}" : n.kind == PickleKind::List ? "]" : ")");
}

void SnapshotBuilder::readSettings(std::uint32_t dict) {
    m_doc.forEachPair(dict, [&](std::uint32_t k, std::uint32_t v) {
        m_out.allocatorSettings.emplace_back(std::string(m_doc.textOf(k)), valueText(v, 0));
    });
}

const char* kindName(PickleKind k) {
    static const char* names[] = {"None",  "bool",  "int",  "float", "str",
                                  "bytes", "tuple", "list", "dict",  "set"};
    return names[int(k)];
}

std::optional<std::string> SnapshotBuilder::build() {
    const std::uint32_t root = m_doc.root;
    const PickleKind kind = m_doc.node(root).kind;
    std::uint32_t segments = PickleDocument::noNode;
    if (kind == PickleKind::List) {
        segments = root; // the old layout: a bare list of segments, no trace
    } else if (kind == PickleKind::Dict) {
        segments = m_doc.find(root, k_segments);
        if (segments == PickleDocument::noNode)
            return "not a CUDA memory snapshot: a dict without \"segments\"";
        m_out.hasTrace = true;
    } else {
        return std::string("not a CUDA memory snapshot: the pickle holds a ") + kindName(kind);
    }
    bool stopped = false;
    m_doc.forEachItem(segments, [&](std::uint32_t s) {
        stopped = stopped || cancelled();
        if (!stopped && !m_doc.wasOpenAtCut(s)) readSegment(s); // a segment cut in the middle is left out
    });
    if (m_out.hasTrace) {
        const std::uint32_t traces = m_doc.find(root, k_traces);
        std::int64_t device = 0;
        if (traces != PickleDocument::noNode) {
            m_doc.forEachItem(traces, [&](std::uint32_t list) {
                if (m_doc.node(list).count > 0) {
                    DeviceHistory& h = history(device);
                    h.reserve(m_doc.node(list).count);
                    Prefaulter prefaulter; // the columns' pages, made ready on the other core
                    h.forEachColumn(
                        [&](const void* data, std::size_t bytes) { prefaulter.watch(data, bytes); });
                    prefaulter.start();
                    m_doc.forEachItem(list, [&](std::uint32_t ev) {
                        stopped = stopped || cancelled();
                        if (!stopped && !m_doc.wasOpenAtCut(ev))
                            readEvent(h, ev); // an event cut in the middle is left out
                    });
                }
                ++device;
            });
        }
        if (const std::uint32_t s = m_doc.find(root, k_settings); s != PickleDocument::noNode)
            readSettings(s);
        if (const std::uint32_t a = m_doc.find(root, k_annotations); a != PickleDocument::noNode) {
            m_doc.forEachItem(a, [&](std::uint32_t ann) {
                if (m_doc.node(ann).kind != PickleKind::Dict) return;
                m_out.annotations.push_back({integer(ann, k_device), integer(ann, k_time, noTimeUs),
                                             text(ann, k_stage), text(ann, k_name)});
            });
        }
    }
    if (stopped) return "cancelled";
    std::sort(m_out.devices.begin(), m_out.devices.end(),
              [](const DeviceHistory& a, const DeviceHistory& b) { return a.device < b.device; });
    return std::nullopt;
}

SnapshotLoadResult load(PickleInput& in, const std::string& name, std::uint64_t fileBytes,
                        std::uint64_t expectedBytes, const SnapshotLoadOptions& options) {
    const auto started = std::chrono::steady_clock::now();
    SnapshotLoadResult result;
    PickleDocument doc;
    PickleLimits limits;
    limits.expectedBytes =
        options.stopAtBytes ? std::min(expectedBytes, options.stopAtBytes + (1u << 20)) : expectedBytes;
    limits.stopAtOffset = options.stopAtBytes;
    limits.cancel = options.cancel;
    const std::optional<PickleError> readError = readPickle(in, doc, limits);
    if (readError) {
        result.error = readError->message;
        result.errorOffset = readError->offset;
        result.errorHasOffset = true;
        if (in.wasGzip()) result.error += " (offset in the inflated data)";
        // What came before the fault is still worth showing, unless the load was called off.
        if (doc.root == PickleDocument::noNode || (options.cancel && options.cancel->load())) return result;
    }
    if (doc.root == PickleDocument::noNode) { // a preview cut before the first value (found by fuzz_pickle)
        result.error = "no value before byte " + std::to_string(doc.cutAt);
        return result;
    }
    auto snapshot = std::make_shared<MemorySnapshot>();
    try {
        if (auto error = SnapshotBuilder(doc, *snapshot, options.cancel).build()) {
            if (!readError) result.error = *error; // else the reader's error says more
            return result;
        }
    } catch (const std::bad_alloc&) {
        result.error = "out of memory building the snapshot's model";
        result.errorHasOffset = false;
        return result;
    }
    if (readError && snapshot->segments.empty() &&
        std::none_of(snapshot->devices.begin(), snapshot->devices.end(),
                     [](const DeviceHistory& h) { return h.size() > 0; }))
        return result; // nothing read before the fault to show
    snapshot->partial = !doc.complete;
    snapshot->readBytes = doc.complete ? 0 : doc.cutAt;
    // The pickle's graph is dropped here: the model holds what it needs, and the interned strings move over.
    snapshot->strings = std::move(doc.strings);
    snapshot->sourcePath = name;
    snapshot->fileBytes = fileBytes;
    result.snapshot = std::move(snapshot);
    result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    return result;
}

} // namespace

SnapshotLoadResult loadSnapshot(const std::string& path, const SnapshotLoadOptions& options) {
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec)) {
        SnapshotLoadResult r;
        r.error = "is a directory";
        return r;
    }
    PickleInput in(path);
    if (!in.openError().empty()) {
        SnapshotLoadResult r;
        r.error = in.openError();
        return r;
    }
    const auto size = std::filesystem::file_size(path, ec);
    const std::uint64_t bytes = ec ? 0 : std::uint64_t(size);
    // The pickle's size (a gzip file's from its trailer, as the trace loader and the preview read it) only
    // sizes reservations.
    // A damaged gzip file's trailer can claim anything: no more than 64 times the file is reserved (real
    // snapshots compress 11 to 26 times; a larger one grows its tables as it reads).
    const std::uint64_t text = std::min(fileTextSize(path), bytes * 64);
    return load(in, path, bytes, text ? text : bytes, options);
}

SnapshotLoadResult loadSnapshotBytes(std::string_view bytes, const std::string& name,
                                     const SnapshotLoadOptions& options) {
    PickleInput in = PickleInput::fromMemory(bytes);
    return load(in, name, bytes.size(), bytes.size(), options);
}

bool isPickleFile(const std::string& path) {
    gzFile f = gzopen(path.c_str(), "rb");
    if (!f) return false;
    unsigned char head[2] = {0, 0};
    const int n = gzread(f, head, 2);
    gzclose(f);
    return n == 2 && head[0] == 0x80 && head[1] >= 2 && head[1] <= 5;
}

} // namespace kinetoscope
