// kinetoscope-bench-sql TRACE [OUT.db]
//
// SQL over a loaded trace (issue 62), in process: the load, then each question of the issue timed on the
// loaded trace (the best of 5 runs, after one that warms the report's tables), then `export --sqlite` into
// OUT.db (a temporary file beside the trace by default, removed after) with each table's time, and the ratio
// of the export to the load. bench/sql_bench.sh runs DuckDB beside it.
#include "open/opentrace.h"
#include "sql/tracedatabase.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>

using namespace kinetoscope;

namespace {
double seconds(std::chrono::steady_clock::time_point since) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count();
}
} // namespace

int main(int argc, char** argv) {
    if (argc < 2) {
        std::fprintf(stderr, "usage: kinetoscope-bench-sql TRACE [OUT.db]\n");
        return 2;
    }
    const std::string out = argc > 2 ? argv[2] : std::string(argv[1]) + ".bench.db";
    auto started = std::chrono::steady_clock::now();
    LoadResult loaded = loadTrace(argv[1]);
    if (!loaded.ok()) {
        std::fprintf(stderr, "%s\n", loaded.message(argv[1]).c_str());
        return 1;
    }
    const double load = seconds(started);
    const TraceStore& store = *loaded.store;
    std::printf("load: %.3f s, %zu slices\n", load, store.sliceCount());
    sql::TraceDatabase db(store);
    const TimeNs span = store.maxTime() - store.minTime();
    const std::string lo = std::to_string(store.minTime() + span * 45 / 100);
    const std::string hi = std::to_string(store.minTime() + span * 55 / 100);
    const std::pair<const char*, std::string> questions[] = {
        {"window count (ts BETWEEN, the middle tenth)",
         "SELECT count(*) FROM slice WHERE ts BETWEEN " + lo + " AND " + hi},
        {"window count of one track",
         "SELECT count(*) FROM slice WHERE track_id = 0 AND ts BETWEEN " + lo + " AND " + hi},
        {"kernel time by name (slice, category)", "SELECT name, count(*), sum(dur) FROM slice WHERE category "
                                                  "= 'kernel' GROUP BY name ORDER BY 3 DESC"},
        {"kernel time by name (kernel table)",
         "SELECT name, count(*), sum(dur) FROM kernel GROUP BY name ORDER BY 3 DESC"},
        {"operators (report table, first read computes it)", "SELECT count(*) FROM operators"},
        {"slice by id", "SELECT name FROM slice WHERE id = " + std::to_string(store.sliceCount() / 2)},
    };
    for (const auto& [title, sql] : questions) {
        started = std::chrono::steady_clock::now();
        const sql::QueryResult first = db.query(sql);
        const double cold = seconds(started);
        if (!first.ok()) {
            std::fprintf(stderr, "%s: %s\n", title, first.error.c_str());
            return 1;
        }
        double best = 1e30;
        for (int i = 0; i < 5; ++i) {
            started = std::chrono::steady_clock::now();
            db.query(sql);
            best = std::min(best, seconds(started));
        }
        std::printf("%-52s %9.3f ms (first %9.3f ms), %zu rows\n", title, best * 1e3, cold * 1e3,
                    first.rows.size());
    }
    // An OUT.db left by an earlier run is removed before the clock starts: the export renames its file over
    // the target, and the file system's freeing of a 1.3 GB file it replaces (ext4 mounted with `discard`
    // here) took 0.5-0.9 s, the file system's work, not the export's.
    std::remove(out.c_str());
    started = std::chrono::steady_clock::now();
    std::string current;
    auto tableStart = started;
    const auto tableEnded = [&] {
        if (!current.empty()) std::printf("  export %-22s %7.2f s\n", current.c_str(), seconds(tableStart));
        tableStart = std::chrono::steady_clock::now();
    };
    const sql::ExportResult exported =
        db.exportSqlite(out, [&](const std::string& table, std::uint64_t rows) {
            if (rows == 0) {
                tableEnded();
                current = table;
            }
            return true;
        });
    tableEnded();
    const double exportSeconds = seconds(started);
    if (!exported.ok()) {
        std::fprintf(stderr, "export: %s\n", exported.error.c_str());
        return 1;
    }
    std::uint64_t rows = 0;
    for (const auto& [table, count] : exported.tables)
        rows += count;
    std::printf("export --sqlite: %.2f s, %llu rows: %.1fx the load\n", exportSeconds,
                static_cast<unsigned long long>(rows), exportSeconds / load);
    if (argc <= 2) std::remove(out.c_str());
    return 0;
}
