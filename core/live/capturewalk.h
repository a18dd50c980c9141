#pragma once

// Inside live: the capture as a trace, event by event (CaptureRecords::Walk), and what its two consumers
// share: the categories and fixed names Kineto uses, the correlation tables, the args writer. capturejson.cpp
// walks it into Kineto JSON, capturestore.cpp into parsed chunks for the store builder; walking once for both
// keeps the two equal.

#include "livecapture.h"
#include "model/jsonwriter.h"
#include "model/parallel.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <string_view>
#include <vector>

namespace kinetoscope::live {

// The categories a capture's events carry, named as Kineto names them.
enum class Cat : std::uint8_t {
    Metadata,
    Kernel,
    Memcpy,
    Memset,
    Sync,
    Runtime,
    Driver,
    Ac2g,
    UserAnnotation
};
constexpr std::size_t catCount = 9;
constexpr std::string_view catText[catCount] = {"__metadata",  "kernel",    "gpu_memcpy",
                                                "gpu_memset",  "cuda_sync", "cuda_runtime",
                                                "cuda_driver", "ac2g",      "user_annotation"};

// CUpti_ActivityMemcpyKind and CUpti_ActivitySynchronizationType, named as Kineto names them; then the other
// fixed event names. Each has a slot after the capture's own strings, so the store builder can cache its
// local id.
constexpr std::string_view memcpyKindNames[] = {"Memcpy",      "Memcpy HtoD", "Memcpy DtoH", "Memcpy HtoA",
                                                "Memcpy AtoH", "Memcpy AtoA", "Memcpy AtoD", "Memcpy DtoA",
                                                "Memcpy DtoD", "Memcpy HtoH", "Memcpy PtoP"};
constexpr std::string_view syncKindNames[] = {"Sync", "Event Sync", "Stream Wait Event", "Stream Sync",
                                              "Context Sync"};
// CUPTI's stream of a context or event synchronization, which has none (CUPTI_SYNCHRONIZATION_INVALID_VALUE).
// Kineto writes it as tid -1 (streamIdForTrace), one lane of the device's for them all.
constexpr std::uint32_t noStream = UINT32_MAX;
constexpr std::int64_t syncLane(std::uint32_t stream) {
    return stream == noStream ? -1 : std::int64_t(stream);
}

constexpr std::uint32_t memcpySlot = 0, syncSlot = std::size(memcpyKindNames),
                        memsetSlot = syncSlot + std::size(syncKindNames), ac2gSlot = memsetSlot + 1,
                        fixedNameSlots = ac2gSlot + 1;

// The longest args text of each kind of event, with every number at its longest: a kernel's is at most 350
// bytes (ids 37 + 35, device and stream 45, registers, shared memory, the two per-SM figures, grid and block
// 231, braces), a memcpy's or memset's 192, a sync's 120, a call's 94.
constexpr std::size_t kernelArgsBound = 512, gpuArgsBound = 320, callArgsBound = 160;

// An event name, and the slot its local id is cached under (the capture's string id, or a fixed name's slot
// after them); `noSlot` for names made on the fly.
struct Name {
    static constexpr std::uint32_t noSlot = UINT32_MAX;
    std::string_view text;
    std::uint32_t slot = noSlot;
};

// correlation id -> value, for ids that are mostly dense (CUPTI numbers its correlations 1, 2, 3, ...): a
// flat table when they are, sorted pairs otherwise. Hashing each of a capture's millions of events cost more
// than writing it.
template <typename Value> class CorrelationTable {
  public:
    // `entries` in arrival order; for an id seen twice, keep(kept, candidate) says whether the candidate
    // replaces it.
    template <typename Keep> void build(std::vector<std::pair<std::uint64_t, Value>> entries, Keep keep) {
        if (entries.empty()) return;
        std::uint64_t low = UINT64_MAX, high = 0;
        for (const auto& e : entries)
            low = std::min(low, e.first), high = std::max(high, e.first);
        if (high - low < 4 * entries.size() + 1024) {
            m_low = low;
            m_dense.resize(std::size_t(high - low) + 1);
            m_present.assign(m_dense.size(), 0);
            for (const auto& [id, value] : entries) {
                const std::size_t i = std::size_t(id - low);
                if (!m_present[i] || keep(m_dense[i], value)) m_dense[i] = value;
                m_present[i] = 1;
            }
            return;
        }
        std::stable_sort(entries.begin(), entries.end(),
                         [](const auto& a, const auto& b) { return a.first < b.first; });
        for (const auto& e : entries) {
            if (!m_sparse.empty() && m_sparse.back().first == e.first) {
                if (keep(m_sparse.back().second, e.second)) m_sparse.back().second = e.second;
            } else {
                m_sparse.push_back(e);
            }
        }
    }
    const Value* find(std::uint64_t id) const {
        if (!m_dense.empty()) {
            if (id < m_low || id - m_low >= m_dense.size() || !m_present[std::size_t(id - m_low)])
                return nullptr;
            return &m_dense[std::size_t(id - m_low)];
        }
        auto it = std::lower_bound(m_sparse.begin(), m_sparse.end(), id,
                                   [](const auto& e, std::uint64_t v) { return e.first < v; });
        return it != m_sparse.end() && it->first == id ? &it->second : nullptr;
    }

  private:
    std::uint64_t m_low = 0;
    std::vector<Value> m_dense;
    std::vector<std::uint8_t> m_present;
    std::vector<std::pair<std::uint64_t, Value>> m_sparse;
};

// Where a launch's GPU work begins: the flow's end.
struct GpuStart {
    std::uint32_t device = 0, stream = 0;
    std::int64_t start = 0;
};

// The args object of a GPU event or an API call: ids first, as Kineto writes them, then the event's own
// fields.
template <typename Text, typename Rest>
void writeArgs(JsonWriter<Text>& out, const std::uint64_t* externalId, std::uint64_t correlation,
               Rest& rest) {
    out.raw("{");
    if (externalId) {
        out.raw("\"External id\": ");
        out.num(*externalId);
        out.raw(", ");
    }
    out.raw("\"correlation\": ");
    out.num(correlation);
    rest(out);
    out.raw("}");
}

// The capture as a trace, event by event, in the order the saved JSON lists them. Both the JSON writer and
// the direct store build walk it, so what the viewer shows live is what a saved capture reopens as.
struct CaptureRecords::Walk {
    const CaptureRecords& c;
    std::int64_t minStart = 0;
    std::int64_t base = 0; // baseTimeNanoseconds
    CorrelationTable<std::uint64_t> externalOf;
    CorrelationTable<GpuStart> gpuStart; // by the launch's correlation

