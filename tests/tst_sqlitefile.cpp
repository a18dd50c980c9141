// The SQLite file writer of `export --sqlite` (core/sql/sqlitefile): files written page by page that
// SQLite itself reads back whole: `PRAGMA integrity_check` (every page used once, every cell where its
// page says, every index entry matching its row), then every row and value, and queries that go through the
// indexes. Data-driven over page sizes and table shapes: one leaf, trees of three and four levels,
// payloads spilling into overflow chains, the page SQLite reserves for its locks.
#include "sql/indexkeys.h"
#include "sql/sqlitefile.h"

#include <QTemporaryDir>
#include <QTest>

#include <sqlite3.h>

#include <algorithm>
#include <cerrno>
#include <cfloat>
#include <climits>
#include <cstring>
#include <fcntl.h>
#include <functional>
#include <optional>
#include <random>
#include <unistd.h>

using namespace kinetoscope;
using sql::RecordEncoder;
using sql::SqliteFileWriter;

Q_DECLARE_METATYPE(std::function<void(SqliteFileWriter&)>)

namespace {

struct Row {
    std::int64_t id, a;
    double b;
    std::string c;
    std::optional<std::int64_t> k;
};

// The rows of the test table: integers of every serial width, reals, texts from empty to long, a key with
// NULLs and repeats.
// `everyVarintWidth`: the rowids span every length of SQLite's varint, 1 to 9 bytes (negative ones are 9),
// and `count` is at most the number of those.
std::vector<Row> makeRows(int count, int longestText, unsigned seed, bool everyVarintWidth = false) {
    std::vector<std::int64_t> wideIds = {INT64_MIN, -1, 0, 1};
    for (int bits = 7; bits <= 56; bits += 7)
        wideIds.insert(wideIds.end(), {(std::int64_t(1) << bits) - 1, std::int64_t(1) << bits});
    wideIds.push_back(INT64_MAX);
    static const std::int64_t edges[] = {0,
                                         1,
                                         -1,
                                         127,
                                         128,
                                         -128,
                                         -129,
                                         32767,
                                         32768,
                                         -32769,
                                         8388607,
                                         8388608,
                                         -8388609,
                                         2147483647,
                                         2147483648,
                                         -2147483649,
                                         140737488355327,
                                         140737488355328,
                                         INT64_MAX,
                                         INT64_MIN};
    std::mt19937_64 random(seed);
    std::vector<Row> rows;
    for (int i = 0; i < count; ++i) {
        Row r;
        r.id = everyVarintWidth ? wideIds.at(std::size_t(i)) : 7 + 3 * std::int64_t(i);
        r.a = i < int(std::size(edges)) ? edges[i] : std::int64_t(random()) >> (random() % 64);
        r.b = i % 7 == 0 ? 0.0 : (double(std::int64_t(random())) / 1e9) * (i % 3 ? 1 : 1e-300);
        const std::size_t length = longestText ? std::size_t(random() % std::uint64_t(longestText + 1)) : 0;
        for (std::size_t n = 0; n < length; ++n)
            r.c += char('a' + random() % 26);
        if (i % 11 == 0) r.c += "\xc3\xa9\xe2\x82\xac"; // UTF-8 stays as it is
        if (i % 5 != 0) r.k = std::int64_t(random() % 50) - 10;
        rows.push_back(std::move(r));
    }
    return rows;
}

std::string queryText(sqlite3* db, const char* sql) {
    sqlite3_stmt* stmt = nullptr;
    if (sqlite3_prepare_v2(db, sql, -1, &stmt, nullptr) != SQLITE_OK) return sqlite3_errmsg(db);
    std::string out;
    while (sqlite3_step(stmt) == SQLITE_ROW) {
        if (!out.empty()) out += '\n';
        for (int c = 0; c < sqlite3_column_count(stmt); ++c) {
            const auto* text = reinterpret_cast<const char*>(sqlite3_column_text(stmt, c));
            out += (c ? "|" : "") + std::string(text ? text : "NULL");
        }
    }
    sqlite3_finalize(stmt);
    return out;
}

// Writes `rows` into table t (id INTEGER PRIMARY KEY, a, b, c, k) with an index on (k, a), and table u
// (one column, implicit rowids) with an index on it.
bool writeFile(const std::string& path, std::uint32_t pageSize, const std::vector<Row>& rows,
               std::string& error, std::uint64_t lockByte = 0x40000000) {
    const int fd = ::open(path.c_str(), O_CREAT | O_TRUNC | O_WRONLY, 0644);
    if (fd < 0) return false;
    SqliteFileWriter file(fd, pageSize, lockByte);
    RecordEncoder record;
    auto t = file.table();
    for (const Row& r : rows) {
        record.clear();
        record.null(); // the rowid's column
        record.integer(r.a);
        record.real(r.b);
        // A text kept by the encoder, or (every other row) viewed where it lives until the record is written.
        r.id % 2 ? record.lastingText(r.c) : record.text(r.c);
        r.k ? record.integer(*r.k) : record.null();
        t->add(r.id, record.record());
    }
    file.addSchema("table", "t", "t", t->finish(),
                   "CREATE TABLE t(id INTEGER PRIMARY KEY, a INTEGER, b REAL, c TEXT, k INTEGER)");
    std::vector<const Row*> byKey;
    for (const Row& r : rows)
        byKey.push_back(&r);
    std::sort(byKey.begin(), byKey.end(), [](const Row* x, const Row* y) {
        if (x->k.has_value() != y->k.has_value()) return !x->k.has_value();
        if (x->k != y->k) return *x->k < *y->k;
        if (x->a != y->a) return x->a < y->a;
        return x->id < y->id;
    });
    auto tk = file.index();
    for (const Row* r : byKey) {
        record.clear();
        r->k ? record.integer(*r->k) : record.null();
        record.integer(r->a);
        record.integer(r->id);
        tk->add(0, record.record());
    }
    file.addSchema("index", "t_k", "t", tk->finish(), "CREATE INDEX t_k ON t(k, a)");
    auto u = file.table();
    std::vector<std::pair<std::int64_t, std::int64_t>> ux; // (x, rowid)
    for (std::size_t i = 0; i < rows.size(); ++i) {
        record.clear();
        record.integer(rows[i].a % 1000);
        u->add(std::int64_t(i) + 1, record.record());
        ux.emplace_back(rows[i].a % 1000, std::int64_t(i) + 1);
    }
    file.addSchema("table", "u", "u", u->finish(), "CREATE TABLE u(x)");
    std::sort(ux.begin(), ux.end());
    auto ui = file.index();
    for (const auto& [x, rowid] : ux) {
        record.clear();
        record.integer(x);
        record.integer(rowid);
        ui->add(0, record.record());
    }
    file.addSchema("index", "u_x", "u", ui->finish(), "CREATE INDEX u_x ON u(x)");
    const bool ok = file.finish();
    error = file.error();
    ::close(fd);
    return ok;
}

} // namespace

