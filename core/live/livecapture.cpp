#include "livecapture.h"

#include "../analysis/summaryformat.h"

#include <algorithm>
#include <charconv>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cerrno>
#include <cstring>
#include <unordered_map>

namespace kinetoscope::live {

wire::StringRef CaptureRecords::intern(std::string_view text) {
    auto [it, inserted] = m_stringIds.try_emplace(std::string(text), wire::StringRef(m_strings.size()));
    if (inserted) m_strings.emplace_back(text);
    return it->second;
}

void CaptureRecords::add(const wire::Record& record) {
    ++m_counts.records;
    std::visit([&](const auto& r) {
        using T = std::decay_t<decltype(r)>;
        if constexpr (std::is_same_v<T, wire::StringDef>) {
            (void)intern(r.text);
        } else if constexpr (std::is_same_v<T, wire::Kernel>) {
            m_kernels.push_back(r), ++m_counts.kernels;
        } else if constexpr (std::is_same_v<T, wire::Memcpy>) {
            m_memcpys.push_back(r), ++m_counts.memcpys;
        } else if constexpr (std::is_same_v<T, wire::Memset>) {
            m_memsets.push_back(r), ++m_counts.memsets;
        } else if constexpr (std::is_same_v<T, wire::Api>) {
            m_apis.push_back(r), ++m_counts.apis;
        } else if constexpr (std::is_same_v<T, wire::Sync>) {
            m_syncs.push_back(r), ++m_counts.syncs;
        } else if constexpr (std::is_same_v<T, wire::Marker>) {
            m_markers.push_back(r), ++m_counts.markers;
        } else if constexpr (std::is_same_v<T, wire::ExternalCorrelation>) {
            m_externals.push_back(r);
        } else if constexpr (std::is_same_v<T, wire::Device>) {
            // A context created again on a device repeats its properties: keep one entry per device.
            auto it = std::find_if(m_devices.begin(), m_devices.end(), [&](const wire::Device& d) { return d.id == r.id; });
            if (it == m_devices.end()) m_devices.push_back(r);
            else *it = r;
        } else if constexpr (std::is_same_v<T, wire::Dropped>) {
            m_counts.dropped += r.records;
        }
    }, record);
}

std::uint64_t CaptureRecords::eventCount() const {
    return m_kernels.size() + m_memcpys.size() + m_memsets.size() + m_apis.size() + m_syncs.size() + m_markers.size();
}

std::string_view CaptureRecords::string(wire::StringRef id) const {
    return id < m_strings.size() ? std::string_view(m_strings[id]) : std::string_view();
}

WireIngest::WireIngest(CaptureRecords& into)
    : m_into(into), m_decoder([this](const wire::Record& r) { add(r); }) {}

bool WireIngest::feed(std::string_view bytes) {
    m_into.counts().bytes += bytes.size();
    return m_decoder.feed(bytes);
}

bool WireIngest::finish() { return m_decoder.finish(); }

void WireIngest::add(const wire::Record& record) {
    std::visit([&](auto r) {
        using T = std::decay_t<decltype(r)>;
        if constexpr (std::is_same_v<T, wire::StringDef>) {
            if (r.id >= m_remap.size()) m_remap.resize(std::size_t(r.id) + 1, 0);
            m_remap[r.id] = m_into.intern(r.text);
            m_into.add(r);
        } else {
            if constexpr (std::is_same_v<T, wire::Kernel> || std::is_same_v<T, wire::Api> ||
                          std::is_same_v<T, wire::Marker> || std::is_same_v<T, wire::Device>)
                r.name = map(r.name);
            m_into.add(r);
        }
    }, record);
}

namespace {

// Appends JSON text; numbers through to_chars (the writer runs once per saved event and on every live refresh).
struct JsonOut {
    std::string& s;
    void raw(std::string_view v) { s.append(v); }
    template <typename Int>
    void num(Int v) {
        char b[24];
        s.append(b, std::to_chars(b, b + sizeof b, v).ptr);
    }
    // ns as µs with three decimals: exact, the way current Kineto writes ts and dur.
    void micros(std::int64_t ns) {
        if (ns < 0) {
            s += '-';
            ns = -ns;
        }
        num(ns / 1000);
        const int frac = int(ns % 1000);
        const char digits[4] = {char('.'), char('0' + frac / 100), char('0' + frac / 10 % 10), char('0' + frac % 10)};
        s.append(digits, 4);
    }
    void str(std::string_view v) {
        s += '"';
        if (std::none_of(v.begin(), v.end(), [](char c) { return c == '"' || c == '\\' || static_cast<unsigned char>(c) < 0x20; }))
            s.append(v);
        else
            s.append(jsonEscape(v));
        s += '"';
    }
};

const char* memcpyKindName(std::uint8_t kind) {
    // CUpti_ActivityMemcpyKind.
    static const char* const names[] = {"Memcpy", "Memcpy HtoD", "Memcpy DtoH", "Memcpy HtoA", "Memcpy AtoH",
                                        "Memcpy AtoA", "Memcpy AtoD", "Memcpy DtoA", "Memcpy DtoD", "Memcpy HtoH",
                                        "Memcpy PtoP"};
    return kind < std::size(names) ? names[kind] : "Memcpy";
}

const char* syncKindName(std::uint8_t kind) {
    // CUpti_ActivitySynchronizationType, named as Kineto names them.
    static const char* const names[] = {"Sync", "Event Sync", "Stream Wait Event", "Stream Sync", "Context Sync"};
    return kind < std::size(names) ? names[kind] : "Sync";
}

} // namespace

std::string CaptureRecords::toTraceJson() const {
    std::int64_t minStart = INT64_MAX;
    auto low = [&](std::int64_t t) { minStart = std::min(minStart, t); };
    for (const auto& k : m_kernels) low(k.start);
    for (const auto& m : m_memcpys) low(m.start);
    for (const auto& m : m_memsets) low(m.start);
    for (const auto& a : m_apis) low(a.start);
    for (const auto& s : m_syncs) low(s.start);
    for (const auto& m : m_markers) low(m.start);
    if (minStart == INT64_MAX) minStart = 0;
    // Times relative to a whole second, as Kineto writes them since 2024: short numbers, exact ns.
    constexpr std::int64_t second = 1'000'000'000;
    const std::int64_t base = minStart >= 0 ? minStart / second * second : (minStart - second + 1) / second * second;

    std::unordered_map<std::uint64_t, std::uint64_t> externalOf;
    externalOf.reserve(m_externals.size());
    for (const auto& e : m_externals) externalOf[e.correlation] = e.externalId;
    std::unordered_map<std::uint32_t, const wire::Device*> deviceById;
    for (const auto& d : m_devices) deviceById[d.id] = &d;

    std::string text;
    text.reserve(std::size_t(eventCount()) * 220 + 4096);
    JsonOut out{text};
    out.raw("{\n  \"schemaVersion\": 1,\n  \"traceName\": \"kinetoscope live capture\",\n  \"displayTimeUnit\": \"ms\",\n");
    out.raw("  \"baseTimeNanoseconds\": ");
    out.num(base);
    out.raw(",\n  \"kinetoscopeCapture\": {\"records\": ");
    out.num(m_counts.records);
    out.raw(", \"dropped\": ");
    out.num(m_counts.dropped);
    out.raw("},\n  \"deviceProperties\": [");
    for (std::size_t i = 0; i < m_devices.size(); ++i) {
        const wire::Device& d = m_devices[i];
        out.raw(i ? ",\n    {\"id\": " : "\n    {\"id\": ");
        out.num(d.id);
        out.raw(", \"name\": ");
        out.str(string(d.name));
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
    out.raw(m_devices.empty() ? "],\n  \"traceEvents\": [\n" : "\n  ],\n  \"traceEvents\": [\n");

    bool first = true;
    auto begin = [&](const char* ph, const char* cat, std::string_view name, auto pid, auto tid, std::int64_t ts) {
        out.raw(first ? "    {\"ph\": \"" : ",\n    {\"ph\": \"");
        first = false;
        out.raw(ph);
        out.raw("\", \"cat\": \"");
        out.raw(cat);
        out.raw("\", \"name\": ");
        out.str(name);
        out.raw(", \"pid\": ");
        out.num(pid);
        out.raw(", \"tid\": ");
        out.num(tid);
        out.raw(", \"ts\": ");
        out.micros(ts - base);
    };
    auto complete = [&](const char* cat, std::string_view name, auto pid, auto tid, std::int64_t start, std::int64_t end) {
        begin("X", cat, name, pid, tid, start);
        out.raw(", \"dur\": ");
        out.micros(std::max<std::int64_t>(0, end - start));
    };
    auto ids = [&](std::uint64_t correlation) {
        if (auto it = externalOf.find(correlation); it != externalOf.end()) {
            out.raw("\"External id\": ");
            out.num(it->second);
            out.raw(", ");
        }
        out.raw("\"correlation\": ");
        out.num(correlation);
    };

    // Process and stream names, so the lanes read as Kineto's do.
    std::vector<std::pair<std::uint32_t, std::uint32_t>> streams;
    for (const auto& k : m_kernels) streams.emplace_back(k.device, k.stream);
    for (const auto& m : m_memcpys) streams.emplace_back(m.device, m.stream);
    for (const auto& m : m_memsets) streams.emplace_back(m.device, m.stream);
    for (const auto& s : m_syncs) streams.emplace_back(s.device, s.stream);
    std::sort(streams.begin(), streams.end());
    streams.erase(std::unique(streams.begin(), streams.end()), streams.end());
    std::uint32_t lastDevice = UINT32_MAX;
    for (const auto& [device, stream] : streams) {
        if (device != lastDevice) {
            lastDevice = device;
            begin("M", "__metadata", "process_name", device, 0, minStart);
            out.raw(", \"args\": {\"name\": ");
            out.str("GPU " + std::to_string(device));
            out.raw("}}");
        }
        begin("M", "__metadata", "thread_name", device, stream, minStart);
        out.raw(", \"args\": {\"name\": ");
        out.str("stream " + std::to_string(stream));
        out.raw("}}");
    }
    for (const auto& [pid, name] : m_processNames) {
        begin("M", "__metadata", "process_name", pid, 0, minStart);
        out.raw(", \"args\": {\"name\": ");
        out.str(name);
        out.raw("}}");
    }

    // Every GPU event: the X event on its device/stream lane, and the args Kineto starts with.
    auto gpuEvent = [&](const char* cat, std::string_view name, std::uint32_t device, std::uint32_t stream,
                        std::int64_t start, std::int64_t end, std::uint64_t correlation) {
        complete(cat, name, device, stream, start, end);
        out.raw(", \"args\": {");
        ids(correlation);
        out.raw(", \"device\": ");
        out.num(device);
        out.raw(", \"stream\": ");
        out.num(stream);
    };
    for (const wire::Kernel& k : m_kernels) {
        gpuEvent("kernel", string(k.name), k.device, k.stream, k.start, k.end, k.correlation);
        out.raw(", \"registers per thread\": ");
        out.num(k.registers);
        out.raw(", \"shared memory\": ");
        out.num(std::uint64_t(k.staticShared) + k.dynamicShared);
        const std::uint64_t blocks = std::uint64_t(k.grid[0]) * k.grid[1] * k.grid[2];
        if (auto it = deviceById.find(k.device); it != deviceById.end() && it->second->numSms > 0) {
            // Kineto's launch-shape estimates, which the occupancy and SM-efficiency figures read.
            const double sms = it->second->numSms;
            const std::uint64_t threads = std::uint64_t(k.block[0]) * k.block[1] * k.block[2];
            const std::uint32_t warp = it->second->warpSize ? it->second->warpSize : 32;
            char b[64];
            out.raw(", \"blocks per SM\": ");
            out.raw(std::string_view(b, std::snprintf(b, sizeof b, "%.6g", double(blocks) / sms)));
            out.raw(", \"warps per SM\": ");
            out.raw(std::string_view(b, std::snprintf(b, sizeof b, "%.6g", double(blocks * ((threads + warp - 1) / warp)) / sms)));
        }
        out.raw(", \"grid\": [");
        out.num(k.grid[0]), out.raw(", "), out.num(k.grid[1]), out.raw(", "), out.num(k.grid[2]);
        out.raw("], \"block\": [");
        out.num(k.block[0]), out.raw(", "), out.num(k.block[1]), out.raw(", "), out.num(k.block[2]);
        out.raw("]}}");
    }
    auto bytesArgs = [&](std::uint64_t bytes, std::int64_t start, std::int64_t end) {
        out.raw(", \"bytes\": ");
        out.num(bytes);
        if (end > start) {
            char b[48];
            out.raw(", \"memory bandwidth (GB/s)\": ");
            out.raw(std::string_view(b, std::snprintf(b, sizeof b, "%.6g", double(bytes) / double(end - start))));
        }
        out.raw("}}");
    };
    for (const wire::Memcpy& m : m_memcpys) {
        gpuEvent("gpu_memcpy", memcpyKindName(m.kind), m.device, m.stream, m.start, m.end, m.correlation);
        bytesArgs(m.bytes, m.start, m.end);
    }
    for (const wire::Memset& m : m_memsets) {
        gpuEvent("gpu_memset", "Memset (Device)", m.device, m.stream, m.start, m.end, m.correlation);
        bytesArgs(m.bytes, m.start, m.end);
    }
    for (const wire::Sync& s : m_syncs) {
        complete("cuda_sync", syncKindName(s.kind), s.device, s.stream, s.start, s.end);
        out.raw(", \"args\": {");
        ids(s.correlation);
        out.raw(", \"device\": ");
        out.num(s.device);
        out.raw(", \"stream\": ");
        out.num(std::int64_t(std::int32_t(s.stream))); // CUPTI writes -1 for "no stream" (context sync)
        out.raw("}}");
    }

    // Launch -> GPU work flows, one per correlation that reached the GPU.
    std::unordered_map<std::uint64_t, std::pair<std::uint32_t, std::uint32_t>> gpuByCorrelation; // -> device, stream
    std::unordered_map<std::uint64_t, std::int64_t> gpuStartByCorrelation;
    gpuByCorrelation.reserve(m_kernels.size() + m_memcpys.size() + m_memsets.size());
    auto noteGpu = [&](std::uint64_t c, std::uint32_t device, std::uint32_t stream, std::int64_t start) {
        // A launch of several kernels (a graph) links to its first.
        auto [it, inserted] = gpuStartByCorrelation.try_emplace(c, start);
        if (inserted || start < it->second) {
            it->second = start;
            gpuByCorrelation[c] = {device, stream};
        }
    };
    for (const auto& k : m_kernels) noteGpu(k.correlation, k.device, k.stream, k.start);
    for (const auto& m : m_memcpys) noteGpu(m.correlation, m.device, m.stream, m.start);
    for (const auto& m : m_memsets) noteGpu(m.correlation, m.device, m.stream, m.start);

    for (const wire::Api& a : m_apis) {
        complete(a.driver ? "cuda_driver" : "cuda_runtime", string(a.name), a.pid, a.tid, a.start, a.end);
        out.raw(", \"args\": {");
        ids(a.correlation);
        out.raw(", \"cbid\": ");
        out.num(a.cbid);
        out.raw("}}");
        if (auto it = gpuByCorrelation.find(a.correlation); it != gpuByCorrelation.end()) {
            begin("s", "ac2g", "ac2g", a.pid, a.tid, a.start);
            out.raw(", \"id\": ");
            out.num(a.correlation);
            out.raw("}");
            begin("f", "ac2g", "ac2g", it->second.first, it->second.second, gpuStartByCorrelation[a.correlation]);
            out.raw(", \"id\": ");
            out.num(a.correlation);
            out.raw(", \"bp\": \"e\"}");
        }
    }
    for (const wire::Marker& m : m_markers) {
        if (m.end > m.start) {
            complete("user_annotation", string(m.name), m.pid, m.tid, m.start, m.end);
            out.raw("}");
        } else {
            begin("i", "user_annotation", string(m.name), m.pid, m.tid, m.start);
            out.raw(", \"s\": \"t\"}");
        }
    }
    out.raw("\n  ]\n}\n");
    return text;
}

LoadResult CaptureRecords::buildStore(const LoadOptions& options) const {
    return loadTraceText(toTraceJson(), options);
}

bool isWireStream(std::string_view head) {
    return head.size() >= sizeof wire::magic && std::memcmp(head.data(), wire::magic, sizeof wire::magic) == 0;
}

namespace {
struct WireLoad {
    CaptureRecords capture;
    bool truncated = false;
    std::string error;
    std::uint64_t errorOffset = 0;
};

WireLoad decodeAll(std::string_view bytes) {
    WireLoad w;
    WireIngest ingest(w.capture);
    // Fed in pieces, as a socket would deliver it.
    constexpr std::size_t piece = 1 << 20;
    bool ok = true;
    for (std::size_t at = 0; ok && at < bytes.size(); at += piece) ok = ingest.feed(bytes.substr(at, piece));
    if (ok) ok = ingest.finish();
    if (!ok) {
        w.truncated = true;
        w.error = ingest.error();
        w.errorOffset = ingest.errorOffset();
    }
    return w;
}
} // namespace

LoadResult loadWireStream(std::string_view bytes, const LoadOptions& options) {
    WireLoad w = decodeAll(bytes);
    // A stream with no whole record at all is not a capture: say why, as for any unreadable file.
    if (w.truncated && w.capture.counts().records == 0) {
        LoadResult r;
        r.error = "not a readable capture stream: " + w.error;
        r.errorOffset = w.errorOffset;
        r.errorHasOffset = true;
        return r;
    }
    LoadResult r = w.capture.buildStore(options);
    if (r.store) {
        ImportStats& stats = r.store->stats;
        stats.fileBytes = stats.jsonBytes = bytes.size();
        if (w.truncated) {
            // A crashed target or viewer: every whole record before the cut is loaded.
            stats.truncated = true;
            stats.truncatedAt = w.errorOffset;
            stats.issues.insert(stats.issues.begin(), {w.errorOffset, "capture stream: " + w.error});
            if (stats.issues.size() > ImportStats::maxReportedIssues) stats.issues.pop_back();
        }
    }
    return r;
}

SpoolRead readSpool(const std::string& path) {
    SpoolRead out;
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        out.error = std::strerror(errno);
        return out;
    }
    std::string bytes;
    char buffer[1 << 16];
    for (;;) {
        const ssize_t n = ::read(fd, buffer, sizeof buffer);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        bytes.append(buffer, std::size_t(n));
    }
    ::close(fd);
    WireLoad w = decodeAll(bytes);
    out.capture = std::move(w.capture);
    out.ok = true;
    out.truncated = w.truncated;
    out.error = w.error;
    out.errorOffset = w.errorOffset;
    return out;
}

} // namespace kinetoscope::live
