#include "sql/examplequeries.h"

namespace kinetoscope::sql {

const std::vector<ExampleQuery>& exampleQueries() {
    static const std::vector<ExampleQuery> queries = {
        {"Top kernels by GPU time",
         "SELECT name, count(*) AS calls, sum(dur) / 1e3 AS total_us, avg(dur) / 1e3 AS mean_us,\n"
         "       max(dur) / 1e3 AS longest_us\n"
         "FROM kernel\n"
         "GROUP BY name\n"
         "ORDER BY total_us DESC\n"
         "LIMIT 50"},
        {"Kernels launched under the last annotation",
         "-- Edit the annotation's name to pick another (a record_function range, a ProfilerStep#).\n"
         "WITH a AS (SELECT ts, dur FROM slice WHERE category = 'user_annotation'\n"
         "           ORDER BY ts DESC LIMIT 1)\n"
         "SELECT k.name, count(*) AS calls, sum(k.dur) / 1e3 AS total_us\n"
         "FROM kernel k JOIN slice launch ON launch.id = k.launch_id, a\n"
         "WHERE launch.ts >= a.ts AND launch.ts < a.ts + a.dur\n"
         "GROUP BY k.name\n"
         "ORDER BY total_us DESC"},
        {"Launch gaps over 50 us (GPU idle between kernels)",
         "-- Each gap as a slice (pin it as a track); id is the kernel after the gap.\n"
         "SELECT id, track_id, prev_end AS ts, ts - prev_end AS dur, name AS next_kernel\n"
         "FROM (SELECT id, track_id, name, ts,\n"
         "             lag(ts + dur) OVER (PARTITION BY track_id ORDER BY ts) AS prev_end\n"
         "      FROM kernel)\n"
         "WHERE ts - prev_end > 50000\n"
         "ORDER BY dur DESC\n"
         "LIMIT 500"},
        {"Kernel time per step", "SELECT s.name AS step, s.dur / 1e3 AS step_us, count(k.id) AS kernels,\n"
                                 "       sum(k.dur) / 1e3 AS kernel_us\n"
                                 "FROM step s LEFT JOIN kernel k ON k.ts >= s.ts AND k.ts < s.ts + s.dur\n"
                                 "GROUP BY s.id\n"
                                 "ORDER BY s.id"},
        {"NCCL time per collective kernel",
         "SELECT name, count(*) AS calls, sum(dur) / 1e3 AS total_us, max(dur) / 1e3 AS longest_us\n"
         "FROM kernel\n"
         "WHERE name LIKE '%nccl%' OR name LIKE '%rccl%' OR name LIKE '%all_reduce%'\n"
         "   OR name LIKE '%allgather%' OR name LIKE '%reduce_scatter%'\n"
         "GROUP BY name\n"
         "ORDER BY total_us DESC"},
        {"NCCL kernels that overlap no compute",
         "SELECT c.id, c.ts, c.dur, c.name\n"
         "FROM kernel c\n"
         "WHERE (c.name LIKE '%nccl%' OR c.name LIKE '%rccl%')\n"
         "  AND NOT EXISTS (SELECT 1 FROM kernel k\n"
         "                  WHERE k.device = c.device AND k.id != c.id\n"
         "                    AND k.name NOT LIKE '%nccl%' AND k.name NOT LIKE '%rccl%'\n"
         "                    AND k.ts < c.ts + c.dur AND k.ts + k.dur > c.ts)\n"
         "ORDER BY c.dur DESC"},
        {"Slices in the selection (or the view)",
         "-- :from and :to are the area selection, else the visible range.\n"
         "SELECT s.id, s.ts, s.dur, s.name, s.category, t.name AS track\n"
         "FROM slice s JOIN track t ON t.id = s.track_id\n"
         "WHERE s.ts < :to AND s.ts + s.dur > :from\n"
         "ORDER BY s.dur DESC\n"
         "LIMIT 1000"},
        {"Memory peak per step", "SELECT s.name AS step, m.device_id AS device,\n"
                                 "       max(m.total_allocated) / 1048576.0 AS peak_mib\n"
                                 "FROM step s JOIN memory_event m ON m.ts >= s.ts AND m.ts < s.ts + s.dur\n"
                                 "GROUP BY s.id, m.device_id\n"
                                 "ORDER BY s.id"},
        {"Operators by GPU self time (the Operators table)",
         "SELECT name, count, host_self_us, device_self_us, device_total_us\n"
         "FROM operators\n"
         "ORDER BY device_self_us DESC\n"
         "LIMIT 50"},
        {"Operators by input shape",
         "SELECT name, input_dims, input_types, count(*) AS calls, sum(dur) / 1e3 AS host_us\n"
         "FROM operator\n"
         "WHERE input_dims IS NOT NULL\n"
         "GROUP BY name, input_dims, input_types\n"
         "ORDER BY host_us DESC\n"
         "LIMIT 50"},
        {"Operators with the most GPU time, with their kernels",
         "SELECT op.id, op.ts, op.dur, op.name, count(*) AS kernels, sum(k.dur) / 1e3 AS gpu_us\n"
         "FROM kernel k JOIN slice op ON op.id = k.operator_id\n"
         "GROUP BY op.id\n"
         "ORDER BY gpu_us DESC\n"
         "LIMIT 50"},
        {"Longest launch delays",
         "-- From the end of the launch call to the kernel's start (HTA's launch delay).\n"
         "SELECT k.id, k.ts, k.dur, k.name, (k.ts - (l.ts + l.dur)) / 1e3 AS delay_us\n"
         "FROM kernel k JOIN slice l ON l.id = k.launch_id\n"
         "ORDER BY delay_us DESC\n"
         "LIMIT 100"},
        {"Kernel launch shapes",
         "SELECT name, grid_x, grid_y, grid_z, block_x, block_y, block_z, registers_per_thread,\n"
         "       count(*) AS calls, sum(dur) / 1e3 AS total_us\n"
         "FROM kernel\n"
         "GROUP BY 1, 2, 3, 4, 5, 6, 7, 8\n"
         "ORDER BY total_us DESC\n"
         "LIMIT 50"},
        {"Step-time breakdown (the Overview)", "SELECT substr(key, 14) AS part, value AS us\n"
                                               "FROM summary\n"
                                               "WHERE key LIKE 'breakdown_us.%'"},
    };
    return queries;
}

} // namespace kinetoscope::sql
