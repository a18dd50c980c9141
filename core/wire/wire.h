#pragma once

// The live-capture record stream (DESIGN.md "Live capture"): a magic + version header, then length-prefixed
// records, strings defined once and referred to by id. Written by the capture agent (no Qt), read by the
// viewer and kinetoscope-cli. Every field is fixed-width little-endian, so encoding and decoding are a few
// stores and loads per record (the goal is millions of records a second); the decoder treats every byte as
// hostile.

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
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

using Record =
    std::variant<StringDef, Kernel, Memcpy, Memset, Api, Sync, Marker, ExternalCorrelation, Device, Dropped>;

// Appends a stream to a byte buffer. Strings are interned: each distinct text is sent once.
class Encoder {
  public:
    Encoder();
    // The header (written by the constructor) plus everything since; take() hands it over and starts a new
    // batch (without a header: a stream has one).
    std::string take();
    const std::string& buffer() const { return m_out; }
    StringRef string(std::string_view text);
    void add(const Record& record);

  private:
    std::string m_out;
    std::unordered_map<std::string, StringRef> m_strings;
};

// Reads a stream fed in pieces of any size. Records go to the callback as they complete; strings are resolved
// by the decoder (the callback sees StringDef records too). On corrupt input it stops with an error naming
// the byte offset; unknown record types (from a newer agent) are skipped and counted.
class Decoder {
  public:
    using Sink = std::function<void(const Record&)>;
    explicit Decoder(Sink sink);
    // False once the stream is corrupt (see error()).
    bool feed(std::string_view bytes);
    // At the end of the stream: true when it ended on a record boundary.
    bool finish();
    const std::string& error() const { return m_error; }
    std::uint64_t errorOffset() const { return m_errorOffset; }
    std::uint64_t recordsDecoded() const { return m_records; }
    std::uint64_t unknownSkipped() const { return m_unknown; }
    std::uint64_t bytesConsumed() const { return m_consumed; }
    // Stream offset of the record being handed to the sink (valid inside the callback).
    std::uint64_t recordOffset() const { return m_recordOffset; }
    std::string_view stringOf(StringRef id) const;

  private:
    bool fail(std::uint64_t offset, std::string reason);
    bool decodeOne(RecordType type, std::string_view payload, std::uint64_t offset);
    Sink m_sink;
    std::string m_pending;
    bool m_haveHeader = false;
    std::uint64_t m_consumed = 0; // stream offset of m_pending's first byte
    std::string m_error;
    std::uint64_t m_errorOffset = 0;
    std::uint64_t m_records = 0;
    std::uint64_t m_unknown = 0;
    std::uint64_t m_recordOffset = 0;
    std::vector<std::string> m_strings; // by id
};

} // namespace kinetoscope::wire
