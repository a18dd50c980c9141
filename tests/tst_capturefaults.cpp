// Live capture when something goes wrong: the agent's writer when the viewer is slow (drops counted) or gone
// (spooling goes on), the target or the viewer killed mid-capture, a spool cut short or holding impossible
// times, a file that is no spool, and `kinetoscope-cli record`'s usage errors. What a capture keeps when all
// goes well is tst_capture's.
#include "agentwriter.h"
#include "capturetesting.h"
#include "live/capturesession.h"
#include "live/tracewire.h"
#include "testsupport.h"

#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <thread>

using namespace kinetoscope;
using namespace kinetoscope::test;

class TestCaptureFaults : public QObject {
    Q_OBJECT

  private slots:
    void initTestCase() {
        ::signal(SIGPIPE, SIG_IGN); // the writer must see a closed socket as an error, not die of it
        QVERIFY2(QFileInfo::exists(agentLibrary), agentLibrary);
        QVERIFY2(QFileInfo::exists(fakeCuda), fakeCuda);
    }

    // The writer never blocks on a viewer that does not read: batches beyond the backlog are dropped for the
    // socket (strings kept, a Dropped record says how many), while the spool gets everything.
    void slowViewerDropsAreCounted() {
        QTemporaryDir dir;
        const std::string spool = dir.filePath("spool.kscw").toStdString();
        // AgentWriter connects by path, so serve a listening socket and hand over the accepted end.
        const std::string socketPath = dir.filePath("s.sock").toStdString();
        const int listener = listenAt(socketPath);
        QVERIFY(listener >= 0);

        capture::AgentWriter writer;
        capture::AgentWriter::Options options;
        options.socketPath = socketPath;
        options.spoolPath = spool;
        options.socketBacklogLimit = 64 << 10;
        std::string error;
        QVERIFY2(writer.open(options, error), error.c_str());
        const int viewer = ::accept(listener, nullptr, nullptr);
        QVERIFY(viewer >= 0);
        int small = 4096;
        ::setsockopt(viewer, SOL_SOCKET, SO_RCVBUF, &small, sizeof small);

        constexpr int batches = 400, perBatch = 500;
        for (int b = 0; b < batches; ++b) {
            const wire::StringRef name = writer.string("kernel_" + std::to_string(b % 7));
            for (int i = 0; i < perBatch; ++i)
                writer.add(kernel(name, std::int64_t(b) * perBatch + i));
            writer.ship();
        }
        // It did not wait for the viewer: what the socket could not take was dropped (and counted).
        QVERIFY(writer.stats().recordsDroppedForSocket > 0);
        // The viewer wakes up and reads while the target exits (the writer lingers for the backlog).
        std::string received;
        std::thread drain([&] { received = readAll(viewer); });
        writer.close(std::chrono::milliseconds(10000));
        drain.join();

        // What reached the viewer decodes cleanly, its names resolve, and kept + dropped = sent.
        live::CaptureRecords viewerSide;
        live::WireIngest ingest(viewerSide);
        QVERIFY(ingest.feed(received));
        QVERIFY(ingest.finish());
        QCOMPARE(viewerSide.counts().kernels + viewerSide.counts().dropped,
                 std::uint64_t(batches) * perBatch);
        QCOMPARE(viewerSide.counts().dropped, writer.stats().recordsDroppedForSocket);
        for (const wire::Kernel& k : viewerSide.kernels())
            QVERIFY(viewerSide.string(k.name).starts_with("kernel_"));

        // The spool has every record.
        const live::SpoolRead spooled = live::readSpool(spool);
        QVERIFY(spooled.ok && !spooled.truncated);
        QCOMPARE(spooled.capture.counts().kernels, std::uint64_t(batches) * perBatch);
        QCOMPARE(spooled.capture.counts().dropped, 0u);
        ::close(viewer);
        ::close(listener);
    }

    // The viewer goes away mid-capture: the writer notices, stops sending and keeps spooling, without
    // blocking.
    void viewerGoneWriterContinues() {
        QTemporaryDir dir;
        const std::string socketPath = dir.filePath("s.sock").toStdString();
        const int listener = listenAt(socketPath);
        QVERIFY(listener >= 0);
        capture::AgentWriter writer;
        std::string error;
        QVERIFY(writer.open({socketPath, dir.filePath("spool.kscw").toStdString()}, error));
        const int viewer = ::accept(listener, nullptr, nullptr);
        const wire::StringRef name = writer.string("k");
        writer.add(kernel(name, 1));
        writer.ship();
        ::close(viewer);
        for (int i = 2; i < 20000; ++i) {
            writer.add(kernel(name, i));
            if (i % 100 == 0) writer.ship();
        }
        writer.close(std::chrono::milliseconds(100));
        QVERIFY(writer.stats().socketLost);
        const live::SpoolRead spooled = live::readSpool(dir.filePath("spool.kscw").toStdString());
        QCOMPARE(spooled.capture.counts().kernels, 19999u);
        ::close(listener);
    }

