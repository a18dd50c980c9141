// Attach (issue 53): Kineto's on-demand protocol, daemon side (core/live/ondemand.h), and `kinetoscope-cli
// attach` against kinetoscope-fake-kineto, a client that speaks Kineto's side as libkineto does (its own
// endpoint, polls, the pid inserted in the file name, the /tmp rule, the file written in pieces). Every test
// runs with its own KINETO_IPC_SOCKET_DIR: nothing here meets a real dynolog or another test.
#include "import/traceloader.h"
#include "live/ondemand.h"
#include "testsupport.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QRandomGenerator>
#include <QSet>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>

#include <atomic>
#include <cstring>
#include <memory>
#include <mutex>
#include <thread>

using namespace kinetoscope;
using namespace kinetoscope::live;

class TestOnDemand : public QObject {
    Q_OBJECT
  private slots:
    void init();
    void cleanup();
    void datagrams_data();
    void datagrams();
    void pollsRoundTrip();
    void configAndPaths();
    void randomDatagramsNeverCrash();
    void listsThePollingProcesses();
    void attachesSeveralAtOnce();
    void failuresNameTheirPid();
    void refusedPathFallsBackToKinetosOwn();
    void throughDynologWhenItHoldsTheName();
    void aTraceThatNeverCompletes();

  private:
    QProcess* startClient(const QStringList& args = {}, const QStringList& env = {});
    QProcessEnvironment environment() const;
    int runCli(const QStringList& args, QString* out, QString* err, int timeoutMs = 60000);
    void sendGarbage();

    std::unique_ptr<QTemporaryDir> m_socketDir;
    std::vector<std::unique_ptr<QProcess>> m_clients;
};

namespace {
std::string header(std::uint64_t size, const char* type) {
    std::string h(40, '\0');
    std::memcpy(h.data(), &size, 8);
    std::memcpy(h.data() + 8, type, std::strlen(type));
    return h;
}
} // namespace

void TestOnDemand::init() {
    m_socketDir = std::make_unique<QTemporaryDir>();
    QVERIFY(m_socketDir->isValid());
}

void TestOnDemand::cleanup() {
    for (auto& c : m_clients) {
        c->kill();
        c->waitForFinished(3000);
    }
    m_clients.clear();
}

QProcessEnvironment TestOnDemand::environment() const {
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("KINETO_IPC_SOCKET_DIR"), m_socketDir->path());
    return env;
}

QProcess* TestOnDemand::startClient(const QStringList& args, const QStringList& extra) {
    auto p = std::make_unique<QProcess>();
    QProcessEnvironment env = environment();
    for (const QString& e : extra)
        env.insert(e.section(QLatin1Char('='), 0, 0), e.section(QLatin1Char('='), 1));
    p->setProcessEnvironment(env);
    p->start(QStringLiteral(KINETOSCOPE_FAKE_KINETO), args);
    p->waitForStarted();
    m_clients.push_back(std::move(p));
    return m_clients.back().get();
}

int TestOnDemand::runCli(const QStringList& args, QString* out, QString* err, int timeoutMs) {
    QProcess p;
    p.setProcessEnvironment(environment());
    p.start(QStringLiteral(KINETOSCOPE_CLI), QStringList{QStringLiteral("attach")} + args);
    // Meanwhile, a stranger writes garbage to the socket.
    QTimer garbage;
    connect(&garbage, &QTimer::timeout, this, &TestOnDemand::sendGarbage);
    garbage.start(50);
    if (!p.waitForFinished(timeoutMs)) {
        p.kill();
        return -1;
    }
    if (out) *out = QString::fromUtf8(p.readAllStandardOutput());
    if (err) *err = QString::fromUtf8(p.readAllStandardError());
    return p.exitCode();
}

void TestOnDemand::sendGarbage() {
    const int fd = ::socket(AF_UNIX, SOCK_DGRAM, 0);
    sockaddr_un to{};
    to.sun_family = AF_UNIX;
    const QByteArray path = (m_socketDir->path() + QStringLiteral("/dynolog")).toLocal8Bit();
    std::memcpy(to.sun_path, path.constData(), std::size_t(path.size()) + 1);
    const std::string junk[] = {"x", header(1000000, "req"), header(4, "req") + "abcd",
                                header(16, "req") + std::string(16, '\xff'), header(0, "")};
    for (const std::string& j : junk)
        ::sendto(fd, j.data(), j.size(), MSG_DONTWAIT, reinterpret_cast<sockaddr*>(&to), sizeof to);
    ::close(fd);
}