class TestSqliteFile : public QObject {
    Q_OBJECT
  private slots:
    void readsBack_data();
    void readsBack();
    void skipsTheLockBytePage();
    void recordsAsSqliteEncodesThem_data();
    void recordsAsSqliteEncodesThem();
    void refusesWhatItCannotWrite_data();
    void refusesWhatItCannotWrite();
    void mergesIndexEntriesAsSqlite_data();
    void mergesIndexEntriesAsSqlite();
};

void TestSqliteFile::readsBack_data() {
    QTest::addColumn<int>("pageSize");
    QTest::addColumn<int>("rows");
    QTest::addColumn<int>("longestText");
    QTest::addColumn<bool>("everyVarintWidth");
    QTest::newRow("empty tables") << 4096 << 0 << 0 << false;
    QTest::newRow("one row, smallest page") << 512 << 1 << 10 << false;
    QTest::newRow("one leaf, 64 KiB pages") << 65536 << 100 << 40 << false;
    QTest::newRow("four levels of 512-byte pages") << 512 << 40000 << 12 << false;
    QTest::newRow("three levels of 4 KiB pages") << 4096 << 100000 << 20 << false;
    QTest::newRow("overflow chains, 1 KiB pages") << 1024 << 400 << 9000 << false;
    QTest::newRow("long texts, 64 KiB pages") << 65536 << 60 << 400000 << false;
    QTest::newRow("just past one leaf") << 4096 << 130 << 20 << false;
    QTest::newRow("rowids of every varint length, 512-byte pages") << 512 << 21 << 100 << true;
}

