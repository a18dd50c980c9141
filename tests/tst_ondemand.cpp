// Attach (issue 53): Kineto's on-demand protocol, daemon side (core/live/ondemand.h), and `kinetoscope-cli
// attach` against kinetoscope-fake-kineto, a client that speaks Kineto's side as libkineto does (its own
// endpoint, polls, the pid inserted in the file name, the /tmp rule, the file written in pieces). Every test
// runs with its own KINETO_IPC_SOCKET_DIR: nothing here meets a real dynolog or another test.
#include "import/traceloader.h"
#include "live/attachsession.h"
#include "live/dynologrelay.h"
#include "live/ondemand.h"
#include "testsupport.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <QCryptographicHash>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
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
    void aTraceThatNeverCompletes_data();
    void aTraceThatNeverCompletes();
    // Issue 61: attach cannot leak a trace.
    void cancelWithdrawsTheRequest();
    void aFolderStaysWhileItsTargetMayWrite();
    void aSecondCaptureKeepsTheFirst();
    void acrossFileSystemsNothingIsTruncated();
    void aStaleFallbackIsNotTaken();
    void theListIsBoundedAndOthersAreLeftOut();
    void aPlantedFileUnderTheNameStays();
    void commandLinesAreEscaped();
    void ourOwnViewerIsNamed();

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
// Kineto's end is the closed event array and "traceName": a file that stops at an event's closing brace (a
// writer stalled, or still writing) is not whole either, however long it stays that way (issue 61).
void TestOnDemand::aTraceThatNeverCompletes_data() {
    QTest::addColumn<QString>("stall");
    QTest::newRow("stalled after the header") << "--stall-mid-trace";
    QTest::newRow("stalled at an event's closing brace") << "--stall-after-event";
}

void TestOnDemand::aTraceThatNeverCompletes() {
    QFETCH(QString, stall);
    QProcess* stalled = startClient({stall});
    qputenv("KINETOSCOPE_ATTACH_PATIENCE_MS", "2000");
    QTemporaryDir out;
    QString printed, err;
    const int rc = runCli({QStringLiteral("--duration-ms"), QStringLiteral("50"), QStringLiteral("-o"),
                           out.path(), QString::number(stalled->processId())},
                          &printed, &err);
    qunsetenv("KINETOSCOPE_ATTACH_PATIENCE_MS");
    QCOMPARE(rc, 1);
    QVERIFY2(printed.trimmed().isEmpty(), qPrintable(printed));
    QVERIFY2(
        err.contains(QStringLiteral("pid %1: its trace did not complete in time").arg(stalled->processId())),
        qPrintable(err));
}

namespace {
// A poll from a process of its own (fork), so that the daemon sees another pid; returns the child's pid.
// `uid` >= 0: the child first becomes that user. The child sends one idle poll, then lives until `hold` (a
// pipe's read end) closes: the kernel names a sender that was reaped pid 0.
pid_t pollFromChild(const std::string& socketPath, const int hold[2], int uid = -1) {
    const pid_t child = ::fork();
    if (child != 0) return child;
    ::close(hold[1]); // (else its own copy of the write end keeps the pipe open)
    if (uid >= 0 && ::setuid(uid_t(uid)) != 0) ::_exit(3);
    const int fd = ::socket(AF_UNIX, SOCK_DGRAM, 0);
    sockaddr_un to{};
    to.sun_family = AF_UNIX;
    std::memcpy(to.sun_path, socketPath.c_str(), socketPath.size() + 1);
    const std::string poll = encodeFabricMessage("req", encodeKinetoPoll({2, 0, {std::int32_t(::getpid())}}));
    const bool sent = ::sendto(fd, poll.data(), poll.size(), 0, reinterpret_cast<sockaddr*>(&to),
                               sizeof to) == ssize_t(poll.size());
    char c;
    while (::read(hold[0], &c, 1) > 0) {
    }
    ::_exit(sent ? 0 : 4);
}

QByteArray sha(const QString& path) {
    QFile f(path);
    f.open(QIODevice::ReadOnly);
    return QCryptographicHash::hash(f.readAll(), QCryptographicHash::Sha256);
}
} // namespace

