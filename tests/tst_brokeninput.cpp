// Broken and hostile input: each row names the input and its expected outcome. Never a crash or a hang.
#include "analysis/report/analysisresult.h"
#include "fuzz/fuzz_input.h"
#include "testsupport.h"

#include <QDir>
#include <QFile>
#include <QTest>

#include <algorithm>

using namespace kinetoscope;

class TestBrokenInput : public QObject {
    Q_OBJECT
  private slots:
    void broken_data();
    void broken();
    void truncatedAtEveryOffset();
    void byteFlipsNeverCrash();
    void gzipCutShort();
    void firstIssuesByOffset_data();
    void firstIssuesByOffset();
    void fuzzSeedsKeepInvariants_data();
    void fuzzSeedsKeepInvariants();
    void missingFile();
    void emptyFileOnDisk();
    void cancellation();
    void gzipCorrupted_data();
    void gzipCorrupted();
    void tenMillionUnmatchedFlowEnds();
    void metadataOutOfRange_data();
    void metadataOutOfRange();
    void tooBigForMemory_data();
    void tooBigForMemory();
};

namespace {
const std::string goodEvent = R"({"ph":"X","name":"a","pid":1,"tid":1,"ts":1,"dur":1})";

std::string events(int n) {
    std::string s = R"({"traceEvents":[)";
    for (int i = 0; i < n; ++i) {
        if (i) s += ",\n";
        s += R"({"ph":"X","cat":"cpu_op","name":"op)" + std::to_string(i % 7) + R"(","pid":1,"tid":1,"ts":)" +
             std::to_string(i * 10) + R"(,"dur":5,"args":{"External id":)" + std::to_string(i) + "}}";
    }
    return s + "]}";
}
} // namespace

