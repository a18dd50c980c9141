#pragma once

// rocm-profile-data's `.rpd` SQLite files (ROCm's tracer before rocprofv3, issue 63 part 3) read as a trace,
// as nsysimport.h reads Nsight's exports: read-only, by column names, into Kineto's events for the one
// importer (docs/FORMATS.md):
//   rocpd_op (KernelExecution, Copy*, FillBuffer, Barrier*) -> kernel, gpu_memcpy, gpu_memset, cuda_sync on
//   the
//                                                             GPU's queue (pid gpuId, tid queueId)
//   rocpd_api                                              -> cuda_runtime (HIP, HSA) calls on their threads
//   rocpd_api_ops                                          -> launch -> GPU work, as Kineto's correlation ids
//   rocpd_kernelapi                                        -> a kernel's grid and workgroup (block), its
//   stream rocpd_copyapi                                          -> a copy's bytes

#include "import/kinetoevents.h"

#include <string>

namespace kinetoscope {

ConvertedTrace rpdToKinetoJson(const std::string& path);

// rocprofv3's `rocpd` databases (ROCm 7; tables with a uuid suffix under plain-named views), the same way:
//   rocpd_kernel_dispatch  -> kernel on its GPU's queue (pid the GPU's index, tid the queue), named by its
//   symbol,
//                             with grid, workgroup (block), LDS (shared memory) and its HIP stream
//   rocpd_memory_copy      -> gpu_memcpy ("Memcpy HtoD" by the agents' types), with its bytes
//   rocpd_region           -> HIP calls (cuda_runtime), HSA calls (cuda_driver), markers (user_annotation)
//   rocpd_event            -> a call and the GPU work it launched share a correlation id (when the tool wrote
//   one) rocpd_info_agent       -> the GPUs' names; rocpd_info_thread / _process -> names
ConvertedTrace rocpdToKinetoJson(const std::string& path);

} // namespace kinetoscope
