#include "import/nsysimport.h"

#include "import/sqlitetrace.h"

#include <sqlite3.h>

#include <cstdint>
#include <cstring>
#include <functional>
#include <map>
#include <set>
#include <unordered_map>

namespace kinetoscope {

namespace {

using namespace sqlitetrace;

// globalTid / globalPid: Nsight's serialized ids hold the pid in bits 24..47 and the tid in bits 0..23.
std::int64_t pidOf(std::int64_t global) {
    return (global >> 24) & 0xFFFFFF;
}
std::int64_t tidOf(std::int64_t global) {
    return global & 0xFFFFFF;
}

// CUPTI's memcpy kinds (CUpti_ActivityMemcpyKind), as Kineto names them in "Memcpy HtoD".
const char* copyKindName(std::int64_t kind) {
    static const char* const names[] = {"Unknown", "HtoD", "DtoH", "HtoA", "AtoH", "AtoA",
                                        "AtoD",    "DtoA", "DtoD", "HtoH", "PtoP"};
    return kind >= 0 && kind < std::int64_t(std::size(names)) ? names[kind] : "Unknown";
}

// CUpti_ActivitySynchronizationType, as Kineto names its cuda_sync events.
const char* syncName(std::int64_t type) {
    switch (type) {
    case 1:
        return "Event Sync";
    case 2:
        return "Stream Wait Event";
    case 3:
        return "Stream Sync";
    case 4:
        return "Context Sync";
    default:
        return "Sync";
    }
}

// "cudaLaunchKernel_v7000" -> "cudaLaunchKernel": the API's name as CUPTI's callback names it (and Kineto).
std::string apiName(std::string name) {
    const std::size_t v = name.rfind("_v");
    if (v != std::string::npos && v + 2 < name.size() &&
        name.find_first_not_of("0123456789", v + 2) == std::string::npos)
        name.resize(v);
    return name;
}

} // namespace

ConvertedTrace nsightToKinetoJson(const std::string& path) {
    ConvertedTrace out;
    ReadOnlyDatabase db(path);
    if (!db.ok()) {
        out.error = "SQLite: " + db.error();
        return out;
    }
    std::vector<std::string> strings;
    if (db.has("StringIds"))
        db.each("SELECT id, value FROM StringIds", [&](sqlite3_stmt* s) {
            const std::int64_t id = sqlite3_column_int64(s, 0);
            if (id < 0 || id > 100'000'000) return;
            if (std::size_t(id) >= strings.size()) strings.resize(std::size_t(id) + 1);
            strings[std::size_t(id)] = ReadOnlyDatabase::text(s, 1);
        });
    const auto string = [&](sqlite3_stmt* s, int c) -> std::string {
        if (isNull(s, c)) return {};
        const std::int64_t id = sqlite3_column_int64(s, c);
        return id >= 0 && std::size_t(id) < strings.size() ? strings[std::size_t(id)] : std::string();
    };

    Writer writer;
    JsonWriter<std::string>& w = writer.w();
    writer.beginTrace();
    // The GPUs, as Kineto's deviceProperties.
    w.key("deviceProperties");
    w.beginArray();
    if (db.has("TARGET_INFO_GPU")) {
        const auto c = db.columns("TARGET_INFO_GPU");
        const std::string sql =
            "SELECT " + columnOr(c, "cuDevice", "id") + ", name, " + columnOr(c, "totalMemory", "0") + ", " +
            columnOr(c, "computeMajor", "0") + ", " + columnOr(c, "computeMinor", "0") + ", " +
            columnOr(c, "smCount", "0") + ", " + columnOr(c, "threadsPerWarp", "32") + ", " +
            columnOr(c, "maxWarpsPerSm", "0") + ", " + columnOr(c, "maxShmemPerSm", "0") + ", " +
            columnOr(c, "maxRegistersPerSm", "0") + ", " + columnOr(c, "maxThreadsPerBlock", "0") + ", " +
            columnOr(c, "maxShmemPerBlock", "0") + ", " + columnOr(c, "maxRegistersPerBlock", "0") +
            " FROM TARGET_INFO_GPU ORDER BY 1";
        std::set<std::int64_t> seen;
        db.each(sql, [&](sqlite3_stmt* s) {
            const std::int64_t id = sqlite3_column_int64(s, 0);
            if (!seen.insert(id).second) return; // one row a GPU, whatever the VMs
            w.beginObject();
            w.numField("id", id);
            w.strField("name", ReadOnlyDatabase::text(s, 1));
            w.numField("totalGlobalMem", sqlite3_column_int64(s, 2));
            w.numField("computeMajor", sqlite3_column_int64(s, 3));
            w.numField("computeMinor", sqlite3_column_int64(s, 4));
            w.numField("numSms", sqlite3_column_int64(s, 5));
            w.numField("warpSize", sqlite3_column_int64(s, 6));
            w.numField("maxThreadsPerMultiprocessor",
                       sqlite3_column_int64(s, 7) * sqlite3_column_int64(s, 6));
            w.numField("sharedMemPerMultiprocessor", sqlite3_column_int64(s, 8));
            w.numField("regsPerMultiprocessor", sqlite3_column_int64(s, 9));
            w.numField("maxThreadsPerBlock", sqlite3_column_int64(s, 10));
            w.numField("sharedMemPerBlock", sqlite3_column_int64(s, 11));
            w.numField("regsPerBlock", sqlite3_column_int64(s, 12));
            w.endObject();
        });
    }
    w.endArray();

    writer.beginEvents();
    std::set<std::int64_t> devices;
    std::set<std::pair<std::int64_t, std::int64_t>> threads; // (pid, tid) with events
    // The API calls, by correlation id: where a GPU event's flow starts.
    struct Call {
        std::int64_t pid, tid, ts;
    };
    std::unordered_map<std::int64_t, Call> calls;

    for (const char* table : {"CUPTI_ACTIVITY_KIND_RUNTIME", "CUPTI_ACTIVITY_KIND_DRIVER"}) {
        if (!db.has(table)) continue;
        const auto c = db.columns(table);
        const bool driverTable = std::strcmp(table, "CUPTI_ACTIVITY_KIND_DRIVER") == 0;
        db.each("SELECT start, end, globalTid, " + columnOr(c, "correlationId", "NULL") + ", nameId FROM " +
                    table,
                [&](sqlite3_stmt* s) {
                    const std::int64_t start = sqlite3_column_int64(s, 0), end = sqlite3_column_int64(s, 1);
                    const std::int64_t global = sqlite3_column_int64(s, 2);
                    const std::int64_t pid = pidOf(global), tid = tidOf(global);
                    const std::string name = apiName(string(s, 4));
                    // Driver calls the export keeps among the runtime's (cuKernelGetName) are the driver's.
                    const bool driver =
                        driverTable || (name.rfind("cu", 0) == 0 && name.rfind("cuda", 0) != 0);
                    threads.insert({pid, tid});
                    writer.begin('X', driver ? "cuda_driver" : "cuda_runtime", name, pid, tid, start);
                    writer.dur(end - start);
                    if (!isNull(s, 3)) {
                        const std::int64_t correlation = sqlite3_column_int64(s, 3);
                        w.key("args");
                        w.beginObject();
                        w.numField("correlation", correlation);
                        w.endObject();
                        calls[correlation] = {pid, tid, start};
                    }
                    w.endObject();
                });
    }

    // GPU work: on its device's stream, with the flow from the call that launched it.
    const auto gpuEvent = [&](const char* cat, const std::string& name, std::int64_t device,
                              std::int64_t stream, std::int64_t start, std::int64_t end,
                              std::optional<std::int64_t> correlation, const std::function<void()>& args) {
        devices.insert(device);
        writer.begin('X', cat, name, device, stream, start);
        writer.dur(end - start);
        w.key("args");
        w.beginObject();
        w.numField("device", device);
        w.numField("stream", stream);
        if (correlation) w.numField("correlation", *correlation);
        args();
        w.endObject();
        w.endObject();
        if (correlation)
            if (const auto call = calls.find(*correlation); call != calls.end()) {
                writer.flow('s', *correlation, call->second.pid, call->second.tid, call->second.ts);
                writer.flow('f', *correlation, device, stream, start);
            }
    };
    const auto correlationOf = [](sqlite3_stmt* s, int c) {
        return isNull(s, c) ? std::nullopt : std::optional<std::int64_t>(sqlite3_column_int64(s, c));
    };
    if (db.has("CUPTI_ACTIVITY_KIND_KERNEL")) {
        const auto c = db.columns("CUPTI_ACTIVITY_KIND_KERNEL");
        db.each(
            "SELECT start, end, deviceId, streamId, " + columnOr(c, "correlationId", "NULL") + ", " +
                columnOr(c, "demangledName", "shortName") + ", " + columnOr(c, "registersPerThread", "NULL") +
                ", gridX, gridY, gridZ, blockX, blockY, blockZ, " + columnOr(c, "staticSharedMemory", "0") +
                " + " + columnOr(c, "dynamicSharedMemory", "0") + ", " + columnOr(c, "graphNodeId", "NULL") +
                " FROM CUPTI_ACTIVITY_KIND_KERNEL",
            [&](sqlite3_stmt* s) {
                gpuEvent("kernel", string(s, 5), sqlite3_column_int64(s, 2), sqlite3_column_int64(s, 3),
                         sqlite3_column_int64(s, 0), sqlite3_column_int64(s, 1), correlationOf(s, 4), [&] {
                             if (!isNull(s, 6))
                                 w.numField("registers per thread", sqlite3_column_int64(s, 6));
                             w.numField("shared memory", sqlite3_column_int64(s, 13));
                             for (const auto& [key, first] : {std::pair{"grid", 7}, std::pair{"block", 10}}) {
                                 w.key(key);
                                 w.beginArray();
                                 for (int i = 0; i < 3; ++i)
                                     w.num(sqlite3_column_int64(s, first + i));
                                 w.endArray();
                             }
                             if (!isNull(s, 14)) w.numField("graph node id", sqlite3_column_int64(s, 14));
                         });
            });
    }
    if (db.has("CUPTI_ACTIVITY_KIND_MEMCPY")) {
        const auto c = db.columns("CUPTI_ACTIVITY_KIND_MEMCPY");
        db.each("SELECT start, end, deviceId, streamId, " + columnOr(c, "correlationId", "NULL") +
                    ", bytes, copyKind FROM CUPTI_ACTIVITY_KIND_MEMCPY",
                [&](sqlite3_stmt* s) {
                    const std::int64_t start = sqlite3_column_int64(s, 0), end = sqlite3_column_int64(s, 1);
                    const std::int64_t bytes = sqlite3_column_int64(s, 5);
                    gpuEvent("gpu_memcpy", std::string("Memcpy ") + copyKindName(sqlite3_column_int64(s, 6)),
                             sqlite3_column_int64(s, 2), sqlite3_column_int64(s, 3), start, end,
                             correlationOf(s, 4), [&] {
                                 w.numField("bytes", bytes);
                                 if (end > start)
                                     w.fixedField("memory bandwidth (GB/s)",
                                                  double(bytes) / double(end - start), 3);
                             });
                });
    }
    if (db.has("CUPTI_ACTIVITY_KIND_MEMSET")) {
        const auto c = db.columns("CUPTI_ACTIVITY_KIND_MEMSET");
        db.each("SELECT start, end, deviceId, streamId, " + columnOr(c, "correlationId", "NULL") +
                    ", bytes FROM CUPTI_ACTIVITY_KIND_MEMSET",
                [&](sqlite3_stmt* s) {
                    const std::int64_t start = sqlite3_column_int64(s, 0), end = sqlite3_column_int64(s, 1);
                    const std::int64_t bytes = sqlite3_column_int64(s, 5);
                    gpuEvent("gpu_memset", "Memset (Device)", sqlite3_column_int64(s, 2),
                             sqlite3_column_int64(s, 3), start, end, correlationOf(s, 4),
                             [&] { w.numField("bytes", bytes); });
                });
    }
    if (db.has("CUPTI_ACTIVITY_KIND_SYNCHRONIZATION")) {
        const auto c = db.columns("CUPTI_ACTIVITY_KIND_SYNCHRONIZATION");
        db.each("SELECT start, end, deviceId, streamId, " + columnOr(c, "correlationId", "NULL") +
                    ", syncType FROM CUPTI_ACTIVITY_KIND_SYNCHRONIZATION",
                [&](sqlite3_stmt* s) {
                    const std::int64_t start = sqlite3_column_int64(s, 0), end = sqlite3_column_int64(s, 1);
                    const std::int64_t stream = sqlite3_column_int64(s, 3);
                    // A sync of no stream (a context's, an event's) on tid -1 of the device, as Kineto writes
                    // it.
                    devices.insert(sqlite3_column_int64(s, 2));
                    writer.begin('X', "cuda_sync", syncName(sqlite3_column_int64(s, 5)),
                                 sqlite3_column_int64(s, 2), stream < 0 || stream > 0xFFFFFFF ? -1 : stream,
                                 start);
                    writer.dur(end - start);
                    w.endObject();
                });
    }

    // NVTX: ranges on the thread that opened them, marks as instants.
    std::uint64_t openRanges = 0;
    if (db.has("NVTX_EVENTS")) {
        const auto c = db.columns("NVTX_EVENTS");
        db.each("SELECT start, end, eventType, text, " + columnOr(c, "textId", "NULL") +
                    ", globalTid FROM NVTX_EVENTS WHERE eventType IN (34, 59, 60) AND globalTid IS NOT NULL",
                [&](sqlite3_stmt* s) {
                    std::string name = isNull(s, 3) ? string(s, 4) : ReadOnlyDatabase::text(s, 3);
                    const std::int64_t global = sqlite3_column_int64(s, 5);
                    const std::int64_t pid = pidOf(global), tid = tidOf(global);
                    const std::int64_t start = sqlite3_column_int64(s, 0);
                    const bool mark = sqlite3_column_int64(s, 2) == 34;
                    if (!mark && isNull(s, 1)) {
                        ++openRanges;
                        return;
                    }
                    // emit_nvtx: "aten::addmm, seq = 12, op_id = 7, sizes = [[2, 3], [3]]": the operator, its
                    // sequence number and shapes as its args.
                    std::string extra;
                    const bool op = name.rfind("aten::", 0) == 0;
                    if (const std::size_t comma = name.find(", "); op && comma != std::string::npos) {
                        extra = name.substr(comma + 2);
                        name.resize(comma);
                    }
                    threads.insert({pid, tid});
                    writer.begin(mark ? 'i' : 'X', op ? "cpu_op" : "user_annotation", name, pid, tid, start);
                    if (mark)
                        w.strField("s", "t");
                    else
                        writer.dur(sqlite3_column_int64(s, 1) - start);
                    if (!extra.empty()) {
                        w.key("args");
                        w.beginObject();
                        w.strField("nvtx", extra);
                        if (const std::size_t seq = extra.find("seq = "); seq != std::string::npos)
                            w.numField("Sequence number", std::atoll(extra.c_str() + seq + 6));
                        w.endObject();
                    }
                    w.endObject();
                });
    }
    if (openRanges)
        out.skipped.push_back("NVTX_EVENTS: " + std::to_string(openRanges) + " ranges without an end");
    if (db.has("OSRT_API")) {
        db.each("SELECT start, end, globalTid, nameId FROM OSRT_API", [&](sqlite3_stmt* s) {
            const std::int64_t global = sqlite3_column_int64(s, 2);
            threads.insert({pidOf(global), tidOf(global)});
            writer.begin('X', "os_runtime", string(s, 3), pidOf(global), tidOf(global),
                         sqlite3_column_int64(s, 0));
            writer.dur(sqlite3_column_int64(s, 1) - sqlite3_column_int64(s, 0));
            w.endObject();
        });
    }

    // Names: of the processes and threads that have events, and the GPUs'.
    std::set<std::int64_t> pids;
    for (const auto& [pid, tid] : threads)
        pids.insert(pid);
    const auto meta = [&](const char* what, std::int64_t pid, std::int64_t tid, const std::string& name) {
        writer.metadata(what, pid, tid, name);
    };
    if (db.has("PROCESSES"))
        db.each("SELECT pid, name FROM PROCESSES", [&](sqlite3_stmt* s) {
            const std::int64_t pid = sqlite3_column_int64(s, 0);
            if (pids.count(pid) && !isNull(s, 1)) meta("process_name", pid, 0, ReadOnlyDatabase::text(s, 1));
        });
    if (db.has("ThreadNames"))
        db.each("SELECT globalTid, nameId FROM ThreadNames", [&](sqlite3_stmt* s) {
            const std::int64_t global = sqlite3_column_int64(s, 0);
            if (threads.count({pidOf(global), tidOf(global)}))
                meta("thread_name", pidOf(global), tidOf(global), string(s, 1));
        });
    for (std::int64_t device : devices)
        meta("process_name", device, 0, "GPU " + std::to_string(device));
    if (!db.error().empty()) {
        out.error = "SQLite: " + db.error();
        return out;
    }
    out.json = writer.finish();
    return out;
}

} // namespace kinetoscope
