// SQL over a trace (core/sql, issue 62): the virtual tables against the store and the analyses on real
// traces, windows against a scan, and a database that only reads.
#include "analysis/ops/hosttree.h"
#include "analysis/ops/steps.h"
#include "analysis/ops/summary.h"
#include "analysis/report/sections.h"
#include "model/memoryseries.h"
#include "query/args.h"
#include "sql/examplequeries.h"
#include "sql/tracedatabase.h"
#include "testsupport.h"

#include <QDir>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include <sqlite3.h>

#include <map>
#include <random>
#include <set>
#include <thread>

using namespace kinetoscope;
using kinetoscope::sql::QueryResult;
using kinetoscope::sql::TraceDatabase;

namespace {
const char* const corpus[] = {
    test::traces::qwenH100,
    test::traces::b200Eager,
    test::traces::bertMi300,
    test::traces::htaNsResolution,
};

std::int64_t integer(const sql::Value& v) {
    return std::get<std::int64_t>(v);
}
} // namespace

class TestSql : public QObject {
    Q_OBJECT
  private slots:
    void initTestCase();
    void kernelsEqualTheSummary_data() { addCorpus(); }
    void kernelsEqualTheSummary();
    void windowsEqualAScan_data() { addCorpus(); }
    void windowsEqualAScan();
    void nestingAndArgs_data() { addCorpus(); }
    void nestingAndArgs();
    void ownTablesEqualTheStore_data() { addCorpus(); }
    void ownTablesEqualTheStore();
    void reportTablesHaveTheirColumns();
    void examplesRun_data() { addCorpus(); }
    void examplesRun();
    void exportWritesTheTables();
    void exportStopsCleanly();
    void onlyReads();
    void errorsSayWhere();
    void interrupted();
    void cliQuery();

  private:
    static void addCorpus() {
        QTest::addColumn<QString>("trace");
        for (const char* t : corpus)
            QTest::newRow(QString::fromLatin1(t).section(QLatin1Char('/'), -1).left(60).toUtf8().constData())
                << QString::fromLatin1(t);
    }
    const TraceStore& store(const QString& trace) {
        auto& slot = m_stores[trace];
        if (!slot) {
            LoadResult r = loadTrace(test::tracePath(trace.toUtf8().constData()));
            if (!r.ok()) qFatal("cannot load %s", qPrintable(trace));
            slot = std::move(r.store);
        }
        return *slot;
    }
    std::map<QString, std::unique_ptr<const TraceStore>> m_stores;
};

void TestSql::initTestCase() {}

// Kernel time by name, the question users bring first: what summarize's kernel table says.
void TestSql::kernelsEqualTheSummary() {
    QFETCH(QString, trace);
    const TraceStore& s = store(trace);
    TraceDatabase db(s);
    const QueryResult r = db.query(
        "SELECT slice.name, count(*), sum(dur) FROM slice JOIN track ON slice.track_id = track.id "
        "WHERE track.type = 'gpu_stream' AND slice.category IN ('kernel', 'Kernel') GROUP BY slice.name");
    QVERIFY2(r.ok(), r.error.c_str());
    std::map<std::string, std::pair<std::int64_t, std::int64_t>> bySql;
    for (const auto& row : r.rows)
        bySql[std::get<std::string>(row[0])] = {integer(row[1]), integer(row[2])};
    const Summary summary = summarize(s);
    QVERIFY(!summary.kernels.empty());
    QCOMPARE(bySql.size(), summary.kernels.size());
    for (const KernelRow& k : summary.kernels) {
        const auto it = bySql.find(k.name);
        QVERIFY2(it != bySql.end(), k.name.c_str());
        QCOMPARE(it->second.first, std::int64_t(k.count));
        QCOMPARE(it->second.second, std::int64_t(k.total));
    }
}