void TestBrokenInput::broken_data() {
    QTest::addColumn<QByteArray>("input");
    QTest::addColumn<bool>("loads");
    QTest::addColumn<QString>("errorOrIssue"); // substring of the error, or of the first issue
    QTest::addColumn<qint64>("slices");
    QTest::addColumn<qint64>("malformed");

    auto row = [](const char* name, const std::string& in, bool loads, const char* msg, qint64 slices,
                  qint64 malformed) {
        QTest::newRow(name) << QByteArray::fromStdString(in) << loads << QString(msg) << slices << malformed;
    };
    row("whitespace only", "   \n", false, "only whitespace", 0, 0);
    row("not JSON", "hello world", false, "not JSON", 0, 0);
    row("JSON that is not a trace", R"({"a":1,"b":[1,2]})", false, "no traceEvents", 0, 0);
    row("traceEvents not an array", R"({"traceEvents":{}})", false, "not an array", 0, 0);
    row("binary noise", std::string("\x00\x01\xff\xfe\x13\x37garbage", 14), false, "not JSON", 0, 0);
    row("truncated inside an event",
        R"({"traceEvents":[)" + goodEvent + "," + goodEvent + R"(,{"ph":"X","na)", true, "truncated", 2, 0);
    row("truncated after a comma", R"({"traceEvents":[)" + goodEvent + ",", true, "truncated", 1, 0);
    row("truncated in the header", R"({"schemaVersion":1,"deviceProperties":[{"id":0,)", false,
        "file ends inside top-level key", 0, 0);
    row("NaN, Infinity and 1e400",
        R"([{"ph":"X","name":"a","pid":1,"tid":1,"ts":NaN,"dur":1},{"ph":"X","name":"b","pid":1,"tid":1,"ts":Infinity,"dur":1},{"ph":"X","name":"c","pid":1,"tid":1,"ts":1e400,"dur":1},)" +
            goodEvent + "]",
        true, "", 1, 3);
    row("negative duration", R"([{"ph":"X","name":"a","pid":1,"tid":1,"ts":1,"dur":-5},)" + goodEvent + "]",
        true, "negative duration", 1, 1);
    // Times past ±2^61 ns (2^61 ns = 2305843009213693.952 us): views and analyses add and subtract times
    // unchecked, so a start near int64's end overflowed there (fuzz_loader, fuzz_import).
    row("ts past the time range",
        R"([{"ph":"X","name":"a","pid":1,"tid":1,"ts":2305843009213694,"dur":1},{"ph":"i","name":"b","pid":1,"tid":1,"ts":-9000000000000000,"s":"t"},)" +
            goodEvent + "]",
        true, "ts is not a finite number in range", 1, 2);
    row("end past the time range",
        R"([{"ph":"X","name":"a","pid":1,"tid":1,"ts":2305843009213693,"dur":1},)" + goodEvent + "]", true,
        "ends past the time range", 1, 1);
    row("dur past the time range",
        R"([{"ph":"X","name":"a","pid":1,"tid":1,"ts":1,"dur":9000000000000000},)" + goodEvent + "]", true,
        "dur is not a finite number in range", 1, 1);
    row("epoch microseconds of 2043 kept",
        R"([{"ph":"X","name":"a","pid":1,"tid":1,"ts":2300000000000000,"dur":1000}])", true, "", 1, 0);
    row("zero duration kept", R"([{"ph":"X","name":"a","pid":1,"tid":1,"ts":1,"dur":0}])", true, "", 1, 0);
    row("invalid UTF-8 in a name",
        "[{\"ph\":\"X\",\"name\":\"\xff\xfe\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":1}," + goodEvent + "]",
        true, "malformed event", 1, 1);
    row("event that is not an object", "[1, \"x\", " + goodEvent + "]", true, "not an object", 1, 2);
    row("missing ph", R"([{"name":"a","pid":1,"tid":1,"ts":1,"dur":1},)" + goodEvent + "]", true, "no ph", 1,
        1);
    row("missing ts", R"([{"ph":"X","name":"a","pid":1,"tid":1,"dur":1},)" + goodEvent + "]", true, "no ts",
        1, 1);
    row("ts of the wrong type",
        R"([{"ph":"X","name":"a","pid":1,"tid":1,"ts":{"x":1},"dur":1},)" + goodEvent + "]", true,
        "ts is not", 1, 1);
    row("duplicate keys: the last wins",
        R"([{"ph":"X","name":"a","name":"b","pid":1,"tid":1,"ts":1,"dur":1}])", true, "", 1, 0);
    row("unbalanced bracket inside an event", "[" + goodEvent + R"(,{"ph":"X","args":{]},)" + goodEvent + "]",
        true, "", 2, 1);
    row("missing comma between events", "[" + goodEvent + goodEvent + "]", true, "missing ','", 2, 0);
    row("garbage after the array", "[" + goodEvent + "] trailing", true, "", 1, 0);
    row("empty array", "[]", true, "", 0, 0);
    row("empty traceEvents", R"({"traceEvents":[]})", true, "", 0, 0);
    row("deep nesting inside args",
        R"([{"ph":"X","name":"a","pid":1,"tid":1,"ts":1,"dur":1,"args":)" + std::string(100000, '[') +
            std::string(100000, ']') + "}," + goodEvent + "]",
        true, "", 2, 0); // valid JSON, however deep: kept, its args decoded (bounded) on demand
    row("nesting 1,000,000 deep, never closed", "[" + std::string(1000000, '['), true, "truncated", 0, 0);
    row("a 50 MB string",
        R"([{"ph":"X","name":")" + std::string(50u << 20, 'x') + R"(","pid":1,"tid":1,"ts":1,"dur":1},)" +
            goodEvent + "]",
        true, "", 2, 0);
}

