// Captures made on real GPUs (tests/data/gpu; its README says how each was made): the spools `kinetoscope-cli
// record --spool` kept on an H100 (the raw wire streams the agent wrote from CUPTI's records) and the capture
// beside torch.profiler on an H200. What only a real driver produces is checked here, without a GPU: the
// probe's launches with the shape it printed, every figure the CLI printed on the GPU, any split or cut of a
// real stream, the kernels a step against the profiler's, and a trace `attach` brought back from a running
// PyTorch against torch.profiler's of the same loop.
#include "analysis/ops/summary.h"
#include "fuzz/fuzz_input.h"
#include "import/gzipsample.h"
#include "import/sourcebuffer.h"
#include "live/livecapture.h"
#include "model/argscan.h"
#include "testsupport.h"
#include "wire/wire.h"

#include <QtTest>

#include <QTemporaryDir>

#include <algorithm>
#include <map>
#include <set>

using namespace kinetoscope;

namespace {

std::string gpuData(const char* name) {
    return std::string(KINETOSCOPE_SOURCE_DIR) + "/tests/data/gpu/" + name;
}

struct Counts {
    std::uint64_t kernels = 0, memcpys = 0, memsets = 0, apiCalls = 0, linked = 0;
};

Counts countsOf(const TraceStore& s) {
    Counts c;
    for (std::uint32_t t = 0; t < s.tracks().size(); ++t)
        for (std::uint32_t r = 0; r < s.tracks()[t].sliceCount(); ++r) {
            const EventRef ref{TrackId(t), EventIndex(r)};
            const CategoryKind kind = s.categoryOf(ref).kind;
            c.kernels += kind == CategoryKind::Kernel;
            c.memcpys += kind == CategoryKind::Memcpy;
            c.memsets += kind == CategoryKind::Memset;
            c.apiCalls += kind == CategoryKind::Runtime || kind == CategoryKind::Driver;
            c.linked += isGpuWork(kind) && s.launchOf(ref).has_value();
        }
    return c;
}

// Every record of a stream, each encoded again: two decodes are the same when these bytes are.
std::string decodedBytes(std::string_view stream, std::size_t piece, bool* finished) {
    wire::Encoder again;
    wire::Decoder d([&](const wire::Record& r) {
        if (!std::holds_alternative<wire::StringDef>(r)) again.add(r);
    });
    for (std::size_t at = 0; at < stream.size(); at += piece)
        if (!d.feed(stream.substr(at, piece))) break;
    *finished = d.finish();
    return again.take();
}

} // namespace

class TestRealCapture : public QObject {
    Q_OBJECT
  private slots:
    // What `kinetoscope-cli record` printed on the H100 for each capture (its counts of the agent's records),
    // read back from the spool it kept: nothing lost between the agent's stream and the store.
    void spoolsHoldWhatTheGpuRunCounted_data() {
        QTest::addColumn<QString>("file");
        QTest::addColumn<qulonglong>("kernels");
        QTest::addColumn<qulonglong>("memcpys");
        QTest::addColumn<qulonglong>("memsets");
        QTest::addColumn<qulonglong>("apiCalls");
        // "424 kernels, 2 memcpy, 1 memset, 2361 API calls, 0 dropped"
        QTest::newRow("probe") << "h100_probe.kscw.gz" << 424ull << 2ull << 1ull << 2361ull;
        // The same probe on an H200 with the agent of 2026-11-27 (CUPTI settings read at start): the same
        // records.
        QTest::newRow("probe, H200") << "h200_probe.kscw.gz" << 424ull << 2ull << 1ull << 2361ull;
        // "624 kernels, 29 memcpy, 52 memset, 16697 API calls, 0 dropped"
        QTest::newRow("eager step") << "h100_eager.kscw.gz" << 624ull << 29ull << 52ull << 16697ull;
        // A compile worker Inductor started (its own spool, FILE.PID): driver calls, no GPU work.
        QTest::newRow("compile worker") << "h100_compile_worker.kscw.gz" << 0ull << 0ull << 0ull << 130ull;
    }
    void spoolsHoldWhatTheGpuRunCounted() {
        QFETCH(QString, file);
        const std::string path = gpuData(file.toUtf8().constData());
        const LoadResult loaded = loadTrace(path);
        QVERIFY2(loaded.ok(), loaded.error.c_str());
        const Counts c = countsOf(*loaded.store);
        QTEST(qulonglong(c.kernels), "kernels");
        QTEST(qulonglong(c.memcpys), "memcpys");
        QTEST(qulonglong(c.memsets), "memsets");
        QTEST(qulonglong(c.apiCalls), "apiCalls");
        QCOMPARE(c.linked, c.kernels + c.memcpys + c.memsets); // every piece of GPU work to its launch
        const ImportStats& st = loaded.store->stats();
        QVERIFY(!st.truncated);
        QCOMPARE(st.malformedEvents, std::uint64_t(0));
        // The file's own size on disk, and what it inflates to (a gzip spool read as a capture, not JSON).
        QVERIFY(st.wireStream && st.gzip);
        QCOMPARE(st.fileBytes, std::uint64_t(QFileInfo(QString::fromStdString(path)).size()));
        QCOMPARE(st.jsonBytes, std::uint64_t(test::readText(path).size()));
    }

