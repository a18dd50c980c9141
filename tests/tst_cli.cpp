// kinetoscope-cli as a user runs it: exit codes, one-line errors, text and JSON output.
#include "model/textformat.h"
#include "testsupport.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <map>

using namespace kinetoscope;

class TestCli : public QObject {
    Q_OBJECT
  private slots:
    void exitCodes_data();
    void exitCodes();
    void loadErrorNamesFileAndByte();
    void truncatedWarnsButSucceeds();
    void infoReportsFigures();
    void legacyTraceHasOperators();
    void summaryJsonShape();
    void summaryJsonSaysWhatLoaded_data();
    void summaryJsonSaysWhatLoaded();
    void runHeaderOfDamagedTrace();
    void summaryTextIsAligned();
};

namespace {
struct Output {
    int code;
    QString out;
    QString err;
};
Output run(const QStringList& args) {
    QProcess p;
    p.start(QStringLiteral(KINETOSCOPE_CLI), args);
    p.waitForFinished(300000);
    return {p.exitCode(), QString::fromUtf8(p.readAllStandardOutput()),
            QString::fromUtf8(p.readAllStandardError())};
}
const QString sample = QString::fromStdString(
    test::tracePath("AMD-AGI__TraceLens/tests__traces__torch_compile_triton__trace.json.gz"));
} // namespace

void TestCli::exitCodes_data() {
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<int>("code");
    QTest::addColumn<QString>("stderrStart");
    QTest::newRow("no command") << QStringList{} << 2 << "kinetoscope-cli: no command given";
    QTest::newRow("unknown command") << QStringList{"frobnicate"} << 2 << "kinetoscope-cli: unknown command";
    QTest::newRow("info without trace")
        << QStringList{"info"} << 2 << "kinetoscope-cli: info: TRACE is required";
    QTest::newRow("bad --by") << QStringList{"summary", sample, "--by", "x"} << 2
                              << "kinetoscope-cli: summary: --by: x not in {op,op+shape,kernel}";
    QTest::newRow("bad --top") << QStringList{"summary", sample, "--top", "0"} << 2
                               << "kinetoscope-cli: summary: --top: needs a positive number";
    QTest::newRow("bad --sort") << QStringList{"summary", sample, "--sort", "colour"} << 2
                                << "kinetoscope-cli: unknown sort field";
    QTest::newRow("missing file") << QStringList{"info", "/no/such.json"} << 1
                                  << "kinetoscope-cli: /no/such.json: No such file or directory";
    QTest::newRow("info ok") << QStringList{"info", sample} << 0 << "";
    QTest::newRow("no such step") << QStringList{"summary", sample, "--step", "7"} << 2
                                  << "kinetoscope-cli: summary: --step: ";
    QTest::newRow("summary ok") << QStringList{"summary", sample, "--sort", "count", "--top", "3"} << 0 << "";
}
void TestCli::exitCodes() {
    QFETCH(QStringList, args);
    QFETCH(int, code);
    QFETCH(QString, stderrStart);
    const Output o = run(args);
    QCOMPARE(o.code, code);
    QVERIFY2(stderrStart.isEmpty() ? o.err.isEmpty() : o.err.startsWith(stderrStart), qPrintable(o.err));
    if (code == 1) QCOMPARE(o.err.count('\n'), 1); // one line
}

void TestCli::loadErrorNamesFileAndByte() {
    const QString path = QDir::temp().filePath("kinetoscope-cli-bad.json");
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write("  {\"traceEvents\": 42}");
    f.close();
    const Output o = run({"info", path});
    QCOMPARE(o.code, 1);
    QCOMPARE(o.err, "kinetoscope-cli: " + path + ": byte 18: traceEvents is not an array\n");
    QFile::remove(path);
}

void TestCli::truncatedWarnsButSucceeds() {
    const QString path = QDir::temp().filePath("kinetoscope-cli-cut.json");
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(R"({"traceEvents":[{"ph":"X","name":"a","pid":1,"tid":1,"ts":1,"dur":1},{"ph":"X","na)");
    f.close();
    const Output o = run({"info", path});
    QCOMPARE(o.code, 0);
    QVERIFY2(o.err.contains("warning") && o.err.contains("truncated"), qPrintable(o.err));
    QVERIFY(o.out.contains("Truncated:       yes"));
    QFile::remove(path);
}

