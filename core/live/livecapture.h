#pragma once

// The viewer's side of live capture: the records of one capture as they arrive from the agent (or from a
// spool file), kept compactly, and turned into a Kineto-compatible trace: as JSON text for Capture > Save and
// `kinetoscope-cli record`, and as a TraceStore for the timeline and tables. The store is built straight from
// the records (no JSON in between), from the same walk over the events as the JSON, so what the viewer shows
// live is what a saved capture reopens as (tst_capture compares the two, store against store).

#include "appendonly.h"
#include "import/traceloader.h"
#include "wire/wire.h"

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace kinetoscope::live {

struct CaptureCounts {
    std::uint64_t records = 0; // every decoded record, strings included
    std::uint64_t kernels = 0, memcpys = 0, memsets = 0, apis = 0, syncs = 0, markers = 0;
    std::uint64_t dropped = 0;  // records the agent reported it could not deliver
    std::uint64_t rejected = 0; // records with impossible times (see CaptureRecords::maxTime), skipped
    std::uint64_t bytes = 0;    // wire bytes received
};

// Every record of one capture, with strings in one id space. Copyable (cheaply: the records' blocks are
// shared), so the viewer can snapshot it under a short lock and build the trace from the copy while more
// records arrive.
class CaptureRecords {
  public:
    // Names must already be in this capture's id space (see WireIngest). A record whose start or end lies
    // outside [0, maxTime] ns is counted as rejected and skipped: GPU clocks count ns since the epoch
    // (~2^60.6 today), and the bound keeps every difference the trace is built from within int64 (the stream
    // is untrusted input).
    void add(const wire::Record& record);
    static constexpr std::int64_t maxTime = std::int64_t(1) << 62;
    wire::StringRef intern(std::string_view text);

    const CaptureCounts& counts() const { return m_counts; }
    CaptureCounts& counts() { return m_counts; }
    // GPU and runtime events captured so far (kernels, memcpy, memset, API calls, syncs, markers).
    std::uint64_t eventCount() const;
    std::string_view string(wire::StringRef id) const;

    // Labels the target's process in the saved trace ("python train.py").
    void setProcessName(std::uint32_t pid, std::string name) { m_processNames[pid] = std::move(name); }

    // A Kineto trace: X events for GPU work (pid = device, tid = stream) and API calls (pid/tid of the
    // caller), ac2g flows from each launch to its GPU work, NVTX ranges as user annotations,
    // deviceProperties, and times relative to baseTimeNanoseconds with three decimals (exact ns).
    std::string toTraceJson() const;
    // The store the viewer shows: what loading that JSON gives, built without writing or parsing it.
    // `adjustStats` adds what the caller knows about the input (a spool's size, cut, rejected records) to the
    // store's import statistics before the store is sealed.
    LoadResult buildStore(const LoadOptions& options = {},
                          const std::function<void(ImportStats&)>& adjustStats = {}) const;

    const AppendOnly<wire::Kernel>& kernels() const { return m_kernels; }
    // What the agent said of the capture (why it is off, what it lacks), in order.
    const std::vector<std::string>& notices() const { return m_notices; }

  private:
    struct Walk;                                       // the capture as trace events, for both of the above
    std::vector<std::string> m_strings{std::string()}; // by StringRef; 0 is the empty string
    std::unordered_map<std::string, wire::StringRef> m_stringIds;
    AppendOnly<wire::Kernel> m_kernels;
    AppendOnly<wire::Memcpy> m_memcpys;
    AppendOnly<wire::Memset> m_memsets;
    AppendOnly<wire::Api> m_apis;
    AppendOnly<wire::Sync> m_syncs;
    AppendOnly<wire::Marker> m_markers;
    AppendOnly<wire::ExternalCorrelation> m_externals;
    std::vector<wire::Device> m_devices;
    std::map<std::uint32_t, std::string> m_processNames;
    std::vector<std::string> m_notices;
    CaptureCounts m_counts;
};

// True when `head` starts with the wire stream's magic: a spool file or a saved raw capture.
bool isWireStream(std::string_view head);

// Loads a wire stream already in memory (the loader routes spool files here). `file`, when the stream was
// read from a file: what reading it found (its size on disk, gzip, a gzip stream cut short: the capture ends
// there) and when the read began (the load time counts from it).
LoadResult loadWireStream(std::string_view bytes, const LoadOptions& options = {},
                          const TraceText* file = nullptr);

// Reads a spool file (the whole stream the agent wrote). A stream cut short by a crash loads every whole
// record before the cut: `truncated` says so and `error` names the byte offset.
struct SpoolRead {
    CaptureRecords capture;
    bool ok = false; // false: the file could not be read at all (error says why)
    bool truncated = false;
    std::string error; // one line
    std::uint64_t errorOffset = 0;
};
SpoolRead readSpool(const std::string& path);

} // namespace kinetoscope::live
