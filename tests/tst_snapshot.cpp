// CUDA memory snapshots: the five real snapshots of the corpus (and their gzip forms) read into the model and
// reported as `kinetoscope-cli memory` does (golden files), the figures' invariants, the old bare-list
// layout, a pickle whose __reduce__ calls os.system, refused without running anything, and snapshots cut
// short (a preview's first bytes, a truncated file): the beginning of the whole one.
#include "testsupport.h"

#include "analysis/memory/snapshotreport.h"
#include "analysis/report/snapshotformat.h"
#include "snapshot/snapshotloader.h"

#include <map>
#include <optional>

#include <QFile>
#include <QTemporaryDir>
#include <QTest>

using namespace kinetoscope;

class TestSnapshot : public QObject {
    Q_OBJECT
  private slots:
    void realSnapshots_data();
    void realSnapshots();
    void bareListOfSegments();
    void sizesOutOfRange();
    void refusesCode();
    void badFiles_data();
    void badFiles();
    void cutShort_data();
    void cutShort();
    void previewBeforeAnyValue();
    void notATrace();
};

namespace {

using test::snapshots;

std::string snapshotPath(const char* name) {
    return test::tracePath((std::string("snapshots/") + name).c_str());
}

QString writeFile(const QTemporaryDir& dir, const QString& name, const std::string& data) {
    const QString path = dir.filePath(name);
    QFile f(path);
    if (f.open(QIODevice::WriteOnly)) f.write(data.data(), qint64(data.size()));
    return path;
}

} // namespace

void TestSnapshot::realSnapshots_data() {
    QTest::addColumn<QString>("name");
    QTest::addColumn<QString>("golden");
    QTest::newRow("EoR_NN (no allocator_settings)") << snapshots[0] << "snapshot_eor_nn";
    QTest::newRow("GPT-2 medium training") << snapshots[1] << "snapshot_gpt2_training";
    QTest::newRow("GPT-2 medium inference") << snapshots[2] << "snapshot_gpt2_inference";
    QTest::newRow("cs336 forward (external_annotations)") << snapshots[3] << "snapshot_cs336_forward";
    QTest::newRow("cs336 forward, mixed precision") << snapshots[4] << "snapshot_cs336_mixed";
}

void TestSnapshot::realSnapshots() {
    QFETCH(QString, name);
    QFETCH(QString, golden);
    const std::string path = snapshotPath(name.toUtf8().constData());
    const SnapshotLoadResult r = loadSnapshot(path);
    QVERIFY2(r.ok(), r.message(path).c_str());
    const MemorySnapshot& s = *r.snapshot;
    QVERIFY(s.hasTrace);
    QCOMPARE(s.stats.malformedEvents, std::uint64_t(0));
    QCOMPARE(s.stats.malformedSegments, std::uint64_t(0));
    QVERIFY(!s.devices.empty());
    QVERIFY(s.stackCount() > 1);
    // Frames are interned: far fewer distinct frames than frame references.
    QVERIFY(s.frames.size() < s.stackFrames.size());

    SnapshotReportOptions options;
    options.top = 3;
    const DeviceHistory& h = s.devices.front();
    options.atTimeUs = h.timesUs[h.size() / 2];
    const SnapshotReport report = snapshotReport(s, options);
    QString mismatch = test::compareGolden(golden + ".memory.json", snapshotReportJson(s, report));
    QVERIFY2(mismatch.isEmpty(), qPrintable(mismatch));
    mismatch = test::compareGolden(golden + ".memory.txt", snapshotReportText(s, report));
    QVERIFY2(mismatch.isEmpty(), qPrintable(mismatch));

    // The curve and the lifetimes tell the same story: what is alive after any event sums to the curve there,
    // but for one constant. The curve starts from the blocks' sizes at snapshot time, and a block can be
    // larger than the alloc event that made it (an unsplit block: 2 032 bytes over four blocks on EoR_NN),
    // while a lifetime keeps its alloc's size. The curve ends at the segments' allocated bytes.
    const std::vector<std::int64_t> curve = activeMemoryCurve(s, h);
    const std::vector<AllocationLifetime> lives = allocationLifetimes(s, h);
    QCOMPARE(curve.back(), report.devices.front().allocatedBytes);
    std::optional<std::int64_t> offset;
    for (std::int64_t e : {std::int64_t(-1), std::int64_t(h.size() / 3),
                           report.devices.front().peak->afterEvent, std::int64_t(h.size()) - 1}) {
        std::int64_t alive = 0;
        for (const AllocationLifetime& a : lives)
            if (a.aliveAfter(e)) alive += a.size;
        const std::int64_t d = curve[std::size_t(e + 1)] - alive;
        if (!offset) offset = d;
        QCOMPARE(d, *offset);
    }
    QVERIFY(*offset >= 0 && *offset < *report.devices.front().peakActiveBytes / 100);
    QCOMPARE(*report.devices.front().peakActiveBytes, *std::max_element(curve.begin(), curve.end()));

    // The gzip form reads the same.
    QTemporaryDir dir;
    const QString packed = writeFile(dir, name + ".gz", test::gzipText(test::readText(path)));
    const SnapshotLoadResult z = loadSnapshot(packed.toStdString());
    QVERIFY2(z.ok(), z.message(packed.toStdString()).c_str());
    QCOMPARE(snapshotReportJson(*z.snapshot, snapshotReport(*z.snapshot, options)),
             snapshotReportJson(s, report));
}

