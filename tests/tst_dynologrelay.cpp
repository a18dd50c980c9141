// The dynolog relay (core/live/dynologrelay.h, issue 61): whatever dynolog's RPC answers, attach gets at most
// the number of processes it asked for, each once, from those whose profiler took the request; and a connect
// that cannot complete ends at the time-out. A canned server on a loopback port plays dynolog.
#include "live/dynologrelay.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <QElapsedTimer>
#include <QSet>
#include <QTest>

#include <thread>
#include <vector>

using namespace kinetoscope::live;

class TestDynologRelay : public QObject {
    Q_OBJECT
  private slots:
    void dynologAnswersAreBounded();
    void dynologConnectTimesOut();
};

namespace {
// One connection answered with `answer`, as dynolog's RPC frames it.
class CannedRpc {
  public:
    explicit CannedRpc(QByteArray answer) : m_answer(std::move(answer)) {
        m_listen = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        sockaddr_in addr{};
        addr.sin_family = AF_INET;
        addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        socklen_t length = sizeof addr;
        ::bind(m_listen, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
        ::listen(m_listen, 4);
        ::getsockname(m_listen, reinterpret_cast<sockaddr*>(&addr), &length);
        m_port = ntohs(addr.sin_port);
        m_thread = std::thread([this] {
            const int fd = ::accept(m_listen, nullptr, nullptr);
            std::int32_t length = 0;
            if (::recv(fd, &length, 4, MSG_WAITALL) == 4 && length > 0 && length < (1 << 20)) {
                std::string body(std::size_t(length), '\0');
                (void)::recv(fd, body.data(), body.size(), MSG_WAITALL);
            }
            const std::int32_t n = std::int32_t(m_answer.size());
            (void)::send(fd, &n, 4, MSG_NOSIGNAL);
            (void)::send(fd, m_answer.constData(), std::size_t(n), MSG_NOSIGNAL);
            ::close(fd);
        });
    }
    ~CannedRpc() {
        m_thread.join();
        ::close(m_listen);
    }
    int port() const { return m_port; }

  private:
    QByteArray m_answer;
    int m_listen = -1;
    int m_port = 0;
    std::thread m_thread;
};
} // namespace

// dynolog's answer, whatever it holds, gives at most process_limit targets, each once, from the processes
// whose profiler took the request (activityProfilersTriggered), not every one it matched.
void TestDynologRelay::dynologAnswersAreBounded() {
    QByteArray triggered = "[";
    for (int i = 0; i < 5000; ++i)
        triggered += QByteArray::number(1000 + i % 2500) + (i + 1 < 5000 ? "," : "");
    triggered += "]";
    {
        CannedRpc rpc(R"({"processesMatched":[7,8,9,10],"activityProfilersTriggered":[8,9,8],)"
                      R"("activityProfilersBusy":2})");
        const DynologReply reply = askDynolog(rpc.port(), "X=1\n", 0, {7, 8, 9, 10}, 4, 3000);
        QVERIFY2(reply.error.empty(), reply.error.c_str());
        QCOMPARE(reply.matched, (std::vector<pid_t>{8, 9}));
        QCOMPARE(reply.busy, 2);
    }
    {
        CannedRpc rpc(R"({"processesMatched":[],"activityProfilersTriggered":)" + triggered + "}");
        QElapsedTimer clock;
        clock.start();
        const DynologReply reply = askDynolog(rpc.port(), "X=1\n", 0, {}, 100, 3000);
        QCOMPARE(reply.matched.size(), std::size_t(100));
        QCOMPARE(QSet<pid_t>(reply.matched.begin(), reply.matched.end()).size(), 100);
    }
    { // an older dynolog: processesMatched only
        CannedRpc rpc(R"({"processesMatched":[5,5,6]})");
        const DynologReply reply = askDynolog(rpc.port(), "X=1\n", 0, {5, 6}, 2, 3000);
        QCOMPARE(reply.matched, (std::vector<pid_t>{5, 6}));
    }
}

// A connect that cannot complete (a backlog that is full: the kernel drops the handshake) ends at the
// time-out instead of hanging the attach.
void TestDynologRelay::dynologConnectTimesOut() {
    const int listener = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t length = sizeof addr;
    QVERIFY(::bind(listener, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0);
    QVERIFY(::listen(listener, 0) == 0);
    ::getsockname(listener, reinterpret_cast<sockaddr*>(&addr), &length);
    std::vector<int> fillers; // never accepted: they fill the backlog
    for (int i = 0; i < 4; ++i) {
        const int f = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
        (void)::connect(f, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
        fillers.push_back(f);
    }
    QTest::qWait(100);
    QElapsedTimer clock;
    clock.start();
    const DynologReply reply = askDynolog(ntohs(addr.sin_port), "X=1\n", 0, {1}, 1, 700);
    const qint64 took = clock.elapsed();
    QVERIFY(!reply.error.empty());
    QVERIFY2(took < 5000, qPrintable(QString::number(took))); // (a blocking connect waits over a minute)
    for (int f : fillers)
        ::close(f);
    ::close(listener);
}

QTEST_GUILESS_MAIN(TestDynologRelay)
#include "tst_dynologrelay.moc"
