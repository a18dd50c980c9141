// One window per user: a second `kinetoscope FILE` hands its files to the running window, which opens them as
// tabs.
#include "shell/mainwindow.h"
#include "shell/singleinstance.h"
#include "views/traceview.h"

#include <QDir>
#include <QFile>
#include <QProcess>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTest>

#include <thread>

using namespace kinetoscope;

class TestSingleInstance : public QObject {
    Q_OBJECT
  private slots:
    void handsFilesToRunningWindow();
    void noRunningInstance();
    void takesOverStaleSocket();
    void secondProcessExitsAndFirstKeepsRunning();
    void onePerDisplay();

  private:
    static QString uniqueName(const char* tag) {
        return QStringLiteral("kinetoscope-test-%1-%2")
            .arg(QLatin1String(tag))
            .arg(QCoreApplication::applicationPid());
    }
    static QString sample() {
        return QStringLiteral(KINETOSCOPE_SOURCE_DIR "/resources/samples/sample.pt.trace.json");
    }
};

void TestSingleInstance::handsFilesToRunningWindow() {
    SingleInstance server(uniqueName("hand"));
    QVERIFY(server.listen());
    MainWindow window;
    window.attachSingleInstance(&server);
    QSignalSpy received(&server, &SingleInstance::filesReceived);
    // The second instance is another process in real life: send from another thread while this one runs
    // events.
    bool sent = false;
    std::thread client([&] {
        sent = SingleInstance(server.name()).sendToRunning({sample(), sample()}, 5000);
    });
    QVERIFY(QTest::qWaitFor([&] { return received.count() == 1; }, 10000));
    client.join();
    QVERIFY(sent);
    QCOMPARE(received.front().front().toStringList(), QStringList({sample(), sample()}));
    QCOMPARE(window.tabs()->count(), 2);
    auto* view = qobject_cast<TraceView*>(window.tabs()->widget(1));
    QVERIFY(QTest::qWaitFor([&] { return view->state() == TraceView::State::Ready; }, 10000));
}

void TestSingleInstance::noRunningInstance() {
    QVERIFY(!SingleInstance(uniqueName("none")).sendToRunning({sample()}, 500));
}

void TestSingleInstance::takesOverStaleSocket() {
    // What a crashed instance leaves behind: a socket file nobody listens on.
    const QString name = uniqueName("stale");
    const QString path = QDir::tempPath() + QLatin1Char('/') + name;
    {
        QFile stale(path);
        QVERIFY(stale.open(QIODevice::WriteOnly));
    }
    SingleInstance server(name);
    QVERIFY(server.listen());
    bool sent = false;
    QSignalSpy received(&server, &SingleInstance::filesReceived);
    std::thread client([&] { sent = SingleInstance(name).sendToRunning({}, 5000); });
    QVERIFY(QTest::qWaitFor([&] { return received.count() == 1; }, 10000));
    client.join();
    QVERIFY(sent);
    QVERIFY(received.front().front().toStringList().isEmpty());
}

void TestSingleInstance::secondProcessExitsAndFirstKeepsRunning() {
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("KINETOSCOPE_INSTANCE"), uniqueName("proc"));
    env.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
    QProcess first;
    first.setProcessEnvironment(env);
    first.start(QStringLiteral(KINETOSCOPE_APP), {sample()});
    QVERIFY(first.waitForStarted());
    // Wait until the first window listens.
    QVERIFY(QTest::qWaitFor(
        [&] {
            bool ok = false;
            std::thread t([&] { ok = SingleInstance(uniqueName("proc")).sendToRunning({}, 300); });
            t.join();
            return ok;
        },
        20000));
    QProcess second;
    second.setProcessEnvironment(env);
    second.start(QStringLiteral(KINETOSCOPE_APP), {sample()});
    QVERIFY(second.waitForFinished(20000));
    QCOMPARE(second.exitCode(), 0);
    QCOMPARE(first.state(), QProcess::Running);
    // --new-window starts a window of its own instead.
    QProcess third;
    third.setProcessEnvironment(env);
    third.start(QStringLiteral(KINETOSCOPE_APP), {QStringLiteral("--new-window"), sample()});
    QVERIFY(third.waitForStarted());
    QVERIFY(!third.waitForFinished(1500));
    third.kill();
    third.waitForFinished();
    first.kill();
    first.waitForFinished();
}

// A file opened on one X display went to the window of the same user on another: the name is per display.
void TestSingleInstance::onePerDisplay() {
    const QByteArray instance = qgetenv("KINETOSCOPE_INSTANCE"), x = qgetenv("DISPLAY"),
                     wayland = qgetenv("WAYLAND_DISPLAY");
    qunsetenv("KINETOSCOPE_INSTANCE");
    qunsetenv("WAYLAND_DISPLAY");
    qputenv("DISPLAY", ":7");
    const QString seven = SingleInstance::defaultName();
    qputenv("DISPLAY", ":8");
    const QString eight = SingleInstance::defaultName();
    qputenv("DISPLAY", "localhost:10.0");
    const QString remote = SingleInstance::defaultName();
    qputenv("WAYLAND_DISPLAY", "wayland-0");
    const QString onWayland = SingleInstance::defaultName();
    for (const auto& [name, value] : {std::pair{"KINETOSCOPE_INSTANCE", instance}, std::pair{"DISPLAY", x},
                                      std::pair{"WAYLAND_DISPLAY", wayland}})
        value.isNull() ? qunsetenv(name) : qputenv(name, value);
    QVERIFY(seven != eight);
    QVERIFY(seven.startsWith(QStringLiteral("kinetoscope-")));
    for (const QString& name : {seven, eight, remote, onWayland})
        QVERIFY2(!name.contains(QLatin1Char('/')) && !name.contains(QLatin1Char(':')), qPrintable(name));
    QVERIFY(onWayland != remote && onWayland.contains(QStringLiteral("wayland")));
    // Two servers on two displays listen side by side.
    SingleInstance a(seven), b(eight);
    QVERIFY(a.listen());
    QVERIFY(b.listen());
    QVERIFY(
        !SingleInstance(QStringLiteral("kinetoscope-test-nobody-%1").arg(QCoreApplication::applicationPid()))
             .sendToRunning({}, 200));
}

QTEST_MAIN(TestSingleInstance)
#include "tst_singleinstance.moc"