void TestBrokenInput::broken() {
    QFETCH(QByteArray, input);
    QFETCH(bool, loads);
    QFETCH(QString, errorOrIssue);
    QFETCH(qint64, slices);
    QFETCH(qint64, malformed);
    for (std::size_t chunk : {std::size_t(8u << 20), std::size_t(32)}) {
        const LoadResult r = test::loadText(input.toStdString(), chunk, 2);
        QCOMPARE(r.ok(), loads);
        if (!loads) {
            QVERIFY2(QString::fromStdString(r.error).contains(errorOrIssue), r.error.c_str());
            const std::string line = r.message("t.json");
            QVERIFY(line.find('\n') == std::string::npos);
            QVERIFY2(line.rfind("t.json: ", 0) == 0, line.c_str());
            continue;
        }
        QCOMPARE(qint64(r.store->sliceCount()), slices);
        QCOMPARE(qint64(r.store->stats().malformedEvents), malformed);
        if (!errorOrIssue.isEmpty()) {
            bool found = false;
            for (const ImportIssue& i : r.store->stats().issues)
                found |= QString::fromStdString(i.reason).contains(errorOrIssue);
            QVERIFY2(found, qPrintable("no issue mentions " + errorOrIssue));
        }
    }
}

// A truncated file loads every whole event before the cut, and the count never shrinks as the cut moves on.
void TestBrokenInput::truncatedAtEveryOffset() {
    const std::string full = events(40);
    std::size_t previous = 0;
    for (std::size_t cut = 1; cut < full.size(); ++cut) {
        const LoadResult r = test::loadText(full.substr(0, cut), 64, 2);
        if (!r.ok()) {
            QCOMPARE(previous, std::size_t(0)); // only before the array starts
            continue;
        }
        const std::size_t n = r.store->sliceCount();
        QVERIFY2(n >= previous, qPrintable(QString("cut %1: %2 < %3").arg(cut).arg(n).arg(previous)));
        QVERIFY(r.store->stats().truncated || cut + 1 >= full.size());
        QCOMPARE(r.store->stats().malformedEvents, std::uint64_t(0));
        previous = n;
    }
    QCOMPARE(previous, std::size_t(40));
}

// Damage in one chunk costs only the damaged event, whatever the chunking.
void TestBrokenInput::byteFlipsNeverCrash() {
    const std::string full = events(200);
    std::uint32_t seed = 12345;
    for (int round = 0; round < 300; ++round) {
        std::string damaged = full;
        for (int k = 0; k < 3; ++k) {
            seed = seed * 1664525u + 1013904223u;
            damaged[seed % damaged.size()] = char(seed >> 24);
        }
        const LoadResult r = test::loadText(damaged, 256, 2);
        if (r.ok())
            QVERIFY(r.store->sliceCount() <= 200);
        else
            QVERIFY(!r.error.empty());
    }
}

void TestBrokenInput::gzipCutShort() {
    const std::string gz = test::gzipText(events(2000));
    const QString path = QDir::temp().filePath("kinetoscope-test-cut.json.gz");
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(gz.data(), qint64(gz.size() * 2 / 3));
    f.close();
    const LoadResult r = loadTrace(path.toStdString());
    QVERIFY2(r.ok(), r.error.c_str());
    const ImportStats& st = r.store->stats();
    QVERIFY(st.truncated && st.gzipCutShort);
    QVERIFY(r.store->sliceCount() > 100 && r.store->sliceCount() < 2000);
    // Every issue's offset is in the text: the gzip one where what inflated ends, naming the compressed byte.
    QVERIFY(!st.issues.empty());
    QVERIFY(std::is_sorted(st.issues.begin(), st.issues.end(),
                           [](const ImportIssue& a, const ImportIssue& b) { return a.offset < b.offset; }));
    QVERIFY(std::any_of(st.issues.begin(), st.issues.end(), [&](const ImportIssue& issue) {
        return issue.offset == st.jsonBytes &&
               issue.reason.find("gzip stream is cut short or corrupt at compressed byte ") == 0;
    }));
    QVERIFY(st.truncatedAt <= st.jsonBytes);
    QFile::remove(path);
}

