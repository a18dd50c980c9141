#pragma once

// The agent's writer: encodes records into the wire format and ships each batch to the spool file
// (everything, so a crash of either side loses nothing already captured) and to the viewer's socket (without
// ever blocking: when the viewer falls behind or goes away the batch is dropped there and counted, and the
// target runs on at full speed).

#include "activitysource.h"
#include "wire/encoder.h"

#include <chrono>
#include <cstdint>
#include <string>

namespace kinetoscope::capture {

class AgentWriter final : public RecordSink {
  public:
    struct Options {
        std::string socketPath; // KINETOSCOPE_SOCKET; empty: spool only
        std::string spoolPath;  // KINETOSCOPE_SPOOL; empty: socket only
        std::size_t socketBacklogLimit = 64u
                                         << 20; // bytes queued for a slow viewer before batches are dropped
    };
    struct Stats {
        std::uint64_t recordsEncoded = 0;
        std::uint64_t recordsDroppedForSocket = 0; // the viewer could not keep up, or went away
        std::uint64_t bytesSent = 0;
        std::uint64_t bytesSpooled = 0;
        bool socketConnected = false;
        bool socketLost = false;
        bool spoolFailed = false;
    };

    AgentWriter() = default;
    ~AgentWriter() override;
    AgentWriter(const AgentWriter&) = delete;
    AgentWriter& operator=(const AgentWriter&) = delete;

    // Connects and opens; false (with a one-line reason) only when neither destination could be opened.
    bool open(const Options& options, std::string& error);

    wire::StringRef string(std::string_view text) override { return m_encoder.string(text); }
    void add(const wire::Record& record) override;

    // Ships what was emitted since the last call.
    void ship();
    // At exit: ships, then gives the viewer up to `linger` to take the socket backlog, and closes both.
    void close(std::chrono::milliseconds linger);

    const Stats& stats() const { return m_stats; }

  private:
    static constexpr std::size_t shipBytes = 1u << 18;
    void sendBacklog();
    void dropForSocket(std::string_view batch);

    wire::Encoder m_encoder;
    bool m_headerPending = true;
    int m_socket = -1;
    int m_spool = -1;
    std::size_t m_backlogLimit = 0;
    std::string m_backlog; // bytes the socket has not taken yet
    std::size_t m_backlogSent = 0;
    Stats m_stats;
};

// The String records of an encoded batch (everything else in it is what a drop discards), and how many other
// records it held. Exposed for tests.
std::string stringRecordsOf(std::string_view batch, std::uint64_t& otherRecords);

} // namespace kinetoscope::capture
