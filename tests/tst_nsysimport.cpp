// Nsight Systems' SQLite exports (issue 63, part 1) on the two real ones of ../shared/traces/formats (2022.1,
// schema 2.9, a PyTorch CNN on an RTX 2070 SUPER with emit_nvtx ranges; 2025.6, a PyTorch run on a GB10):
// every kernel, copy, memset and API call of the export is a slice, with the export's times, names and launch
// figures; launches reach their GPU work by correlation id; NVTX ranges nest on their threads; the GPUs'
// properties, thread and process names come along; the analyses, the query layer and the report read it as
// they read Kineto's JSON; the file is never written; a database of no profiler says so.
#include "analysis/ops/summary.h"
#include "open/opentrace.h"
#include "sql/tracedatabase.h"
#include "testsupport.h"

#include <QTemporaryDir>
#include <QTest>

#include <sqlite3.h>

#include <map>

using namespace kinetoscope;

namespace {

const char* const exports[] = {
    "formats/MohanadOdema__DLProf__w_Relu__nsys_profile.sqlite",
    "formats/Navi-AI-Lab__nvllm__benchmarks__nvllm__traces__wo_k_parallel_audit__2026-05-03-parity-gap__"
    "B_harness_grid_4_active__run.sqlite",
};

// Rows of a query on the export itself, as text.
std::vector<std::vector<std::string>> rowsOf(const std::string& path, const std::string& sql) {
    return test::sqliteRows(path, sql);
}

std::size_t countOf(const TraceStore& s, CategoryKind kind) {
    std::size_t n = 0;
    for (const Track& t : s.tracks())
        for (std::uint16_t c : t.categories)
            n += s.categories()[c].kind == kind;
    return n;
}

} // namespace

class TestNsysImport : public QObject {
    Q_OBJECT
  private slots:
    void exportsAreTraces_data();
    void exportsAreTraces();
    void nvtxRangesNest();
    void otherDatabasesSaySo();
};

void TestNsysImport::exportsAreTraces_data() {
    QTest::addColumn<QString>("file");
    for (const char* e : exports)
        QTest::newRow(QString::fromLatin1(e).section(QLatin1Char('/'), -1).left(40).toUtf8().constData())
            << QString::fromLatin1(e);
}

