#include "import/rpdimport.h"

#include "import/sqlitetrace.h"

#include <map>
#include <unordered_map>

namespace kinetoscope {

using namespace sqlitetrace;

namespace {

// rocpd_op's opType, as Kineto's categories and names for ROCm's GPU work.
struct OpKind {
    const char* category;
    std::string name; // empty: the op's description (a kernel's name)
};
OpKind kindOf(const std::string& type) {
    if (type == "KernelExecution") return {"kernel", {}};
    if (type == "CopyHostToDevice") return {"gpu_memcpy", "Memcpy HtoD"};
    if (type == "CopyDeviceToHost") return {"gpu_memcpy", "Memcpy DtoH"};
    if (type == "CopyDeviceToDevice") return {"gpu_memcpy", "Memcpy DtoD"};
    if (type == "CopyHostToHost") return {"gpu_memcpy", "Memcpy HtoH"};
    if (type.rfind("Copy", 0) == 0) return {"gpu_memcpy", "Memcpy " + type.substr(4)};
    if (type == "FillBuffer") return {"gpu_memset", "Memset (Device)"};
    if (type.rfind("Barrier", 0) == 0 || type.rfind("Marker", 0) == 0) return {"cuda_sync", type};
    return {"gpu_op", type};
}

} // namespace

ConvertedTrace rpdToKinetoJson(const std::string& path) {
    ConvertedTrace out;
    ReadOnlyDatabase db(path);
    if (!db.ok()) {
        out.error = "SQLite: " + db.error();
        return out;
    }
    std::unordered_map<std::int64_t, std::string> strings;
    db.each("SELECT id, string FROM rocpd_string",
            [&](sqlite3_stmt* s) { strings[sqlite3_column_int64(s, 0)] = ReadOnlyDatabase::text(s, 1); });
    const auto string = [&](sqlite3_stmt* s, int c) -> std::string {
        const auto it = strings.find(sqlite3_column_int64(s, c));
        return it == strings.end() ? std::string() : it->second;
    };
    // Each GPU op's launching call (the first, where a call launched several ops or an op has several calls).
    std::unordered_map<std::int64_t, std::int64_t> callOfOp;
    if (db.has("rocpd_api_ops"))
        db.each("SELECT op_id, min(api_id) FROM rocpd_api_ops GROUP BY op_id",
                [&](sqlite3_stmt* s) { callOfOp[sqlite3_column_int64(s, 0)] = sqlite3_column_int64(s, 1); });
    struct Launch {
        std::int64_t grid[3], block[3];
        std::string stream;
    };
    std::unordered_map<std::int64_t, Launch> launches; // by call id
    if (db.has("rocpd_kernelapi"))
        db.each("SELECT api_ptr_id, gridX, gridY, gridZ, workgroupX, workgroupY, workgroupZ, stream FROM "
                "rocpd_kernelapi",
                [&](sqlite3_stmt* s) {
                    Launch& l = launches[sqlite3_column_int64(s, 0)];
                    for (int i = 0; i < 3; ++i) {
                        l.grid[i] = sqlite3_column_int64(s, 1 + i);
                        l.block[i] = sqlite3_column_int64(s, 4 + i);
                    }
                    l.stream = ReadOnlyDatabase::text(s, 7);
                });
    std::unordered_map<std::int64_t, std::int64_t> copyBytes; // by call id
    if (db.has("rocpd_copyapi"))
        db.each("SELECT api_ptr_id, size FROM rocpd_copyapi",
                [&](sqlite3_stmt* s) { copyBytes[sqlite3_column_int64(s, 0)] = sqlite3_column_int64(s, 1); });

    Writer writer;
    JsonWriter<std::string>& w = writer.w();
    w.beginObject({"", ",\n", ""});
    w.numField("schemaVersion", 1);
    w.strField("displayTimeUnit", "ns");
    w.key("traceEvents");
    w.beginArray({"\n", ",\n", "\n"});
    struct Call {
        std::int64_t pid, tid, ts;
    };
    std::unordered_map<std::int64_t, Call> calls;
    std::map<std::int64_t, bool> pids;
    db.each("SELECT id, pid, tid, start, end, apiName_id FROM rocpd_api", [&](sqlite3_stmt* s) {
        const std::int64_t id = sqlite3_column_int64(s, 0), pid = sqlite3_column_int64(s, 1),
                           tid = sqlite3_column_int64(s, 2), start = sqlite3_column_int64(s, 3);
        calls[id] = {pid, tid, start};
        pids[pid] = true;
        writer.begin('X', "cuda_runtime", string(s, 5), pid, tid, start);
        writer.dur(sqlite3_column_int64(s, 4) - start);
        w.key("args");
        w.beginObject();
        w.numField("correlation", id);
        w.endObject();
        w.endObject();
    });
    std::map<std::int64_t, bool> gpus;
    std::uint64_t unknownOps = 0;
    db.each("SELECT id, gpuId, queueId, start, end, description_id, opType_id FROM rocpd_op",
            [&](sqlite3_stmt* s) {
                const std::int64_t op = sqlite3_column_int64(s, 0), gpu = sqlite3_column_int64(s, 1),
                                   queue = sqlite3_column_int64(s, 2), start = sqlite3_column_int64(s, 3);
                const OpKind kind = kindOf(string(s, 6));
                if (std::string_view(kind.category) == "gpu_op") ++unknownOps;
                gpus[gpu] = true;
                const auto call = callOfOp.find(op);
                writer.begin('X', kind.category, kind.name.empty() ? string(s, 5) : kind.name, gpu, queue,
                             start);
                writer.dur(sqlite3_column_int64(s, 4) - start);
                w.key("args");
                w.beginObject();
                w.numField("device", gpu);
                w.numField("stream", queue);
                if (call != callOfOp.end()) {
                    w.numField("correlation", call->second);
                    if (const auto l = launches.find(call->second); l != launches.end()) {
                        for (const auto& [key, values] :
                             {std::pair{"grid", l->second.grid}, std::pair{"block", l->second.block}}) {
                            w.key(key);
                            w.beginArray();
                            for (int i = 0; i < 3; ++i)
                                w.num(values[i]);
                            w.endArray();
                        }
                        w.strField("hip stream", l->second.stream);
                    }
                    if (const auto b = copyBytes.find(call->second); b != copyBytes.end())
                        w.numField("bytes", b->second);
                }
                w.endObject();
                w.endObject();
                if (call != callOfOp.end())
                    if (const auto c = calls.find(call->second); c != calls.end()) {
                        writer.flow('s', call->second, c->second.pid, c->second.tid, c->second.ts);
                        writer.flow('f', call->second, gpu, queue, start);
                    }
            });
    if (unknownOps)
        out.skipped.push_back("rocpd_op: " + std::to_string(unknownOps) + " ops of a type we do not know");
    const auto meta = [&](std::int64_t pid, const std::string& name) {
        writer.begin('M', "", "process_name", pid, 0, 0);
        w.key("args");
        w.beginObject();
        w.strField("name", name);
        w.endObject();
        w.endObject();
    };
    for (const auto& [gpu, _] : gpus)
        meta(gpu, "GPU " + std::to_string(gpu));
    w.endArray();
    if (!db.error().empty()) {
        out.error = "SQLite: " + db.error();
        return out;
    }
    w.endObject();
    out.json = std::move(writer.text());
    return out;
}

} // namespace kinetoscope
