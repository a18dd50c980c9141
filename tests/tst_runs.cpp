// Folders of traces: grouping into runs, workers and spans (on the corpus and on a TensorBoard-style layout),
// the runs panel, and watching a folder while a job writes into it (files appear and grow; none is opened
// half).
#include "import/runscan.h"
#include "shell/folderwatcher.h"
#include "shell/mainwindow.h"
#include "shell/runspanel.h"
#include "testsupport.h"
#include "views/traceview.h"

#include <QDir>
#include <QFile>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QTreeWidget>

using namespace kinetoscope;

class TestRuns : public QObject {
    Q_OBJECT
  private slots:
    void corpusGrouping();
    void tensorboardLayout();
    void rankFamilies();
    void notTracesAreIgnored();
    void runsPanelOpens();
    void watchWaitsForCompleteFiles_data();
    void watchWaitsForCompleteFiles();

  private:
    static QByteArray sample();
    static void write(const QString& path, const QByteArray& data, bool append = false);
};

QByteArray TestRuns::sample() {
    QFile f(QStringLiteral(KINETOSCOPE_SOURCE_DIR "/resources/samples/sample.pt.trace.json"));
    f.open(QIODevice::ReadOnly);
    return f.readAll();
}

void TestRuns::write(const QString& path, const QByteArray& data, bool append) {
    QDir().mkpath(QFileInfo(path).absolutePath());
    QFile f(path);
    if (!f.open(append ? QIODevice::Append : QIODevice::WriteOnly))
        qFatal("cannot write %s", qPrintable(path));
    f.write(data);
}

void TestRuns::corpusGrouping() {
    std::string error;
    const auto runs = scanRuns(test::tracePath("pytorch__kineto"), &error);
    QVERIFY(error.empty());
    QCOMPARE(runs.size(), std::size_t(1));
    // tb_plugin's resnet50 sample: one worker with two profiling spans (one named by timestamp).
    const TraceWorker* worker = nullptr;
    for (const TraceWorker& w : runs[0].workers) {
        if (w.name == "tb_plugin__samples__resnet50_num_workers_0__worker0") worker = &w;
    }
    QVERIFY(worker);
    QCOMPARE(worker->spans.size(), std::size_t(2));
    QCOMPARE(worker->spans[1].span, std::string("1623143566756"));
    // The HTA sampled pair: a rank family in a shared folder becomes one run with two workers.
    const auto hta = scanRuns(test::tracePath("facebookresearch__HolisticTraceAnalysis"));
    const TraceRun* sampled = nullptr;
    for (const TraceRun& r : hta) {
        if (r.name == "tests__data__trace_filter__sampled") sampled = &r;
    }
    QVERIFY(sampled);
    QCOMPARE(sampled->workers.size(), std::size_t(2));
    QCOMPARE(sampled->workers[0].name, std::string("rank-0"));
    QCOMPARE(sampled->workers[1].name, std::string("rank-1"));
}

void TestRuns::tensorboardLayout() {
    QTemporaryDir dir;
    // log/run_a/{host_1.1700000000001, host_1.1700000000002, host_2.1700000000001}.pt.trace.json,
    // log/run_b/worker0.pt.trace.json.gz
    write(dir.filePath(QStringLiteral("run_a/host_1.1700000000001.pt.trace.json")), sample());
    write(dir.filePath(QStringLiteral("run_a/host_1.1700000000002.pt.trace.json")), sample());
    write(dir.filePath(QStringLiteral("run_a/host_2.1700000000001.pt.trace.json")), sample());
    write(dir.filePath(QStringLiteral("run_b/worker0.pt.trace.json.gz")),
          QByteArray::fromStdString(test::gzipText(sample().toStdString())));
    const auto runs = scanRuns(dir.path().toStdString());
    QCOMPARE(runs.size(), std::size_t(2));
    QCOMPARE(runs[0].name, std::string("run_a"));
    QCOMPARE(runs[0].workers.size(), std::size_t(2));
    QCOMPARE(runs[0].workers[0].name, std::string("host_1"));
    QCOMPARE(runs[0].workers[0].spans.size(), std::size_t(2));
    QCOMPARE(runs[0].workers[0].spans[0].span, std::string("1700000000001"));
    QCOMPARE(runs[1].name, std::string("run_b"));
    QCOMPARE(runs[1].workers[0].name, std::string("worker0"));
}

