// kinetoscope-cli as a user runs it: exit codes, one-line errors, text and JSON output.
#include "testsupport.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QRegularExpression>
#include <QTest>

using namespace kinetoscope;

class TestCli : public QObject {
    Q_OBJECT
  private slots:
    void exitCodes_data();
    void exitCodes();
    void loadErrorNamesFileAndByte();
    void truncatedWarnsButSucceeds();
    void infoReportsFigures();
    void summaryJsonShape();
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