// Issues come from the reader (a cut gzip stream), the parse of each piece and the builder; the ten kept are
// the first ten by offset over all of them, whatever piece or thread found them.
void TestBrokenInput::firstIssuesByOffset_data() {
    QTest::addColumn<bool>("gzipCut");
    QTest::addColumn<int>("threads");
    QTest::newRow("plain, one thread") << false << 1;
    QTest::newRow("plain, two threads") << false << 2;
    QTest::newRow("gzip cut, two threads") << true << 2;
}

void TestBrokenInput::firstIssuesByOffset() {
    QFETCH(bool, gzipCut);
    QFETCH(int, threads);
    std::string json = events(2000);
    json.resize(json.size() - 2); // reopen the array
    std::vector<std::uint64_t> skipped;
    for (int i = 0; i < 30; ++i) { // elements that are not events, spread over many pieces
        json += ",\n";
        skipped.push_back(json.size());
        json += "42,\n" + std::string(R"({"ph":"X","name":"late","pid":1,"tid":2,"ts":)") +
                std::to_string(i) + R"(,"dur":1})";
    }
    json += "]}";
    const QString path =
        QDir::temp().filePath(gzipCut ? "kinetoscope-test-issues.json.gz" : "kinetoscope-test-issues.json");
    {
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        if (gzipCut) {
            const std::string gz = test::gzipText(json);
            f.write(gz.data(), qint64(gz.size() - 10)); // the trailer and the last bytes of the stream
        } else {
            f.write(json.data(), qint64(json.size()));
        }
    }
    LoadOptions options;
    options.threads = threads;
    options.chunkBytes = 4096;
    const LoadResult r = loadTrace(path.toStdString(), options);
    QFile::remove(path);
    QVERIFY2(r.ok(), r.error.c_str());
    const ImportStats& st = r.store->stats();
    QCOMPARE(st.gzipCutShort, gzipCut);
    QCOMPARE(st.malformedEvents, std::uint64_t(30));
    QCOMPARE(st.issues.size(), ImportStats::maxReportedIssues);
    for (std::size_t i = 0; i < st.issues.size(); ++i)
        QVERIFY2(st.issues[i].offset == skipped[i],
                 qPrintable(QStringLiteral("issue %1 at %2: %3")
                                .arg(i)
                                .arg(st.issues[i].offset)
                                .arg(QString::fromStdString(st.issues[i].reason))));
}

void TestBrokenInput::missingFile() {
    const LoadResult r = loadTrace("/nonexistent/trace.json");
    QVERIFY(!r.ok());
    QCOMPARE(QString::fromStdString(r.message("/nonexistent/trace.json")),
             QString("/nonexistent/trace.json: No such file or directory"));
}

void TestBrokenInput::emptyFileOnDisk() {
    const QString path = QDir::temp().filePath("kinetoscope-test-empty.json");
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.close();
    const LoadResult r = loadTrace(path.toStdString());
    QVERIFY(!r.ok());
    QCOMPARE(QString::fromStdString(r.error), QString("empty file"));
    QFile::remove(path);
}

void TestBrokenInput::cancellation() {
    std::atomic<bool> cancel{true};
    LoadOptions options;
    options.cancel = &cancel;
    const LoadResult r = loadTraceText(events(1000), options);
    QVERIFY(!r.ok());
    QVERIFY(r.cancelled);
}

void TestBrokenInput::gzipCorrupted_data() {
    QTest::addColumn<double>("where"); // fraction of the compressed stream
    QTest::newRow("corrupt near the start") << 0.1;
    QTest::newRow("corrupt in the middle") << 0.5;
    QTest::newRow("corrupt trailer") << 0.999;
}