    // tests/gpu/probe.cu's launches as the probe printed them (`probe 200 2`) on the H100 and the H200:
    // count, grid, block and shared memory per kernel; the registers CUPTI reports (at least 16 a thread);
    // one stream; each linked to its cudaLaunchKernel. Four cuBLAS GEMM kernels for two cublasSgemm.
    void probeLaunchesAsMade_data() {
        QTest::addColumn<QString>("file");
        QTest::newRow("H100") << "h100_probe.kscw.gz";
        QTest::newRow("H200") << "h200_probe.kscw.gz";
    }
    void probeLaunchesAsMade() {
        QFETCH(QString, file);
        const LoadResult loaded = loadTrace(gpuData(file.toUtf8().constData()));
        QVERIFY2(loaded.ok(), loaded.error.c_str());
        const TraceStore& s = *loaded.store;
        struct Seen {
            std::uint64_t launches = 0, shapeAsMade = 0, linkedToLaunch = 0;
            std::map<long long, std::uint64_t> registers, shared, streams;
        };
        std::map<std::string, Seen> seen;
        std::uint64_t gemms = 0;
        for (std::uint32_t t = 0; t < s.tracks().size(); ++t)
            for (std::uint32_t r = 0; r < s.tracks()[t].sliceCount(); ++r) {
                const EventRef ref{TrackId(t), EventIndex(r)};
                if (s.categoryOf(ref).kind != CategoryKind::Kernel) continue;
                const std::string name(s.nameOf(ref));
                if (name.find("gemm") != std::string::npos) {
                    ++gemms;
                    continue;
                }
                const std::string_view args = s.argsText(ref);
                Seen& k = seen[name.substr(0, name.find('('))];
                ++k.launches;
                const auto grid = argTriple(args, "grid"), block = argTriple(args, "block");
                using Triple = std::array<long long, 3>;
                const std::map<std::string, std::pair<Triple, Triple>> made{
                    {"kinetoscope_probe_fill", {{7, 3, 1}, {128, 1, 1}}},
                    {"kinetoscope_probe_scale", {{13, 1, 1}, {64, 2, 1}}},
                    {"kinetoscope_probe_tile_sum", {{5, 1, 1}, {256, 1, 1}}}};
                const auto shape = made.find(name.substr(0, name.find('(')));
                k.shapeAsMade +=
                    shape != made.end() && grid == shape->second.first && block == shape->second.second;
                ++k.registers[argInteger(args, "registers per thread").value_or(-1)];
                ++k.shared[argInteger(args, "shared memory").value_or(-1)];
                ++k.streams[argInteger(args, "stream").value_or(-1)];
                if (const auto launch = s.launchOf(ref))
                    k.linkedToLaunch += s.nameOf(*launch) == "cudaLaunchKernel";
            }
        QCOMPARE(gemms, std::uint64_t(4));
        std::set<long long> streams; // the probe launches everything on its one stream
        for (const auto& [name, k] : seen)
            for (const auto& [stream, count] : k.streams)
                streams.insert(stream);
        QCOMPARE(streams.size(), std::size_t(1));
        const std::map<std::string, std::pair<std::uint64_t, long long>> expected{
            {"kinetoscope_probe_fill", {200, 0}},
            {"kinetoscope_probe_scale", {200, 0}},
            {"kinetoscope_probe_tile_sum", {20, 2048}}};
        QCOMPARE(seen.size(), expected.size());
        for (const auto& [name, figures] : expected) {
            const Seen& k = seen[name];
            QCOMPARE(k.launches, figures.first);
            QCOMPARE(k.shapeAsMade, figures.first);
            QCOMPARE(k.linkedToLaunch, figures.first);
            QCOMPARE(k.registers, (std::map<long long, std::uint64_t>{{16, figures.first}}));
            QCOMPARE(k.shared, (std::map<long long, std::uint64_t>{{figures.second, figures.first}}));
            QCOMPARE(k.streams.size(), std::size_t(1));
        }
    }