    Walk(const CaptureRecords& records, bool parallel) : c(records) {
        std::int64_t low = INT64_MAX;
        auto lower = [&](const auto& events) {
            for (const auto& e : events)
                low = std::min(low, e.start);
        };
        lower(c.m_kernels), lower(c.m_memcpys), lower(c.m_memsets), lower(c.m_apis), lower(c.m_syncs),
            lower(c.m_markers);
        minStart = low == INT64_MAX ? 0 : low;
        // Times relative to a whole second, as Kineto writes them since 2024: short numbers, exact ns.
        constexpr std::int64_t second = 1'000'000'000;
        base = minStart >= 0 ? minStart / second * second : (minStart - second + 1) / second * second;

        auto buildExternals = [this] {
            std::vector<std::pair<std::uint64_t, std::uint64_t>> externals;
            externals.reserve(c.m_externals.size());
            for (const auto& e : c.m_externals)
                externals.emplace_back(e.correlation, e.externalId);
            externalOf.build(std::move(externals),
                             [](std::uint64_t, std::uint64_t) { return true; }); // the last one wins
        };
        auto buildGpuStarts = [this] {
            std::vector<std::pair<std::uint64_t, GpuStart>> starts;
            starts.reserve(c.m_kernels.size() + c.m_memcpys.size() + c.m_memsets.size());
            for (const auto& k : c.m_kernels)
                starts.push_back({k.correlation, {k.device, k.stream, k.start}});
            for (const auto& m : c.m_memcpys)
                starts.push_back({m.correlation, {m.device, m.stream, m.start}});
            for (const auto& m : c.m_memsets)
                starts.push_back({m.correlation, {m.device, m.stream, m.start}});
            // A launch of several kernels (a graph) links to its first.
            gpuStart.build(std::move(starts), [](const GpuStart& kept, const GpuStart& candidate) {
                return candidate.start < kept.start;
            });
        };
        parallelInvoke(parallel, buildExternals, buildGpuStarts);
    }

    std::size_t nameSlots() const { return c.m_strings.size() + fixedNameSlots; }
    std::uint32_t fixedSlot(std::uint32_t slot) const { return std::uint32_t(c.m_strings.size()) + slot; }
    Name captureName(wire::StringRef id) const {
        return {c.string(id), id < c.m_strings.size() ? id : Name::noSlot};
    }