void TestSqliteFile::readsBack() {
    QFETCH(int, pageSize);
    QFETCH(int, rows);
    QFETCH(int, longestText);
    QFETCH(bool, everyVarintWidth);
    const std::vector<Row> expected =
        makeRows(rows, longestText, unsigned(pageSize + rows), everyVarintWidth);
    QTemporaryDir dir;
    const std::string path = dir.filePath("t.db").toStdString();
    std::string error;
    QVERIFY2(writeFile(path, std::uint32_t(pageSize), expected, error), error.c_str());
    sqlite3* db = nullptr;
    QCOMPARE(sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
    QCOMPARE(queryText(db, "PRAGMA integrity_check"), std::string("ok"));
    QCOMPARE(queryText(db, "PRAGMA page_size"), std::to_string(pageSize));
    // Every value, with its type, in rowid order.
    sqlite3_stmt* stmt = nullptr;
    QCOMPARE(sqlite3_prepare_v2(db, "SELECT id, a, b, c, k, typeof(a), typeof(b) FROM t ORDER BY rowid", -1,
                                &stmt, nullptr),
             SQLITE_OK);
    std::size_t n = 0;
    while (sqlite3_step(stmt) == SQLITE_ROW) {
        QVERIFY(n < expected.size());
        const Row& r = expected[n++];
        QCOMPARE(sqlite3_column_int64(stmt, 0), r.id);
        QCOMPARE(sqlite3_column_int64(stmt, 1), r.a);
        QCOMPARE(sqlite3_column_double(stmt, 2), r.b);
        const auto* c = reinterpret_cast<const char*>(sqlite3_column_text(stmt, 3));
        QCOMPARE(std::string(c, std::size_t(sqlite3_column_bytes(stmt, 3))), r.c);
        QCOMPARE(sqlite3_column_type(stmt, 4) == SQLITE_NULL, !r.k.has_value());
        if (r.k) QCOMPARE(sqlite3_column_int64(stmt, 4), *r.k);
        QCOMPARE(std::string(reinterpret_cast<const char*>(sqlite3_column_text(stmt, 5))),
                 std::string("integer"));
        QCOMPARE(std::string(reinterpret_cast<const char*>(sqlite3_column_text(stmt, 6))),
                 std::string("real"));
    }
    sqlite3_finalize(stmt);
    QCOMPARE(n, expected.size());
    // Lookups through each index (the plan says so) find what a scan finds.
    QVERIFY(queryText(db, "EXPLAIN QUERY PLAN SELECT count(*) FROM t WHERE k = 3").find("t_k") !=
            std::string::npos);
    for (int key = -10; key < 40; key += 7) {
        const std::size_t want = std::size_t(
            std::count_if(expected.begin(), expected.end(), [&](const Row& r) { return r.k == key; }));
        QCOMPARE(
            queryText(db, ("SELECT count(*) FROM t INDEXED BY t_k WHERE k = " + std::to_string(key)).c_str()),
            std::to_string(want));
    }
    const std::size_t nulls =
        std::size_t(std::count_if(expected.begin(), expected.end(), [](const Row& r) { return !r.k; }));
    QCOMPARE(queryText(db, "SELECT count(*) FROM t INDEXED BY t_k WHERE k IS NULL"), std::to_string(nulls));
    QCOMPARE(queryText(db, "SELECT count(*) FROM u INDEXED BY u_x WHERE x BETWEEN -100 AND 100"),
             queryText(db, "SELECT count(*) FROM u NOT INDEXED WHERE x BETWEEN -100 AND 100"));
    sqlite3_close(db);
}

// A file past SQLite's lock byte leaves the page holding it unused (SQLite's integrity check counts it so):
// the byte moved to 64 KiB for the test, as SQLite's own tests move it, rather than writing a 1 GiB file.
void TestSqliteFile::skipsTheLockBytePage() {
    const std::vector<Row> expected = makeRows(20000, 30, 1);
    QTemporaryDir dir;
    const std::string path = dir.filePath("t.db").toStdString();
    std::string error;
    QVERIFY2(writeFile(path, 1024, expected, error, 0x10000), error.c_str());
    QVERIFY(QFileInfo(QString::fromStdString(path)).size() > 0x20000);
    sqlite3_test_control(SQLITE_TESTCTRL_PENDING_BYTE, 0x10000);
    sqlite3* db = nullptr;
    QCOMPARE(sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
    const std::string check = queryText(db, "PRAGMA integrity_check");
    const std::string count = queryText(db, "SELECT count(*) FROM t");
    sqlite3_close(db);
    sqlite3_test_control(SQLITE_TESTCTRL_PENDING_BYTE, 0x40000000);
    QCOMPARE(check, std::string("ok"));
    QCOMPARE(count, std::string("20000"));
}

// Each kind and width of value, as SQLite types and quotes it, read back by SQLite from a record of ours.
void TestSqliteFile::recordsAsSqliteEncodesThem_data() {
    QTest::addColumn<QString>("literal");
    for (const char* v : {"0",
                          "1",
                          "2",
                          "-1",
                          "127",
                          "-128",
                          "128",
                          "32767",
                          "-32768",
                          "8388607",
                          "-8388608",
                          "2147483647",
                          "-2147483648",
                          "140737488355327",
                          "-140737488355328",
                          "9223372036854775807",
                          "-9223372036854775808",
                          "0.5",
                          "-1.5e300",
                          "'x'",
                          "''",
                          "NULL"})
        QTest::newRow(v) << QString::fromLatin1(v);
}

void TestSqliteFile::recordsAsSqliteEncodesThem() {
    QFETCH(QString, literal);
    sqlite3* db = nullptr;
    QCOMPARE(sqlite3_open(":memory:", &db), SQLITE_OK);
    // The value as SQLite types and quotes it, then our record of it, read back by SQLite from a file of
    // ours.
    const std::string l = literal.toStdString();
    sqlite3_stmt* stmt = nullptr;
    QCOMPARE(sqlite3_prepare_v2(db, ("SELECT " + l).c_str(), -1, &stmt, nullptr), SQLITE_OK);
    QCOMPARE(sqlite3_step(stmt), SQLITE_ROW);
    RecordEncoder record;
    switch (sqlite3_column_type(stmt, 0)) {
    case SQLITE_INTEGER:
        record.integer(sqlite3_column_int64(stmt, 0));
        break;
    case SQLITE_FLOAT:
        record.real(sqlite3_column_double(stmt, 0));
        break;
    case SQLITE_TEXT:
        record.text(reinterpret_cast<const char*>(sqlite3_column_text(stmt, 0)));
        break;
    default:
        record.null();
    }
    sqlite3_finalize(stmt);
    // An index entry's record of integers and NULLs: the same bytes, before and after a rowid.
    if (const std::string_view one = record.record(); one[1] <= 9 && one[1] != 7) { // (7: a real)
        const std::int64_t value = one[1] == 0 ? 0 : std::stoll(l);                 // (serial type 0: NULL)
        const std::int64_t values[2] = {value, 77777};
        const bool nulls[2] = {one[1] == 0, false};
        sql::ByteBuffer direct;
        sql::appendIntegerRecord(direct, values, nulls, 1);
        QCOMPARE(direct.view(), one);
        RecordEncoder withRowid;
        nulls[0] ? withRowid.null() : withRowid.integer(value);
        withRowid.integer(77777);
        direct.clear();
        sql::appendIntegerRecord(direct, values, nulls, 2);
        QCOMPARE(direct.view(), withRowid.record());
    }
    const std::string expected =
        queryText(db, ("SELECT typeof(" + l + ") || ' ' || quote(" + l + ")").c_str());
    sqlite3_close(db);

    QTemporaryDir dir;
    const std::string path = dir.filePath("v.db").toStdString();
    const int fd = ::open(path.c_str(), O_CREAT | O_TRUNC | O_WRONLY, 0644);
    {
        SqliteFileWriter file(fd, 512);
        auto t = file.table();
        t->add(1, record.record());
        file.addSchema("table", "v", "v", t->finish(), "CREATE TABLE v(x)");
        QVERIFY(file.finish());
    }
    ::close(fd);
    QCOMPARE(sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
    QCOMPARE(queryText(db, "SELECT typeof(x) || ' ' || quote(x) FROM v"), expected);
    QCOMPARE(queryText(db, "PRAGMA integrity_check"), std::string("ok"));
    sqlite3_close(db);
}

// What the file cannot hold, or a file that cannot be written: the export's error, never a broken file
// called done. Each case writes through a fresh writer into `device`, then expects finish() to fail saying
// why.
using WriteSteps = std::function<void(SqliteFileWriter&)>;

void TestSqliteFile::refusesWhatItCannotWrite_data() {
    QTest::addColumn<QString>("device");
    QTest::addColumn<int>("pageSize");
    QTest::addColumn<WriteSteps>("steps");
    QTest::addColumn<QString>("error");
    const auto recordOf = [](const std::function<void(RecordEncoder&)>& values) {
        RecordEncoder record;
        values(record);
        return std::string(record.record());
    };
    const std::string five = recordOf([](RecordEncoder& r) { r.integer(5); });
    QTest::newRow("a rowid not above the previous")
        << "/dev/null" << 4096 << WriteSteps([five](SqliteFileWriter& f) {
               auto t = f.table();
               t->add(5, std::string_view(five));
               t->add(5, std::string_view(five));
               t->finish();
           })
        << "rows out of rowid order";
    // A record of no values, an index entry of no key: cells shorter than SQLite reads any cell.
    const std::string noValues = recordOf([](RecordEncoder&) {}); // its header's size alone
    QTest::newRow("a record of no values")
        << "/dev/null" << 4096 << WriteSteps([noValues](SqliteFileWriter& f) {
               auto t = f.table();
               t->add(1, std::string_view(noValues));
               t->finish();
           })
        << "a record without values";
    const std::string rowidAlone = recordOf([](RecordEncoder& r) { r.integer(1); });
    QTest::newRow("an index entry of no key")
        << "/dev/null" << 4096 << WriteSteps([rowidAlone](SqliteFileWriter& f) {
               auto i = f.index();
               i->add(0, std::string_view(rowidAlone));
               i->finish();
           })
        << "an index entry without a key";
    QTest::newRow("a page size SQLite does not read")
        << "/dev/null" << 1000 << WriteSteps([](SqliteFileWriter&) {}) << "a page size SQLite does not read";
    const std::string longText = recordOf([](RecordEncoder& r) { r.text(std::string(600, 'x')); });
    QTest::newRow("an index entry past its page")
        << "/dev/null" << 512 << WriteSteps([longText](SqliteFileWriter& f) {
               auto i = f.index();
               i->add(0, std::string_view(longText));
               i->finish();
           })
        << "an index entry too long for its page";
    QTest::newRow("a schema past page 1") << "/dev/null" << 512 << WriteSteps([](SqliteFileWriter& f) {
        for (int n = 0; n < 20; ++n)
            f.addSchema("table", "t" + std::to_string(n), "t", 2,
                        "CREATE TABLE t" + std::to_string(n) + "(x)");
    }) << "the schema does not fit on the first page";
    const std::string kilobyte = recordOf([](RecordEncoder& r) { r.text(std::string(1000, 'y')); });
    QTest::newRow("a full disk") << "/dev/full" << 65536 << WriteSteps([kilobyte](SqliteFileWriter& f) {
        auto t = f.table();
        for (int n = 1; n <= 20000; ++n)
            t->add(n, std::string_view(kilobyte));
        f.addSchema("table", "t", "t", t->finish(), "CREATE TABLE t(x)");
    }) << QString::fromLocal8Bit(std::strerror(ENOSPC));
}

void TestSqliteFile::refusesWhatItCannotWrite() {
    QFETCH(QString, device);
    QFETCH(int, pageSize);
    QFETCH(WriteSteps, steps);
    QFETCH(QString, error);
    if (!QFile::exists(device)) QSKIP("no such device here");
    const int fd = ::open(device.toLocal8Bit().constData(), O_WRONLY);
    QVERIFY(fd >= 0);
    {
        SqliteFileWriter file(fd, std::uint32_t(pageSize));
        steps(file);
        QVERIFY(!file.finish());
        QCOMPARE(QString::fromStdString(file.error()), error);
    }
    ::close(fd);
}

// An index's entries, gathered part by part in the rows' order and merged (indexkeys.h): the order a
// comparison sort by SQLite's rule gives (keys with NULL first, then rowid), for keys of every range (a
// handful of values with many ties, ids, timestamps, the whole 64-bit range, with and without NULLs in either
// column), rows that come in a few sorted runs or in none, parts of every size (empty ones too), and rowids
// that are each row's place, have gaps, are numbered from 1 a part, or reach the top of the 64-bit range.
void TestSqliteFile::mergesIndexEntriesAsSqlite_data() {
    QTest::addColumn<int>("columns");
    QTest::addColumn<qint64>("least");
    QTest::addColumn<qint64>("most");
    QTest::addColumn<int>("nullPercent");
    QTest::addColumn<int>("count");
    QTest::addColumn<int>("runs"); // the rows come in this many sorted runs; 0: in no order
    QTest::addColumn<QString>("rowids");
    QTest::newRow("ids, no NULL") << 1 << qint64(0) << qint64(3400000) << 0 << 100000 << 0 << "place";
    QTest::newRow("parent ids, a third NULL")
        << 1 << qint64(0) << qint64(50000) << 33 << 100000 << 611 << "place";
    QTest::newRow("few values, many ties") << 1 << qint64(-3) << qint64(3) << 10 << 50000 << 0 << "gaps";
    QTest::newRow("all NULL") << 1 << qint64(0) << qint64(0) << 100 << 1000 << 0 << "numbered";
    QTest::newRow("one value") << 1 << qint64(42) << qint64(42) << 0 << 1000 << 1 << "place";
    QTest::newRow("the whole 64-bit range")
        << 1 << qint64(INT64_MIN) << qint64(INT64_MAX) << 5 << 100000 << 0 << "top";
    QTest::newRow("track and timestamp, in 97 runs")
        << 2 << qint64(1700000000000000000) << qint64(1700000060000000000) << 0 << 100000 << 97 << "place";
    QTest::newRow("track and timestamp, numbered")
        << 2 << qint64(1700000000000000000) << qint64(1700000060000000000) << 0 << 100000 << 3 << "numbered";
    QTest::newRow("two columns, NULLs in both")
        << 2 << qint64(-1000) << qint64(1000) << 20 << 100000 << 0 << "gaps";
    QTest::newRow("two columns, negative wide keys")
        << 2 << qint64(INT64_MIN / 2) << qint64(INT64_MAX / 3) << 1 << 100000 << 40 << "top";
    QTest::newRow("one run") << 2 << qint64(0) << qint64(1000000) << 0 << 20000 << 1 << "place";
    QTest::newRow("empty") << 2 << qint64(0) << qint64(10) << 0 << 0 << 0 << "place";
}

void TestSqliteFile::mergesIndexEntriesAsSqlite() {
    QFETCH(int, columns);
    QFETCH(qint64, least);
    QFETCH(qint64, most);
    QFETCH(int, nullPercent);
    QFETCH(int, count);
    QFETCH(int, runs);
    QFETCH(QString, rowids);
    std::mt19937_64 random(unsigned(count + nullPercent + columns + runs));
    const std::uint64_t span = std::uint64_t(most) - std::uint64_t(least);
    std::vector<sql::IndexEntry> entries(static_cast<std::size_t>(count));
    for (sql::IndexEntry& e : entries) {
        // The first column a small range (a track id) when there are two; the last the range asked for.
        for (int c = 0; c < columns; ++c) {
            e.null[c] = int(random() % 100) < nullPercent;
            const std::uint64_t offset = span == UINT64_MAX ? random() : random() % (span + 1);
            e.key[c] = e.null[c] ? 0
                                 : (c + 1 < columns ? std::int64_t(random() % 5)
                                                    : std::int64_t(std::uint64_t(least) + offset));
        }
    }
    // Runs: the rows cut into `runs` stretches, each sorted by its keys (before the rowids are given, which
    // follow the rows' order as an export's do).
    const auto byKeys = [&](const sql::IndexEntry& a, const sql::IndexEntry& b) {
        return sql::entryBefore(a, b, columns);
    };
    for (int r = 0; r < runs; ++r)
        std::sort(entries.begin() + std::ptrdiff_t(entries.size() * std::size_t(r) / std::size_t(runs)),
                  entries.begin() + std::ptrdiff_t(entries.size() * std::size_t(r + 1) / std::size_t(runs)),
                  byKeys);
    for (std::size_t i = 0; i < entries.size(); ++i)
        entries[i].rowid = rowids == "gaps"  ? std::int64_t(i) * 3 + 1
                           : rowids == "top" ? INT64_MAX - std::int64_t(entries.size()) + std::int64_t(i) + 1
                           : rowids == "numbered" ? std::int64_t(i) + 1
                                                  : std::int64_t(i);

    // The parts: a key column no index here reads in front of the index's own (which it reads in reverse
    // order, the last first), parts of random sizes, an empty one now and then.
    const int partColumns = columns + 1;
    std::vector<sql::KeyPart> parts;
    std::int64_t before = 0;
    for (std::size_t i = 0; i < entries.size() || parts.empty();) {
        const std::size_t size =
            std::min<std::size_t>(entries.size() - i, random() % 6 == 0 ? 0 : random() % 5000);
        sql::KeyPart& part = parts.emplace_back(partColumns);
        part.reserve(size);
        for (std::size_t r = 0; r < size; ++r, ++i) {
            const sql::IndexEntry& e = entries[i];
            std::int64_t values[3] = {-7, 0, 0};
            bool nulls[3] = {false, false, false};
            for (int c = 0; c < columns; ++c)
                values[partColumns - 1 - c] = e.key[c], nulls[partColumns - 1 - c] = e.null[c];
            part.add(values, nulls, rowids == "numbered" ? std::int64_t(r) + 1 : e.rowid);
        }
        part.shrink();
        if (rowids == "numbered") part.offsetRowids(before);
        before += std::int64_t(size);
    }
    std::vector<int> indexColumns;
    for (int c = 0; c < columns; ++c)
        indexColumns.push_back(partColumns - 1 - c);

    std::vector<sql::IndexEntry> expected = entries;
    std::stable_sort(expected.begin(), expected.end(), byKeys);
    sql::MergedEntries merged(parts, indexColumns);
    if (runs > 0) QVERIFY(merged.runs() <= std::size_t(runs));
    std::size_t i = 0;
    for (sql::IndexEntry entry; merged.next(entry); ++i) {
        QVERIFY(i < expected.size());
        QCOMPARE(entry.rowid, expected[i].rowid);
        for (int c = 0; c < columns; ++c) {
            QCOMPARE(entry.null[c], expected[i].null[c]);
            QCOMPARE(entry.key[c], expected[i].key[c]);
        }
    }
    QCOMPARE(i, expected.size());
    // What an export holds for its sorted indexes is the keys alone where no key is NULL and the rowids
    // follow one another: 8 bytes a key column a row.
    if (nullPercent == 0 && rowids != "gaps") {
        std::size_t bytes = 0;
        for (const sql::KeyPart& part : parts)
            bytes += part.bytes();
        QCOMPARE(bytes, entries.size() * std::size_t(partColumns) * 8);
    }
}

QTEST_GUILESS_MAIN(TestSqliteFile)
#include "tst_sqlitefile.moc"
