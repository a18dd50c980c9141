#pragma once

// Perfetto's protobuf traces (`.pftrace`, `.perfetto-trace`; raw or gzip, issue 63 part 2) read as a trace:
// through Debian's protobuf library (the subset of Perfetto's messages in perfettotrace.proto, compiled by
// protoc), one packet at a time. TrackEvents become Kineto's events for the one JSON importer
// (docs/FORMATS.md):
//   TrackDescriptor            -> a thread's track (pid, tid, names), a process's, a counter's, or a custom
//                                 track (its own lane under its process, named as the descriptor names it)
//   TYPE_SLICE_BEGIN / _END    -> a slice, paired on its track in time order (a writer may emit every begin
//   of
//                                 a group, then every end); begins and ends that do not pair are counted
//   TYPE_INSTANT, TYPE_COUNTER -> an instant, a counter sample
//   interned data              -> names, categories, annotation names and string values, per packet sequence,
//                                 dropped when the sequence clears its incremental state
//   debug annotations          -> args; flow ids and terminating flow ids -> flows between the events

#include "import/kinetoevents.h"

#include <string_view>

namespace kinetoscope {

// Whether text (a file's bytes, inflated) starts as a Perfetto trace: a `packet` field (1, length-delimited).
bool looksLikePerfettoTrace(std::string_view text);

ConvertedTrace perfettoToKinetoJson(std::string_view trace);

} // namespace kinetoscope