// A time window (and one track) is a binary search per lane, not a scan: the same rows as a scan.
void TestSql::windowsEqualAScan() {
    QFETCH(QString, trace);
    const TraceStore& s = store(trace);
    TraceDatabase db(s);
    const QueryResult all = db.query("SELECT count(*) FROM slice");
    QVERIFY2(all.ok(), all.error.c_str());
    QCOMPARE(integer(all.rows[0][0]), std::int64_t(s.sliceCount()));
    std::mt19937_64 rng(11);
    const TimeNs span = std::max<TimeNs>(1, s.maxTime() - s.minTime());
    for (int i = 0; i < 12; ++i) {
        const TimeNs from = s.minTime() + TimeNs(rng() % std::uint64_t(span));
        const TimeNs to = from + TimeNs(rng() % std::uint64_t(span / 10 + 1));
        const std::uint32_t track = std::uint32_t(rng() % s.tracks().size());
        std::int64_t inWindow = 0, onTrack = 0, exact = 0;
        for (std::uint32_t t = 0; t < s.tracks().size(); ++t)
            for (std::uint32_t row = 0; row < s.tracks()[t].sliceCount(); ++row) {
                const TimeNs ts = s.tracks()[t].starts[row];
                inWindow += ts >= from && ts <= to;
                onTrack += t == track && ts > from && ts < to;
                exact += ts == from;
            }
        const auto count = [&](const std::string& sql) {
            const QueryResult r = db.query(sql);
            if (!r.ok()) qFatal("%s: %s", sql.c_str(), r.error.c_str());
            return integer(r.rows[0][0]);
        };
        QCOMPARE(count("SELECT count(*) FROM slice WHERE ts BETWEEN " + std::to_string(from) + " AND " +
                       std::to_string(to)),
                 inWindow);
        QCOMPARE(count("SELECT count(*) FROM slice WHERE track_id = " + std::to_string(track) + " AND ts > " +
                       std::to_string(from) + " AND ts < " + std::to_string(to)),
                 onTrack);
        QCOMPARE(count("SELECT count(*) FROM slice WHERE ts = " + std::to_string(from)), exact);
        // A real bound is no tighter than the integer one.
        QCOMPARE(count("SELECT count(*) FROM slice WHERE ts >= " + std::to_string(from) +
                       ".5 AND ts <= " + std::to_string(to) + ".5"),
                 inWindow - exact);
    }
    // The planner leaves the bounds to the table (no second check): every operator and kind of operand gives
    // what SQLite's own comparison does (`+ts` is an expression, so SQLite scans and compares itself).
    const auto count = [&db](const std::string& sql) {
        const QueryResult r = db.query(sql);
        if (!r.ok()) qFatal("%s: %s", sql.c_str(), r.error.c_str());
        return integer(r.rows.at(0).at(0));
    };
    const TimeNs middle = s.minTime() + (s.maxTime() - s.minTime()) / 2;
    const std::string m = std::to_string(middle);
    // A quoted number takes ts's INTEGER affinity (as it would on a table's column), which `+ts` has not: its
    // reference compares with the number.
    const std::vector<std::pair<std::string, std::string>> operands = {
        {m, m},
        {m + ".0", m + ".0"},
        {m + ".5", m + ".5"},
        {"'" + m + "'", m},
        {"'text'", "'text'"},
        {"NULL", "NULL"},
        {"1e300", "1e300"},
        {"-1e300", "-1e300"},
        {std::to_string(INT64_MAX), std::to_string(INT64_MAX)},
        {std::to_string(INT64_MIN), std::to_string(INT64_MIN)}};
    for (const std::string op : {"=", "<", "<=", ">", ">="})
        for (const auto& [v, reference] : operands) {
            QCOMPARE(count("SELECT count(*) FROM slice WHERE ts " + op + " " + v),
                     count("SELECT count(*) FROM slice WHERE +ts " + op + " " + reference));
            QCOMPARE(count("SELECT count(*) FROM slice WHERE track_id = 0 AND ts " + op + " " + v),
                     count("SELECT count(*) FROM slice WHERE +track_id = 0 AND +ts " + op + " " + reference));
        }
    for (const auto& [v, reference] : std::vector<std::pair<std::string, std::string>>{
             {"1", "1"}, {"1.0", "1.0"}, {"1.5", "1.5"}, {"'1'", "1"}, {"NULL", "NULL"}, {"'x'", "'x'"}}) {
        QCOMPARE(count("SELECT count(*) FROM slice WHERE track_id = " + v),
                 count("SELECT count(*) FROM slice WHERE +track_id = " + reference));
        QCOMPARE(count("SELECT count(*) FROM slice WHERE id = " + v),
                 count("SELECT count(*) FROM slice WHERE +id = " + reference));
    }
}

