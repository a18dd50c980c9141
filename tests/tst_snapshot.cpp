// CUDA memory snapshots: the five real snapshots of the corpus (and their gzip forms) read into the model and
// reported as `kinetoscope-cli memory` does (golden files), the figures' invariants, the old bare-list
// layout, a pickle whose __reduce__ calls os.system, refused without running anything, and snapshots cut
// short (a preview's first bytes, a truncated file): the beginning of the whole one.
#include "testsupport.h"

#include "analysis/memory/allocatorstate.h"
#include "analysis/memory/snapshotreport.h"
#include "analysis/report/snapshotformat.h"
#include "snapshot/snapshotloader.h"

#include <limits>
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
    void pytorch20Layout();
    void withoutHistory();
    void privatePools();
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
    // No trace: the snapshot's moment is the one known, and the "peak" is what was allocated then.
    const std::string json = snapshotReportJson(*r.snapshot, snapshotReport(*r.snapshot));
    QVERIFY2(json.find("\"history_recorded\": false,\n  \"peak_active_bytes\": 1048576,\n  \"peak_time_us\": "
                       "null,\n  \"largest_at_peak\": [\n   {\"size\": 1048576, \"addr\": 4096,") !=
                 std::string::npos,
             json.c_str());
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

namespace {
std::string dataSnapshot(const char* name) {
    return std::string(KINETOSCOPE_SOURCE_DIR) + "/tests/data/snapshots/" + name;
}
std::string stackText(const MemorySnapshot& s, std::uint32_t stack) {
    std::string out;
    for (std::uint32_t f : s.stack(stack))
        out += std::string(s.strings.view(s.frames[f].name)) + "@" +
               std::string(s.strings.view(s.frames[f].filename)) + ":" + std::to_string(s.frames[f].line) +
               ";";
    return out;
}
} // namespace

// PyTorch 2.0's layout (tests/data/snapshots/make_older_snapshots.py made it from the GPT-2 training
// snapshot): blocks without an address, their stack and requested size in `history`. Read, it is the same
// snapshot: every block where it was, with its stack, and the same allocator state and peak.
void TestSnapshot::pytorch20Layout() {
    const SnapshotLoadResult old = loadSnapshot(dataSnapshot("pt20_training.pickle.gz"));
    QVERIFY2(old.ok(), old.message("pt20").c_str());
    const std::string path = snapshotPath(snapshots[1]);
    const SnapshotLoadResult now = loadSnapshot(path);
    QVERIFY2(now.ok(), now.message(path).c_str());
    const MemorySnapshot& a = *old.snapshot;
    const MemorySnapshot& b = *now.snapshot;
    QCOMPARE(a.blocks.size(), b.blocks.size());
    std::size_t withStack = 0;
    for (std::size_t i = 0; i < a.blocks.size(); ++i) {
        QCOMPARE(a.blocks[i].address, b.blocks[i].address);
        QCOMPARE(a.blocks[i].size, b.blocks[i].size);
        QCOMPARE(a.blocks[i].state, b.blocks[i].state);
        if (b.blocks[i].state == BlockState::Inactive) continue;
        QCOMPARE(a.blocks[i].requestedSize, b.blocks[i].requestedSize);
        QCOMPARE(stackText(a, a.blocks[i].stack), stackText(b, b.blocks[i].stack));
        withStack += a.blocks[i].stack != 0;
    }
    QVERIFY(withStack > 0);
    const DeviceHistory& ha = a.devices.front();
    const DeviceHistory& hb = b.devices.front();
    for (std::int64_t moment : {std::int64_t(-1), std::int64_t(ha.size() / 2), std::int64_t(ha.size()) - 1}) {
        const AllocatorState sa = allocatorStateAfter(a, ha, moment);
        const AllocatorState sb = allocatorStateAfter(b, hb, moment);
        QCOMPARE(sa.activeBytes, sb.activeBytes);
        QCOMPARE(sa.reservedBytes, sb.reservedBytes);
        QCOMPARE(sa.cachedIdleBytes, sb.cachedIdleBytes);
        QCOMPARE(sa.unplacedBlocks, sb.unplacedBlocks);
    }
    const AllocatorState end = allocatorStateAfter(a, ha, std::int64_t(ha.size()) - 1);
    QVERIFY(end.activeBytes > 1 << 30); // (the defect read 8 KiB: every block at address 0)
    const SnapshotReport ra = snapshotReport(a), rb = snapshotReport(b);
    QCOMPARE(*ra.devices.front().peakActiveBytes, *rb.devices.front().peakActiveBytes);
    QCOMPARE(ra.devices.front().peak->allocations.size(), rb.devices.front().peak->allocations.size());
    for (std::size_t i = 0; i < ra.devices.front().peak->allocations.size(); ++i) {
        const AllocationLifetime& x = ra.devices.front().peak->allocations[i];
        const AllocationLifetime& y = rb.devices.front().peak->allocations[i];
        QCOMPARE(x.addr, y.addr);
        QCOMPARE(x.size, y.size);
        QCOMPARE(stackText(a, x.stack), stackText(b, y.stack));
    }
    QVERIFY(snapshotReportText(a, ra).find("  0x0  ") == std::string::npos);
}