void TestNsysImport::exportsAreTraces() {
    QFETCH(QString, file);
    const std::string path = test::tracePath(file.toUtf8().constData());
    const std::string before = test::readText(path);
    QVERIFY(!before.empty());
    LoadResult r = loadTrace(path);
    QVERIFY2(r.ok(), r.message(path).c_str());
    const TraceStore& s = *r.store;
    QCOMPARE(s.stats().sourceFormat, std::string("nsys_sqlite"));
    QCOMPARE(test::readText(path), before); // read, never written

    // Every kernel, with its time and name; time by name as the export sums it.
    const auto kernels =
        rowsOf(path, "SELECT s.value, count(*), sum(k.end - k.start) FROM CUPTI_ACTIVITY_KIND_KERNEL k "
                     "JOIN StringIds s ON s.id = k.demangledName GROUP BY s.value");
    std::size_t kernelCount = 0;
    std::map<std::string, std::pair<std::uint64_t, TimeNs>> expected;
    for (const auto& row : kernels) {
        expected[row[0]] = {std::stoull(row[1]), std::stoll(row[2])};
        kernelCount += std::stoull(row[1]);
    }
    QVERIFY(kernelCount > 50);
    QCOMPARE(countOf(s, CategoryKind::Kernel), kernelCount);
    const Summary summary = summarize(s);
    QCOMPARE(summary.kernels.size(), expected.size());
    for (const KernelRow& k : summary.kernels) {
        QVERIFY2(expected.count(k.name), k.name.c_str());
        QCOMPARE(k.count, expected[k.name].first);
        QCOMPARE(k.total, expected[k.name].second);
    }
    // API calls, copies, memsets: every row a slice.
    const std::size_t calls =
        std::stoull(rowsOf(path, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_RUNTIME")[0][0]);
    QCOMPARE(countOf(s, CategoryKind::Runtime) + countOf(s, CategoryKind::Driver), calls);
    QCOMPARE(countOf(s, CategoryKind::Memcpy),
             std::size_t(std::stoull(rowsOf(path, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_MEMCPY")[0][0])));
    QCOMPARE(countOf(s, CategoryKind::Memset),
             std::size_t(std::stoull(rowsOf(path, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_MEMSET")[0][0])));

    // Each kernel launched by a call of the export reaches it by correlation id, and the call's name is the
    // export's without its version suffix.
    std::map<std::string, std::string> callOfCorrelation;
    for (const auto& row :
         rowsOf(path, "SELECT r.correlationId, s.value FROM CUPTI_ACTIVITY_KIND_RUNTIME r JOIN "
                      "StringIds s ON s.id = r.nameId WHERE r.correlationId IS NOT NULL"))
        callOfCorrelation[row[0]] = row[1];
    std::size_t launched = 0;
    for (std::uint32_t t = 0; t < s.tracks().size(); ++t)
        for (std::uint32_t i = 0; i < s.tracks()[t].sliceCount(); ++i) {
            const EventRef ref{TrackId(t), EventIndex(i)};
            if (s.categoryOf(ref).kind != CategoryKind::Kernel) continue;
            const auto correlation = s.correlationOf(ref);
            QVERIFY(correlation);
            const auto call = callOfCorrelation.find(std::to_string(*correlation));
            const auto launch = s.launchOf(ref);
            QCOMPARE(launch.has_value(), call != callOfCorrelation.end());
            if (!launch) continue;
            ++launched;
            QVERIFY2(call->second.rfind(std::string(s.nameOf(*launch)), 0) == 0, call->second.c_str());
            QVERIFY(!s.flowsInto(ref).empty()); // drawn as an arrow from the call
        }
    QCOMPARE(launched, kernelCount);

    // The GPUs' properties, for the roofline and occupancy.
    const auto gpus =
        rowsOf(path, "SELECT DISTINCT id, name, smCount, computeMajor, computeMinor FROM TARGET_INFO_GPU");
    QCOMPARE(s.metadata().devices.size(), gpus.size());
    QCOMPARE(s.metadata().devices[0].name, gpus[0][1]);
    QCOMPARE(s.metadata().devices[0].numSms, std::stoll(gpus[0][2]));
    QCOMPARE(s.metadata().devices[0].computeMajor, std::stoll(gpus[0][3]));
    // Threads with events are named as the export names them (the Python thread).
    bool python = false;
    for (const Track& t : s.tracks())
        python = python || (t.kind == TrackKind::CpuThread &&
                            s.strings().view(t.name).find("python") != std::string_view::npos);
    QVERIFY(python);

    // The query layer reads it as it reads a Kineto trace.
    sql::TraceDatabase db(s);
    const sql::QueryResult k = db.query("SELECT count(*), count(launch_id), sum(grid_x > 0) FROM kernel");
    QVERIFY2(k.ok(), k.error.c_str());
    QCOMPARE(std::get<std::int64_t>(k.rows[0][0]), std::int64_t(kernelCount));
    QCOMPARE(std::get<std::int64_t>(k.rows[0][1]), std::int64_t(kernelCount));
    QCOMPARE(std::get<std::int64_t>(k.rows[0][2]), std::int64_t(kernelCount));
}

// PyTorch's emit_nvtx ranges (the 2022 export): "aten::conv2d, seq = 0" is the operator aten::conv2d, nested
// in the ranges around it on its thread; the others are annotations.
void TestNsysImport::nvtxRangesNest() {
    const std::string path = test::tracePath(exports[0]);
    LoadResult r = loadTrace(path);
    QVERIFY(r.ok());
    const TraceStore& s = *r.store;
    QCOMPARE(countOf(s, CategoryKind::CpuOp), std::size_t(67));
    QCOMPARE(countOf(s, CategoryKind::UserAnnotation), std::size_t(166 - 67));
    std::size_t nested = 0;
    for (const Track& t : s.tracks())
        for (std::uint32_t i = 0; i < t.sliceCount(); ++i)
            if (s.strings().view(t.names[i]) == "aten::convolution") {
                const auto parent = t.parentOf(i);
                QVERIFY(parent);
                QCOMPARE(s.strings().view(t.names[*parent]), std::string_view("aten::conv2d"));
                ++nested;
            }
    QVERIFY(nested > 0);
}

void TestNsysImport::otherDatabasesSaySo() {
    QTemporaryDir dir;
    const std::string path = dir.filePath("other.db").toStdString();
    sqlite3* db = nullptr;
    QCOMPARE(sqlite3_open(path.c_str(), &db), SQLITE_OK);
    QCOMPARE(sqlite3_exec(db, "CREATE TABLE notes(a TEXT); INSERT INTO notes VALUES ('x')", nullptr, nullptr,
                          nullptr),
             SQLITE_OK);
    sqlite3_close(db);
    LoadResult r = loadTrace(path);
    QVERIFY(!r.ok());
    QVERIFY2(r.message(path).find("not a profiler's") != std::string::npos, r.message(path).c_str());
    // Hostile exports: a table that is a view looping without end, views that name each other. An error
    // naming the file, never a hang.
    for (const char* sql :
         {"CREATE TABLE StringIds(id INTEGER, value TEXT); CREATE VIEW CUPTI_ACTIVITY_KIND_KERNEL AS WITH "
          "RECURSIVE "
          "r(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM r) SELECT x AS start, x AS end, 0 AS deviceId, 0 AS "
          "streamId, NULL AS correlationId, 0 AS demangledName, 0 AS registersPerThread, 1 AS gridX, 1 AS "
          "gridY, "
          "1 AS gridZ, 1 AS blockX, 1 AS blockY, 1 AS blockZ FROM r",
          "CREATE TABLE StringIds(id INTEGER, value TEXT); CREATE VIEW a AS SELECT * FROM b; CREATE VIEW b "
          "AS "
          "SELECT * FROM a; CREATE VIEW CUPTI_ACTIVITY_KIND_RUNTIME AS SELECT * FROM a"}) {
        const std::string hostile = dir.filePath("hostile.sqlite").toStdString();
        std::remove(hostile.c_str());
        sqlite3* h = nullptr;
        QCOMPARE(sqlite3_open(hostile.c_str(), &h), SQLITE_OK);
        QCOMPARE(sqlite3_exec(h, sql, nullptr, nullptr, nullptr), SQLITE_OK);
        sqlite3_close(h);
        LoadResult l = loadTrace(hostile);
        QVERIFY(!l.ok());
        QVERIFY2(l.message(hostile).find("hostile.sqlite") != std::string::npos, l.message(hostile).c_str());
    }
    // A file that starts as a database and is not one: an error, not a crash.
    const std::string broken = dir.filePath("broken.sqlite").toStdString();
    FILE* f = std::fopen(broken.c_str(), "wb");
    std::fwrite("SQLite format 3\0garbage garbage garbage", 1, 40, f);
    std::fclose(f);
    LoadResult b = loadTrace(broken);
    QVERIFY(!b.ok());
}

QTEST_MAIN(TestNsysImport)
#include "tst_nsysimport.moc"