// The old layout: a bare list of segments, no trace. Events are empty and the peak fields null.
void TestSnapshot::bareListOfSegments() {
    // pickle.dumps([{'device': 0, 'address': 4096, 'total_size': 2097152, 'stream': 0, 'segment_type':
    // 'large',
    //   'blocks': [{'address': 4096, 'size': 1048576, 'state': 'active_allocated'},
    //              {'address': 1052672, 'size': 1048576, 'state': 'inactive'}]}], protocol=4), spelled out:
    const std::string p(
        "\x80\x04\x95\xb0\x00\x00\x00\x00\x00\x00\x00\x5d\x94\x7d\x94\x28\x8c\x06\x64\x65\x76\x69\x63\x65"
        "\x94\x4b\x00\x8c\x07\x61\x64\x64\x72\x65\x73\x73\x94\x4d\x00\x10\x8c\x0a\x74\x6f\x74\x61\x6c\x5f"
        "\x73\x69\x7a\x65\x94\x4a\x00\x00\x20\x00\x8c\x06\x73\x74\x72\x65\x61\x6d\x94\x4b\x00\x8c\x0c\x73"
        "\x65\x67\x6d\x65\x6e\x74\x5f\x74\x79\x70\x65\x94\x8c\x05\x6c\x61\x72\x67\x65\x94\x8c\x06\x62\x6c"
        "\x6f\x63\x6b\x73\x94\x5d\x94\x28\x7d\x94\x28\x68\x03\x4d\x00\x10\x8c\x04\x73\x69\x7a\x65\x94\x4a"
        "\x00\x00\x10\x00\x8c\x05\x73\x74\x61\x74\x65\x94\x8c\x10\x61\x63\x74\x69\x76\x65\x5f\x61\x6c\x6c"
        "\x6f\x63\x61\x74\x65\x64\x94\x75\x7d\x94\x28\x68\x03\x4a\x00\x10\x10\x00\x68\x0b\x4a\x00\x00\x10"
        "\x00\x68\x0c\x8c\x08\x69\x6e\x61\x63\x74\x69\x76\x65\x94\x75\x65\x75\x61\x2e",
        187);
    const SnapshotLoadResult r = loadSnapshotBytes(p);
    QVERIFY2(r.ok(), r.message("bare").c_str());
    QVERIFY(!r.snapshot->hasTrace);
    QCOMPARE(r.snapshot->segments.size(), std::size_t(1));
    QCOMPARE(r.snapshot->blocks.size(), std::size_t(2));
    const std::string json = snapshotReportJson(*r.snapshot, snapshotReport(*r.snapshot));
    QCOMPARE(json, std::string("{\"devices\": [\n {\"device\": 0,\n  \"events\": {},\n  \"segments\": 1,\n"
                               "  \"reserved_bytes\": 2097152,\n  \"allocated_bytes\": 1048576,\n"
                               "  \"peak_active_bytes\": null,\n  \"peak_time_us\": null,\n"
                               "  \"largest_at_peak\": null}\n]}\n"));
}