    // A real stream fed in pieces of any size decodes to the same records (the socket cuts it anywhere).
    void realStreamAnySplit() {
        const std::string stream = test::readText(gpuData("h100_eager.kscw.gz"));
        QVERIFY(stream.size() > 800'000);
        bool finished = false;
        const std::string whole = decodedBytes(stream, stream.size(), &finished);
        QVERIFY(finished);
        for (const std::size_t piece :
             {std::size_t(1), std::size_t(7), std::size_t(4093), std::size_t(65536)}) {
            bool pieceFinished = false;
            QVERIFY2(decodedBytes(stream, piece, &pieceFinished) == whole,
                     qPrintable(QString::number(piece)));
            QVERIFY(pieceFinished);
        }
    }

    // A real stream cut anywhere (a target killed mid-capture) loads every whole record before the cut, says
    // where it stopped, and never shows more for a shorter stream.
    void realStreamCutAnywhere() {
        const std::string stream = test::readText(gpuData("h100_eager.kscw.gz"));
        std::uint64_t previous = 0, truncated = 0;
        constexpr std::size_t cuts = 48;
        for (std::size_t i = 1; i <= cuts; ++i) {
            // Spread over the stream, each off a record boundary by a different amount.
            const std::size_t cut = std::min(stream.size(), stream.size() * i / cuts + i * 7);
            const LoadResult r = loadReadTrace({std::shared_ptr<const SourceBuffer>(SourceBuffer::fromText(
                                                    std::string_view(stream).substr(0, cut))),
                                                {},
                                                {}},
                                               {});
            QVERIFY2(r.ok(), qPrintable(QStringLiteral("cut at %1: %2").arg(cut).arg(r.error.c_str())));
            const std::uint64_t kernels = countsOf(*r.store).kernels;
            QVERIFY(kernels >= previous);
            previous = kernels;
            if (r.store->stats().truncated) {
                ++truncated;
                QVERIFY(r.store->stats().truncatedAt <= cut);
            }
        }
        QCOMPARE(previous, std::uint64_t(624));
        // The last cut is the whole stream; a cut lands on a record boundary (a complete, shorter stream)
        // rarely.
        QVERIFY2(truncated >= cuts - 3, qPrintable(QString::number(truncated)));
    }

    // A gzip spool cut short (a copy that stopped mid-transfer): what inflated loads, the capture is marked
    // cut where the inflated stream ends (even between two records), the gzip fault is said there, and `info`
    // gives the file's own size, "(gzip)", the stream's size and no "JSON".
    void gzipSpoolCutShort() {
        const QByteArray whole = [] {
            QFile f(QString::fromStdString(gpuData("h100_eager.kscw.gz")));
            return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
        }();
        QVERIFY(whole.size() > 100'000);
        QTemporaryDir dir;
        const QString cut = dir.filePath("cut.kscw.gz");
        {
            QFile f(cut);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write(whole.left(whole.size() / 2));
        }
        const LoadResult r = loadTrace(cut.toStdString());
        QVERIFY2(r.ok(), r.error.c_str());
        const ImportStats& st = r.store->stats();
        QVERIFY(st.truncated && st.gzipCutShort && st.gzip && st.wireStream);
        QCOMPARE(st.fileBytes, std::uint64_t(whole.size() / 2));
        QVERIFY(st.truncatedAt <= st.jsonBytes);
        const std::uint64_t kernels = countsOf(*r.store).kernels;
        QVERIFY2(kernels > 0 && kernels < 624, qPrintable(QString::number(kernels)));
        QVERIFY(!st.issues.empty());
        QVERIFY(
            std::is_sorted(st.issues.begin(), st.issues.end(),
                           [](const ImportIssue& a, const ImportIssue& b) { return a.offset < b.offset; }));
        QVERIFY(std::any_of(st.issues.begin(), st.issues.end(), [&](const ImportIssue& i) {
            return i.offset == st.jsonBytes && i.reason.find("gzip stream is cut short") != std::string::npos;
        }));
        QProcess info;
        info.setProcessChannelMode(QProcess::MergedChannels);
        info.start(QStringLiteral(KINETOSCOPE_CLI), {QStringLiteral("info"), cut});
        QVERIFY(info.waitForFinished(30000));
        const QString text = QString::fromUtf8(info.readAll());
        QVERIFY2(text.contains(QStringLiteral("KiB of capture stream (gzip)")) && !text.contains("JSON") &&
                     text.contains(QStringLiteral("file is truncated")),
                 qPrintable(text));
    }

    // A gzip spool is a capture stream, not JSON: the sampler that previews a gzip trace while it inflates
    // gives up at its first byte (it once inflated the whole spool a second time beside the load and handed
    // its bytes on as JSON), while a real gzip trace of the same GPU is still sampled.
    void previewSamplerLeavesSpoolsAlone_data() {
        QTest::addColumn<QString>("file");
        QTest::addColumn<bool>("json");
        QTest::newRow("spool") << "h100_eager.kscw.gz" << false;
        QTest::newRow("trace") << "eager.pt.trace.json.gz" << true;
    }
    void previewSamplerLeavesSpoolsAlone() {
        QFETCH(QString, file);
        QFETCH(bool, json);
        QFile f(QString::fromStdString(gpuData(file.toUtf8().constData())));
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QByteArray gzip = f.readAll();
        int samples = 0;
        std::string first;
        GzipSampler sampler(reinterpret_cast<const unsigned char*>(gzip.constData()),
                            std::size_t(gzip.size()),
                            [&](std::string text, std::uint64_t, const std::atomic<bool>&) {
                                if (samples++ == 0) first = std::move(text);
                            });
        sampler.finish();
        QCOMPARE(samples > 0, json);
        const QByteArray sample = QByteArray::fromStdString(first).trimmed();
        if (json) QVERIFY(sample.startsWith('{') && sample.endsWith('}'));
    }

    // fuzz_wire's checks on each of its seeds (the real streams' beginnings among them), in the normal suite:
    // the stream loads or says why, the store keeps its invariants, and the trace Capture > Save writes
    // loads.
    void wireSeedsKeepInvariants_data() {
        QTest::addColumn<QString>("path");
        const QDir seeds(QStringLiteral(KINETOSCOPE_SOURCE_DIR "/tests/fuzz/seeds-wire"));
        const QStringList names = seeds.entryList(QDir::Files, QDir::Name);
        QVERIFY(names.contains(QStringLiteral("real-h100-eager-head.bin")));
        for (const QString& name : names)
            QTest::newRow(qPrintable(name)) << seeds.filePath(name);
    }
    void wireSeedsKeepInvariants() {
        QFETCH(QString, path);
        const std::string bytes = test::readText(path.toStdString());
        const int line = fuzz::brokenWireStream(bytes);
        QVERIFY2(line == 0, qPrintable(QStringLiteral("failed: tests/fuzz/fuzz_input.h:%1").arg(line)));
        if (path.contains(QStringLiteral("real-h100"))) { // a real stream's beginning holds calls or GPU work
            const LoadResult r = live::loadWireStream(bytes);
            QVERIFY(r.ok() && r.store->sliceCount() > 0);
        }
    }

    // A real capture beside torch.profiler (an H200): five eager training steps of the same program, ours
    // marked by its NVTX ranges, the profiler's by ProfilerStep#N. A kernel belongs to a step when its launch
    // call starts in it. The kernel lists must be the same (names as Kineto demangles them, calls per step)
    // and the GPU time a step within 5 % (two runs; measured +0.2 % on the H200, -0.1 % on an H100).
    void captureMatchesProfiler() {
        const auto perStep = [](const TraceStore& store, std::string_view stepPrefix) {
            std::vector<std::pair<TimeNs, TimeNs>> steps;
            std::map<std::string, std::pair<std::uint64_t, TimeNs>> kernels; // name -> calls, GPU time
            for (const Track& t : store.tracks())
                for (std::uint32_t r = 0; r < t.sliceCount(); ++r)
                    if (t.kind == TrackKind::CpuThread &&
                        store.strings().view(t.names[r]).starts_with(stepPrefix))
                        steps.emplace_back(t.starts[r], t.endOf(r));
            for (std::uint32_t ti = 0; ti < store.tracks().size(); ++ti) {
                const Track& t = store.tracks()[ti];
                for (std::uint32_t r = 0; r < t.sliceCount(); ++r) {
                    if (store.categories()[t.categories[r]].kind != CategoryKind::Kernel) continue;
                    const auto launch = store.launchOf({TrackId(ti), EventIndex(r)});
                    if (!launch) continue;
                    const TimeNs at = store.track(launch->track).starts[launch->index.value];
                    if (std::none_of(steps.begin(), steps.end(),
                                     [&](const auto& s) { return s.first <= at && at <= s.second; }))
                        continue;
                    auto& k = kernels[std::string(store.strings().view(t.names[r]))];
                    ++k.first;
                    k.second += t.durations[r];
                }
            }
            return std::make_pair(steps.size(), kernels);
        };
        const LoadResult captured = loadTrace(gpuData("record_eager.json.gz"));
        const LoadResult profiled = loadTrace(gpuData("profiler_eager.pt.trace.json.gz"));
        QVERIFY(captured.ok() && profiled.ok());
        const auto [ourSteps, ours] = perStep(*captured.store, "train_step_");
        const auto [theirSteps, theirs] = perStep(*profiled.store, "ProfilerStep#");
        QCOMPARE(ourSteps, std::size_t(5));
        QCOMPARE(theirSteps, std::size_t(5));
        QCOMPARE(ours.size(), std::size_t(40));
        TimeNs ourTime = 0, theirTime = 0;
        std::uint64_t ourCalls = 0;
        for (const auto& [name, figures] : theirs) {
            const auto mine = ours.find(name);
            QVERIFY2(mine != ours.end(), name.c_str());
            QCOMPARE(mine->second.first, figures.first);
            ourTime += mine->second.second;
            theirTime += figures.second;
            ourCalls += mine->second.first;
        }
        QCOMPARE(ours.size(), theirs.size());
        QCOMPARE(ourCalls, std::uint64_t(5 * 141));
        QVERIFY2(std::abs(double(ourTime) / double(theirTime) - 1) < 0.05,
                 qPrintable(QStringLiteral("%1 ns against %2 ns").arg(ourTime).arg(theirTime)));
    }

    // `kinetoscope-cli attach PID --iterations 3 --shapes --stack` on a KINETO_USE_DAEMON=1 training loop
    // (PyTorch 2.11, an H200; tests/gpu/attach_check.py), beside torch.profiler's trace of 3 active steps of
    // the same loop: what PyTorch's own profiler recorded when asked through our daemon is what it records
    // when started in the program. Three optimizer steps each; the same kernels with the same calls, GPU time
    // within 5 % (two runs: -0.3 % measured), the same operators with the same input shapes and calls, every
    // kernel tied to its launch.
    void attachMatchesProfiler() {
        const LoadResult attached = loadTrace(gpuData("attach_h200.pt.trace.json.gz"));
        const LoadResult profiled = loadTrace(gpuData("attach_profiler_h200.pt.trace.json.gz"));
        QVERIFY(attached.ok() && profiled.ok());
        const Summary ours = summarize(*attached.store, OperatorGrouping::NameAndShape);
        const Summary theirs = summarize(*profiled.store, OperatorGrouping::NameAndShape);
        const auto callsOf = [](const std::vector<OperatorRow>& rows, std::string_view name) {
            const auto row =
                std::find_if(rows.begin(), rows.end(), [&](const OperatorRow& r) { return r.name == name; });
            return row == rows.end() ? std::uint64_t(0) : row->count;
        };
        QCOMPARE(callsOf(ours.annotations, "Optimizer.step#SGD.step"), std::uint64_t(3));
        QCOMPARE(callsOf(theirs.annotations, "Optimizer.step#SGD.step"), std::uint64_t(3));
        QCOMPARE(callsOf(theirs.annotations, "ProfilerStep#*"), std::uint64_t(3));

        std::map<std::string, std::uint64_t> ourKernels, theirKernels;
        TimeNs ourTime = 0, theirTime = 0;
        for (const KernelRow& k : ours.kernels)
            ourKernels[k.name] = k.count, ourTime += k.total;
        for (const KernelRow& k : theirs.kernels)
            theirKernels[k.name] = k.count, theirTime += k.total;
        QCOMPARE(ourKernels.size(), std::size_t(18));
        QVERIFY(ourKernels == theirKernels);
        QVERIFY2(std::abs(double(ourTime) / double(theirTime) - 1) < 0.05,
                 qPrintable(QStringLiteral("%1 ns against %2 ns").arg(ourTime).arg(theirTime)));

        std::map<std::string, std::uint64_t> ourOps, theirOps;
        for (const OperatorRow& o : ours.operators)
            ourOps[o.name] += o.count;
        for (const OperatorRow& o : theirs.operators)
            theirOps[o.name] += o.count;
        QVERIFY(ourOps == theirOps);
        const auto addmm =
            std::find_if(ours.operators.begin(), ours.operators.end(), [](const OperatorRow& o) {
                return o.name.starts_with("aten::addmm") && !o.inputDims.empty();
            });
        QVERIFY2(addmm != ours.operators.end(), "no aten::addmm with its input shapes");
        QCOMPARE(addmm->count, std::uint64_t(3));

        const Counts counts = countsOf(*attached.store);
        QCOMPARE(counts.kernels, std::uint64_t(60));
        QCOMPARE(counts.linked, counts.kernels + counts.memcpys + counts.memsets);
    }
};

QTEST_GUILESS_MAIN(TestRealCapture)
#include "tst_realcapture.moc"