// depth and parent_id are the timeline's lanes and the nesting rule's parent; args decode as Details does;
// the flows are the store's.
void TestSql::nestingAndArgs() {
    QFETCH(QString, trace);
    const TraceStore& s = store(trace);
    TraceDatabase db(s);
    std::vector<std::int64_t> offset{0};
    for (const Track& t : s.tracks())
        offset.push_back(offset.back() + std::int64_t(t.sliceCount()));
    std::mt19937_64 rng(3);
    for (int i = 0; i < 200; ++i) {
        const std::int64_t id = std::int64_t(rng() % std::uint64_t(offset.back()));
        const std::uint32_t t =
            std::uint32_t(std::upper_bound(offset.begin(), offset.end(), id) - offset.begin() - 1);
        const std::uint32_t row = std::uint32_t(id - offset[t]);
        const Track& track = s.tracks()[t];
        const QueryResult r =
            db.query("SELECT track_id, ts, dur, depth, parent_id, name, arg_set_id FROM slice WHERE id = " +
                     std::to_string(id));
        QVERIFY2(r.ok() && r.rows.size() == 1, r.error.c_str());
        const auto& v = r.rows[0];
        QCOMPARE(integer(v[0]), std::int64_t(t));
        QCOMPARE(integer(v[1]), track.starts[row]);
        QCOMPARE(integer(v[2]), track.durations[row]);
        QCOMPARE(integer(v[3]), std::int64_t(track.depthOf(row)));
        const auto parent = track.parentOf(row);
        QCOMPARE(std::holds_alternative<std::monostate>(v[4]), !parent.has_value());
        if (parent) QCOMPARE(integer(v[4]), offset[t] + *parent);
        QCOMPARE(std::get<std::string>(v[5]), std::string(s.strings().view(track.names[row])));
        const std::vector<ArgField> fields = decodeArgs(s, {TrackId(t), EventIndex(row)});
        const QueryResult args =
            db.query("SELECT key FROM args WHERE arg_set_id = " + std::to_string(id) + " ORDER BY rowid");
        QVERIFY2(args.ok(), args.error.c_str());
        QCOMPARE(args.rows.size(), fields.size());
        for (std::size_t k = 0; k < fields.size(); ++k)
            QCOMPARE(std::get<std::string>(args.rows[k][0]), fields[k].key);
    }
    const QueryResult flows = db.query("SELECT count(*), count(DISTINCT slice_out) FROM flow");
    QVERIFY2(flows.ok(), flows.error.c_str());
    QCOMPARE(integer(flows.rows[0][0]), std::int64_t(s.flows().size()));
    // Every thread joins its process, every thread track its thread.
    const QueryResult threads = db.query("SELECT count(*) FROM thread_track JOIN thread USING (utid) JOIN "
                                         "process USING (upid)");
    std::int64_t threadTracks = 0;
    for (const Track& t : s.tracks())
        threadTracks += t.kind == TrackKind::CpuThread;
    QCOMPARE(integer(threads.rows[0][0]), threadTracks);
}