void TestCli::infoReportsFigures() {
    const Output o = run({"info", sample});
    for (const char* key :
         {"Events read:     246", "Slices:", "Tracks:", "Flows:", "Time span:", "Load time:", "MB/s",
          "bytes per event", "Phases:", "Categories:", "Flows unmatched: 1 start-only, 46 finish-only"})
        QVERIFY2(o.out.contains(key), key);
    // Sizes in binary units of three digits: a 34 KB file read "Size: 0.0 MB". This one is 5.84 KiB of gzip
    // holding 64,512 bytes of JSON.
    const QString disk = QString::fromStdString(formatBytes(double(QFileInfo(sample).size())));
    QVERIFY2(o.out.contains("Size:            " + disk + " on disk, 63.0 KiB of JSON (gzip)\n"),
             qPrintable(o.out));
    QVERIFY2(QRegularExpression("Store memory:    [0-9.]+ KiB \\(").match(o.out).hasMatch(),
             qPrintable(o.out));
}

// A trace of a PyTorch without Kineto (the legacy autograd profiler: no categories, whole µs) has its
// operator and annotation tables, as key_averages() of the same run listed them (tests/data/legacy), and info
// says how its events were classified.
void TestCli::legacyTraceHasOperators() {
    const QString dir = QStringLiteral(KINETOSCOPE_SOURCE_DIR "/tests/data/legacy/");
    const Output info = run({"info", dir + "mlp.json.gz"});
    QCOMPARE(info.code, 0);
    QVERIFY2(
        info.out.contains("Legacy format:   no categories (autograd profiler without Kineto): 384 operators "
                          "and 15 annotations told apart by name"),
        qPrintable(info.out));
    const Output o = run({"summary", dir + "mlp.json.gz", "--json", "--top", "1000"});
    QCOMPARE(o.code, 0);
    const QJsonObject root = QJsonDocument::fromJson(o.out.toUtf8()).object();
    std::map<QString, std::pair<qint64, double>> ours;
    for (const char* table : {"operators", "annotations"})
        for (const QJsonValue& v : root[table].toArray())
            ours[v["name"].toString()] = {v["count"].toInteger(), v["host_total_us"].toDouble()};
    std::map<QString, std::pair<qint64, double>> theirs;
    const QJsonDocument reference = QJsonDocument::fromJson(
        QByteArray::fromStdString(test::readText((dir + "mlp.key_averages.json.gz").toStdString())));
    for (const QJsonValue& v : reference.object()["rows"].toArray()) {
        QString key = v["key"].toString();
        key.replace(QRegularExpression("#[0-9]+$"), "#*"); // train_step#0..2: one row of ours
        theirs[key].first += v["count"].toInteger();
        theirs[key].second += v["cpu_time_total_us"].toDouble();
    }
    QVERIFY(theirs.size() >= 40);
    QCOMPARE(ours, theirs);
}

void TestCli::summaryJsonShape() {
    const Output o = run({"summary", sample, "--json"});
    QCOMPARE(o.code, 0);
    QJsonParseError error;
    const QJsonDocument doc = QJsonDocument::fromJson(o.out.toUtf8(), &error);
    QVERIFY2(error.error == QJsonParseError::NoError, qPrintable(error.errorString()));
    const QJsonObject root = doc.object();
    QVERIFY(root["events"].toInt() > 0);
    const QJsonArray kernels = root["kernels"].toArray();
    QCOMPARE(kernels.size(), 8); // 12 kernel events, 8 distinct names
    for (const char* k : {"name", "count", "total_us", "min_us", "max_us", "mean_us"})
        QVERIFY(kernels[0].toObject().contains(k));
    const QJsonArray ops = root["operators"].toArray();
    QVERIFY(!ops.isEmpty());
    for (const char* k :
         {"name", "count", "host_total_us", "host_self_us", "device_total_us", "device_self_us"})
        QVERIFY(ops[0].toObject().contains(k));
    QVERIFY(root["gpu_busy_us"].toObject().contains("2"));
    // The critical path of the median step: its events, and edges that name them by index.
    const QJsonObject path = root["critical_path"].toObject();
    for (const char* k : {"step", "step_us", "length_us", "step_share", "bound_by_us", "events", "edges"})
        QVERIFY2(path.contains(k), k);
    const QJsonArray events = path["events"].toArray();
    const QJsonArray edges = path["edges"].toArray();
    QVERIFY(!edges.isEmpty());
    double sum = 0;
    for (const QJsonValue& e : edges) {
        QVERIFY(e["to"].toInt() < events.size());
        sum += e["weight_us"].toDouble();
    }
    QCOMPARE(sum, path["length_us"].toDouble());
    QVERIFY(path["bound_by_us"].toObject().contains("gpu_compute"));
}

