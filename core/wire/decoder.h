#pragma once

#include "records.h"

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace kinetoscope::wire {

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
