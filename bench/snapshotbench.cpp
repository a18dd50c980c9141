// kinetoscope-bench-snapshot: how fast a CUDA memory snapshot opens, and in how much memory.
//
//   kinetoscope-bench-snapshot grow SNAPSHOT MB OUT.pickle
//       writes a snapshot of about MB megabytes grown from a real one: its trace events replicated with fresh
//       addresses and later times, each copy's frames referring to the same frame dicts and strings through
//       the memo, as the original's events share them (each event keeps a list of its own, as in the
//       original);
//   kinetoscope-bench-snapshot load SNAPSHOT
//       opens it as the viewer does (reader, model, each device's active-memory timeline), then computes the
//       CLI's report, and prints the seconds of each, MB/s and peak RSS.
// Run `load` in a process of its own, so the peak RSS is the load's alone. Figures go to bench/RESULTS.md.
#include "analysis/memory/memorytimeline.h"
#include "analysis/memory/snapshotreport.h"
#include "snapshot/pickleinput.h"
#include "snapshot/picklereader.h"
#include "snapshot/snapshotloader.h"

#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>
#include <unordered_map>
#include <vector>

using namespace kinetoscope;

namespace {

// Writes pickle protocol 4 without frames: every container and string of the source memoized once and
// referred to by LONG_BINGET after that, so a node shared in the source stays shared in the output. What the
// grower writes itself (each copy's event dicts and frame lists) is not memoized, so memo keys stay those of
// this writer.
class PickleWriter {
  public:
    PickleWriter(const PickleDocument& doc, std::FILE* out) : m_doc(doc), m_out(out) { put("\x80\x04", 2); }
    void finish() { put(".", 1); }

    void node(std::uint32_t n) {
        if (const auto it = m_memo.find(n); it != m_memo.end()) return get(it->second);
        const PickleNode& v = m_doc.node(n);
        switch (v.kind) {
        case PickleKind::None:
            return put("N", 1);
        case PickleKind::Bool:
            return put(v.integer ? "\x88" : "\x89", 1);
        case PickleKind::Int:
            return integer(v.integer);
        case PickleKind::Float: {
            std::uint64_t bits;
            std::memcpy(&bits, &v.real, 8);
            unsigned char b[9] = {'G'};
            for (int i = 0; i < 8; ++i)
                b[1 + i] = static_cast<unsigned char>(bits >> (56 - 8 * i));
            return put(b, 9);
        }
        case PickleKind::String:
        case PickleKind::Bytes:
            text(m_doc.textOf(n), v.kind == PickleKind::Bytes);
            return memoize(n);
        case PickleKind::Dict:
            put("}", 1);
            memoize(n);
            put("(", 1);
            m_doc.forEachItem(n, [&](std::uint32_t item) { node(item); });
            return put("u", 1);
        case PickleKind::List:
        case PickleKind::Set:
            put(v.kind == PickleKind::List ? "]" : "\x8f", 1);
            memoize(n);
            put("(", 1);
            m_doc.forEachItem(n, [&](std::uint32_t item) { node(item); });
            return put(v.kind == PickleKind::List ? "e" : "\x90", 1);
        case PickleKind::Tuple:
            put("(", 1);
            m_doc.forEachItem(n, [&](std::uint32_t item) { node(item); });
            put("t", 1);
            return memoize(n);
        }
    }
    void integer(std::int64_t v) {
        if (v >= 0 && v < 256) {
            const unsigned char b[2] = {'K', static_cast<unsigned char>(v)};
            return put(b, 2);
        }
        unsigned char b[10] = {0x8a, 8};
        for (int i = 0; i < 8; ++i)
            b[2 + i] = static_cast<unsigned char>(std::uint64_t(v) >> (8 * i));
        put(b, 10);
    }
    void raw(const char* s, std::size_t n) { put(s, n); }

  private:
    void text(std::string_view s, bool bytes) {
        unsigned char b[5] = {static_cast<unsigned char>(bytes ? 'B' : 'X')};
        const auto n = std::uint32_t(s.size());
        std::memcpy(b + 1, &n, 4);
        put(b, 5);
        put(s.data(), s.size());
    }
    void memoize(std::uint32_t n) {
        m_memo.emplace(n, std::uint32_t(m_memo.size()));
        put("\x94", 1);
    }
    void get(std::uint32_t index) {
        unsigned char b[5] = {'j'};
        std::memcpy(b + 1, &index, 4);
        put(b, 5);
    }
    void put(const void* p, std::size_t n) {
        std::fwrite(p, 1, n, m_out);
        m_written += n;
    }

    const PickleDocument& m_doc;
    std::FILE* m_out;
    std::unordered_map<std::uint32_t, std::uint32_t> m_memo;