// Cancel takes back a request not yet delivered: the process's next poll is answered with no config.
void TestOnDemand::cancelWithdrawsTheRequest() {
    qputenv("KINETO_IPC_SOCKET_DIR", m_socketDir->path().toLocal8Bit());
    OnDemandDaemon daemon;
    std::string error;
    QVERIFY2(daemon.bind(error), error.c_str());
    int go[2];
    int answer[2];
    QVERIFY(::pipe(go) == 0 && ::pipe(answer) == 0);
    const std::string socketPath = (m_socketDir->path() + QStringLiteral("/dynolog")).toStdString();
    const pid_t child = ::fork();
    if (child == 0) { // waits for the word, polls once, says how long the config it got was
        char c;
        (void)::read(go[0], &c, 1);
        const int fd = ::socket(AF_UNIX, SOCK_DGRAM, 0);
        sockaddr_un own{};
        own.sun_family = AF_UNIX;
        ::bind(fd, reinterpret_cast<sockaddr*>(&own), sizeof(sa_family_t)); // autobind: it can be answered
        sockaddr_un to{};
        to.sun_family = AF_UNIX;
        std::memcpy(to.sun_path, socketPath.c_str(), socketPath.size() + 1);
        const std::string poll =
            encodeFabricMessage("req", encodeKinetoPoll({2, 0, {std::int32_t(::getpid())}}));
        ::sendto(fd, poll.data(), poll.size(), 0, reinterpret_cast<sockaddr*>(&to), sizeof to);
        char buffer[4096];
        const ssize_t n = ::recv(fd, buffer, sizeof buffer, 0);
        const std::int32_t configBytes = std::int32_t(n - 40);
        (void)::write(answer[1], &configBytes, 4);
        ::_exit(0);
    }
    QTemporaryDir out;
    {
        TraceRequest request;
        request.durationMs = 50;
        AttachSession session(daemon, request, out.path().toStdString(), std::chrono::seconds(5));
        QVERIFY(session.start({child}, error));
        session.cancel("cancelled");
        QVERIFY(session.finished());
        QVERIFY(!daemon.delivered(child));
    }
    (void)::write(go[1], "x", 1);
    std::int32_t configBytes = -1;
    QElapsedTimer clock;
    clock.start();
    pollfd p{answer[0], POLLIN, 0};
    while (::poll(&p, 1, 0) == 0 && clock.elapsed() < 5000)
        daemon.pump(50);
    QCOMPARE(::read(answer[0], &configBytes, 4), ssize_t(4));
    QCOMPARE(configBytes, 0); // an empty config: nothing asked
    ::waitpid(child, nullptr, 0);
    for (int fd : {go[0], go[1], answer[0], answer[1]})
        ::close(fd);
    qunsetenv("KINETO_IPC_SOCKET_DIR");
}

