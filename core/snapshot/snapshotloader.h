#pragma once

// Opens a CUDA memory snapshot (`.pickle`, `.pickle.gz`): the safe pickle reader, then the snapshot model.
// Every layout real files use is read: the dict of `segments` and `device_traces` (with or without `time_us`,
// `allocator_settings`, `external_annotations`) and the old bare list of segments.

#include "memorysnapshot.h"

#include <atomic>
#include <memory>
#include <string>
#include <string_view>

namespace kinetoscope {

// A file cut short or damaged after its start opens with what was read before the fault (a partial
// snapshot, MemorySnapshot::partial): `snapshot` is set and `error` says where and why the read stopped. When
// nothing usable came before the fault (no segment, no event), only the error is given.
struct SnapshotLoadResult {
    std::shared_ptr<const MemorySnapshot> snapshot; // null on failure
    std::string error;                              // one line, without the file name
    std::uint64_t errorOffset = 0;
    bool errorHasOffset = false;
    double seconds = 0;

    bool ok() const { return snapshot != nullptr; }
    // "FILE: byte N: reason" (or "FILE: reason").
    std::string message(const std::string& path) const;
};

struct SnapshotLoadOptions {
    // Read only this many bytes of the (inflated) pickle, the rest as if the file ended there: a preview of a
    // large file (MemorySnapshot::partial); 0 reads it all.
    std::uint64_t stopAtBytes = 0;
    // Once set, the load stops within a few milliseconds with the error "cancelled" and no snapshot.
    const std::atomic<bool>* cancel = nullptr;
};

SnapshotLoadResult loadSnapshot(const std::string& path, const SnapshotLoadOptions& options = {});
// The same from bytes in memory (tests, fuzzing); `name` stands for the file.
SnapshotLoadResult loadSnapshotBytes(std::string_view bytes, const std::string& name = "<memory>",
                                     const SnapshotLoadOptions& options = {});

// Whether the file starts as a pickle of protocol 2 to 5 does (its PROTO opcode), plain or gzip-compressed.
bool isPickleFile(const std::string& path);

} // namespace kinetoscope