// Read-only: no write, ATTACH, PRAGMA, new table or extension; the database still answers after each refusal.
// kernel, operator, step and memory_event against the store and the analyses that read the same slices.
void TestSql::ownTablesEqualTheStore() {
    QFETCH(QString, trace);
    const TraceStore& s = store(trace);
    TraceDatabase db(s);
    std::vector<EventRef> kernels, ops;
    for (std::uint32_t t = 0; t < s.tracks().size(); ++t)
        for (std::uint32_t r = 0; r < s.tracks()[t].sliceCount(); ++r) {
            const EventRef ref{TrackId(t), EventIndex(r)};
            if (s.categoryOf(ref).kind == CategoryKind::Kernel) kernels.push_back(ref);
            if (s.categoryOf(ref).kind == CategoryKind::CpuOp) ops.push_back(ref);
        }
    QVERIFY(!kernels.empty());
    // Each kernel row names its slice, its launch call and the operator that launched it.
    const QueryResult k = db.query("SELECT k.id, k.launch_id, k.operator_id, s.name, k.name, k.ts, s.ts "
                                   "FROM kernel k JOIN slice s ON s.id = k.id ORDER BY k.id");
    QVERIFY2(k.ok(), k.error.c_str());
    QCOMPARE(k.rows.size(), kernels.size());
    std::size_t withLaunch = 0, withOperator = 0;
    for (std::size_t i = 0; i < kernels.size(); ++i) {
        const auto& row = k.rows[i];
        QCOMPARE(std::get<std::string>(row[3]), std::get<std::string>(row[4]));
        QCOMPARE(integer(row[5]), integer(row[6]));
        const auto launch = s.launchOf(kernels[i]);
        QCOMPARE(std::holds_alternative<std::monostate>(row[1]), !launch.has_value());
        if (!launch) continue;
        ++withLaunch;
        const QueryResult l =
            db.query("SELECT name, ts FROM slice WHERE id = " + std::to_string(integer(row[1])));
        QCOMPARE(std::get<std::string>(l.rows.at(0)[0]), std::string(s.nameOf(*launch)));
        QCOMPARE(integer(l.rows[0][1]), s.track(launch->track).starts[launch->index.value]);
        const auto op = launchingOperator(s, *launch);
        QCOMPARE(std::holds_alternative<std::monostate>(row[2]), !op.has_value());
        if (op) ++withOperator;
    }
    QVERIFY(withLaunch > kernels.size() / 2);
    QVERIFY(withOperator > 0);

    // Operators: every CPU op, its input shapes where record_shapes wrote them.
    const QueryResult o = db.query("SELECT count(*), count(input_dims) FROM operator");
    QCOMPARE(integer(o.rows[0][0]), qint64(ops.size()));
    qint64 shaped = 0;
    for (EventRef ref : ops)
        for (const ArgField& f : decodeArgs(s, ref))
            shaped += f.key == "Input Dims";
    QCOMPARE(integer(o.rows[0][1]), shaped);
    // Each operator's three input columns, row by row, as the Details panel decodes its args (the whole
    // object parsed, each array minified): the table's scan keeps what it located and minified from row
    // to row, which must never show one row's inputs on another.
    const QueryResult inputs =
        db.query("SELECT input_dims, input_types, concrete_inputs FROM operator ORDER BY id");
    QCOMPARE(inputs.rows.size(), ops.size());
    std::vector<EventRef> byId = ops;
    std::sort(byId.begin(), byId.end(),
              [&](EventRef a, EventRef b) { return db.sliceId(a) < db.sliceId(b); });
    for (std::size_t i = 0; i < byId.size(); ++i) {
        std::string expected[3];
        bool shapes = false;
        for (const ArgField& f : decodeArgs(s, byId[i])) {
            const int at = f.key == "Input Dims"        ? 0
                           : f.key == "Input type"      ? 1
                           : f.key == "Concrete Inputs" ? 2
                                                        : -1;
            if (at >= 0 && !f.isString && f.value.front() == '[') expected[at] = f.value;
            shapes = shapes || at == 0;
        }
        for (int c = 0; c < 3; ++c) {
            const auto* got = std::get_if<std::string>(&inputs.rows[i][std::size_t(c)]);
            QCOMPARE(got ? *got : std::string(), shapes ? expected[c] : std::string());
        }
    }

    // Steps as the reports find them.
    const std::vector<StepRange> steps = findSteps(s);
    const QueryResult st = db.query("SELECT ts, dur, name FROM step ORDER BY id");
    QCOMPARE(st.rows.size(), std::max<std::size_t>(steps.size(), 1));
    for (std::size_t i = 0; i < steps.size(); ++i) {
        QCOMPARE(integer(st.rows[i][0]), steps[i].start);
        QCOMPARE(integer(st.rows[i][1]), steps[i].end - steps[i].start);
        QCOMPARE(std::get<std::string>(st.rows[i][2]), stepLabel(s, steps[i]));
    }

    // Memory events: the running totals the memory series read.
    std::multiset<std::pair<std::int64_t, double>> series;
    for (const auto& [device, samples] : allocatedSeries(s))
        if (!samples.relative)
            for (const AllocatedSample& sample : samples.samples)
                series.insert({sample.t, sample.allocated});
    const QueryResult m =
        db.query("SELECT ts, total_allocated FROM memory_event WHERE total_allocated IS NOT NULL");
    QVERIFY2(m.ok(), m.error.c_str());
    std::multiset<std::pair<std::int64_t, double>> rows;
    for (const auto& row : m.rows)
        rows.insert({integer(row[0]), std::holds_alternative<double>(row[1]) ? std::get<double>(row[1])
                                                                             : double(integer(row[1]))});
    QCOMPARE(rows, series);
}

