#pragma once

// A loaded trace as the wire stream a capture of it would have produced, for replay: the capture agent plays
// the stream back (capture/replaysource) and needs nothing but the wire format, so the trace is converted
// here, on the viewer's or the CLI's side, before the target starts.

#include "model/tracestore.h"

#include <string>

namespace kinetoscope::live {

// The trace's GPU and runtime events as the records CUPTI would deliver: kernels, memcpy, memset, runtime and
// driver calls (each after its External id), syncs, user annotations as NVTX ranges, and the devices first.
// Records are in the order CUPTI delivers completed work: by end time.
std::string traceAsWireStream(const TraceStore& store);

// The replay input for `path`: a wire stream (spool or raw capture) as it is, a Kineto trace converted. False
// with a one-line reason naming the file when it cannot be read.
bool replayStreamFor(const std::string& path, std::string& stream, std::string& error);

} // namespace kinetoscope::live