// The JSON's run header says whether the file loaded whole, where it was cut and what was skipped (a script
// must not need the warnings on stderr), and names the devices and versions; the same whichever load a
// report needs (--by kernel reads the GPU's work alone).
void TestCli::summaryJsonSaysWhatLoaded_data() {
    QTest::addColumn<QString>("trace"); // in the corpus, gzip
    QTest::addColumn<QString>("cut");   // "text": inflated and written again without its last third;
                                        // "gzip": its compressed bytes so cut
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QString>("device"); // the first device's name begins so; empty: none
    QTest::addColumn<QString>("fact");   // a key of "facts"
    const QString compiled =
        QStringLiteral("AMD-AGI__TraceLens/tests__traces__torch_compile_triton__trace.json.gz");
    const QString qwen = QString::fromUtf8(test::traces::qwenH100);
    const QStringList json{"--json"}, byKernel{"--json", "--by", "kernel"};
    QTest::newRow("whole") << compiled << "" << json << "AMD Instinct MI300X"
                           << "hip_runtime";
    QTest::newRow("whole, --by kernel") << qwen << "" << byKernel << "NVIDIA H100"
                                        << "cuda_runtime";
    // Kineto writes the devices and versions after the event array: a cut file has none.
    QTest::newRow("text cut") << qwen << "text" << json << ""
                              << "";
    QTest::newRow("text cut, --by kernel") << qwen << "text" << byKernel << ""
                                           << "";
    QTest::newRow("gzip cut") << qwen << "gzip" << json << ""
                              << "";
    QTest::newRow("gzip cut, --by kernel") << qwen << "gzip" << byKernel << ""
                                           << "";
}

void TestCli::summaryJsonSaysWhatLoaded() {
    QFETCH(QString, trace);
    QFETCH(QString, cut);
    QFETCH(QStringList, args);
    QFETCH(QString, device);
    QFETCH(QString, fact);
    QString path = QString::fromStdString(test::tracePath(trace.toUtf8().constData()));
    QTemporaryDir dir;
    if (!cut.isEmpty()) {
        QByteArray bytes;
        if (cut == QStringLiteral("text")) {
            bytes = QByteArray::fromStdString(test::readText(path.toStdString()));
        } else {
            QFile whole(path);
            QVERIFY(whole.open(QIODevice::ReadOnly));
            bytes = whole.readAll();
        }
        path = dir.filePath(cut == QStringLiteral("text") ? QStringLiteral("cut.json")
                                                          : QStringLiteral("cut.json.gz"));
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(bytes.left(bytes.size() * 2 / 3));
    }
    const Output o = run(QStringList{"summary", path} + args);
    QCOMPARE(o.code, 0);
    const QJsonObject run = QJsonDocument::fromJson(o.out.toUtf8()).object()["run"].toObject();
    const qint64 textBytes = run["text_bytes"].toInteger();
    QCOMPARE(run["file_bytes"].toInteger(), QFileInfo(path).size());
    QCOMPARE(run["gzip"].toBool(), cut != QStringLiteral("text"));
    QVERIFY(textBytes > run["file_bytes"].toInteger() || cut == QStringLiteral("text"));
    QCOMPARE(run["format"].toString(), QStringLiteral("json"));
    QCOMPARE(run["complete"].toBool(), cut.isEmpty());
    QCOMPARE(run["skipped_events"].toInteger(), 0);
    const QJsonArray issues = run["issues"].toArray();
    QString reasons;
    for (const QJsonValue& issue : issues) {
        QVERIFY(issue["byte"].toInteger() <= textBytes); // in the text, inflated
        reasons += issue["reason"].toString() + QLatin1Char('\n');
    }
    if (cut.isEmpty()) {
        QVERIFY(!run.contains("truncated_at_byte"));
        QVERIFY2(issues.isEmpty(), qPrintable(reasons));
    } else {
        // Cut inside the event array: the text ends inside an event, the loader stops before it.
        const qint64 at = run["truncated_at_byte"].toInteger();
        QVERIFY2(at > textBytes - 100000 && at <= textBytes, qPrintable(QString::number(at)));
        QVERIFY2(reasons.contains(QStringLiteral("truncated")), qPrintable(reasons));
        QVERIFY(o.err.contains(QStringLiteral("byte %1").arg(at))); // the warning says the same
        const bool gzipIssue = std::any_of(issues.begin(), issues.end(), [&](const QJsonValue& issue) {
            return issue["byte"].toInteger() == textBytes &&
                   issue["reason"].toString().startsWith(QStringLiteral("gzip stream is cut short"));
        });
        QCOMPARE(gzipIssue, cut == QStringLiteral("gzip"));
        QCOMPARE(o.err.contains(QStringLiteral("gzip stream is cut short")), cut == QStringLiteral("gzip"));
    }
    const QJsonArray devices = run["devices"].toArray();
    QVERIFY(run["devices"].isArray() && run["facts"].isObject());
    if (device.isEmpty()) {
        QVERIFY(devices.isEmpty() && run["facts"].toObject().isEmpty());
        return;
    }
    QVERIFY(!devices.isEmpty());
    QVERIFY2(devices[0]["name"].toString().startsWith(device), qPrintable(devices[0]["name"].toString()));
    QVERIFY(devices[0]["memory_bytes"].toInteger() > (qint64(1) << 30));
    QVERIFY(devices[0]["sms"].toInt() > 0);
    QVERIFY(devices[0]["compute_capability"].toString().contains('.'));
    QVERIFY2(!run["facts"].toObject()[fact].toString().isEmpty(), qPrintable(fact));
}