// A request was delivered and the attach gave up (cancel) while the target still runs: the empty private
// folder stays (0700, ours), so that nobody can make it again and read what Kineto writes there later; the
// next attach removes it once the target has ended.
void TestOnDemand::aFolderStaysWhileItsTargetMayWrite() {
    qputenv("KINETO_IPC_SOCKET_DIR", m_socketDir->path().toLocal8Bit());
    QProcess* slow = startClient({QStringLiteral("--warmup-ms"), QStringLiteral("60000")});
    OnDemandDaemon daemon;
    std::string error;
    QVERIFY2(daemon.bind(error), error.c_str());
    QTemporaryDir out;
    TraceRequest request;
    request.durationMs = 50;
    std::string folder;
    {
        AttachSession session(daemon, request, out.path().toStdString(), std::chrono::seconds(5));
        QVERIFY(session.start({pid_t(slow->processId())}, error));
        folder = session.folder();
        QElapsedTimer clock;
        clock.start();
        while (session.targets()[0].state == AttachTarget::State::WaitingForPoll && clock.elapsed() < 5000) {
            daemon.pump(50);
            session.step();
        }
        QCOMPARE(session.targets()[0].state, AttachTarget::State::Recording);
        session.cancel("cancelled");
    }
    struct stat st {};
    QVERIFY2(::lstat(folder.c_str(), &st) == 0, "the folder was removed while Kineto may still write there");
    QVERIFY(S_ISDIR(st.st_mode));
    QCOMPARE(st.st_mode & 0777, mode_t(0700));
    QCOMPARE(st.st_uid, ::geteuid());
    // Its target ends: the next session sweeps the folder away.
    slow->kill();
    slow->waitForFinished(3000);
    {
        AttachSession next(daemon, request, out.path().toStdString(), std::chrono::seconds(1));
        QVERIFY(next.start({}, error));
    }
    QVERIFY(::lstat(folder.c_str(), &st) != 0);
    qunsetenv("KINETO_IPC_SOCKET_DIR");
}

// The same process captured twice keeps both traces; a link planted under the next name is left alone (its
// target untouched) and the trace takes the name after it.
void TestOnDemand::aSecondCaptureKeepsTheFirst() {
    QProcess* c = startClient();
    QTemporaryDir out;
    const QString pid = QString::number(c->processId());
    QString printed, err;
    QCOMPARE(
        runCli({QStringLiteral("--duration-ms"), QStringLiteral("50"), QStringLiteral("-o"), out.path(), pid},
               &printed, &err),
        0);
    const QString first = out.filePath(QStringLiteral("kineto_%1.pt.trace.json").arg(pid));
    QCOMPARE(printed.trimmed(), first);
    const QByteArray firstSha = sha(first);
    QTemporaryDir elsewhere;
    const QString victim = elsewhere.filePath(QStringLiteral("victim"));
    {
        QFile v(victim);
        QVERIFY(v.open(QIODevice::WriteOnly));
        v.write("not yours");
    }
    QVERIFY(QFile::link(victim, out.filePath(QStringLiteral("kineto_%1.2.pt.trace.json").arg(pid))));
    QCOMPARE(
        runCli({QStringLiteral("--duration-ms"), QStringLiteral("50"), QStringLiteral("-o"), out.path(), pid},
               &printed, &err),
        0);
    const QString second = out.filePath(QStringLiteral("kineto_%1.3.pt.trace.json").arg(pid));
    QCOMPARE(printed.trimmed(), second);
    QCOMPARE(sha(first), firstSha);
    QVERIFY(loadTrace(second.toStdString()).ok());
    QFile v(victim);
    QVERIFY(v.open(QIODevice::ReadOnly));
    QCOMPARE(v.readAll(), QByteArray("not yours"));
    // -o itself a link of another user: refused before anything is asked.
    if (::geteuid() == 0) {
        const QString planted = elsewhere.filePath(QStringLiteral("planted"));
        QVERIFY(QFile::link(out.path(), planted));
        QVERIFY(::lchown(planted.toLocal8Bit().constData(), 65534, 65534) == 0);
        QCOMPARE(runCli({QStringLiteral("--duration-ms"), QStringLiteral("50"), QStringLiteral("-o"), planted,
                         pid},
                        &printed, &err),
                 1);
        QVERIFY2(err.contains(QStringLiteral("is a link of another user")), qPrintable(err));
    }
}