void TestOnDemand::datagrams_data() {
    QTest::addColumn<QByteArray>("bytes");
    QTest::addColumn<bool>("valid");
    const auto bytes = [](const std::string& s) { return QByteArray(s.data(), qsizetype(s.size())); };
    QTest::newRow("empty") << QByteArray() << false;
    QTest::newRow("short of the header") << bytes(header(0, "req").substr(0, 39)) << false;
    QTest::newRow("size says more") << bytes(header(10, "req") + "abc") << false;
    QTest::newRow("size says less") << bytes(header(1, "req") + "abc") << false;
    QTest::newRow("huge size") << bytes(header(~0ull, "req")) << false;
    std::string unterminated = header(0, "");
    std::memset(unterminated.data() + 8, 'a', 32);
    QTest::newRow("type not terminated") << bytes(unterminated) << false;
    QTest::newRow("type empty") << bytes(header(0, "")) << false;
    QTest::newRow("type not text") << bytes(header(0, "r\x01q")) << false;
    QTest::newRow("empty payload") << bytes(header(0, "req")) << true;
    QTest::newRow("a config") << bytes(encodeFabricMessage("req", "ACTIVITIES_LOG_FILE=/tmp/a.json\n"))
                              << true;
}

void TestOnDemand::datagrams() {
    QFETCH(QByteArray, bytes);
    QFETCH(bool, valid);
    const auto m = decodeFabricMessage(std::string_view(bytes.constData(), std::size_t(bytes.size())));
    QCOMPARE(m.has_value(), valid);
    if (valid) QCOMPARE(m->type, std::string("req"));
}

void TestOnDemand::pollsRoundTrip() {
    const KinetoPoll poll{2, 4242, {1234, 1, 77}};
    const std::string payload = encodeKinetoPoll(poll);
    QCOMPARE(payload.size(),
             std::size_t(16 + 12)); // {i32, i32, i64} then the pids, as the C struct lays them out
    const auto back = decodeKinetoPoll(payload);
    QVERIFY(back);
    QCOMPARE(back->type, 2);
    QCOMPARE(back->jobId, std::int64_t(4242));
    QCOMPARE(back->pids, poll.pids);
    QVERIFY(back->idle());
    // n out of range, or disagreeing with the size.
    std::string lying = payload;
    const std::int32_t n = 1 << 20, negative = -1, four = 4;
    std::memcpy(lying.data() + 4, &n, 4);
    QVERIFY(!decodeKinetoPoll(lying));
    std::memcpy(lying.data() + 4, &negative, 4);
    QVERIFY(!decodeKinetoPoll(lying));
    std::memcpy(lying.data() + 4, &four, 4);
    QVERIFY(!decodeKinetoPoll(lying));
    QVERIFY(!decodeKinetoPoll(payload.substr(0, 15)));
}

void TestOnDemand::configAndPaths() {
    TraceRequest r;
    r.logFile = "/tmp/k/trace.json";
    r.durationMs = 300;
    r.shapes = r.stack = true;
    const std::string time = onDemandConfig(r);
    for (const char* line : {"ACTIVITIES_LOG_FILE=/tmp/k/trace.json\n", "PROFILE_START_TIME=0\n",
                             "ACTIVITIES_DURATION_MSECS=300\n", "PROFILE_REPORT_INPUT_SHAPES=true\n",
                             "PROFILE_WITH_STACK=true\n", "PROFILE_PROFILE_MEMORY=false\n"})
        QVERIFY2(time.find(line) != std::string::npos, line);
    QVERIFY(time.find("PROFILE_MEMORY=") ==
            time.find("PROFILE_PROFILE_MEMORY=") + 8); // never a snapshot request
    r.iterations = 3;
    const std::string steps = onDemandConfig(r);
    for (const char* line :
         {"PROFILE_START_ITERATION=0\n", "PROFILE_START_ITERATION_ROUNDUP=1\n", "ACTIVITIES_ITERATIONS=3\n"})
        QVERIFY2(steps.find(line) != std::string::npos, line);
    QVERIFY(steps.find("ACTIVITIES_DURATION_MSECS") == std::string::npos);
    QCOMPARE(kinetoLogFileFor("/tmp/k/trace.json", 123), std::string("/tmp/k/trace_123.json"));
    QCOMPARE(kinetoLogFileFor("/tmp/k/trace.pt.trace.json", 5), std::string("/tmp/k/trace.pt.trace_5.json"));
}

