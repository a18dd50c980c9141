#include "import/rpdimport.h"

#include "import/sqlitetrace.h"

#include <map>
#include <set>
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

// rocpd_string, the strings both ROCm databases name things by.
class RocpdStrings {
  public:
    explicit RocpdStrings(ReadOnlyDatabase& db) {
        db.each("SELECT id, string FROM rocpd_string", [&](sqlite3_stmt* s) {
            m_strings[sqlite3_column_int64(s, 0)] = ReadOnlyDatabase::text(s, 1);
        });
    }
    std::string of(std::int64_t id) const {
        const auto it = m_strings.find(id);
        return it == m_strings.end() ? std::string() : it->second;
    }

  private:
    std::unordered_map<std::int64_t, std::string> m_strings;
};

} // namespace

ConvertedTrace rpdToKinetoJson(const std::string& path) {
    ConvertedTrace out;
    ReadOnlyDatabase db(path);
    if (!db.ok()) {
        out.error = "SQLite: " + db.error();
        return out;
    }
    const RocpdStrings strings(db);
    const auto string = [&](sqlite3_stmt* s, int c) { return strings.of(sqlite3_column_int64(s, c)); };
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
    writer.beginTrace();
    writer.beginEvents();
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
    for (const auto& [gpu, _] : gpus)
        writer.metadata("process_name", gpu, 0, "GPU " + std::to_string(gpu));
    if (!db.error().empty()) {
        out.error = "SQLite: " + db.error();
        return out;
    }
    out.json = writer.finish();
    return out;
}

