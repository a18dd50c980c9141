#pragma once

// A smaller Kineto trace of a time range (issue 64: `kinetoscope-cli trim`, the viewer's File › Export
// Range): every top-level key kept as it was (device properties, distributedInfo, baseTimeNanoseconds...),
// every metadata event, every event that overlaps the range kept whole as the file wrote it (a B/E pair by
// the range its pair spans), each counter's last sample before the range (so its lane starts at the right
// value), and a flow only when every one of its points binds to a slice that is kept. The output is JSON
// every reader of Kineto traces opens (ours, TensorBoard's, HTA, Perfetto), gzip-compressed when its name
// ends in .gz, written beside and renamed into place.

#include "model/timeconv.h"

#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

namespace kinetoscope {

struct TrimOptions {
    TimeNs from = 0, to = 0;        // the range on the trace's clock, in ns (to > from)
    std::vector<std::int64_t> pids; // only these processes' events (every process when empty)
    const std::atomic<bool>* cancel = nullptr;
};

struct TrimResult {
    std::string error; // one line naming the file (and byte); empty when OUT was written
    std::uint64_t eventsRead = 0, eventsKept = 0;
    std::uint64_t flowsKept = 0, flowsDropped = 0; // flows (by id) whole in the range, and cut by it
    bool ok() const { return error.empty(); }
};

TrimResult trimTrace(const std::string& inputPath, const std::string& outputPath, const TrimOptions& options);

} // namespace kinetoscope