// Sizes no allocation can have (below 0, 2^62) are counted and read as 0, so that no sum over them overflows:
// pickle.dumps({'segments': [], 'device_traces': [[alloc size -5, alloc size 2**62, alloc size 100]]}, 4).
void TestSnapshot::sizesOutOfRange() {
    const std::string p(
        "\x80\x04\x95\x8e\x00\x00\x00\x00\x00\x00\x00\x7d\x94\x28\x8c\x08\x73\x65\x67\x6d\x65\x6e\x74\x73"
        "\x94\x5d\x94\x8c\x0d\x64\x65\x76\x69\x63\x65\x5f\x74\x72\x61\x63\x65\x73\x94\x5d\x94\x5d\x94\x28"
        "\x7d\x94\x28\x8c\x06\x61\x63\x74\x69\x6f\x6e\x94\x8c\x05\x61\x6c\x6c\x6f\x63\x94\x8c\x04\x61\x64"
        "\x64\x72\x94\x4b\x01\x8c\x04\x73\x69\x7a\x65\x94\x4a\xfb\xff\xff\xff\x8c\x06\x73\x74\x72\x65\x61"
        "\x6d\x94\x4b\x00\x75\x7d\x94\x28\x68\x07\x68\x08\x68\x09\x4b\x02\x68\x0a\x8a\x08\x00\x00\x00\x00"
        "\x00\x00\x00\x40\x68\x0b\x4b\x00\x75\x7d\x94\x28\x68\x07\x68\x08\x68\x09\x4b\x03\x68\x0a\x4b\x64"
        "\x68\x0b\x4b\x00\x75\x65\x61\x75\x2e",
        153);
    const SnapshotLoadResult r = loadSnapshotBytes(p);
    QVERIFY2(r.ok(), r.message("sizes").c_str());
    QCOMPARE(r.snapshot->stats.sizesOutOfRange, std::uint64_t(2));
    const DeviceHistory& h = r.snapshot->devices.front();
    QCOMPARE(h.sizes, (std::vector<std::int64_t>{0, 0, 100}));
    QCOMPARE(activeMemoryCurve(*r.snapshot, h).back(), std::int64_t(0)); // allocated at snapshot time: none
    QVERIFY(snapshotReportText(*r.snapshot, snapshotReport(*r.snapshot)).find("above 1 TiB, read as 0: 2") !=
            std::string::npos);
}

// A snapshot-shaped pickle whose one event's __reduce__ is os.system('touch ...'): refused at the opcode that
// would import os.system, and the command never runs.
void TestSnapshot::refusesCode() {
    const QString marker = QStringLiteral("/tmp/kinetoscope-pickle-ran");
    QFile::remove(marker);
    // pickle.dumps({'segments': [], 'device_traces': [[Evil()]]}, protocol=4)
    const std::string evil(
        "\x80\x04\x95\x63\x00\x00\x00\x00\x00\x00\x00\x7d\x94\x28\x8c\x08segments\x94\x5d\x94\x8c\x0d"
        "device_traces\x94\x5d\x94\x5d\x94\x8c\x05posix\x94\x8c\x06system\x94\x93\x94\x8c\x21"
        "touch /tmp/kinetoscope-pickle-ran\x94\x85\x94\x52\x94\x61\x61\x75\x2e",
        110);
    QTemporaryDir dir;
    const QString path = writeFile(dir, QStringLiteral("evil.pickle"), evil);
    const SnapshotLoadResult r = loadSnapshot(path.toStdString());
    QVERIFY(!r.ok());
    const std::string message = r.message(path.toStdString());
    QVERIFY2(message.find("evil.pickle: byte 64: refused opcode STACK_GLOBAL") != std::string::npos,
             message.c_str());
    QVERIFY(message.find('\n') == std::string::npos);
    QVERIFY(!QFile::exists(marker));
}

void TestSnapshot::badFiles_data() {
    QTest::addColumn<QByteArray>("data");
    QTest::addColumn<QString>("error");
    const std::string real = test::readText(snapshotPath(snapshots[0]));
    QTest::newRow("a string, not a snapshot")
        << QByteArray("\x80\x04\x8c\x02hi.", 7) << "not a CUDA memory snapshot: the pickle holds a str";
    QTest::newRow("a dict without segments")
        << QByteArray("\x80\x04}.", 4) << "not a CUDA memory snapshot: a dict without \"segments\"";
    std::string corrupt = real;
    corrupt[corrupt.size() / 3] = char(0xfe);
    QTest::newRow("one byte changed") << QByteArray::fromStdString(corrupt) << "byte ";
    QTest::newRow("cut before anything usable")
        << QByteArray::fromStdString(real.substr(0, 40)) << "truncated";
}