// What the fuzz target (tests/fuzz/fuzz_ondemand.cpp) does, a fixed number of times under ctest: random and
// mutated datagrams through both decoders.
void TestOnDemand::randomDatagramsNeverCrash() {
    QRandomGenerator rng(52);
    const std::string seeds[] = {encodeFabricMessage("req", encodeKinetoPoll({2, 1, {10, 1}})),
                                 encodeFabricMessage("ctxt", std::string(16, '\0')), header(0, "req")};
    std::size_t decoded = 0;
    for (int i = 0; i < 200000; ++i) {
        std::string d = seeds[i % 3];
        const int edits = int(rng.bounded(6));
        for (int e = 0; e < edits && !d.empty(); ++e) {
            switch (rng.bounded(3)) {
            case 0:
                d[rng.bounded(quint32(d.size()))] = char(rng.bounded(256));
                break;
            case 1:
                d.resize(rng.bounded(quint32(d.size() + 1)));
                break;
            default:
                d += char(rng.bounded(256));
                break;
            }
        }
        if (const auto m = decodeFabricMessage(d)) {
            ++decoded;
            (void)decodeKinetoPoll(m->payload);
        }
    }
    QVERIFY(decoded > 0);
}

void TestOnDemand::listsThePollingProcesses() {
    QProcess* a = startClient();
    QProcess* b = startClient({}, {QStringLiteral("SLURM_JOB_ID=777")});
    QString out, err;
    QCOMPARE(runCli({QStringLiteral("--list"), QStringLiteral("--wait"), QStringLiteral("1.5"),
                     QStringLiteral("--json")},
                    &out, &err),
             0);
    const QJsonArray list = QJsonDocument::fromJson(out.toUtf8()).array();
    QVERIFY2(list.size() == 2, qPrintable(out + err));
    QSet<qint64> pids;
    for (const QJsonValue& v : list) {
        const QJsonObject o = v.toObject();
        pids.insert(o[QStringLiteral("pid")].toInteger());
        QCOMPARE(o[QStringLiteral("state")].toString(), QStringLiteral("idle"));
        QVERIFY(o[QStringLiteral("command")].toString().contains(QStringLiteral("kinetoscope-fake-kineto")));
        if (o[QStringLiteral("pid")].toInteger() == b->processId())
            QCOMPARE(o[QStringLiteral("job_id")].toInteger(), 777);
    }
    QCOMPARE(pids, (QSet<qint64>{a->processId(), b->processId()}));
    // The text form says what to do when nothing polls.
    cleanup();
    QCOMPARE(runCli({QStringLiteral("--list"), QStringLiteral("--wait"), QStringLiteral("0.5")}, &out, &err),
             0);
    QVERIFY2(out.contains(QStringLiteral("KINETO_USE_DAEMON=1")), qPrintable(out));
}

void TestOnDemand::attachesSeveralAtOnce() {
    const QStringList before =
        QDir(QStringLiteral("/tmp")).entryList({QStringLiteral("kinetoscope-attach-*")}, QDir::Dirs);
    std::vector<QProcess*> clients;
    for (int i = 0; i < 8; ++i) // the eight ranks of a job on one host
        clients.push_back(startClient());
    QTemporaryDir out;
    QStringList args{QStringLiteral("--duration-ms"), QStringLiteral("100"), QStringLiteral("--shapes"),
                     QStringLiteral("-o"), out.path()};
    for (QProcess* c : clients)
        args << QString::number(c->processId());
    QString printed, err;
    QCOMPARE(runCli(args, &printed, &err), 0);
    const QStringList paths = printed.split(QLatin1Char('\n'), Qt::SkipEmptyParts);
    QVERIFY2(paths.size() == 8, qPrintable(printed + err));
    for (QProcess* c : clients) {
        const QString path = out.filePath(QStringLiteral("kineto_%1.pt.trace.json").arg(c->processId()));
        QVERIFY2(paths.contains(path), qPrintable(path));
        // Whole (the client wrote it in pieces): it loads with its operator and kernel.
        const LoadResult r = loadTrace(path.toStdString());
        QVERIFY2(r.ok(), r.error.c_str());
        QCOMPARE(r.store->sliceCount(), std::size_t(4));
    }
    // Nothing left behind in /tmp (other runs' folders may come and go meanwhile).
    for (const QString& d :
         QDir(QStringLiteral("/tmp")).entryList({QStringLiteral("kinetoscope-attach-*")}, QDir::Dirs))
        QVERIFY2(before.contains(d) || QDir(QStringLiteral("/tmp/") + d).isEmpty(), qPrintable(d));
}

