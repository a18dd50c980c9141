// The capture session's socket: private (0600 in a 0700 folder of our own, foreign peers refused), and robust
// to agents that connect, send and leave at once.
#include "live/capturesession.h"
#include "wire/wire.h"

#include <QTemporaryDir>
#include <QtTest>

#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <vector>

using namespace kinetoscope;

class TestCaptureSession : public QObject {
    Q_OBJECT
  private slots:
    // A peer the session refuses, or a connection it has dropped, must not kill the writing side.
    void initTestCase() { ::signal(SIGPIPE, SIG_IGN); }

    // The socket is private: 0600 in a folder only we can enter, and a peer of another uid is refused.
    void socketIsPrivate() {
        QTemporaryDir tmp; // a folder of this test's own, so loosening its modes below disturbs nobody
        qputenv("XDG_RUNTIME_DIR", "");
        qputenv("TMPDIR", tmp.path().toUtf8());
        live::CaptureSession session;
        std::string error;
        QVERIFY2(session.listen(error), error.c_str());
        qunsetenv("TMPDIR");
        struct stat st {};
        QCOMPARE(::stat(session.socketPath().c_str(), &st), 0);
        QVERIFY(S_ISSOCK(st.st_mode));
        QCOMPARE(int(st.st_mode & 0777), 0600);
        const std::string dir = std::filesystem::path(session.socketPath()).parent_path().string();
        QCOMPARE(::stat(dir.c_str(), &st), 0);
        QCOMPARE(int(st.st_mode & 0777), 0700);
        QCOMPARE(st.st_uid, ::getuid());

        if (::geteuid() != 0) QSKIP("checking a foreign peer needs root to become another user");
        // Open the file modes (as a careless admin might), so only the peer check stands in the way of
        // another user.
        ::chmod(tmp.path().toUtf8().constData(), 0711);
        ::chmod(dir.c_str(), 0711);
        ::chmod(session.socketPath().c_str(), 0666);
        const pid_t child = ::fork();
        if (child == 0) {
            if (::setgid(65534) != 0 || ::setuid(65534) != 0) ::_exit(3);
            const int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
            sockaddr_un address{};
            address.sun_family = AF_UNIX;
            std::strcpy(address.sun_path, session.socketPath().c_str());
            if (::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) ::_exit(2);
            (void)!::send(fd, "KSCW", 4, MSG_NOSIGNAL); // refused: the session may have closed it already
            ::_exit(0);
        }
        int raw = 0;
        ::waitpid(child, &raw, 0);
        QVERIFY(WIFEXITED(raw));
        QCOMPARE(WEXITSTATUS(raw), 0);
        QTRY_COMPARE(session.status().refusedPeers, 1);
        QCOMPARE(session.status().connections, 0);
        QCOMPARE(session.status().counts.bytes, 0u);
    }

    // Connections that end in the round they are accepted in (an agent that connects, sends and exits at
    // once): each is read to its end and dropped without touching the poll entries of the others (it once
    // erased past the end of that list, which crashed `kinetoscope-cli record` under load; the ASan build
    // catches the bad erase).
    void connectionsEndingAtOnce() {
        live::CaptureSession session;
        std::string error;
        QVERIFY2(session.listen(error), error.c_str());
        wire::Encoder encoder;
        wire::Kernel kernel;
        kernel.name = encoder.string("k");
        kernel.start = 1000;
        kernel.end = 2000;
        encoder.add(kernel);
        const std::string stream = encoder.take();
        constexpr int clients = 24;
        for (int round = 0; round < clients; ++round) {
            // Several at once, so that some are accepted together and end together.
            std::vector<int> fds;
            for (int k = 0; k < 3; ++k) {
                const int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
                sockaddr_un address{};
                address.sun_family = AF_UNIX;
                std::strcpy(address.sun_path, session.socketPath().c_str());
                QCOMPARE(::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address), 0);
                QCOMPARE(::write(fd, stream.data(), stream.size()), ssize_t(stream.size()));
                fds.push_back(fd);
            }
            for (int fd : fds)
                ::close(fd);
        }
        QTRY_COMPARE(session.status().connections, 3 * clients);
        QTRY_COMPARE(session.snapshot().counts().kernels, std::uint64_t(3 * clients));
        session.stop();
    }

    void privateDirRefusesForeignFolders() {
        QTemporaryDir tmp;
        qputenv("XDG_RUNTIME_DIR", "");
        qputenv("TMPDIR", tmp.path().toUtf8());
        const std::string ours =
            tmp.filePath(QString("kinetoscope-capture-%1").arg(::getuid())).toStdString();
        std::string error;
        // A folder someone made world-readable (or a symlink planted in its place) is refused.
        QCOMPARE(::mkdir(ours.c_str(), 0755), 0);
        ::chmod(ours.c_str(), 0755);
        QVERIFY(live::privateSocketDir(error).empty());
        QVERIFY(error.find("not a private folder") != std::string::npos);
        ::rmdir(ours.c_str());
        QCOMPARE(::symlink(tmp.path().toUtf8().constData(), ours.c_str()), 0);
        QVERIFY(live::privateSocketDir(error).empty());
        ::unlink(ours.c_str());
        // Otherwise it is created 0700.
        QCOMPARE(live::privateSocketDir(error), ours);
        struct stat st {};
        QCOMPARE(::stat(ours.c_str(), &st), 0);
        QCOMPARE(int(st.st_mode & 0777), 0700);
        qunsetenv("TMPDIR");
    }
};

QTEST_GUILESS_MAIN(TestCaptureSession)
#include "tst_capturesession.moc"