// Across file systems the trace is copied into a fresh name and renamed: a file already there (a tab may map
// it) is never truncated or overwritten.
void TestOnDemand::acrossFileSystemsNothingIsTruncated() {
    QTemporaryDir source;
    struct stat a {
    }, b{};
    if (::stat(source.path().toLocal8Bit().constData(), &a) != 0 || ::stat("/dev/shm", &b) != 0 ||
        a.st_dev == b.st_dev)
        QSKIP("no second file system (/dev/shm) beside the temporary folder");
    QTemporaryDir out(QStringLiteral("/dev/shm/kinetoscope-test-XXXXXX"));
    QVERIFY(out.isValid());
    const QString from = source.filePath(QStringLiteral("trace_77.json"));
    {
        QFile f(from);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(QByteArray(3 << 20, 'x'));
    }
    const QString open = out.filePath(QStringLiteral("kineto_77.pt.trace.json"));
    {
        QFile f(open);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("a trace a tab has open");
    }
    std::string error;
    const std::string moved =
        AttachSession::moveTrace(from.toStdString(), out.path().toStdString(), 77, error);
    QVERIFY2(!moved.empty(), error.c_str());
    QCOMPARE(QString::fromStdString(moved), out.filePath(QStringLiteral("kineto_77.2.pt.trace.json")));
    QCOMPARE(QFileInfo(QString::fromStdString(moved)).size(), qint64(3 << 20));
    QVERIFY(!QFile::exists(from));
    QFile f(open);
    QVERIFY(f.open(QIODevice::ReadOnly));
    QCOMPARE(f.readAll(), QByteArray("a trace a tab has open"));
    // Nothing half-copied left behind.
    QCOMPARE(QDir(out.path()).entryList(QDir::Files | QDir::Hidden).size(), 2);
}

// A /tmp/libkineto_activities_<pid>.json left by an earlier trace is not this trace: only the file Kineto
// writes after the request is taken.
void TestOnDemand::aStaleFallbackIsNotTaken() {
    QProcess* c = startClient({QStringLiteral("--warmup-ms"), QStringLiteral("1500")},
                              {QStringLiteral("KINETO_ONDEMAND_TRACE_DIR=/var/empty/nowhere")});
    const QString fallback = QStringLiteral("/tmp/libkineto_activities_%1.json").arg(c->processId());
    {
        QFile stale(fallback);
        QVERIFY(stale.open(QIODevice::WriteOnly));
        stale.write(
            R"({"traceEvents": [{"ph": "X", "name": "stale_trace", "pid": 1, "tid": 1, "ts": 1, "dur": 1}],
  "traceName": "old"
})");
    }
    QTemporaryDir out;
    QString printed, err;
    const int rc = runCli({QStringLiteral("--duration-ms"), QStringLiteral("50"), QStringLiteral("-o"),
                           out.path(), QString::number(c->processId())},
                          &printed, &err);
    QFile::remove(fallback);
    QCOMPARE(rc, 0);
    const LoadResult r = loadTrace(printed.trimmed().toStdString());
    QVERIFY2(r.ok(), qPrintable(printed + err));
    QCOMPARE(r.store->sliceCount(), std::size_t(4)); // the fresh trace, not the stale one's single slice
}

// Anyone can send polls: the list is bounded, forgets the silent, and holds only this user's processes
// (another user's are remembered apart, to say why they are out of reach).
void TestOnDemand::theListIsBoundedAndOthersAreLeftOut() {
    qputenv("KINETO_IPC_SOCKET_DIR", m_socketDir->path().toLocal8Bit());
    OnDemandDaemon daemon;
    std::string error;
    QVERIFY2(daemon.bind(error), error.c_str());
    daemon.setLimits(4, std::chrono::milliseconds(600));
    const std::string socketPath = (m_socketDir->path() + QStringLiteral("/dynolog")).toStdString();
    int hold[2];
    QVERIFY(::pipe(hold) == 0);
    std::vector<pid_t> children;
    for (int i = 0; i < 10; ++i)
        children.push_back(pollFromChild(socketPath, hold));
    pid_t stranger = 0;
    if (::geteuid() == 0) { // another user's poll (the test runs as root in CI)
        ::chmod(m_socketDir->path().toLocal8Bit().constData(), 0711);
        ::chmod(socketPath.c_str(), 0666);
        stranger = pollFromChild(socketPath, hold, 65534);
        children.push_back(stranger);
    }
    QTest::qWait(300);
    daemon.pump(100);
    ::close(hold[1]);
    for (pid_t child : children) {
        int status = 0;
        ::waitpid(child, &status, 0);
        QCOMPARE(WEXITSTATUS(status), 0);
    }
    ::close(hold[0]);
    QCOMPARE(daemon.processes().size(), std::size_t(4));
    QCOMPARE(daemon.overflowed(), std::uint64_t(6));
    if (stranger) {
        QVERIFY(!daemon.processes().count(stranger));
        QVERIFY(daemon.strangerUid(stranger).has_value());
        QCOMPARE(*daemon.strangerUid(stranger), uid_t(65534));
    }
    QTest::qWait(700);
    daemon.pump(10);
    QVERIFY(daemon.processes().empty()); // silent past the expiry: forgotten
    qunsetenv("KINETO_IPC_SOCKET_DIR");
}

