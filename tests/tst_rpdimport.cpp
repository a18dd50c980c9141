// rocm-profile-data's .rpd files (issue 63, part 3) on the real one of ../shared/traces/formats (a PyTorch
// matmul on ROCm): every GPU op and API call of the database is a slice, with its times and names; each op
// reaches the call that launched it (rocpd_api_ops) as a launch of Kineto's; a kernel carries its grid and
// workgroup; the analyses and SQL read it; the file is never written.
#include "analysis/ops/summary.h"
#include "open/opentrace.h"
#include "sql/tracedatabase.h"
#include "testsupport.h"

#include <QTest>

#include <sqlite3.h>

#include <map>

using namespace kinetoscope;

namespace {
const char* const rpd =
    "formats/ROCm__rocmProfileData__examples__rocm-profile-data__results__matmul_result.rpd";

std::vector<std::vector<std::string>> rowsOf(const std::string& path, const std::string& sql) {
    return test::sqliteRows(path, sql);
}
} // namespace

class TestRpdImport : public QObject {
    Q_OBJECT
  private slots:
    void opsAndCallsAreSlices();
    void rocprofv3Database();
};

void TestRpdImport::opsAndCallsAreSlices() {
    const std::string path = test::tracePath(rpd);
    const std::string before = test::readText(path);
    LoadResult r = loadTrace(path);
    QVERIFY2(r.ok(), r.message(path).c_str());
    const TraceStore& s = *r.store;
    QCOMPARE(s.stats().sourceFormat, std::string("rocm_rpd"));
    QCOMPARE(test::readText(path), before);

    std::map<CategoryKind, std::size_t> byKind;
    for (const Track& t : s.tracks())
        for (std::uint16_t c : t.categories)
            ++byKind[s.categories()[c].kind];
    const auto count = [&](const std::string& sql) {
        return std::size_t(std::stoull(rowsOf(path, sql)[0][0]));
    };
    QCOMPARE(
        byKind[CategoryKind::Kernel],
        count("SELECT count(*) FROM rocpd_op o JOIN rocpd_string t ON t.id = o.opType_id WHERE t.string = "
              "'KernelExecution'"));
    QCOMPARE(
        byKind[CategoryKind::Memcpy],
        count("SELECT count(*) FROM rocpd_op o JOIN rocpd_string t ON t.id = o.opType_id WHERE t.string LIKE "
              "'Copy%'"));
    QCOMPARE(byKind[CategoryKind::Runtime], count("SELECT count(*) FROM rocpd_api"));
    QVERIFY(byKind[CategoryKind::Kernel] > 20);

    // Kernel calls and time by name, as the database sums them.
    std::map<std::string, std::pair<std::uint64_t, TimeNs>> expected;
    for (const auto& row :
         rowsOf(path, "SELECT d.string, count(*), sum(o.end - o.start) FROM rocpd_op o JOIN "
                      "rocpd_string d ON d.id = o.description_id JOIN rocpd_string t ON t.id = "
                      "o.opType_id WHERE t.string = 'KernelExecution' GROUP BY d.string"))
        expected[row[0]] = {std::stoull(row[1]), std::stoll(row[2])};
    const Summary summary = summarize(s);
    QCOMPARE(summary.kernels.size(), expected.size());
    for (const KernelRow& k : summary.kernels) {
        QCOMPARE(k.count, expected[k.name].first);
        QCOMPARE(k.total, expected[k.name].second);
    }

    // Each op with a call in rocpd_api_ops reaches that call; kernels carry their launch's grid and
    // workgroup.
    sql::TraceDatabase db(s);
    const sql::QueryResult linked =
        db.query("SELECT count(*) FROM slice s WHERE s.category IN ('kernel', "
                 "'gpu_memcpy', 'gpu_memset') AND s.id IN (SELECT slice_in FROM flow)");
    QVERIFY2(linked.ok(), linked.error.c_str());
    QCOMPARE(std::get<std::int64_t>(linked.rows[0][0]),
             std::int64_t(count("SELECT count(DISTINCT op_id) FROM rocpd_api_ops")));
    const sql::QueryResult shapes =
        db.query("SELECT count(*), count(grid_x), count(block_x), count(launch_id) FROM kernel");
    QCOMPARE(shapes.rows[0][0], shapes.rows[0][1]);
    QCOMPARE(shapes.rows[0][0], shapes.rows[0][2]);
    QCOMPARE(shapes.rows[0][0], shapes.rows[0][3]);
    const auto launch = rowsOf(path, "SELECT k.workgroupX, k.gridX FROM rocpd_kernelapi k LIMIT 1")[0];
    const sql::QueryResult some =
        db.query("SELECT count(*) FROM kernel WHERE block_x = " + launch[0] + " AND grid_x = " + launch[1]);
    QVERIFY(std::get<std::int64_t>(some.rows[0][0]) >= 1);
}

// rocprofv3's rocpd database (ROCm 7.1.1, an MI300X; tables under plain-named views): every dispatch and HIP
// call a slice, kernel time by symbol as the database sums it, the GPU named, the launch shape kept. Its
// correlation ids are all 0: no launch arrows (said, not guessed).
void TestRpdImport::rocprofv3Database() {
    const std::string path =
        test::tracePath("formats/HGLiu1998__batched_gemm__bmm__37ca13315e70__21_results.db");
    const std::string before = test::readText(path);
    LoadResult r = loadTrace(path);
    QVERIFY2(r.ok(), r.message(path).c_str());
    const TraceStore& s = *r.store;
    QCOMPARE(s.stats().sourceFormat, std::string("rocpd"));
    QCOMPARE(test::readText(path), before);
    const auto count = [&](const std::string& sql) {
        return std::size_t(std::stoull(rowsOf(path, sql)[0][0]));
    };
    std::map<CategoryKind, std::size_t> byKind;
    for (const Track& t : s.tracks())
        for (std::uint16_t c : t.categories)
            ++byKind[s.categories()[c].kind];
    QCOMPARE(byKind[CategoryKind::Kernel], count("SELECT count(*) FROM rocpd_kernel_dispatch"));
    QCOMPARE(byKind[CategoryKind::Runtime], count("SELECT count(*) FROM rocpd_region"));
    std::map<std::string, std::pair<std::uint64_t, TimeNs>> expected;
    for (const auto& row : rowsOf(path, "SELECT k.display_name, count(*), sum(d.end - d.start) FROM "
                                        "rocpd_kernel_dispatch d JOIN rocpd_info_kernel_symbol k ON k.id = "
                                        "d.kernel_id GROUP BY k.display_name"))
        expected[row[0]] = {std::stoull(row[1]), std::stoll(row[2])};
    const Summary summary = summarize(s);
    QCOMPARE(summary.kernels.size(), expected.size());
    for (const KernelRow& k : summary.kernels) {
        QCOMPARE(k.count, expected[k.name].first);
        QCOMPARE(k.total, expected[k.name].second);
    }
    QVERIFY(!s.metadata().devices.empty());
    QCOMPARE(s.metadata().devices[0].name, std::string("AMD Instinct MI300X"));
    sql::TraceDatabase db(s);
    const sql::QueryResult shapes = db.query("SELECT count(*), count(grid_x), count(block_x) FROM kernel");
    QCOMPARE(shapes.rows[0][0], shapes.rows[0][1]);
    QCOMPARE(shapes.rows[0][0], shapes.rows[0][2]);
    QCOMPARE(s.flows().size(), std::size_t(0));
}

QTEST_MAIN(TestRpdImport)
#include "tst_rpdimport.moc"