// A real trace with three broken events and a Windows path for its name: the run header is the same whichever
// sections a run computes, names the three by byte in order, and reads the name as Kineto wrote it (the
// metadata's JSON escapes once went out escaped twice).
void TestCli::runHeaderOfDamagedTrace() {
    QByteArray text = QByteArray::fromStdString(test::readText(test::tracePath(test::traces::qwenH100)));
    qsizetype at = 0;
    for (int quarter = 1; quarter <= 3; ++quarter) {
        at = text.indexOf("\"ph\": \"X\"", std::max(at + 1, text.size() * quarter / 4));
        QVERIFY(at > 0);
        text.replace(at, 4, "ph: "); // an unquoted key
    }
    const QByteArray name = "\"traceName\": \"/tmp/tmp8f047i33/file.json\"";
    QVERIFY(text.contains(name));
    text.replace(name, "\"traceName\": \"C:\\\\runs\\\\qwen \\\"a\\\" \xc3\xa9.json\"");
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("damaged.json"));
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(text);
    f.close();

    const Output all = run({"summary", path, "--json"});
    const Output kernels = run({"summary", path, "--json", "--by", "kernel"});
    QCOMPARE(all.code, 0);
    QCOMPARE(kernels.code, 0);
    const QJsonObject header = QJsonDocument::fromJson(all.out.toUtf8()).object()["run"].toObject();
    QCOMPARE(QJsonDocument::fromJson(kernels.out.toUtf8()).object()["run"].toObject(), header);
    QCOMPARE(header["complete"].toBool(), true);
    QCOMPARE(header["skipped_events"].toInteger(), 3);
    const QJsonArray issues = header["issues"].toArray();
    QCOMPARE(issues.size(), 3);
    qint64 previous = 0;
    for (const QJsonValue& issue : issues) {
        const qint64 byte = issue["byte"].toInteger();
        QVERIFY(byte > previous && byte < header["text_bytes"].toInteger());
        QCOMPARE(text.mid(byte, 64).count("ph: "), 1); // the byte is the broken event's own
        previous = byte;
    }
    QCOMPARE(header["facts"].toObject()["trace_name"].toString(),
             QString::fromUtf8("C:\\runs\\qwen \"a\" \xc3\xa9.json"));
    QCOMPARE(header["facts"].toObject()["cuda_runtime"].toString(), QStringLiteral("12040"));
    QVERIFY(all.err.contains(QStringLiteral("3 malformed events skipped")));
}

void TestCli::summaryTextIsAligned() {
    const Output o = run({"summary", sample, "--top", "5"});
    QCOMPARE(o.code, 0);
    QVERIFY(o.out.contains("Operators (5 of "));
    QVERIFY(o.out.contains("Kernels (5 of 8)"));
    const QStringList lines = o.out.split('\n');
    const int header = lines.indexOf(QRegularExpression("^Name +Calls +Total us.*"));
    QVERIFY(header > 0);
    QCOMPARE(lines[header + 2].size(), lines[header].size()); // right-aligned numbers end together
}

QTEST_GUILESS_MAIN(TestCli)
#include "tst_cli.moc"
