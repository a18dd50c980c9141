#pragma once

// The seam between where GPU activity comes from and the agent that ships it (DESIGN.md "Live capture"). Two
// implementations: CUPTI (cuptisource.cpp, built when CMake finds CUDA::cupti) and replay (replaysource.cpp),
// which plays a Kineto trace back so every machine without a GPU can run the whole pipeline.
//
// Threading contract: the target's own threads (and CUPTI's callbacks) never do more than hand data over;
// drain() runs on the agent's writer thread, which converts what is ready into wire records and emits them.
// Nothing here may block the target: when a source runs out of room it drops and counts.

#include "cuptisettings.h"
#include "recordsink.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace kinetoscope::capture {

class ActivitySource {
  public:
    virtual ~ActivitySource() = default;
    // Starts collecting. On failure returns false with a one-line reason; the agent then stays inert.
    virtual bool start(std::string& error) = 0;
    // Asks for whatever has completed so far to become drainable (CUPTI: cuptiActivityFlushAll). Called by
    // the writer thread every flush period; `final` at exit forces out incomplete buffers too.
    virtual void flush(bool final) = 0;
    // Converts everything ready into records. Writer thread only.
    virtual void drain(RecordSink& sink) = 0;
    // Stops collecting (after a final flush and drain the agent calls it once).
    virtual void stop() = 0;
    // Records the source had to drop since the last call (no buffer free, queue full).
    virtual std::uint64_t takeDropped() = 0;
    // What the capture lacks although it started (an activity kind the driver refused), each a line the
    // agent ships to the viewer as a notice; empty by default.
    virtual std::vector<std::string> takeNotices() { return {}; }
    // Replay only: true once every record of the trace was handed over. CUPTI never finishes on its own.
    virtual bool finished() const { return false; }
    virtual const char* kind() const = 0;
};

// CUPTI source; null when the agent was built without CUPTI.
std::unique_ptr<ActivitySource> makeCuptiSource(const CuptiSettings& settings);

} // namespace kinetoscope::capture