    // Every top-level key but traceEvents, with its JSON text, in the order the file lists them.
    std::vector<std::pair<std::string, std::string>> topLevel() const {
        std::vector<std::pair<std::string, std::string>> keys;
        keys.emplace_back("schemaVersion", "1");
        keys.emplace_back("traceName", "\"kinetoscope live capture\"");
        keys.emplace_back("displayTimeUnit", "\"ms\"");
        keys.emplace_back("baseTimeNanoseconds", std::to_string(base));
        std::string capture;
        JsonWriter<std::string> about{capture};
        about.beginObject();
        about.numField("records", c.m_counts.records);
        about.numField("dropped", c.m_counts.dropped);
        if (!c.m_notices.empty()) { // what the agent said: kept with the trace it explains
            about.key("notices");
            about.beginArray();
            for (const std::string& n : c.m_notices)
                about.str(n);
            about.endArray();
        }
        about.endObject();
        keys.emplace_back("kinetoscopeCapture", std::move(capture));
        std::string devices;
        JsonWriter<std::string> out{devices};
        out.raw("[");
        for (std::size_t i = 0; i < c.m_devices.size(); ++i) {
            const wire::Device& d = c.m_devices[i];
            out.raw(i ? ",\n    {\"id\": " : "\n    {\"id\": ");
            out.num(d.id);
            out.raw(", \"name\": ");
            out.str(c.string(d.name));
            out.raw(", \"totalGlobalMem\": ");
            out.num(d.totalGlobalMem);
            out.raw(", \"computeMajor\": ");
            out.num(d.computeMajor);
            out.raw(", \"computeMinor\": ");
            out.num(d.computeMinor);
            out.raw(", \"numSms\": ");
            out.num(d.numSms);
            out.raw(", \"maxThreadsPerMultiprocessor\": ");
            out.num(d.maxThreadsPerSm);
            out.raw(", \"warpSize\": ");
            out.num(d.warpSize);
            out.raw("}");
        }
        out.raw(c.m_devices.empty() ? "]" : "\n  ]");
        keys.emplace_back("deviceProperties", std::move(devices));
        return keys;
    }

    // Process and stream names, so the lanes read as Kineto's do.
    template <typename Sink> void names(Sink& sink) const {
        std::vector<std::pair<std::uint32_t, std::uint32_t>> streams;
        for (const auto& k : c.m_kernels)
            streams.emplace_back(k.device, k.stream);
        for (const auto& m : c.m_memcpys)
            streams.emplace_back(m.device, m.stream);
        for (const auto& m : c.m_memsets)
            streams.emplace_back(m.device, m.stream);
        for (const auto& s : c.m_syncs)
            streams.emplace_back(s.device, s.stream);
        std::sort(streams.begin(), streams.end());
        streams.erase(std::unique(streams.begin(), streams.end()), streams.end());
        std::uint32_t lastDevice = UINT32_MAX;
        for (const auto& [device, stream] : streams) {
            if (device != lastDevice) {
                lastDevice = device;
                sink.meta(true, device, 0, minStart, "GPU " + std::to_string(device));
            }
            sink.meta(false, device, syncLane(stream), minStart,
                      stream == noStream ? std::string("context and event syncs")
                                         : "stream " + std::to_string(stream));
        }
        for (const auto& [pid, name] : c.m_processNames)
            sink.meta(true, pid, 0, minStart, name);
    }