ConvertedTrace rocpdToKinetoJson(const std::string& path) {
    ConvertedTrace out;
    ReadOnlyDatabase db(path);
    if (!db.ok()) {
        out.error = "SQLite: " + db.error();
        return out;
    }
    const RocpdStrings strings(db);
    const auto string = [&](sqlite3_stmt* s, int c) { return strings.of(sqlite3_column_int64(s, c)); };
    // Agents: a GPU by its index among the GPUs (the device number users know), a CPU as the host.
    struct Agent {
        bool gpu = false;
        std::int64_t index = 0;
        std::string name;
    };
    std::unordered_map<std::int64_t, Agent> agents;
    if (db.has("rocpd_info_agent"))
        db.each("SELECT id, type, type_index, coalesce(product_name, name) FROM rocpd_info_agent",
                [&](sqlite3_stmt* s) {
                    agents[sqlite3_column_int64(s, 0)] = {ReadOnlyDatabase::text(s, 1) == "GPU",
                                                          sqlite3_column_int64(s, 2),
                                                          ReadOnlyDatabase::text(s, 3)};
                });
    std::unordered_map<std::int64_t, std::string> symbols;
    if (db.has("rocpd_info_kernel_symbol"))
        db.each("SELECT id, display_name, kernel_name FROM rocpd_info_kernel_symbol", [&](sqlite3_stmt* s) {
            std::string name = ReadOnlyDatabase::text(s, 1);
            if (name.empty()) {
                name = ReadOnlyDatabase::text(s, 2);
                if (name.size() > 3 && name.compare(name.size() - 3, 3, ".kd") == 0)
                    name.resize(name.size() - 3);
            }
            symbols[sqlite3_column_int64(s, 0)] = std::move(name);
        });
    // Correlation ids by event (0: none written).
    std::unordered_map<std::int64_t, std::int64_t> correlationOfEvent;
    std::unordered_map<std::int64_t, std::string> categoryOfEvent;
    if (db.has("rocpd_event"))
        db.each("SELECT id, correlation_id, category_id FROM rocpd_event", [&](sqlite3_stmt* s) {
            if (sqlite3_column_int64(s, 1) != 0)
                correlationOfEvent[sqlite3_column_int64(s, 0)] = sqlite3_column_int64(s, 1);
            categoryOfEvent[sqlite3_column_int64(s, 0)] = string(s, 2);
        });

    Writer writer;
    JsonWriter<std::string>& w = writer.w();
    writer.beginTrace();
    w.key("deviceProperties");
    w.beginArray();
    std::map<std::int64_t, std::string> gpus;
    for (const auto& [id, a] : agents)
        if (a.gpu) gpus[a.index] = a.name;
    for (const auto& [index, name] : gpus) {
        w.beginObject();
        w.numField("id", index);
        w.strField("name", name);
        w.endObject();
    }
    w.endArray();
    writer.beginEvents();
    struct Call {
        std::int64_t pid, tid, ts;
    };
    std::unordered_map<std::int64_t, Call> calls; // by correlation id
    std::set<std::pair<std::int64_t, std::int64_t>> threads;
    if (db.has("rocpd_region"))
        db.each("SELECT pid, tid, start, end, name_id, event_id FROM rocpd_region", [&](sqlite3_stmt* s) {
            const std::int64_t pid = sqlite3_column_int64(s, 0), tid = sqlite3_column_int64(s, 1),
                               start = sqlite3_column_int64(s, 2), event = sqlite3_column_int64(s, 5);
            const std::string& category = categoryOfEvent[event];
            const char* cat =
                category.find("MARKER") != std::string::npos || category.find("ROCTX") != std::string::npos
                    ? "user_annotation"
                : category.rfind("HSA", 0) == 0 ? "cuda_driver"
                                                : "cuda_runtime";
            threads.insert({pid, tid});
            writer.begin('X', cat, string(s, 4), pid, tid, start);
            writer.dur(sqlite3_column_int64(s, 3) - start);
            if (const auto c = correlationOfEvent.find(event); c != correlationOfEvent.end()) {
                calls[c->second] = {pid, tid, start};
                w.key("args");
                w.beginObject();
                w.numField("correlation", c->second);
                w.endObject();
            }
            w.endObject();
        });
    std::set<std::int64_t> devices;
    std::uint64_t unlinked = 0;
    const auto gpuWork = [&](const char* cat, const std::string& name, std::int64_t agent, std::int64_t queue,
                             std::int64_t start, std::int64_t end, std::int64_t event,
                             const std::function<void()>& args) {
        const auto a = agents.find(agent);
        const std::int64_t device = a != agents.end() ? a->second.index : agent;
        devices.insert(device);
        writer.begin('X', cat, name, device, queue, start);
        writer.dur(end - start);
        w.key("args");
        w.beginObject();
        w.numField("device", device);
        const auto c = correlationOfEvent.find(event);
        if (c != correlationOfEvent.end()) w.numField("correlation", c->second);
        args();
        w.endObject();
        w.endObject();
        const auto call = c != correlationOfEvent.end() ? calls.find(c->second) : calls.end();
        if (call == calls.end()) {
            ++unlinked;
            return;
        }
        writer.flow('s', c->second, call->second.pid, call->second.tid, call->second.ts);
        writer.flow('f', c->second, device, queue, start);
    };
    if (db.has("rocpd_kernel_dispatch"))
        db.each("SELECT agent_id, queue_id, stream_id, start, end, kernel_id, event_id, grid_size_x, "
                "grid_size_y, "
                "grid_size_z, workgroup_size_x, workgroup_size_y, workgroup_size_z, group_segment_size FROM "
                "rocpd_kernel_dispatch",
                [&](sqlite3_stmt* s) {
                    gpuWork(
                        "kernel", symbols[sqlite3_column_int64(s, 5)], sqlite3_column_int64(s, 0),
                        sqlite3_column_int64(s, 1), sqlite3_column_int64(s, 3), sqlite3_column_int64(s, 4),
                        sqlite3_column_int64(s, 6), [&] {
                            w.numField("stream", sqlite3_column_int64(s, 2));
                            for (const auto& [key, first] : {std::pair{"grid", 7}, std::pair{"block", 10}}) {
                                w.key(key);
                                w.beginArray();
                                for (int i = 0; i < 3; ++i)
                                    w.num(sqlite3_column_int64(s, first + i));
                                w.endArray();
                            }
                            w.numField("shared memory", sqlite3_column_int64(s, 13));
                        });
                });
    if (db.has("rocpd_memory_copy"))
        db.each("SELECT dst_agent_id, src_agent_id, queue_id, stream_id, start, end, event_id, size FROM "
                "rocpd_memory_copy",
                [&](sqlite3_stmt* s) {
                    const auto side = [&](int c) {
                        const auto a = agents.find(sqlite3_column_int64(s, c));
                        return a != agents.end() && a->second.gpu ? 'D' : 'H';
                    };
                    const std::string name = std::string("Memcpy ") + side(1) + "to" + side(0);
                    // A copy runs on its destination GPU (the source's when it goes to the host).
                    const int on = side(0) == 'D' ? 0 : 1;
                    gpuWork("gpu_memcpy", name, sqlite3_column_int64(s, on), sqlite3_column_int64(s, 2),
                            sqlite3_column_int64(s, 4), sqlite3_column_int64(s, 5),
                            sqlite3_column_int64(s, 6),
                            [&] { w.numField("bytes", sqlite3_column_int64(s, 7)); });
                });
    if (unlinked && calls.empty())
        out.skipped.push_back(
            "rocpd_event: no correlation ids, so GPU work is not linked to the calls that launched it");
    const auto meta = [&](const char* what, std::int64_t pid, std::int64_t tid, const std::string& name) {
        writer.metadata(what, pid, tid, name);
    };
    for (std::int64_t device : devices)
        meta("process_name", device, 0, "GPU " + std::to_string(device));
    if (db.has("rocpd_info_process"))
        db.each("SELECT pid, command FROM rocpd_info_process", [&](sqlite3_stmt* s) {
            if (!isNull(s, 1))
                meta("process_name", sqlite3_column_int64(s, 0), 0, ReadOnlyDatabase::text(s, 1));
        });
    if (db.has("rocpd_info_thread"))
        db.each("SELECT pid, tid, name FROM rocpd_info_thread", [&](sqlite3_stmt* s) {
            const std::string name = ReadOnlyDatabase::text(s, 2);
            if (!name.empty())
                meta("thread_name", sqlite3_column_int64(s, 0), sqlite3_column_int64(s, 1), name);
        });
    if (!db.error().empty()) {
        out.error = "SQLite: " + db.error();
        return out;
    }
    out.json = writer.finish();
    return out;
}

} // namespace kinetoscope
