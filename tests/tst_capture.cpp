// Live capture end to end: the agent library loading, `kinetoscope-cli record` with the replay source and
// kinetoscope-fake-cuda on real traces, the records a capture keeps and the store made of them. Faults on
// either side and spool recovery are tst_capturefaults', the session's socket tst_capturesession's, kernel
// names tst_kernelname's.
#include "agentwriter.h"
#include "analysis/ops/summary.h"
#include "capturetesting.h"
#include "live/capturesession.h"
#include "live/tracewire.h"
#include "model/argscan.h"
#include "replaysource.h"
#include "testsupport.h"

#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <dlfcn.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <thread>
#include <tuple>

using namespace kinetoscope;
using namespace kinetoscope::test;

namespace {

// Feeds a source's records straight into a capture: no writer, no socket.
class CaptureSink : public capture::RecordSink {
  public:
    explicit CaptureSink(live::CaptureRecords& into) : m_into(into) {}
    wire::StringRef string(std::string_view text) override { return m_into.intern(text); }
    void add(const wire::Record& record) override { m_into.add(record); }

  private:
    live::CaptureRecords& m_into;
};

// The first way two stores differ, everything compared by value (string ids by their text); empty when none.
std::string storeDifference(const TraceStore& a, const TraceStore& b) {
    auto text = [](const TraceStore& s, StringId id) { return std::string(s.strings().view(id)); };
    auto differ = [](const std::string& what, const auto& x, const auto& y) -> std::string {
        return x == y ? std::string() : what + " differ";
    };
    std::string d;
    auto check = [&](std::string found) {
        if (d.empty()) d = std::move(found);
    };
    check(differ("time ranges", std::pair(a.minTime(), a.maxTime()), std::pair(b.minTime(), b.maxTime())));
    check(differ("category counts", a.categories().size(), b.categories().size()));
    for (std::size_t i = 0; d.empty() && i < a.categories().size(); ++i)
        check(differ("category " + std::to_string(i),
                     std::pair(text(a, a.categories()[i].name), a.categories()[i].kind),
                     std::pair(text(b, b.categories()[i].name), b.categories()[i].kind)));
    check(differ("track counts", a.tracks().size(), b.tracks().size()));
    for (std::size_t t = 0; d.empty() && t < a.tracks().size(); ++t) {
        const Track& x = a.tracks()[t];
        const Track& y = b.tracks()[t];
        const std::string where = "track " + std::to_string(t) + ": ";
        check(differ(where + "identities",
                     std::tuple(x.kind, x.pid, x.tid, text(a, x.pidText), text(a, x.tidText), text(a, x.name),
                                x.sortIndex, x.hasSortIndex),
                     std::tuple(y.kind, y.pid, y.tid, text(b, y.pidText), text(b, y.tidText), text(b, y.name),
                                y.sortIndex, y.hasSortIndex)));
        check(differ(where + "starts", x.starts, y.starts));
        check(differ(where + "durations", x.durations, y.durations));
        check(differ(where + "flags", x.flags, y.flags));
        check(differ(where + "lanes", x.laneBegin, y.laneBegin));
        check(differ(where + "counter times", x.counterTimes, y.counterTimes));
        check(differ(where + "counter values", x.counterValues, y.counterValues));
        for (std::uint32_t r = 0; d.empty() && r < x.sliceCount(); ++r) {
            const EventRef ref{TrackId(t), EventIndex(r)};
            check(differ(where + "row " + std::to_string(r) + " name", text(a, x.names[r]),
                         text(b, y.names[r])));
            check(differ(where + "row " + std::to_string(r) + " category", text(a, a.categoryOf(ref).name),
                         text(b, b.categoryOf(ref).name)));
            check(differ(where + "row " + std::to_string(r) + " args", a.argsText(ref), b.argsText(ref)));
        }
    }
    check(differ("process counts", a.processes().size(), b.processes().size()));
    for (std::size_t i = 0; d.empty() && i < a.processes().size(); ++i) {
        const ProcessInfo& x = a.processes()[i];
        const ProcessInfo& y = b.processes()[i];
        std::vector<std::string> xl, yl;
        for (StringId l : x.labels)
            xl.push_back(text(a, l));
        for (StringId l : y.labels)
            yl.push_back(text(b, l));
        check(
            differ("process " + std::to_string(i),
                   std::tuple(x.pid, text(a, x.pidText), text(a, x.name), xl, x.sortIndex, x.hasSortIndex),
                   std::tuple(y.pid, text(b, y.pidText), text(b, y.name), yl, y.sortIndex, y.hasSortIndex)));
    }
    check(differ("flow counts", a.flows().size(), b.flows().size()));
    for (std::size_t i = 0; d.empty() && i < a.flows().size(); ++i) {
        const Flow& x = a.flows()[i];
        const Flow& y = b.flows()[i];
        check(differ("flow " + std::to_string(i), std::tuple(x.source, x.target, x.kind, text(a, x.category)),
                     std::tuple(y.source, y.target, y.kind, text(b, y.category))));
    }
    check(differ("flows by target", a.flowsByTarget(), b.flowsByTarget()));
    auto entries = [](const std::vector<CorrelationEntry>& v) {
        std::vector<std::tuple<std::uint64_t, std::uint32_t, std::uint32_t>> out;
        for (const CorrelationEntry& e : v)
            out.emplace_back(e.id, e.ref.track.value, e.ref.index.value);
        return out;
    };
    check(differ("launches by correlation", entries(a.launchByCorrelation()),
                 entries(b.launchByCorrelation())));
    check(differ("GPU work by correlation", entries(a.gpuByCorrelation()), entries(b.gpuByCorrelation())));
    check(differ("External ids", entries(a.byExternalId()), entries(b.byExternalId())));
    check(differ("top-level keys", a.metadata().topLevel, b.metadata().topLevel));
    check(differ("base time", a.metadata().baseTimeNanoseconds, b.metadata().baseTimeNanoseconds));
    check(differ("device count", a.metadata().devices.size(), b.metadata().devices.size()));
    for (std::size_t i = 0; d.empty() && i < a.metadata().devices.size(); ++i) {
        const DeviceProperties& x = a.metadata().devices[i];
        const DeviceProperties& y = b.metadata().devices[i];
        check(differ("device " + std::to_string(i),
                     std::tuple(x.id, x.name, x.totalGlobalMem, x.computeMajor, x.computeMinor, x.numSms,
                                x.maxThreadsPerMultiprocessor, x.warpSize),
                     std::tuple(y.id, y.name, y.totalGlobalMem, y.computeMajor, y.computeMinor, y.numSms,
                                y.maxThreadsPerMultiprocessor, y.warpSize)));
    }
    const ImportStats& x = a.stats();
    const ImportStats& y = b.stats();
    check(differ("event counts", std::tuple(x.eventsSeen, x.malformedEvents, x.unknownPhaseEvents),
                 std::tuple(y.eventsSeen, y.malformedEvents, y.unknownPhaseEvents)));
    check(differ("phase counts", x.phaseCounts, y.phaseCounts));
    check(differ("category event counts", x.categoryCounts, y.categoryCounts));
    check(differ("issue counts", x.issues.size(), y.issues.size()));
    return d;
}

// A capture with every kind of record and the awkward cases: names to escape, a graph launch (two kernels,
// one correlation), a repeated External id, a launch with no GPU work, a driver call, a context sync on no
// stream (-1), an unknown memcpy kind, an empty range, NVTX ranges and marks, kernels on a device without
// properties, times before the first whole second, and correlation ids far apart (the sparse tables).
live::CaptureRecords awkwardCapture(bool sparseIds) {
    live::CaptureRecords c;
    const std::uint64_t step = sparseIds ? 1'000'000'007ull : 1;
    auto id = [&](std::uint64_t i) { return 100 + i * step; };
    const wire::StringRef gemm = c.intern("ampere_sgemm_128x64_nn"), quoted = c.intern("k<\"a\\b\">\n\t\x01"),
                          launch = c.intern("cudaLaunchKernel"), driverLaunch = c.intern("cuLaunchKernel"),
                          copy = c.intern("cudaMemcpyAsync"), range = c.intern("forward"),
                          mark = c.intern("step \"3\""), h100 = c.intern("NVIDIA H100 80GB HBM3");
    // Calls named for the first time after flows were written: a name's id must never share a cache slot with
    // the fixed names (Memcpy kinds, ac2g...) however many names come before.
    std::vector<wire::StringRef> lateNames;
    for (int i = 0; i < 32; ++i)
        lateNames.push_back(c.intern("cudaLateCall" + std::to_string(i)));
    c.add(wire::Device{0, h100, 85'000'000'000ull, 9, 0, 132, 2048, 32});
    c.setProcessName(4242, "python train.py");
    std::int64_t t = 1'700'000'000'999'990'000; // 10 µs before a whole second
    for (std::uint64_t i = 0; i < 40; ++i, t += 7'321) {
        const bool graph = i % 10 == 3, noGpu = i % 10 == 5, driver = i % 10 == 7, memcpy = i % 10 == 8;
        const wire::StringRef callName = i >= 8   ? lateNames[i - 8]
                                         : driver ? driverLaunch
                                         : memcpy ? copy
                                                  : launch;
        c.add(wire::Api{std::uint8_t(driver), driver ? 307u : 211u, callName, id(i), 4242, 4243 + (i % 2), t,
                        t + 2'000});
        if (i % 4 == 0) c.add(wire::ExternalCorrelation{id(i), 5000 + i / 2});
        if (i == 9) c.add(wire::ExternalCorrelation{id(i), 7777}); // repeated: the last one counts
        if (noGpu) continue;
        if (memcpy) {
            c.add(wire::Memcpy{0, 7, id(i), t + 5'000, t + 9'000, std::uint8_t(i == 18 ? 42 : 1), 1 << 20});
            continue;
        }
        wire::Kernel k;
        k.device = i % 3 == 0 ? 1 : 0; // device 1 has no properties
        k.stream = 7 + std::uint32_t(i % 2);
        k.correlation = id(i);
        k.start = t + 4'000;
        k.end = i == 11 ? k.start - 5 : k.start + 3'333; // one with its end before its start
        k.name = i % 5 == 1 ? quoted : gemm;
        k.grid[0] = 1 + std::uint32_t(i), k.grid[1] = 2, k.block[0] = 128 + std::uint32_t(i);
        k.registers = 64, k.staticShared = 1024, k.dynamicShared = 4096;
        c.add(k);
        if (graph) {
            k.start -= 1'000, k.end += 500; // the graph's second kernel starts first: the flow goes to it
            c.add(k);
        }
    }
    c.add(wire::Memset{0, 7, id(41), t, t + 100, 4096});
    c.add(wire::Memset{0, 7, id(42), t + 200, t + 200, 0}); // empty: no bandwidth
    c.add(wire::Sync{0, 0xFFFFFFFFu, 4, id(43), t + 300, t + 900});
    c.add(wire::Sync{0, 7, 3, id(44), t + 1000, t + 1500});
    c.add(wire::Marker{range, 4242, 4243, t - 300'000, t + 10'000});
    c.add(wire::Marker{mark, 4242, 4243, t - 1, t - 1});
    c.add(wire::Dropped{3});
    return c;
}

// Every record with every number at its longest: the args made for the live store must still fit the room
// reserved for them (the build would fall back to the JSON otherwise).
live::CaptureRecords extremeCapture() {
    live::CaptureRecords c;
    const std::uint64_t huge = UINT64_MAX;
    const wire::StringRef name = c.intern("k"), launch = c.intern("cuLaunchKernel"),
                          tiny = c.intern("NVIDIA tiny");
    const std::int64_t t = 1'000'000'000;
    c.add(wire::Device{9, tiny, huge, UINT32_MAX, UINT32_MAX, 1, UINT32_MAX, UINT32_MAX});
    for (std::uint64_t i = 0; i < 64; ++i) {
        const std::uint64_t id = huge - i;
        c.add(wire::ExternalCorrelation{id, huge});
        wire::Kernel k;
        k.device = 9, k.stream = UINT32_MAX, k.correlation = id, k.start = t + std::int64_t(i) * 10,
        k.end = k.start + 1;
        k.name = name;
        for (int d = 0; d < 3; ++d)
            k.grid[d] = k.block[d] = UINT32_MAX;
        k.registers = k.staticShared = k.dynamicShared = UINT32_MAX;
        c.add(k);
        c.add(wire::Memcpy{UINT32_MAX, UINT32_MAX, id, k.start, k.end, 255, huge});
        c.add(wire::Memset{UINT32_MAX, UINT32_MAX, id, k.start, k.end, huge});
        c.add(wire::Sync{UINT32_MAX, 0x80000000u, 255, id, k.start, k.end});
        c.add(wire::Api{1, UINT32_MAX, launch, id, UINT32_MAX, 4243, k.start - 5, k.start});
    }
    return c;
}

} // namespace

class TestCapture : public QObject {
    Q_OBJECT

  private slots:
    void initTestCase() {
        ::signal(SIGPIPE, SIG_IGN);
        QVERIFY2(QFileInfo::exists(agentLibrary), agentLibrary);
        QVERIFY2(QFileInfo::exists(fakeCuda), fakeCuda);
    }

    // What the CUDA driver does: load the library and find its entry point. With CUPTI built in this also
    // proves the CUPTI source linked and its library resolves.
    void agentLoads() {
        void* handle = dlopen(agentLibrary, RTLD_NOW | RTLD_LOCAL);
        QVERIFY2(handle, dlerror());
        QVERIFY(dlsym(handle, "InitializeInjection"));
        QVERIFY(dlsym(handle, "KinetoscopeAgentWaitReplay"));
        // Nothing else leaks into the target's symbol space.
        QVERIFY(!dlsym(handle, "_ZN11kinetoscope9loadTraceERKNSt7__cxx1112basic_stringIcSt11char_"
                               "traitsIcESaIcEEERKNS_11LoadOptionsE"));
        // Not dlclose'd: as in a target, the agent (and CUPTI, which keeps allocations in its globals) stays
        // loaded.
    }

    // Without a GPU (and without a replay trace) the agent must say so and let the target run normally.
    void agentWithoutGpuStaysOutOfTheWay() {
        QTemporaryDir dir;
        QProcess p;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert("CUDA_INJECTION64_PATH", agentLibrary);
        env.insert("KINETOSCOPE_SPOOL", dir.filePath("spool.kscw"));
        env.remove("KINETOSCOPE_REPLAY");
        p.setProcessEnvironment(env);
        p.setProcessChannelMode(QProcess::MergedChannels);
        p.start(fakeCuda, {"sh", "-c", "exit 3"});
        QVERIFY(p.waitForFinished(60000));
        QCOMPARE(p.exitCode(), 3); // the target ran, and its status is its own
        const QString out = QString::fromUtf8(p.readAll());
        QVERIFY2(out.contains("kinetoscope-agent:") && out.contains("capture disabled"), qPrintable(out));
        // The spool says so too, for the viewer or kinetoscope-cli: with CUPTI built in, what CUPTI answered
        // without a driver (here cuptiActivityEnable(CONCURRENT_KERNEL) failed: CUPTI_ERROR_UNKNOWN), else
        // that the agent has no CUPTI.
        const live::SpoolRead spooled = live::readSpool(dir.filePath("spool.kscw").toStdString());
        QVERIFY2(spooled.ok && !spooled.truncated, spooled.error.c_str());
        const std::vector<std::string>& notices = spooled.capture.notices();
        QCOMPARE(notices.size(), std::size_t(1));
        QVERIFY2(QString::fromStdString(notices[0]).startsWith("capture disabled: "), notices[0].c_str());
#ifdef KINETOSCOPE_HAVE_CUPTI
        QVERIFY2(QString::fromStdString(notices[0]).contains("CUPTI_ERROR"), notices[0].c_str());
#else
        QVERIFY2(QString::fromStdString(notices[0]).contains("built without CUPTI"), notices[0].c_str());
#endif
        // A saved capture keeps what the agent said with the trace.
        const std::string json = spooled.capture.toTraceJson();
        QVERIFY2(json.find("\"notices\": [\"capture disabled: ") != std::string::npos,
                 json.substr(0, 600).c_str());
        LoadResult loaded = loadTraceText(json);
        QVERIFY2(loaded.store, loaded.error.c_str());
    }

    // kinetoscope-cli record passes on what the agent said: a capture that could not start says why, and the
    // saved trace keeps it.
    void recordSaysWhyTheCaptureIsOff() {
        QTemporaryDir dir;
        const QString out = dir.filePath("capture.json");
        QString log;
        QVERIFY2(record({"-o", out, "--agent", agentLibrary, "--", fakeCuda, "true"}, log), qPrintable(log));
        QVERIFY2(log.contains("kinetoscope-cli: agent: capture disabled: "), qPrintable(log));
        QVERIFY2(log.contains("0 kernels"), qPrintable(log));
        const std::string saved = test::readText(out.toStdString());
        QVERIFY2(saved.find("\"notices\": [\"capture disabled: ") != std::string::npos,
                 saved.substr(0, 600).c_str());
    }

    void replayMatchesTrace_data() {
        QTest::addColumn<QString>("trace");
        QTest::newRow("torch.compile triton (AMD)")
            << "AMD-AGI__TraceLens/tests__traces__torch_compile_triton__trace.json.gz";
        QTest::newRow("H100 Qwen")
            << "AMD-AGI__TraceLens/tests__traces__h100__Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz";
        QTest::newRow("tb_plugin resnet50, legacy categories")
            << "pytorch__kineto/tb_plugin__samples__resnet50_num_workers_0__worker0.pt.trace.json.gz";
        QTest::newRow("HTA sampled rank")
            << "facebookresearch__HolisticTraceAnalysis/tests__data__trace_filter__sampled_rank-0.json.gz";
        QTest::newRow("B200 eager") << "AMD-AGI__TraceLens/tests__traces__b200__eager_trace.json.gz";
    }

    // The whole pipeline: replay source -> agent -> socket -> session -> saved trace, which must show the
    // same kernels (names, count, durations, streams, relative timing) and launch -> kernel links as the
    // original.
    void replayMatchesTrace() {
        QFETCH(QString, trace);
        const std::string path = test::tracePath(trace.toUtf8().constData());
        QTemporaryDir dir;
        const QString out = dir.filePath("capture.json");
        QString log;
        QVERIFY2(record({"-o", out, "--replay", QString::fromStdString(path), "--speed", "0", "--agent",
                         agentLibrary, "--", fakeCuda},
                        log),
                 qPrintable(log));
        QVERIFY2(log.contains("0 dropped"), qPrintable(log));
        QVERIFY2(!QFileInfo::exists(out + ".kscw"), "the spool is removed once the trace is saved");

        const LoadResult original = loadTrace(path);
        const LoadResult captured = loadTrace(out.toStdString());
        QVERIFY(original.ok());
        QVERIFY2(captured.ok(), captured.message(out.toStdString()).c_str());
        QCOMPARE(captured.store->stats().malformedEvents, 0u);
        const GpuView a = gpuView(*original.store), b = gpuView(*captured.store);
        QVERIFY(!a.kernels.empty());
        QCOMPARE(b.kernels.size(), a.kernels.size());
        QVERIFY(b.kernels == a.kernels);
        QVERIFY(!a.links.empty());
        QCOMPARE(b.links.size(), a.links.size());
        QVERIFY(b.links == a.links);
        QCOMPARE(b.memcpys, a.memcpys);
        QCOMPARE(b.memsets, a.memsets);
        // Every link is a real ac2g flow in the saved file, so Perfetto and chrome://tracing draw it too.
        std::size_t launchFlows = 0;
        for (const Flow& f : captured.store->flows())
            launchFlows += f.kind == FlowKind::Launch;
        QVERIFY(launchFlows >= b.links.size());
        // And the kernel table reads the same.
        const Summary sa = summarize(*original.store, OperatorGrouping::Name);
        const Summary sb = summarize(*captured.store, OperatorGrouping::Name);
        QCOMPARE(sb.kernels.size(), sa.kernels.size());
    }

    void directStoreMatchesSavedTrace_data() {
        QTest::addColumn<QString>("trace");
        QTest::addColumn<int>("threads");
        QTest::newRow("awkward records, dense ids") << "awkward" << 0;
        QTest::newRow("awkward records, sparse ids") << "awkward sparse" << 0;
        QTest::newRow("longest numbers") << "extreme" << 0;
        QTest::newRow("torch.compile triton (AMD)")
            << "AMD-AGI__TraceLens/tests__traces__torch_compile_triton__trace.json.gz" << 0;
        QTest::newRow("H100 Qwen")
            << "AMD-AGI__TraceLens/tests__traces__h100__Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz" << 0;
        QTest::newRow("H100 Qwen, one thread")
            << "AMD-AGI__TraceLens/tests__traces__h100__Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz" << 1;
        QTest::newRow("tb_plugin resnet50, legacy categories")
            << "pytorch__kineto/tb_plugin__samples__resnet50_num_workers_0__worker0.pt.trace.json.gz" << 0;
        QTest::newRow("HTA sampled rank")
            << "facebookresearch__HolisticTraceAnalysis/tests__data__trace_filter__sampled_rank-0.json.gz"
            << 0;
        QTest::newRow("B200 eager") << "AMD-AGI__TraceLens/tests__traces__b200__eager_trace.json.gz" << 0;
    }

    // A context or event synchronization has no stream (CUPTI's 0xFFFFFFFF): it goes on one lane of its
    // device, tid -1 as Kineto writes it, named for what it holds. Written as stream 4294967295, the first
    // real capture showed it as a lane of a second, nameless "GPU 0" group.
    void contextSyncsOnTheirDevice() {
        const live::CaptureRecords records = awkwardCapture(false);
        const LoadResult saved = loadTraceText(records.toTraceJson());
        QVERIFY(saved.ok());
        const TraceStore& store = *saved.store;
        int syncTracks = 0;
        for (const Track& t : store.tracks()) {
            for (std::uint32_t r = 0; r < t.sliceCount(); ++r) {
                if (store.strings().view(t.names[r]) != "Context Sync") continue;
                ++syncTracks;
                QCOMPARE(t.kind, TrackKind::GpuStream);
                QCOMPARE(t.pid, std::int64_t(0));
                QCOMPARE(t.tid, std::int64_t(-1));
                QCOMPARE(QString::fromStdString(std::string(store.strings().view(t.name))),
                         QString("context and event syncs"));
                break;
            }
            QVERIFY(t.tid != std::int64_t(UINT32_MAX));
        }
        QCOMPARE(syncTracks, 1);
    }

    // The live view's store is built straight from the records; it must be exactly the store that the saved
    // JSON loads as (every column, name, args text, flow, index and count), so what the viewer shows live is
    // what a saved capture reopens as.
    void directStoreMatchesSavedTrace() {
        QFETCH(QString, trace);
        QFETCH(int, threads);
        live::CaptureRecords records;
        if (trace.startsWith("awkward")) {
            records = awkwardCapture(trace.endsWith("sparse"));
        } else if (trace == "extreme") {
            records = extremeCapture();
        } else {
            std::string stream, error;
            QVERIFY2(live::replayStreamFor(test::tracePath(trace.toUtf8().constData()), stream, error),
                     error.c_str());
            auto source = capture::makeReplaySourceFromStream(std::move(stream), 0);
            QVERIFY2(source->start(error), error.c_str());
            CaptureSink sink(records);
            while (!source->finished())
                source->drain(sink);
            source->stop();
        }
        QVERIFY(records.counts().kernels > 0);
        const std::string json = records.toTraceJson();
        const LoadResult saved = loadTraceText(json);
        QVERIFY(saved.ok());
        QCOMPARE(saved.store->stats().malformedEvents, 0u);
        QCOMPARE(saved.store->stats().issues.size(), 0u);
        LoadOptions options;
        options.threads = unsigned(threads);
        const LoadResult direct = records.buildStore(options);
        QVERIFY(direct.ok());
        QCOMPARE(QString::fromStdString(storeDifference(*direct.store, *saved.store)), QString());
        QCOMPARE(direct.store->sliceCount(), std::size_t(records.eventCount()));
        // Built directly (not through the JSON, which it falls back to if args ever outgrew their room): it
        // reports the args text it made.
        std::uint64_t argsBytes = 0;
        for (std::uint32_t t = 0; t < direct.store->tracks().size(); ++t)
            for (std::uint32_t r = 0; r < direct.store->tracks()[t].sliceCount(); ++r)
                argsBytes += direct.store->argsText({TrackId(t), EventIndex(r)}).size();
        QCOMPARE(direct.store->stats().jsonBytes, argsBytes);
    }

    // A snapshot (a copy of the capture) shares the record blocks; records added afterwards, into the same
    // partly filled block too, never show in it, and neither copy's records change.
    void snapshotKeepsItsRecords() {
        live::CaptureRecords capture;
        const wire::StringRef name = capture.intern("k");
        // Past the first three blocks and into the middle of the fourth.
        const std::size_t first = live::AppendOnly<wire::Kernel>::firstBlockSize * 11;
        for (std::size_t i = 0; i < first; ++i)
            capture.add(kernel(name, std::int64_t(i)));
        const live::CaptureRecords snapshot = capture;
        for (std::size_t i = first; i < 3 * first; ++i)
            capture.add(kernel(name, std::int64_t(i)));
        QCOMPARE(snapshot.kernels().size(), first);
        QCOMPARE(snapshot.counts().kernels, std::uint64_t(first));
        QCOMPARE(capture.kernels().size(), 3 * first);
        std::size_t i = 0;
        for (const wire::Kernel& k : snapshot.kernels())
            QCOMPARE(k.start, std::int64_t(i++));
        QCOMPARE(i, first);
        for (i = 0; i < capture.kernels().size(); ++i)
            QCOMPARE(capture.kernels()[i].start, std::int64_t(i));
        const LoadResult store = snapshot.buildStore();
        QVERIFY(store.ok());
        QCOMPARE(store.store->sliceCount(), first);
    }

    // A slow replay (the trace's relative timing kept, at 0.05x) delivers every kernel of the trace. How long
    // it takes (at least span / speed) is measured by bench/replaytiming.sh, not asserted here.
    void slowReplayDeliversEverything() {
        const std::string path =
            test::tracePath("AMD-AGI__TraceLens/tests__traces__torch_compile_triton__trace.json.gz");
        QTemporaryDir dir;
        QString log;
        QVERIFY2(record({"-o", dir.filePath("c.json"), "--replay", QString::fromStdString(path), "--speed",
                         "0.05", "--agent", agentLibrary, "--", fakeCuda},
                        log),
                 qPrintable(log));
        const LoadResult original = loadTrace(path);
        const LoadResult captured = loadTrace(dir.filePath("c.json").toStdString());
        QVERIFY(original.ok() && captured.ok());
        const GpuView want = gpuView(*original.store), got = gpuView(*captured.store);
        QVERIFY(!want.kernels.empty());
        QCOMPARE(got.kernels.size(), want.kernels.size());
        QVERIFY(got.kernels == want.kernels);
    }
    // The target is told where CUPTI is (live/cuptilocate.h): first on its LD_LIBRARY_PATH, and as the NVTX
    // injection library so that its NVTX ranges reach the capture (on the first real GPU they did only then);
    // a user's own NVTX_INJECTION64_PATH stays. Without CUPTI in the agent nothing is changed.
    void targetIsToldWhereCuptiIs_data() {
        QTest::addColumn<QString>("userNvtx");
        QTest::newRow("ours") << "";
        QTest::newRow("the user's") << "/opt/my/nvtx-tool.so";
    }
    void targetIsToldWhereCuptiIs() {
        QFETCH(QString, userNvtx);
        QTemporaryDir dir;
        const QString cupti = dir.filePath("cupti");
        QVERIFY(QDir().mkpath(cupti));
        QFile library(cupti + "/libcupti.so.13");
        QVERIFY(library.open(QIODevice::WriteOnly));
        library.close();
        const QString seen = dir.filePath("seen.txt");
        live::CaptureSession session;
        live::LaunchSpec spec;
        spec.program = "/bin/sh";
        spec.arguments = {"-c", "printf '%s\\n%s\\n' \"$LD_LIBRARY_PATH\" \"$NVTX_INJECTION64_PATH\" > " +
                                    seen.toStdString()};
        spec.agentPath = agentLibrary;
        spec.environment = {"KINETOSCOPE_CUPTI_DIR=" + cupti.toStdString(), "LD_LIBRARY_PATH=/usr/lib/mine"};
        if (!userNvtx.isEmpty())
            spec.environment.push_back("NVTX_INJECTION64_PATH=" + userNvtx.toStdString());
        std::string error;
        QVERIFY2(session.start(spec, error), error.c_str());
        QVERIFY(session.waitFinished(10000));
        QFile file(seen);
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QStringList lines = QString::fromUtf8(file.readAll()).split('\n');
        QVERIFY(lines.size() >= 2);
#ifdef KINETOSCOPE_HAVE_CUPTI
        QCOMPARE(QString::fromStdString(session.cuptiDir()), cupti);
        QCOMPARE(lines[0], cupti + ":/usr/lib/mine");
        QCOMPARE(lines[1], userNvtx.isEmpty() ? cupti + "/libcupti.so.13" : userNvtx);
#else
        QVERIFY(session.cuptiDir().empty());
        QCOMPARE(lines[0], QString("/usr/lib/mine"));
        QCOMPARE(lines[1], userNvtx);
#endif
    }
};

QTEST_GUILESS_MAIN(TestCapture)
#include "tst_capture.moc"