void TestBrokenInput::gzipCorrupted() {
    // Damaged deflate data (not just cut short): whatever inflated before the damage loads, or a one-line
    // error names the file; never a crash or a hang.
    QFETCH(double, where);
    std::string gz = test::gzipText(events(4000));
    const std::size_t at = std::max<std::size_t>(20, std::size_t(double(gz.size()) * where));
    for (std::size_t i = at; i < std::min(gz.size(), at + 16); ++i)
        gz[i] = char(gz[i] ^ 0x5a);
    const QString path = QDir::temp().filePath("kinetoscope-test-corrupt.json.gz");
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(gz.data(), qint64(gz.size()));
    f.close();
    const LoadResult r = loadTrace(path.toStdString());
    if (r.ok()) {
        QVERIFY(r.store->sliceCount() <= 4000);
        if (where < 0.9) QVERIFY(r.store->stats().truncated || r.store->stats().malformedEvents > 0);
    } else {
        const QString line = QString::fromStdString(r.message(path.toStdString()));
        QVERIFY(line.startsWith(path));
        QVERIFY(!line.contains(QLatin1Char('\n')));
    }
    QFile::remove(path);
}

void TestBrokenInput::tenMillionUnmatchedFlowEnds() {
    // A profiler that lost every flow start: ten million `f` ends with nothing to pair with (~750 MB of
    // JSON). They are counted and dropped; the slices around them load; nothing grows without bound.
    constexpr int ends = 10'000'000;
    std::string json;
    json.reserve(std::size_t(ends) * 80 + 200);
    json += R"({"traceEvents":[{"ph":"X","cat":"cpu_op","name":"op","pid":1,"tid":1,"ts":0,"dur":100000000})";
    char buf[128];
    for (int i = 0; i < ends; ++i) {
        const int n = std::snprintf(
            buf, sizeof buf,
            R"(,{"ph":"f","bp":"e","id":%d,"pid":1,"tid":1,"ts":%d,"cat":"ac2g","name":"ac2g"})", i,
            i % 100000000);
        json.append(buf, std::size_t(n));
    }
    json += "]}";
    const LoadResult r = loadTraceText(json);
    QVERIFY(r.ok());
    QCOMPARE(r.store->stats().flowEndsUnmatched, std::uint64_t(ends));
    QCOMPARE(r.store->flows().size(), std::size_t(0));
    QCOMPARE(r.store->sliceCount(), std::size_t(1));
    QVERIFY(r.store->bytesHeld() < (64u << 20)); // the dropped ends leave nothing behind
}

// Top-level numbers beyond int64 (found by fuzz_import: a 19-digit baseTimeNanoseconds overflowed, UB) are
// dropped, never wrapped; the events still load. The asan preset turns any such overflow into a failure.
void TestBrokenInput::metadataOutOfRange_data() {
    QTest::addColumn<QByteArray>("header");
    QTest::addColumn<bool>("hasBase");
    QTest::addColumn<qint64>("base");
    QTest::addColumn<qint64>("numSms");
    QTest::newRow("base past int64") << QByteArray(R"("baseTimeNanoseconds":9619999999999999999)") << false
                                     << qint64(0) << qint64(0);
    QTest::newRow("base at int64 max") << QByteArray(R"("baseTimeNanoseconds":9223372036854775807)") << true
                                       << qint64(9223372036854775807) << qint64(0);
    QTest::newRow("base as a string") << QByteArray(R"("baseTimeNanoseconds":"1700000000000000000")") << true
                                      << qint64(1700000000000000000) << qint64(0);
    QTest::newRow("numSms 1e300") << QByteArray(R"("deviceProperties":[{"id":0,"numSms":1e300}])") << false
                                  << qint64(0) << qint64(0);
    QTest::newRow("numSms 132.0") << QByteArray(R"("deviceProperties":[{"id":0,"numSms":132.0}])") << false
                                  << qint64(0) << qint64(132);
}

void TestBrokenInput::metadataOutOfRange() {
    QFETCH(QByteArray, header);
    QFETCH(bool, hasBase);
    QFETCH(qint64, base);
    QFETCH(qint64, numSms);
    const std::string json = "{" + header.toStdString() + R"(,"traceEvents":[)" + goodEvent + "]}";
    const LoadResult r = loadTraceText(json);
    QVERIFY2(r.ok(), r.error.c_str());
    QCOMPARE(qint64(r.store->sliceCount()), qint64(1));
    QCOMPARE(r.store->metadata().baseTimeNanoseconds.has_value(), hasBase);
    if (hasBase) QCOMPARE(qint64(*r.store->metadata().baseTimeNanoseconds), base);
    if (!r.store->metadata().devices.empty())
        QCOMPARE(qint64(r.store->metadata().devices.front().numSms), numSms);
}