    // The target dies (SIGKILL) mid-capture: everything received up to then is kept and saves as a valid
    // trace.
    void targetKilledMidCapture() {
        const std::string path = test::tracePath(
            "AMD-AGI__TraceLens/tests__traces__h100__Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz");
        live::CaptureSession session;
        live::LaunchSpec spec;
        spec.program = fakeCuda;
        spec.agentPath = agentLibrary;
        spec.replayTrace = path;
        spec.replaySpeed = 0.02; // stretch the trace to many seconds
        spec.environment = {"KINETOSCOPE_FLUSH_MS=20"};
        std::string error;
        QVERIFY2(session.start(spec, error), error.c_str());
        QTRY_VERIFY_WITH_TIMEOUT(session.status().counts.kernels > 0, 30000);
        QCOMPARE(::kill(session.targetPid(), SIGKILL), 0);
        QVERIFY(session.waitFinished(10000));
        const live::SessionStatus st = session.status();
        QVERIFY(st.targetExited);
        QCOMPARE(st.exitStatus, 128 + SIGKILL);
        const live::CaptureRecords got = session.snapshot();
        QCOMPARE(got.counts().kernels, st.counts.kernels);
        const LoadResult saved = loadTraceText(got.toTraceJson());
        QVERIFY(saved.ok());
        QCOMPARE(gpuView(*saved.store).kernels.size(), std::size_t(st.counts.kernels));
        // The spool holds at least what the viewer got (it is written first).
        const live::SpoolRead spooled = live::readSpool(session.spoolPath());
        QVERIFY(spooled.ok);
        QVERIFY(spooled.capture.counts().kernels >= st.counts.kernels);
        ::unlink(session.spoolPath().c_str());
    }

    // The viewer dies (SIGKILL) mid-capture: the target finishes normally and its spool is complete.
    void viewerKilledTargetFinishes() {
        const std::string path =
            test::tracePath("AMD-AGI__TraceLens/tests__traces__torch_compile_triton__trace.json.gz");
        const LoadResult original = loadTrace(path);
        QVERIFY(original.ok());
        const std::size_t expected = gpuView(*original.store).kernels.size();
        QTemporaryDir dir;
        const QString spool = dir.filePath("spool.kscw");
        QProcess cli;
        cli.start(QStringLiteral(KINETOSCOPE_CLI), {"record", "-o", dir.filePath("c.json"), "--spool", spool,
                                                    "--replay", QString::fromStdString(path), "--speed",
                                                    "0.005", "--agent", agentLibrary, "--", fakeCuda});
        QVERIFY(cli.waitForStarted());
        QTRY_VERIFY_WITH_TIMEOUT(QFileInfo(spool).size() > 0, 30000);
        cli.kill(); // SIGKILL: no chance to clean up
        QVERIFY(cli.waitForFinished());
        // The target (now an orphan) runs to the end of its replay (~2.6 s) and finishes its spool.
        QTRY_VERIFY_WITH_TIMEOUT(
            [&] {
                const live::SpoolRead s = live::readSpool(spool.toStdString());
                return s.ok && !s.truncated && s.capture.counts().kernels == expected;
            }(),
            60000);
        const LoadResult recovered = loadTrace(spool.toStdString());
        QVERIFY(recovered.ok());
        QVERIFY(!recovered.store->stats().truncated);
        QCOMPARE(gpuView(*recovered.store).kernels.size(), expected);
        QVERIFY(!QFileInfo::exists(dir.filePath("c.json")));
    }

    // A spool cut short (a crash mid-write) opens like a truncated trace: every whole record before the cut,
    // and the byte offset of the cut.
    void truncatedSpoolOpens_data() {
        QTest::addColumn<int>("cutFromEnd");
        QTest::newRow("mid-record") << 7;
        QTest::newRow("mid-header of a record") << 3;
        QTest::newRow("half the file") << -2;
    }
    void truncatedSpoolOpens() {
        QFETCH(int, cutFromEnd);
        QTemporaryDir dir;
        const std::string spool = dir.filePath("s.kscw").toStdString();
        {
            capture::AgentWriter writer;
            std::string error;
            QVERIFY(writer.open({"", spool}, error));
            const wire::StringRef name = writer.string("gemm");
            for (int i = 0; i < 1000; ++i)
                writer.add(kernel(name, std::int64_t(i) * 2000));
            writer.close(std::chrono::milliseconds(0));
        }
        const auto size = std::filesystem::file_size(spool);
        const auto cut = cutFromEnd > 0 ? size - std::uintmax_t(cutFromEnd) : size / 2;
        std::filesystem::resize_file(spool, cut);
        const LoadResult r = loadTrace(spool);
        QVERIFY2(r.ok(), r.message(spool).c_str());
        QVERIFY(r.store->stats().truncated);
        QVERIFY(r.store->stats().truncatedAt <= cut);
        const std::size_t kernels = gpuView(*r.store).kernels.size();
        QVERIFY(kernels > 0 && kernels < 1000);
        if (cutFromEnd > 0) QCOMPARE(kernels, std::size_t(999));
    }