// Damaged files: one line naming the file (and the byte where it can), never a crash.
void TestSnapshot::badFiles() {
    QFETCH(QByteArray, data);
    QFETCH(QString, error);
    QTemporaryDir dir;
    const QString path = writeFile(dir, QStringLiteral("bad.pickle"), data.toStdString());
    const SnapshotLoadResult r = loadSnapshot(path.toStdString());
    const std::string message = r.ok() ? std::string("loaded") : r.message(path.toStdString());
    QVERIFY2(!r.ok() || QByteArray(QTest::currentDataTag()) == "one byte changed", message.c_str());
    if (r.ok()) return; // a changed byte can land inside a string and leave a valid pickle
    QVERIFY2(QString::fromStdString(message).contains(error), message.c_str());
    QVERIFY(message.rfind(path.toStdString() + ": ", 0) == 0);
}

void TestSnapshot::cutShort_data() {
    QTest::addColumn<QString>("name");
    QTest::addColumn<double>("fraction");
    QTest::addColumn<QString>("how"); // "preview": stopAtBytes; "truncated", "gzip truncated": the file cut
    for (const char* name : snapshots)
        for (const double fraction : {0.05, 0.5, 0.97})
            for (const char* how : {"preview", "gzip preview", "truncated", "gzip truncated"})
                QTest::addRow("%s %.2f %s", name, fraction, how) << QString(name) << fraction << QString(how);
}