void TestBrokenInput::tooBigForMemory_data() {
    QTest::addColumn<bool>("gzip");
    QTest::addColumn<QString>("message");
    QTest::newRow("plain file larger than free memory")
        << false << "of memory to load, only 0.0 MiB available";
    QTest::newRow("gzip larger than free memory")
        << true << "of memory to decompress, only 0.0 MiB available";
}

void TestBrokenInput::tooBigForMemory() {
    // A 10 GB trace on a machine with less free memory, in miniature: a clear one-line error before anything
    // is allocated, never the OOM killer. KINETOSCOPE_MEMORY_AVAILABLE pretends the machine has 1 KB free.
    QFETCH(bool, gzip);
    QFETCH(QString, message);
    const std::string text = events(2000);
    const QString path =
        QDir::temp().filePath(gzip ? "kinetoscope-test-big.json.gz" : "kinetoscope-test-big.json");
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly));
    const std::string bytes = gzip ? test::gzipText(text) : text;
    f.write(bytes.data(), qint64(bytes.size()));
    f.close();
    qputenv("KINETOSCOPE_MEMORY_AVAILABLE", "1000");
    const LoadResult r = loadTrace(path.toStdString());
    qunsetenv("KINETOSCOPE_MEMORY_AVAILABLE");
    QVERIFY(!r.ok());
    const QString line = QString::fromStdString(r.message(path.toStdString()));
    QVERIFY2(line.contains(message), qPrintable(line));
    QVERIFY(line.startsWith(path));
    QVERIFY(!line.contains(QLatin1Char('\n')));
    // With the memory there, the same file loads.
    QVERIFY(loadTrace(path.toStdString()).ok());
    QFile::remove(path);
}

// Every fuzzing seed, the inputs fuzzing once broke the importer with among them, loads (or fails with a
// message) into a store that keeps the invariants the viewer relies on, as the fuzz targets load it. The two
// regression-lane-order seeds (../shared/fuzz/import-invariant-*.json.gz) broke a lane's order by end: a
// slice let go as clock jitter, then a short one inside it placed on its lane.
void TestBrokenInput::fuzzSeedsKeepInvariants_data() {
    QTest::addColumn<QString>("path");
    const QDir seeds(QStringLiteral(KINETOSCOPE_SOURCE_DIR "/tests/fuzz/seeds"));
    const QStringList names = seeds.entryList(QDir::Files, QDir::Name);
    QVERIFY(names.contains(QStringLiteral("regression-lane-order-1.json.gz")));
    for (const QString& name : names)
        QTest::newRow(qPrintable(name)) << seeds.filePath(name);
}

void TestBrokenInput::fuzzSeedsKeepInvariants() {
    QFETCH(QString, path);
    QFile f(path);
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QByteArray bytes = f.readAll();
    const LoadResult r =
        fuzz::loadBytes(reinterpret_cast<const std::uint8_t*>(bytes.constData()), std::size_t(bytes.size()));
    if (!r.ok()) {
        QVERIFY2(!r.error.empty(), "a failure must say why");
        return;
    }
    const int line = fuzz::brokenInvariant(*r.store);
    QVERIFY2(line == 0, qPrintable(QStringLiteral("invariant broken: tests/fuzz/fuzz_input.h:%1").arg(line)));
    // And every analysis runs on it (under ASan in CI: regression-gputime-zero-length.json read before a
    // vector).
    const auto report = computeAnalysis(*r.store, std::nullopt, OperatorGrouping::Name, KernelGrouping::Name);
    QVERIFY(report);
}

QTEST_GUILESS_MAIN(TestBrokenInput)
#include "tst_brokeninput.moc"