void TestOnDemand::failuresNameTheirPid() {
    QProcess* good = startClient();
    QProcess* dies = startClient({QStringLiteral("--die-mid-trace")});
    QProcess* busy = startClient({QStringLiteral("--busy")});
    const qint64 silent = ::getpid(); // alive, and never polls
    QTemporaryDir out;
    QString printed, err;
    const int rc = runCli({QStringLiteral("--duration-ms"), QStringLiteral("50"), QStringLiteral("--wait"),
                           QStringLiteral("2"), QStringLiteral("-o"), out.path(),
                           QString::number(good->processId()), QString::number(dies->processId()),
                           QString::number(busy->processId()), QString::number(silent)},
                          &printed, &err);
    QCOMPARE(rc, 1);
    QVERIFY2(printed.trimmed() ==
                 out.filePath(QStringLiteral("kineto_%1.pt.trace.json").arg(good->processId())),
             qPrintable(printed + err));
    QVERIFY2(
        err.contains(QStringLiteral("pid %1: exited before its trace was complete").arg(dies->processId())),
        qPrintable(err));
    QVERIFY2(err.contains(QStringLiteral("pid %1: its profiler stayed busy").arg(busy->processId())),
             qPrintable(err));
    QVERIFY2(err.contains(QStringLiteral("pid %1: never polled").arg(silent)), qPrintable(err));
}

// Kineto since kineto#1426 writes only under /tmp/, or its own KINETO_ONDEMAND_TRACE_DIR, and otherwise
// writes /tmp/libkineto_activities_<pid>.json without a word: that file is taken instead.
void TestOnDemand::refusedPathFallsBackToKinetosOwn() {
    QProcess* c = startClient({}, {QStringLiteral("KINETO_ONDEMAND_TRACE_DIR=/var/empty/nowhere")});
    QTemporaryDir out;
    QString printed, err;
    QCOMPARE(runCli({QStringLiteral("--duration-ms"), QStringLiteral("50"), QStringLiteral("-o"), out.path(),
                     QString::number(c->processId())},
                    &printed, &err),
             0);
    const QString path = out.filePath(QStringLiteral("kineto_%1.pt.trace.json").arg(c->processId()));
    QCOMPARE(printed.trimmed(), path);
    QVERIFY(loadTrace(path.toStdString()).ok());
    QVERIFY(!QFile::exists(QStringLiteral("/tmp/libkineto_activities_%1.json").arg(c->processId())));
}