    // Every GPU event on its device/stream lane, with the args Kineto starts with.
    template <typename Sink> void gpuWork(Sink& sink) const {
        auto gpu = [&](Cat cat, Name name, const auto& e, auto&& rest) {
            sink.slice(cat, name, e.device, e.stream, e.start, e.end, externalOf.find(e.correlation),
                       e.correlation, [&](auto& out) {
                           out.raw(", \"device\": ");
                           out.num(e.device);
                           out.raw(", \"stream\": ");
                           out.num(e.stream);
                           rest(out);
                       });
        };
        const wire::Device* device = nullptr;
        for (const wire::Kernel& k : c.m_kernels) {
            if (!device || device->id != k.device) {
                auto it = std::find_if(c.m_devices.begin(), c.m_devices.end(),
                                       [&](const wire::Device& d) { return d.id == k.device; });
                device = it == c.m_devices.end() ? nullptr : &*it;
            }
            gpu(Cat::Kernel, captureName(k.name), k, [&](auto& out) {
                out.raw(", \"registers per thread\": ");
                out.num(k.registers);
                out.raw(", \"shared memory\": ");
                out.num(std::uint64_t(k.staticShared) + k.dynamicShared);
                const std::uint64_t blocks = std::uint64_t(k.grid[0]) * k.grid[1] * k.grid[2];
                if (device && device->numSms > 0) {
                    // Kineto's launch-shape estimates, which the occupancy and SM-efficiency figures read.
                    const double sms = device->numSms;
                    const std::uint64_t threads = std::uint64_t(k.block[0]) * k.block[1] * k.block[2];
                    const std::uint32_t warp = device->warpSize ? device->warpSize : 32;
                    out.raw(", \"blocks per SM\": ");
                    out.general(double(blocks) / sms);
                    out.raw(", \"warps per SM\": ");
                    out.general(double(blocks * ((threads + warp - 1) / warp)) / sms);
                }
                out.raw(", \"grid\": [");
                out.num(k.grid[0]), out.raw(", "), out.num(k.grid[1]), out.raw(", "), out.num(k.grid[2]);
                out.raw("], \"block\": [");
                out.num(k.block[0]), out.raw(", "), out.num(k.block[1]), out.raw(", "), out.num(k.block[2]);
                out.raw("]");
            });
        }
        auto bytesArgs = [](std::uint64_t bytes, std::int64_t start, std::int64_t end) {
            return [=](auto& out) {
                out.raw(", \"bytes\": ");
                out.num(bytes);
                if (end > start) {
                    out.raw(", \"memory bandwidth (GB/s)\": ");
                    out.general(double(bytes) / double(end - start));
                }
            };
        };
        for (const wire::Memcpy& m : c.m_memcpys) {
            const std::uint32_t kind = m.kind < std::size(memcpyKindNames) ? m.kind : 0;
            gpu(Cat::Memcpy, {memcpyKindNames[kind], fixedSlot(memcpySlot + kind)}, m,
                bytesArgs(m.bytes, m.start, m.end));
        }
        for (const wire::Memset& m : c.m_memsets)
            gpu(Cat::Memset, {"Memset (Device)", fixedSlot(memsetSlot)}, m,
                bytesArgs(m.bytes, m.start, m.end));
        for (const wire::Sync& s : c.m_syncs) {
            const std::uint32_t kind = s.kind < std::size(syncKindNames) ? s.kind : 0;
            sink.slice(Cat::Sync, {syncKindNames[kind], fixedSlot(syncSlot + kind)}, s.device,
                       syncLane(s.stream), s.start, s.end, externalOf.find(s.correlation), s.correlation,
                       [&](auto& out) {
                           out.raw(", \"device\": ");
                           out.num(s.device);
                           out.raw(", \"stream\": ");
                           out.num(std::int64_t(
                               std::int32_t(s.stream))); // CUPTI writes -1 for "no stream" (context sync)
                       });
        }
    }

    // API calls [begin, end), each with an ac2g flow to the first GPU work it launched.
    template <typename Sink> void apis(Sink& sink, std::size_t begin, std::size_t end) const {
        for (std::size_t i = begin; i < end; ++i) {
            const wire::Api& a = c.m_apis[i];
            const std::int64_t tid = std::int64_t(a.tid);
            sink.slice(a.driver ? Cat::Driver : Cat::Runtime, captureName(a.name), a.pid, tid, a.start, a.end,
                       externalOf.find(a.correlation), a.correlation, [&](auto& out) {
                           out.raw(", \"cbid\": ");
                           out.num(a.cbid);
                       });
            if (const GpuStart* g = gpuStart.find(a.correlation)) {
                const Name ac2g{"ac2g", fixedSlot(ac2gSlot)};
                sink.flow(true, ac2g, a.pid, tid, a.start, a.correlation);
                sink.flow(false, ac2g, g->device, g->stream, g->start, a.correlation);
            }
        }
    }

    // NVTX ranges and marks.
    template <typename Sink> void markers(Sink& sink) const {
        for (const wire::Marker& m : c.m_markers) {
            if (m.end > m.start)
                sink.annotation(captureName(m.name), m.pid, std::int64_t(m.tid), m.start, m.end);
            else
                sink.mark(captureName(m.name), m.pid, std::int64_t(m.tid), m.start);
        }
    }
};

} // namespace kinetoscope::live
