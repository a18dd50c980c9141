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

#include <string>
#include <vector>

namespace kinetoscope {

struct ConvertedTrace {
    std::string json;                 // Kineto's trace of the database's events
    std::vector<std::string> skipped; // what it could not read
    std::string error;                // why nothing was read (empty when json holds the trace)
};
ConvertedTrace rpdToKinetoJson(const std::string& path);

} // namespace kinetoscope
