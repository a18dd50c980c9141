#pragma once

// The live-capture record stream (DESIGN.md "Live capture"): a magic + version header, then length-prefixed
// records, strings defined once and referred to by id. Written by the capture agent (no Qt), read by the
// viewer and kinetoscope-cli. Every field is fixed-width little-endian, so encoding and decoding are a few
// stores and loads per record (the goal is millions of records a second); the decoder treats every byte as
// hostile.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace kinetoscope::wire {

constexpr char magic[4] = {'K', 'S', 'C', 'W'};
constexpr std::uint16_t version = 1;
constexpr std::size_t headerSize = 8;          // magic, version (u16), flags (u16)
constexpr std::size_t recordHeaderSize = 5;    // type (u8), payload length (u32)
constexpr std::uint32_t maxPayload = 1u << 20; // longer payloads are refused as corrupt

enum class RecordType : std::uint8_t {
    String = 1,
    Kernel = 2,
    Memcpy = 3,
    Memset = 4,
    Api = 5,
    Sync = 6,
    Marker = 7,
    ExternalCorrelation = 8,
    Device = 9,
    Dropped = 10,
    Notice = 11,
};

using StringRef = std::uint32_t; // id of a String record

struct StringDef {
    StringRef id = 0;
    std::string text;
};
struct Kernel {
    std::uint32_t device = 0, stream = 0;
    std::uint64_t correlation = 0;
    std::int64_t start = 0, end = 0; // ns
    StringRef name = 0;
    std::uint32_t grid[3] = {1, 1, 1}, block[3] = {1, 1, 1};
    std::uint32_t registers = 0, staticShared = 0, dynamicShared = 0;
};
struct Memcpy {
    std::uint32_t device = 0, stream = 0;
    std::uint64_t correlation = 0;
    std::int64_t start = 0, end = 0;
    std::uint8_t kind = 0; // CUPTI memcpy kind (1 HtoD, 2 DtoH, 8 DtoD, ...)
    std::uint64_t bytes = 0;
};
struct Memset {
    std::uint32_t device = 0, stream = 0;
    std::uint64_t correlation = 0;
    std::int64_t start = 0, end = 0;
    std::uint64_t bytes = 0;
};
struct Api {
    std::uint8_t driver = 0; // 0 runtime, 1 driver
    std::uint32_t cbid = 0;
    StringRef name = 0;
    std::uint64_t correlation = 0;
    std::uint32_t pid = 0;
    std::uint64_t tid = 0;
    std::int64_t start = 0, end = 0;
};
struct Sync {
    std::uint32_t device = 0, stream = 0;
    std::uint8_t kind = 0;
    std::uint64_t correlation = 0;
    std::int64_t start = 0, end = 0;
};
struct Marker { // an NVTX range (end > start) or mark (end == start)
    StringRef name = 0;
    std::uint32_t pid = 0;
    std::uint64_t tid = 0;
    std::int64_t start = 0, end = 0;
};
struct ExternalCorrelation {
    std::uint64_t correlation = 0, externalId = 0;
};
struct Device {
    std::uint32_t id = 0;
    StringRef name = 0;
    std::uint64_t totalGlobalMem = 0;
    std::uint32_t computeMajor = 0, computeMinor = 0, numSms = 0, maxThreadsPerSm = 0, warpSize = 0;
};
struct Dropped {
    std::uint64_t records = 0;
}; // the agent dropped records (viewer too slow or gone)
struct Notice {
    StringRef text = 0;
}; // what the agent has to say of the capture: why it is off (CUPTI failed to start), what it lacks

using Record = std::variant<StringDef, Kernel, Memcpy, Memset, Api, Sync, Marker, ExternalCorrelation, Device,
                            Dropped, Notice>;

// A record's type on the wire: its alternative in Record, counted from 1.
constexpr RecordType typeOf(const Record& r) {
    return RecordType(r.index() + 1);
}

} // namespace kinetoscope::wire