// Dumped without allocation history (vLLM's workers): no event, no stack. The report says so and gives the
// snapshot's moment as the peak: what was allocated then, largest first.
void TestSnapshot::withoutHistory() {
    const SnapshotLoadResult r = loadSnapshot(dataSnapshot("no_history_training.pickle.gz"));
    QVERIFY2(r.ok(), r.message("no history").c_str());
    const MemorySnapshot& s = *r.snapshot;
    QVERIFY(s.hasTrace);
    SnapshotReportOptions every;
    every.top = std::numeric_limits<std::size_t>::max();
    const SnapshotReport report = snapshotReport(s, every);
    QCOMPARE(report.devices.size(), std::size_t(1));
    const DeviceMemoryReport& d = report.devices.front();
    QVERIFY(!d.historyRecorded);
    QVERIFY(d.peakActiveBytes.has_value());
    QCOMPARE(*d.peakActiveBytes, d.allocatedBytes);
    QVERIFY(d.allocatedBytes > 1 << 30);
    QVERIFY(d.peak.has_value());
    std::int64_t sum = 0, largest = 0;
    for (const AllocationLifetime& a : d.peak->allocations) {
        QVERIFY(a.size <= (largest ? largest : a.size));
        largest = a.size;
        sum += a.size;
    }
    QVERIFY(!d.peak->allocations.empty());
    std::int64_t requested = 0;
    for (const SnapshotBlock& b : s.blocks)
        if (b.state == BlockState::ActiveAllocated) requested += b.requestedSize;
    QCOMPARE(sum, requested);
    const std::string text = snapshotReportText(s, report);
    QVERIFY2(text.find("No allocation history was recorded") != std::string::npos, text.c_str());
    const std::string json = snapshotReportJson(s, report);
    QVERIFY(json.find("\"history_recorded\": false") != std::string::npos);
    QVERIFY(json.find("\"largest_at_peak\": null") == std::string::npos);
}

// Segments of a private pool (a CUDA graph's capture): the pool id is read and carried into the allocator
// state. pickle.dumps({'segments': [default pool (0, 0) at 4096, pool (1, 0) at 8 MiB on stream 7],
// 'device_traces': [[]]}, protocol=4), spelled out:
void TestSnapshot::privatePools() {
    const std::string p("\x80\x04\x95\x3a\x01\x00\x00\x00\x00\x00\x00\x7d\x94\x28\x8c\x08\x73\x65\x67\x6d\x65"
                        "\x6e\x74\x73\x94\x5d"
                        "\x94\x28\x7d\x94\x28\x8c\x06\x64\x65\x76\x69\x63\x65\x94\x4b\x00\x8c\x07\x61\x64\x64"
                        "\x72\x65\x73\x73\x94"
                        "\x4d\x00\x10\x8c\x0a\x74\x6f\x74\x61\x6c\x5f\x73\x69\x7a\x65\x94\x4a\x00\x00\x20\x00"
                        "\x8c\x06\x73\x74\x72"
                        "\x65\x61\x6d\x94\x4b\x00\x8c\x0c\x73\x65\x67\x6d\x65\x6e\x74\x5f\x74\x79\x70\x65\x94"
                        "\x8c\x05\x6c\x61\x72"
                        "\x67\x65\x94\x8c\x0f\x73\x65\x67\x6d\x65\x6e\x74\x5f\x70\x6f\x6f\x6c\x5f\x69\x64\x94"
                        "\x4b\x00\x4b\x00\x86"
                        "\x94\x8c\x06\x62\x6c\x6f\x63\x6b\x73\x94\x5d\x94\x7d\x94\x28\x68\x05\x4d\x00\x10\x8c"
                        "\x04\x73\x69\x7a\x65"
                        "\x94\x4a\x00\x00\x10\x00\x8c\x0e\x72\x65\x71\x75\x65\x73\x74\x65\x64\x5f\x73\x69\x7a"
                        "\x65\x94\x4a\x00\x00"
                        "\x10\x00\x8c\x05\x73\x74\x61\x74\x65\x94\x8c\x10\x61\x63\x74\x69\x76\x65\x5f\x61\x6c"
                        "\x6c\x6f\x63\x61\x74"
                        "\x65\x64\x94\x8c\x06\x66\x72\x61\x6d\x65\x73\x94\x5d\x94\x75\x61\x75\x7d\x94\x28\x68"
                        "\x04\x4b\x00\x68\x05"
                        "\x4a\x00\x00\x80\x00\x68\x06\x4a\x00\x00\x20\x00\x68\x07\x4b\x07\x68\x08\x68\x09\x68"
                        "\x0a\x4b\x01\x4b\x00"
                        "\x86\x94\x68\x0c\x5d\x94\x7d\x94\x28\x68\x05\x4a\x00\x00\x80\x00\x68\x0f\x4a\x00\x00"
                        "\x20\x00\x68\x10\x4a"
                        "\x00\x00\x20\x00\x68\x11\x68\x12\x68\x13\x5d\x94\x75\x61\x75\x65\x8c\x0d\x64\x65\x76"
                        "\x69\x63\x65\x5f\x74"
                        "\x72\x61\x63\x65\x73\x94\x5d\x94\x5d\x94\x61\x75\x2e",
                        325);
    const SnapshotLoadResult r = loadSnapshotBytes(p);
    QVERIFY2(r.ok(), r.message("pools").c_str());
    QCOMPARE(r.snapshot->segments.size(), std::size_t(2));
    QVERIFY(!r.snapshot->segments[0].privatePool());
    QCOMPARE(r.snapshot->segments[1].poolId, (std::pair<std::int64_t, std::int64_t>{1, 0}));
    const AllocatorState state = allocatorStateAfter(*r.snapshot, r.snapshot->devices.front(), -1);
    QCOMPARE(state.segments.size(), std::size_t(2));
    QCOMPARE(state.segments[1].poolId, (std::pair<std::int64_t, std::int64_t>{1, 0}));
    QCOMPARE(state.segments[1].stream, std::int64_t(7));
}

QTEST_GUILESS_MAIN(TestSnapshot)
#include "tst_snapshot.moc"