void TestRuns::rankFamilies() {
    QTemporaryDir dir;
    for (int r : {0, 1, 2, 10})
        write(dir.filePath(QStringLiteral("job_rank%1.json").arg(r)), sample());
    const auto runs = scanRuns(dir.path().toStdString());
    QCOMPARE(runs.size(), std::size_t(1));
    QCOMPARE(runs[0].workers.size(), std::size_t(4));
    QCOMPARE(runs[0].workers[3].name, std::string("rank10")); // numeric order
}

void TestRuns::notTracesAreIgnored() {
    QTemporaryDir dir;
    write(dir.filePath(QStringLiteral("config.json")), "{\"lr\": 0.1}");
    write(dir.filePath(QStringLiteral("notes.txt")), "hello");
    write(dir.filePath(QStringLiteral("renamed.json")), sample()); // content says it is a trace
    const auto runs = scanRuns(dir.path().toStdString());
    QCOMPARE(runs.size(), std::size_t(1));
    QCOMPARE(runs[0].workers.size(), std::size_t(1));
    QCOMPARE(runs[0].workers[0].name, std::string("renamed"));
    std::string error;
    QVERIFY(scanRuns("/nonexistent/folder", &error).empty());
    QVERIFY(error.find("/nonexistent/folder") != std::string::npos);
}

void TestRuns::runsPanelOpens() {
    QTemporaryDir dir;
    write(dir.filePath(QStringLiteral("run/rank-0.json")), sample());
    write(dir.filePath(QStringLiteral("run/rank-1.json")), sample());
    MainWindow w;
    w.openFolder(dir.path());
    RunsPanel* panel = w.runsPanel();
    QVERIFY(panel);
    QCOMPARE(panel->tree()->topLevelItemCount(), 1);
    QTreeWidgetItem* run = panel->tree()->topLevelItem(0);
    QCOMPARE(run->childCount(), 2);
    panel->tree()->setCurrentItem(run);
    QCOMPARE(panel->selectedRunFiles().size(), 2);
    // Double-clicking a worker with one span opens it.
    emit panel->tree()->itemDoubleClicked(run->child(1), 0);
    QCOMPARE(w.tabs()->count(), 1);
}

void TestRuns::watchWaitsForCompleteFiles_data() {
    QTest::addColumn<bool>("gzip");
    QTest::newRow("json") << false;
    QTest::newRow("gzip") << true;
}

void TestRuns::watchWaitsForCompleteFiles() {
    QFETCH(bool, gzip);
    QTemporaryDir dir;
    write(dir.filePath(QStringLiteral("old.pt.trace.json")), sample()); // there before watching: not reopened
    FolderWatcher watcher(dir.path(), nullptr, 100);
    QSignalSpy ready(&watcher, &FolderWatcher::traceReady);
    QSignalSpy scanned(&watcher, &FolderWatcher::scanned);
    watcher.start(false);
    const QByteArray whole =
        gzip ? QByteArray::fromStdString(test::gzipText(sample().toStdString())) : sample();
    const QString path =
        dir.filePath(gzip ? QStringLiteral("new.pt.trace.json.gz") : QStringLiteral("new.pt.trace.json"));
    // The job writes the first half and pauses (longer than the stability window).
    write(path, whole.left(whole.size() / 2));
    QTest::qWait(800);
    QVERIFY(scanned.count() >= 4);
    QCOMPARE(ready.count(), 0); // half a trace is never reported
    QVERIFY(!FolderWatcher::isComplete(path));
    // It finishes the file: reported once, after it stops growing.
    write(path, whole.mid(whole.size() / 2), true);
    QVERIFY(FolderWatcher::isComplete(path));
    QVERIFY(ready.wait(5000));
    QCOMPARE(ready.count(), 1);
    QCOMPARE(ready.front().front().toString(), path);
    QTest::qWait(500);
    QCOMPARE(ready.count(), 1);
}

QTEST_MAIN(TestRuns)
#include "tst_runs.moc"