// A report table is there with its columns (the JSON's members) even when the trace has none of its rows; its
// rows are the report's.
void TestSql::reportTablesHaveTheirColumns() {
    const TraceStore& s = store(QString::fromLatin1(test::traces::htaNsResolution));
    TraceDatabase db(s);
    const QueryResult graphs = db.query("SELECT * FROM inductor_graphs");
    QVERIFY2(graphs.ok(), graphs.error.c_str());
    QVERIFY(graphs.rows.empty());
    std::vector<std::string> keys;
    for (const auto& c : compiledGraphColumns())
        if (c.outputs & InJson) keys.emplace_back(c.key);
    QCOMPARE(graphs.columns, keys);
    const QueryResult kernels = db.query("SELECT count(*), sum(count) FROM kernels");
    const Summary summary = summarize(s);
    QCOMPARE(integer(kernels.rows[0][0]), qint64(summary.kernels.size()));
    std::uint64_t calls = 0;
    for (const KernelRow& r : summary.kernels)
        calls += r.count;
    QCOMPARE(integer(kernels.rows[0][1]), qint64(calls));
}

// Every stored query runs on every trace, with the parameters the viewer binds; the slice ids they return
// are slices.
void TestSql::examplesRun() {
    QFETCH(QString, trace);
    const TraceStore& s = store(trace);
    TraceDatabase db(s);
    const TimeNs middle = s.minTime() + (s.maxTime() - s.minTime()) / 2;
    const std::vector<std::pair<std::string, sql::Value>> parameters = {
        {"from", std::int64_t(middle)}, {"to", std::int64_t(middle + (s.maxTime() - s.minTime()) / 10)}};
    std::size_t answered = 0;
    for (const sql::ExampleQuery& example : sql::exampleQueries()) {
        const QueryResult r = db.query(example.sql, parameters);
        QVERIFY2(r.ok(), (std::string(example.title) + ": " + r.error).c_str());
        answered += !r.rows.empty();
        const auto id = std::find(r.columns.begin(), r.columns.end(), "id");
        if (id == r.columns.end() || r.rows.empty()) continue;
        const auto ref = db.sliceOf(integer(r.rows[0][std::size_t(id - r.columns.begin())]));
        QVERIFY2(ref.has_value(), example.title.data());
        QCOMPARE(db.sliceId(*ref), integer(r.rows[0][std::size_t(id - r.columns.begin())]));
    }
    QVERIFY(sql::exampleQueries().size() >= 12);
    QVERIFY2(answered >= 8, std::to_string(answered).c_str());
    // The selection's slices: those the window's bounds say, by a plain scan of the store.
    const QueryResult inWindow =
        db.query("SELECT count(*) FROM slice WHERE ts < :to AND ts + dur > :from", parameters);
    qint64 expected = 0;
    const TimeNs from = std::get<std::int64_t>(parameters[0].second),
                 to = std::get<std::int64_t>(parameters[1].second);
    for (const Track& t : s.tracks())
        for (std::uint32_t r = 0; r < t.sliceCount(); ++r)
            expected += t.starts[r] < to && t.starts[r] + t.durations[r] > from;
    QCOMPARE(integer(inWindow.rows.at(0).at(0)), expected);
}