namespace {
// dynolog as far as attach can tell: it holds the name (an OnDemandDaemon answers the clients' polls) and
// serves its RPC on a port of its own: setKinetOnDemandRequest hands the config to the pids asked for that
// polled.
class FakeDynolog {
  public:
    bool start() {
        std::string error;
        if (!m_daemon.bind(error)) return false;
        m_listen = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
        sockaddr_in addr{};
        addr.sin_family = AF_INET;
        addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        socklen_t length = sizeof addr;
        if (::bind(m_listen, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
            ::listen(m_listen, 4) != 0 ||
            ::getsockname(m_listen, reinterpret_cast<sockaddr*>(&addr), &length) != 0)
            return false;
        m_port = ntohs(addr.sin_port);
        m_thread = std::thread([this] { run(); });
        return true;
    }
    ~FakeDynolog() {
        m_stop = true;
        if (m_thread.joinable()) m_thread.join();
        if (m_listen >= 0) ::close(m_listen);
    }
    int port() const { return m_port; }
    QJsonObject lastRequest() {
        std::lock_guard lock(m_mutex);
        return m_request;
    }

  private:
    void run() {
        while (!m_stop) {
            m_daemon.pump(20);
            const int fd = ::accept4(m_listen, nullptr, nullptr, SOCK_CLOEXEC);
            if (fd < 0) continue;
            std::int32_t length = 0;
            std::string body;
            if (::recv(fd, &length, 4, MSG_WAITALL) == 4 && length > 0 && length < (1 << 20)) {
                body.resize(std::size_t(length));
                (void)::recv(fd, body.data(), body.size(), MSG_WAITALL);
            }
            const QJsonObject request = QJsonDocument::fromJson(QByteArray::fromStdString(body)).object();
            QJsonArray matched;
            for (const QJsonValue& v : request[QStringLiteral("pids")].toArray()) {
                const pid_t pid = pid_t(v.toInteger());
                if (m_daemon.processes().count(pid)) {
                    m_daemon.request(pid, request[QStringLiteral("config")].toString().toStdString());
                    matched.append(qint64(pid));
                }
            }
            {
                std::lock_guard lock(m_mutex);
                m_request = request;
            }
            const QByteArray answer =
                QJsonDocument(QJsonObject{{QStringLiteral("processesMatched"), matched}})
                    .toJson(QJsonDocument::Compact);
            const std::int32_t answerLength = std::int32_t(answer.size());
            (void)::send(fd, &answerLength, 4, MSG_NOSIGNAL);
            (void)::send(fd, answer.constData(), std::size_t(answer.size()), MSG_NOSIGNAL);
            ::close(fd);
        }
    }

    OnDemandDaemon m_daemon;
    int m_listen = -1;
    int m_port = 0;
    std::thread m_thread;
    std::atomic<bool> m_stop{false};
    std::mutex m_mutex;
    QJsonObject m_request;
};
} // namespace

// Where dynolog holds the name Kineto polls, attach asks dynolog (its RPC, as `dyno gputrace` does) and still
// collects the traces; it says it cannot list; a dynolog whose RPC does not answer is said so.
void TestOnDemand::throughDynologWhenItHoldsTheName() {
    qputenv("KINETO_IPC_SOCKET_DIR",
            m_socketDir->path().toLocal8Bit()); // (the fake reads it in this process)
    auto dynolog = std::make_unique<FakeDynolog>();
    QVERIFY(dynolog->start());
    QProcess* a = startClient();
    QProcess* b = startClient();
    QTest::qWait(500); // both polled once
    QTemporaryDir out;
    QString printed, err;
    QCOMPARE(runCli({QStringLiteral("--duration-ms"), QStringLiteral("50"), QStringLiteral("--dynolog-port"),
                     QString::number(dynolog->port()), QStringLiteral("-o"), out.path(),
                     QString::number(a->processId()), QString::number(b->processId())},
                    &printed, &err),
             0);
    QVERIFY2(err.contains(QStringLiteral("through dynolog: 2 process(es) matched")), qPrintable(err));
    QCOMPARE(printed.split(QLatin1Char('\n'), Qt::SkipEmptyParts).size(), 2);
    const QJsonObject request = dynolog->lastRequest();
    QCOMPARE(request[QStringLiteral("fn")].toString(), QStringLiteral("setKinetOnDemandRequest"));
    QVERIFY(request[QStringLiteral("config")].toString().contains(
        QStringLiteral("ACTIVITIES_DURATION_MSECS=50")));
    QCOMPARE(request[QStringLiteral("process_limit")].toInt(), 2);
    QCOMPARE(
        runCli({QStringLiteral("--list"), QStringLiteral("--dynolog-port"), QString::number(dynolog->port())},
               &printed, &err),
        1);
    QVERIFY2(err.contains(QStringLiteral("no call that lists")), qPrintable(err));
    const int port = dynolog->port();
    // Its RPC gone (the name still held by a socket nobody reads: not stale, so not taken).
    QCOMPARE(runCli({QStringLiteral("--dynolog-port"), QString::number(port == 1 ? 2 : 1),
                     QString::number(a->processId())},
                    &printed, &err),
             1);
    QVERIFY2(err.contains(QStringLiteral("answers nothing")), qPrintable(err));
    dynolog.reset();
    qunsetenv("KINETO_IPC_SOCKET_DIR");
}

// A target that starts its trace and never finishes it (alive all along) fails by its pid once the allowance
// for warm-up and writing has passed (KINETOSCOPE_ATTACH_PATIENCE_MS shortens the minute it is otherwise).
void TestOnDemand::aTraceThatNeverCompletes() {
    QProcess* stalled = startClient({QStringLiteral("--stall-mid-trace")});
    qputenv("KINETOSCOPE_ATTACH_PATIENCE_MS", "1500");
    QTemporaryDir out;
    QString printed, err;
    const int rc = runCli({QStringLiteral("--duration-ms"), QStringLiteral("50"), QStringLiteral("-o"),
                           out.path(), QString::number(stalled->processId())},
                          &printed, &err);
    qunsetenv("KINETOSCOPE_ATTACH_PATIENCE_MS");
    QCOMPARE(rc, 1);
    QVERIFY(printed.trimmed().isEmpty());
    QVERIFY2(
        err.contains(QStringLiteral("pid %1: its trace did not complete in time").arg(stalled->processId())),
        qPrintable(err));
}

QTEST_MAIN(TestOnDemand)
#include "tst_ondemand.moc"