  public:
    std::uint64_t m_written = 0;
};

int grow(const std::string& in, double megabytes, const std::string& outPath) {
    PickleInput input(in);
    PickleDocument doc;
    if (auto e = readPickle(input, doc)) {
        std::fprintf(stderr, "%s: byte %llu: %s\n", in.c_str(), static_cast<unsigned long long>(e->offset),
                     e->message.c_str());
        return 1;
    }
    auto key = [&](const char* k) { return doc.strings.find(k); };
    const std::uint32_t traces = doc.find(doc.root, key("device_traces"));
    if (traces == PickleDocument::noNode) {
        std::fprintf(stderr, "%s: no device_traces to grow\n", in.c_str());
        return 1;
    }
    std::uint32_t events = PickleDocument::noNode;
    doc.forEachItem(traces, [&](std::uint32_t list) {
        if (events == PickleDocument::noNode && doc.node(list).count > 0) events = list;
    });
    const StringId addrKey = key("addr"), timeKey = key("time_us"), framesKey = key("frames");
    std::int64_t first = 0, last = 0;
    doc.forEachItem(events, [&](std::uint32_t ev) {
        if (const auto t = doc.integerOf(doc.find(ev, timeKey))) {
            if (!first) first = *t;
            last = *t;
        }
    });
    std::FILE* out = std::fopen(outPath.c_str(), "wb");
    if (!out) return 1;
    PickleWriter w(doc, out);
    // {everything but device_traces as it is, 'device_traces': [[events × copies]]}
    w.raw("}(", 2);
    doc.forEachPair(doc.root, [&](std::uint32_t k, std::uint32_t v) {
        if (v == traces) return;
        w.node(k);
        w.node(v);
    });
    const std::uint32_t tracesKey = [&] {
        std::uint32_t found = PickleDocument::noNode;
        doc.forEachPair(doc.root, [&](std::uint32_t k, std::uint32_t v) {
            if (v == traces) found = k;
        });
        return found;
    }();
    w.node(tracesKey);
    w.raw("]](", 3); // device_traces, and the first device's events
    const auto target = std::uint64_t(megabytes * 1e6);
    std::uint64_t copies = 0;
    for (; w.m_written < target || copies == 0; ++copies) {
        const std::int64_t shift = std::int64_t(copies) * (last - first + 1000);
        std::size_t batch = 0;
        doc.forEachItem(events, [&](std::uint32_t ev) {
            w.raw("}(", 2);
            doc.forEachPair(ev, [&](std::uint32_t k, std::uint32_t v) {
                w.node(k);
                const std::uint32_t keyId = doc.node(k).text;
                if (keyId == addrKey.value && copies > 0) {
                    w.integer(doc.integerOf(v).value_or(0) + std::int64_t(copies) * (std::int64_t(1) << 40));
                } else if (keyId == timeKey.value && copies > 0) {
                    w.integer(doc.integerOf(v).value_or(0) + shift);
                } else if (keyId == framesKey.value && copies > 0) {
                    w.raw("](", 2); // a list of its own, its frames shared through the memo
                    doc.forEachItem(v, [&](std::uint32_t f) { w.node(f); });
                    w.raw("e", 1);
                } else {
                    w.node(v);
                }
            });
            w.raw("u", 1);
            // APPENDS in batches of 1000, as Python writes them.
            if (++batch % 1000 == 0) w.raw("e(", 2);
        });
        w.raw("e(", 2);
    }
    w.raw("ea", 2); // the last batch, then the device's list into device_traces' list
    doc.forEachItem(traces, [&](std::uint32_t list) {
        if (list != events) {
            w.node(list);
            w.raw("a", 1);
        }
    });
    w.raw("u", 1);
    w.finish();
    std::fclose(out);
    std::printf("wrote %s: %.1f MB, %llu copies of %u events\n", outPath.c_str(), double(w.m_written) / 1e6,
                static_cast<unsigned long long>(copies), doc.node(events).count);
    return 0;
}

int load(const std::string& path) {
    const auto started = std::chrono::steady_clock::now();
    const SnapshotLoadResult r = loadSnapshot(path);
    if (!r.ok()) {
        std::fprintf(stderr, "%s\n", r.message(path).c_str());
        return 1;
    }
    const auto since = [](auto t) {
        return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
    };
    const double loaded = since(started);
    // What the viewer does next: each device's active-memory timeline (lifetimes, stacking, checkpoints).
    const auto t1 = std::chrono::steady_clock::now();
    std::vector<MemoryTimeline> timelines;
    for (const DeviceHistory& h : r.snapshot->devices)
        timelines.emplace_back(*r.snapshot, h);
    const double timeline = since(t1);
    const auto t2 = std::chrono::steady_clock::now();
    const SnapshotReport report = snapshotReport(*r.snapshot);
    const double reported = since(t2);
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    const double mb = double(std::filesystem::file_size(path)) / 1e6;
    std::size_t events = 0, allocations = 0;
    for (const DeviceHistory& h : r.snapshot->devices)
        events += h.size();
    for (const MemoryTimeline& t : timelines)
        allocations += t.allocations().size();
    std::printf("%s: %.1f MB, %zu events, %zu allocations, %zu stacks, %zu frames\n", path.c_str(), mb,
                events, allocations, r.snapshot->stackCount(), r.snapshot->frames.size());
    std::printf("  read %.2f s (%.0f MB/s) + timeline %.2f s = opened in the viewer %.2f s; the CLI's report "
                "%.2f s; peak RSS %.0f MB (%.2fx the file)\n",
                loaded, mb / loaded, timeline, loaded + timeline, reported, double(usage.ru_maxrss) / 1024,
                double(usage.ru_maxrss) * 1.024e-3 / mb);
    return 0;
}

} // namespace

int main(int argc, char** argv) {
    if (argc == 5 && std::string(argv[1]) == "grow") return grow(argv[2], std::atof(argv[3]), argv[4]);
    if (argc == 3 && std::string(argv[1]) == "load") return load(argv[2]);
    std::fprintf(stderr, "usage: kinetoscope-bench-snapshot grow SNAPSHOT MB OUT.pickle | load SNAPSHOT\n");
    return 2;
}
