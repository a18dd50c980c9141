#pragma once

// Nsight Systems' SQLite export (`nsys export --type sqlite`, issue 63) read as a trace: through Debian's
// SQLite, read-only (the file opened immutable, never written), by column names so that an export of a schema
// we have not seen still reads what it has. Its events become Kineto's, as a Kineto trace of the same run
// would hold them, and the one JSON importer builds the store from them, so that every panel, analysis and
// table reads an export as it reads Kineto's JSON (docs/FORMATS.md):
//   CUPTI_ACTIVITY_KIND_KERNEL      -> kernel on the GPU's stream (pid the device, tid the stream), with its
//                                      launch figures as Kineto writes them (grid, block, registers, shared
//                                      memory)
//   _MEMCPY, _MEMSET                -> gpu_memcpy ("Memcpy HtoD"), gpu_memset, with their bytes
//   _SYNCHRONIZATION                -> cuda_sync on the stream
//   _RUNTIME (and _DRIVER)          -> cuda_runtime / cuda_driver on their threads (globalTid: pid and tid),
//   the
//                                      "_v7000" version suffix dropped; launch -> GPU work flows by
//                                      correlationId
//   NVTX_EVENTS                     -> ranges (push/pop, start/end) and marks on their threads: emit_nvtx's
//                                      "aten::add, seq = 3" as the operator aten::add, the others as
//                                      annotations
//   OSRT_API                        -> os_runtime calls on their threads, when the export has them
//   PROCESSES, ThreadNames          -> process and thread names (of the threads that have events)
//   TARGET_INFO_GPU                 -> device properties (SMs, memory, compute capability, warps per SM)

#include "import/kinetoevents.h"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kinetoscope {

// The export as Kineto's JSON; `skipped` says what it could not read ("NVTX_EVENTS: 3 ranges without an
// end").
ConvertedTrace nsightToKinetoJson(const std::string& path);

} // namespace kinetoscope