// A snapshot read only in part (a preview, or a file that ends early) opens with what was read: its events
// are the whole snapshot's first ones, exactly; its allocations are theirs; its curve is the whole one's
// shifted by what was alive before the trace and not yet seen freed.
void TestSnapshot::cutShort() {
    QFETCH(QString, name);
    QFETCH(double, fraction);
    QFETCH(QString, how);
    const std::string path = snapshotPath(name.toUtf8().constData());
    const SnapshotLoadResult whole = loadSnapshot(path);
    QVERIFY2(whole.ok(), whole.message(path).c_str());
    const std::string text = test::readText(path);
    const auto cut = std::size_t(double(text.size()) * fraction);
    SnapshotLoadResult part;
    QTemporaryDir dir;
    if (how.endsWith(QLatin1String("preview"))) {
        SnapshotLoadOptions options;
        options.stopAtBytes = cut; // of the inflated pickle, gzip or not
        const std::string file =
            how == QLatin1String("preview")
                ? path
                : writeFile(dir, QStringLiteral("whole.pickle.gz"), test::gzipText(text)).toStdString();
        part = loadSnapshot(file, options);
        QVERIFY2(part.ok() && part.error.empty(), part.message(file).c_str());
        // At the first opcode at or past the cut (one opcode, a string at most, past it).
        QVERIFY(part.snapshot->readBytes >= cut && part.snapshot->readBytes < cut + 65536);
    } else {
        const std::string data =
            how == QLatin1String("truncated")
                ? text.substr(0, cut)
                : test::gzipText(text).substr(0, std::size_t(double(test::gzipText(text).size()) * fraction));
        const QString file = writeFile(dir, QStringLiteral("cut.pickle"), data);
        part = loadSnapshot(file.toStdString());
        QVERIFY2(part.ok(), part.message(file.toStdString()).c_str());
        QVERIFY2(part.error.find("truncated") != std::string::npos ||
                     part.error.find("damaged gzip") != std::string::npos,
                 part.error.c_str());
        QVERIFY(part.snapshot->readBytes <= (how == QLatin1String("truncated") ? cut : text.size()));
    }
    const MemorySnapshot& a = *part.snapshot;
    const MemorySnapshot& b = *whole.snapshot;
    QVERIFY(a.partial && !b.partial);
    QVERIFY(a.segments.size() <= b.segments.size());
    for (std::size_t s = 0; s < a.segments.size(); ++s) {
        QCOMPARE(a.segments[s].address, b.segments[s].address);
        QCOMPARE(a.segments[s].blockCount, b.segments[s].blockCount);
    }
    const auto frames = [](const MemorySnapshot& m, std::uint32_t stack) {
        std::vector<std::string> out;
        for (const std::uint32_t f : m.stack(stack))
            out.push_back(std::string(m.strings.view(m.frames[f].name)) + " " +
                          std::string(m.strings.view(m.frames[f].filename)) + ":" +
                          std::to_string(m.frames[f].line));
        return out;
    };
    std::size_t events = 0;
    for (const DeviceHistory& h : a.devices) {
        const DeviceHistory* full = b.device(h.device);
        QVERIFY(full && h.size() <= full->size());
        events += h.size();
        for (std::size_t i = 0; i < h.size(); ++i) {
            QCOMPARE(h.actions[i], full->actions[i]);
            QCOMPARE(h.addrs[i], full->addrs[i]);
            QCOMPARE(h.sizes[i], full->sizes[i]);
            QCOMPARE(h.streams[i], full->streams[i]);
            QCOMPARE(h.timesUs[i], full->timesUs[i]);
            if (i % 97 == 0 || i + 1 == h.size())
                QCOMPARE(frames(a, h.stacks[i]), frames(b, full->stacks[i]));
        }
        const std::vector<std::int64_t> curve = activeMemoryCurve(a, h);
        const std::vector<std::int64_t> fullCurve = activeMemoryCurve(b, *full);
        const std::int64_t shift = fullCurve[0] - curve[0];
        QVERIFY(shift >= 0);
        for (std::size_t i = 0; i < curve.size(); ++i)
            QCOMPARE(fullCurve[i] - curve[i], shift);
        const std::vector<AllocationLifetime> lives = allocationLifetimes(a, h);
        const std::vector<AllocationLifetime> fullLives = allocationLifetimes(b, *full);
        std::map<std::int64_t, const AllocationLifetime*> byBegin;
        for (const AllocationLifetime& l : fullLives)
            if (l.begin >= 0) byBegin[l.begin] = &l;
        const auto n = std::int64_t(h.size());
        for (const AllocationLifetime& l : lives) {
            if (l.begin < 0) {
                QVERIFY(l.end < n); // seen freed
                continue;
            }
            const AllocationLifetime* f = byBegin.at(l.begin);
            QCOMPARE(f->addr, l.addr);
            QCOMPARE(f->size, l.size);
            if (l.end < n)
                QCOMPARE(f->end, l.end);
            else
                QVERIFY(f->end >= n);
        }
    }
    std::size_t wholeEvents = 0;
    for (const DeviceHistory& h : b.devices)
        wholeEvents += h.size();
    QVERIFY(events <= wholeEvents); // all of them when the cut falls after the trace (in the annotations)
    if (fraction > 0.9 && how != QLatin1String("gzip truncated")) QVERIFY(events > wholeEvents / 2);
    // Reported as such.
    const std::string report = snapshotReportText(a, snapshotReport(a));
    QVERIFY(report.rfind("Partial: read up to byte " + std::to_string(a.readBytes), 0) == 0 ||
            report.find("\nPartial: read up to byte ") != std::string::npos);
    QVERIFY(snapshotReportJson(a, snapshotReport(a))
                .find("{\"partial\": {\"read_bytes\": " + std::to_string(a.readBytes) +
                      "}, \"devices\": [") != std::string::npos);
}

// A preview cut before the pickle's first value has nothing to show: an error, not a crash (fuzz_pickle found
// the crash; its input is a seed).
void TestSnapshot::previewBeforeAnyValue() {
    SnapshotLoadOptions options;
    options.stopAtBytes = 8;
    const SnapshotLoadResult r = loadSnapshotBytes(
        std::string_view("\x80\x04\x95\x31\x00\x01\x00\x80\x04\x95\x19\x00\x00\x01\x00\x00\x01", 17), "cut",
        options);
    QVERIFY(!r.ok());
    QCOMPARE(r.message("cut"), std::string("cut: no value before byte 11"));
}

// Opened as a trace (the viewer, `kinetoscope-cli info`), a snapshot says what it is, in one line.
void TestSnapshot::notATrace() {
    for (const char* name : {snapshots[0], snapshots[3]}) {
        const std::string path = snapshotPath(name);
        const LoadResult r = loadTrace(path);
        QVERIFY(!r.ok());
        QCOMPARE(r.message(path),
                 path + ": a CUDA memory snapshot, not a trace: `kinetoscope-cli memory FILE` reads it");
    }
}

QTEST_GUILESS_MAIN(TestSnapshot)
#include "tst_snapshot.moc"