// A file that is not a socket, planted under the name, is never removed to take the name.
void TestOnDemand::aPlantedFileUnderTheNameStays() {
    qputenv("KINETO_IPC_SOCKET_DIR", m_socketDir->path().toLocal8Bit());
    const QString name = m_socketDir->filePath(QStringLiteral("dynolog"));
    {
        QFile f(name);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("precious");
    }
    OnDemandDaemon daemon;
    std::string error;
    QVERIFY(!daemon.bind(error));
    QVERIFY2(error.find("Address already in use") != std::string::npos, error.c_str());
    QFile f(name);
    QVERIFY(f.open(QIODevice::ReadOnly));
    QCOMPARE(f.readAll(), QByteArray("precious"));
    qunsetenv("KINETO_IPC_SOCKET_DIR");
}

// A listed command line's control characters are written as \xNN: they reach the user's terminal.
void TestOnDemand::commandLinesAreEscaped() {
    QCOMPARE(escapeControlCharacters("python\x1b]0;owned\x07 train.py\n"),
             std::string("python\\x1b]0;owned\\x07 train.py\\x0a"));
    startClient({QStringLiteral("--label\x1b[2J")});
    QString out, err;
    QCOMPARE(runCli({QStringLiteral("--list"), QStringLiteral("--wait"), QStringLiteral("1")}, &out, &err),
             0);
    QVERIFY2(out.contains(QStringLiteral("--label\\x1b[2J")), qPrintable(out));
    QVERIFY(!out.contains(QChar(0x1b)));
}

// Where our own viewer holds the name (its Attach dialog open), the CLI says so instead of blaming dynolog.
void TestOnDemand::ourOwnViewerIsNamed() {
    qputenv("KINETO_IPC_SOCKET_DIR", m_socketDir->path().toLocal8Bit());
    std::atomic<bool> stop{false};
    OnDemandDaemon viewer("the Kinetoscope viewer's Attach dialog");
    std::string error;
    QVERIFY2(viewer.bind(error), error.c_str());
    std::thread pumping([&] {
        while (!stop)
            viewer.pump(20);
    });
    const NameHolder holder = askNameHolder(500);
    QCOMPARE(holder.pid, ::getpid());
    QCOMPARE(holder.name, std::string("the Kinetoscope viewer's Attach dialog"));
    QString printed, err;
    QCOMPARE(runCli({QStringLiteral("--duration-ms"), QStringLiteral("50"), QStringLiteral("12345")},
                    &printed, &err),
             1);
    stop = true;
    pumping.join();
    QVERIFY2(
        err.contains(
            QStringLiteral("the Kinetoscope viewer's Attach dialog (pid %1) is listening").arg(::getpid())),
        qPrintable(err));
    QVERIFY(!err.contains(QStringLiteral("dynolog")));
    qunsetenv("KINETO_IPC_SOCKET_DIR");
}

QTEST_MAIN(TestOnDemand)
#include "tst_ondemand.moc"