// `export --sqlite`: a real SQLite file with every table a query reads, row for row.
void TestSql::exportWritesTheTables() {
    const TraceStore& s = store(QString::fromLatin1(test::traces::qwenH100));
    TraceDatabase db(s);
    QTemporaryDir dir;
    const std::string path = dir.filePath("trace.db").toStdString();
    const sql::ExportResult result = db.exportSqlite(path);
    QVERIFY2(result.ok(), result.error.c_str());
    QCOMPARE(result.tables.size(), db.tableNames().size());
    sqlite3* file = nullptr;
    QCOMPARE(sqlite3_open_v2(path.c_str(), &file, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
    const auto fileRows = [file](const std::string& sql) {
        std::vector<std::vector<std::string>> rows;
        sqlite3_stmt* stmt = nullptr;
        if (sqlite3_prepare_v2(file, sql.c_str(), -1, &stmt, nullptr) != SQLITE_OK)
            qFatal("%s", sqlite3_errmsg(file));
        while (sqlite3_step(stmt) == SQLITE_ROW) {
            auto& row = rows.emplace_back();
            for (int c = 0; c < sqlite3_column_count(stmt); ++c) {
                const auto* text = reinterpret_cast<const char*>(sqlite3_column_text(stmt, c));
                // Reals as the database's own results print them (the shortest exact text).
                row.push_back(sqlite3_column_type(stmt, c) == SQLITE_FLOAT
                                  ? sql::valueText(sqlite3_column_double(stmt, c))
                                  : std::string(text ? text : ""));
            }
        }
        sqlite3_finalize(stmt);
        return rows;
    };
    const auto ourRows = [&db](const std::string& sql) {
        std::vector<std::vector<std::string>> rows;
        const QueryResult r = db.query(sql);
        if (!r.ok()) qFatal("%s", r.error.c_str());
        for (const auto& row : r.rows) {
            auto& out = rows.emplace_back();
            for (const sql::Value& v : row)
                out.push_back(sql::valueText(v));
        }
        return rows;
    };
    for (const auto& [table, count] : result.tables) {
        QCOMPARE(fileRows("SELECT count(*) FROM \"" + table + "\"").at(0).at(0), std::to_string(count));
        QCOMPARE(ourRows("SELECT count(*) FROM \"" + table + "\"").at(0).at(0), std::to_string(count));
    }
    QVERIFY(result.tables.front().second == s.sliceCount());
    QCOMPARE(fileRows("PRAGMA integrity_check"), (std::vector<std::vector<std::string>>{{"ok"}}));
    // Every row of every table, value for value, in the order the trace's own scan gives them.
    for (const auto& [table, count] : result.tables)
        QCOMPARE(fileRows("SELECT * FROM \"" + table + "\""), ourRows("SELECT * FROM \"" + table + "\""));
    // The indexes are there for a reader's lookups.
    QCOMPARE(fileRows("SELECT count(*) FROM sqlite_schema WHERE type = 'index'").at(0).at(0),
             std::string("7"));
    // The same answers from the file as from the trace: kernel time by name, args, nesting, flows.
    for (const std::string q :
         {"SELECT name, count(*), sum(dur) FROM kernel GROUP BY name ORDER BY 3 DESC, 1",
          "SELECT key, int_value, string_value, real_value FROM args WHERE arg_set_id IN (SELECT id FROM "
          "kernel "
          "LIMIT 20) ORDER BY arg_set_id, key",
          "SELECT depth, count(*), count(parent_id) FROM slice GROUP BY depth",
          "SELECT slice_out, slice_in FROM flow ORDER BY id LIMIT 500",
          "SELECT name, device_self_us FROM operators ORDER BY device_self_us DESC, name LIMIT 20"})
        QCOMPARE(fileRows(q), ourRows(q));
    sqlite3_close(file);
}

// An export stopped midway, or one that cannot write, leaves what was at the target as it was, and no
// partial file.
void TestSql::exportStopsCleanly() {
    const TraceStore& s = store(QString::fromLatin1(test::traces::qwenH100));
    TraceDatabase db(s);
    QTemporaryDir dir;
    const std::string path = dir.filePath("trace.db").toStdString();
    {
        FILE* f = std::fopen(path.c_str(), "w");
        std::fputs("keep", f);
        std::fclose(f);
    }
    const sql::ExportResult stopped =
        db.exportSqlite(path, [](const std::string& table, std::uint64_t) { return table != "args"; });
    QCOMPARE(stopped.error, std::string("interrupted"));
    QCOMPARE(test::readText(path), std::string("keep"));
    // Stopped midway through a table, while its rows are still being encoded on other threads.
    const sql::ExportResult midway = db.exportSqlite(
        path, [](const std::string& table, std::uint64_t rows) { return !(table == "args" && rows); });
    QCOMPARE(midway.error, std::string("interrupted"));
    QCOMPARE(test::readText(path), std::string("keep"));
    QCOMPARE(QDir(dir.path()).entryList(QDir::Files), QStringList{"trace.db"});
    const sql::ExportResult nowhere = db.exportSqlite(dir.filePath("no/such/folder/trace.db").toStdString());
    QVERIFY(!nowhere.ok());
    QVERIFY2(nowhere.error.find("no/such/folder/trace.db") != std::string::npos, nowhere.error.c_str());
    // The trace still answers.
    QCOMPARE(integer(db.query("SELECT count(*) FROM slice").rows.at(0).at(0)), qint64(s.sliceCount()));
}

void TestSql::onlyReads() {
    const TraceStore& s = store(QString::fromLatin1(test::traces::qwenH100));
    TraceDatabase db(s);
    for (const char* sql :
         {"DELETE FROM slice", "INSERT INTO slice(id) VALUES (1)", "UPDATE slice SET dur = 0",
          "ATTACH DATABASE '/tmp/kinetoscope-sql-test.db' AS x", "PRAGMA writable_schema = 1",
          "CREATE TABLE t(a)", "CREATE TEMP VIEW v AS SELECT 1", "VACUUM INTO '/tmp/x.db'",
          "SELECT load_extension('/tmp/nothing')", "SELECT 1; DROP TABLE slice"}) {
        const QueryResult r = db.query(sql);
        QVERIFY2(!r.ok(), sql);
        QVERIFY(!QFile::exists(QStringLiteral("/tmp/kinetoscope-sql-test.db")));
        const QueryResult after = db.query("SELECT count(*) FROM slice");
        QVERIFY2(after.ok(), after.error.c_str());
        QCOMPARE(integer(after.rows[0][0]), std::int64_t(s.sliceCount()));
    }
    // A query's own CTEs are reading.
    const QueryResult cte =
        db.query("WITH k AS (SELECT dur FROM slice WHERE category = 'kernel') SELECT count(*) "
                 "FROM k");
    QVERIFY2(cte.ok(), cte.error.c_str());
}

void TestSql::errorsSayWhere() {
    const TraceStore& s = store(QString::fromLatin1(test::traces::qwenH100));
    TraceDatabase db(s);
    const QueryResult r = db.query("SELECT name,\n       nosuch FROM slice");
    QVERIFY(!r.ok());
    QVERIFY2(r.error.find("nosuch") != std::string::npos, r.error.c_str());
    QCOMPARE(r.errorLine, 2);
    QCOMPARE(r.errorColumn, 8);
}

// A runaway query stops when asked, and the database answers again.
void TestSql::interrupted() {
    const TraceStore& s = store(QString::fromLatin1(test::traces::qwenH100));
    TraceDatabase db(s);
    std::thread stopper([&db] {
        std::this_thread::sleep_for(std::chrono::milliseconds(200));
        db.interrupt();
    });
    const QueryResult r = db.query("SELECT count(*) FROM slice a, slice b, slice c");
    stopper.join();
    QVERIFY(!r.ok());
    QVERIFY(r.interrupted);
    QVERIFY(db.query("SELECT 1").ok());
}

// `kinetoscope-cli query TRACE SQL --json`: columns and rows, typed.
void TestSql::cliQuery() {
    QProcess p;
    p.start(KINETOSCOPE_CLI, {"query", QString::fromStdString(test::tracePath(test::traces::qwenH100)),
                              "SELECT category, count(*) AS n, min(ts) AS first FROM slice GROUP BY category "
                              "ORDER BY n DESC",
                              "--json"});
    QVERIFY(p.waitForFinished(60000));
    QCOMPARE(p.exitCode(), 0);
    const QJsonObject root = QJsonDocument::fromJson(p.readAllStandardOutput()).object();
    QCOMPARE(root["columns"].toArray().size(), 3);
    const QJsonArray rows = root["rows"].toArray();
    QVERIFY(rows.size() > 3);
    qint64 total = 0;
    for (const QJsonValue& row : rows)
        total += row.toArray()[1].toInteger();
    QCOMPARE(total, qint64(store(QString::fromLatin1(test::traces::qwenH100)).sliceCount()));
    // A write is refused with a clear one-line error and exit code 1.
    QProcess w;
    w.start(KINETOSCOPE_CLI,
            {"query", QString::fromStdString(test::tracePath(test::traces::qwenH100)), "DELETE FROM slice"});
    QVERIFY(w.waitForFinished(60000));
    QCOMPARE(w.exitCode(), 1);
    QVERIFY(w.readAllStandardError().startsWith("kinetoscope-cli: query: "));
}

QTEST_GUILESS_MAIN(TestSql)
#include "tst_sql.moc"
