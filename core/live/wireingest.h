#pragma once

#include "livecapture.h"
#include "wire/wire.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kinetoscope::live {

// Decodes one wire stream (one connection, or one spool file) into a capture. Each stream numbers its strings
// on its own (a target that forks connects once per process), so ids are mapped into the capture's space as
// they arrive.
class WireIngest {
  public:
    explicit WireIngest(CaptureRecords& into);
    WireIngest(const WireIngest&) = delete;
    WireIngest& operator=(const WireIngest&) = delete;
    // False once the stream is corrupt (see error()).
    bool feed(std::string_view bytes);
    // At the end of the stream: true when it ended on a record boundary.
    bool finish();
    const std::string& error() const { return m_decoder.error(); }
    std::uint64_t errorOffset() const { return m_decoder.errorOffset(); }
    // Stream offset of the first record rejected for impossible times, if any was.
    std::optional<std::uint64_t> firstRejectedOffset() const { return m_firstRejected; }

  private:
    void add(const wire::Record& record);
    std::optional<std::uint64_t> m_firstRejected;
    wire::StringRef map(wire::StringRef id) const { return id < m_remap.size() ? m_remap[id] : 0; }
    CaptureRecords& m_into;
    std::vector<wire::StringRef> m_remap;
    wire::Decoder m_decoder;
};

} // namespace kinetoscope::live