    void impossibleTimesAreSkipped_data() {
        QTest::addColumn<qint64>("start");
        QTest::addColumn<qint64>("end");
        QTest::newRow("start before the epoch") << qint64(-1) << qint64(1000);
        QTest::newRow("lowest start") << qint64(INT64_MIN) << qint64(1000);
        QTest::newRow("highest end") << qint64(1000) << qint64(INT64_MAX);
        QTest::newRow("both extreme") << qint64(INT64_MIN) << qint64(INT64_MAX);
        QTest::newRow("just past the bound")
            << qint64(live::CaptureRecords::maxTime + 1) << qint64(live::CaptureRecords::maxTime + 2);
    }
    // A stream is untrusted: records whose times no GPU clock gives (and whose differences would overflow)
    // are counted and skipped; the others load, and the first bad one is reported at its byte offset.
    void impossibleTimesAreSkipped() {
        QFETCH(qint64, start);
        QFETCH(qint64, end);
        wire::Encoder encoder;
        const wire::StringRef name = encoder.string("k");
        const wire::StringRef call = encoder.string("cudaLaunchKernel");
        for (int i = 0; i < 5; ++i)
            encoder.add(kernel(name, 1'000'000 + i * 2000));
        const std::size_t badAt = encoder.buffer().size();
        wire::Kernel bad = kernel(name, 0);
        bad.start = start, bad.end = end;
        encoder.add(bad);
        encoder.add(wire::Api{0, 211, call, 7, 1, 2, start, end});
        encoder.add(wire::Marker{call, 1, 2, start, end});
        encoder.add(kernel(name, 2'000'000));
        const std::string stream = encoder.take();
        const LoadResult r = live::loadWireStream(stream);
        QVERIFY(r.ok());
        QCOMPARE(r.store->sliceCount(), std::size_t(6));
        QCOMPARE(r.store->stats().malformedEvents, 3u);
        QVERIFY(!r.store->stats().issues.empty());
        QCOMPARE(r.store->stats().issues.front().offset, std::uint64_t(badAt));
        QVERIFY(r.store->stats().issues.front().reason.find("impossible times") != std::string::npos);
        // The saved form of what was kept loads the same.
        live::CaptureRecords records;
        live::WireIngest ingest(records);
        QVERIFY(ingest.feed(stream) && ingest.finish());
        QCOMPARE(records.counts().rejected, 3u);
        QCOMPARE(loadTraceText(records.toTraceJson()).store->sliceCount(), std::size_t(6));
    }

    void notASpool() {
        QTemporaryDir dir;
        const std::string path = dir.filePath("bad.kscw").toStdString();
        FILE* f = std::fopen(path.c_str(), "wb");
        std::fputs("KSCW\x09\x00\x00\x00garbage", f);
        std::fclose(f);
        const LoadResult r = loadTrace(path);
        QVERIFY(!r.ok());
        QVERIFY2(r.message(path).find("byte ") != std::string::npos, r.message(path).c_str());
    }

    void recordUsageErrors_data() {
        QTest::addColumn<QStringList>("arguments");
        QTest::addColumn<int>("exitCode");
        QTest::addColumn<QString>("message");
        QTest::newRow("no output") << QStringList{"--", "true"} << 2 << "record: --output is required";
        QTest::newRow("no program") << QStringList{"-o", "x.json"} << 2 << "needs a PROGRAM";
        QTest::newRow("bad speed") << QStringList{"-o", "x.json", "--speed", "fast", "--", "true"} << 2
                                   << "--speed";
        QTest::newRow("missing agent")
            << QStringList{"-o", "x.json", "--agent", "/nonexistent.so", "--", "true"} << 1
            << "capture agent not found";
        QTest::newRow("missing replay trace")
            << QStringList{"-o", "x.json", "--replay", "/nonexistent.json", "--", "true"} << 1
            << "/nonexistent.json";
        QTest::newRow("program not found")
            << QStringList{"-o", "x.json", "--", "/nonexistent-program"} << 1 << "cannot run";
    }
    void recordUsageErrors() {
        QFETCH(QStringList, arguments);
        QFETCH(int, exitCode);
        QFETCH(QString, message);
        QTemporaryDir dir;
        QProcess p;
        p.setWorkingDirectory(dir.path());
        p.setProcessChannelMode(QProcess::MergedChannels);
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert("KINETOSCOPE_AGENT", agentLibrary);
        p.setProcessEnvironment(env);
        p.start(QStringLiteral(KINETOSCOPE_CLI), QStringList{"record"} + arguments);
        QVERIFY(p.waitForFinished(30000));
        const QString out = QString::fromUtf8(p.readAll());
        QCOMPARE(p.exitCode(), exitCode);
        QVERIFY2(out.contains(message), qPrintable(out));
        QVERIFY(!QFileInfo::exists(dir.filePath("x.json")));
    }
};

QTEST_GUILESS_MAIN(TestCaptureFaults)
#include "tst_capturefaults.moc"
