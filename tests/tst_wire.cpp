// The live-capture wire format (core/wire): every record type round-trips, any split of the stream decodes
// the same, and truncated, corrupted, foreign and future streams are handled with a byte offset, never a
// crash.
#include "wire/wire.h"

#include <QTest>

#include <random>

using namespace kinetoscope;
using namespace kinetoscope::wire;

class TestWire : public QObject {
    Q_OBJECT
  private slots:
    void roundTrip();
    void anySplitDecodesTheSame();
    void truncatedStreams();
    void corrupt_data();
    void corrupt();
    void unknownRecordsAreSkipped();
    void randomBytesNeverCrash();

  private:
    static std::string sampleStream(std::vector<Record>* records = nullptr);
    static std::vector<Record> decodeAll(std::string_view bytes, std::size_t piece, Decoder** keep = nullptr);
};

namespace {
// Two records are the same when they encode to the same bytes (every field, none of the padding).
bool sameRecord(const Record& a, const Record& b) {
    Encoder x, y;
    x.add(a);
    y.add(b);
    return x.buffer() == y.buffer();
}
} // namespace

std::string TestWire::sampleStream(std::vector<Record>* records) {
    Encoder e;
    std::vector<Record> added;
    auto add = [&](Record r) {
        e.add(r);
        added.push_back(std::move(r));
    };
    const StringRef gemm = e.string("ampere_sgemm_128x64_nn");
    const StringRef launch = e.string("cudaLaunchKernel");
    const StringRef gpu = e.string("NVIDIA H100 80GB HBM3");
    const StringRef range = e.string("forward · ünïcode");
    add(Device{0, gpu, 85'000'000'000ull, 9, 0, 132, 2048, 32});
    Api a{};
    a.cbid = 211, a.name = launch, a.correlation = 42, a.pid = 100, a.tid = 1ull << 40, a.start = 1'000,
    a.end = 5'500;
    add(a);
    Kernel k{};
    k.device = 0, k.stream = 7, k.correlation = 42, k.start = 6'000, k.end = 16'000, k.name = gemm;
    k.grid[0] = 128, k.block[0] = 256, k.registers = 32, k.staticShared = 0, k.dynamicShared = 49152;
    add(k);
    Memcpy m{};
    m.device = 0, m.stream = 13, m.correlation = 43, m.start = 20'000, m.end = 30'000, m.kind = 1,
    m.bytes = 4 << 20;
    add(m);
    Memset s{};
    s.device = 0, s.stream = 13, s.correlation = 44, s.start = 31'000, s.end = 31'500, s.bytes = 1 << 20;
    add(s);
    Sync y{};
    y.device = 0, y.stream = 7, y.kind = 2, y.correlation = 45, y.start = 40'000, y.end = 41'000;
    add(y);
    Marker r{};
    r.name = range, r.pid = 100, r.tid = 7, r.start = -5, r.end = 50'000;
    add(r);
    add(ExternalCorrelation{42, 7'000'000'000ull});
    add(Dropped{17});
    const StringRef notice = e.string("cuptiActivityEnable(MARKER) failed: no NVTX ranges");
    add(Notice{notice});
    if (records) {
        // The decoder also reports the string definitions, in order, before the records that use them.
        records->clear();
        records->push_back(StringDef{gemm, "ampere_sgemm_128x64_nn"});
        records->push_back(StringDef{launch, "cudaLaunchKernel"});
        records->push_back(StringDef{gpu, "NVIDIA H100 80GB HBM3"});
        records->push_back(StringDef{range, "forward · ünïcode"});
        for (auto& x : added) {
            if (std::holds_alternative<Notice>(x)) // its string is defined just before it
                records->push_back(StringDef{notice, "cuptiActivityEnable(MARKER) failed: no NVTX ranges"});
            records->push_back(x);
        }
    }
    return e.take();
}

std::vector<Record> TestWire::decodeAll(std::string_view bytes, std::size_t piece, Decoder** keep) {
    std::vector<Record> out;
    static std::unique_ptr<Decoder> last;
    last = std::make_unique<Decoder>([&](const Record& r) { out.push_back(r); });
    for (std::size_t i = 0; i < bytes.size(); i += piece) {
        if (!last->feed(bytes.substr(i, piece))) break;
    }
    if (keep) *keep = last.get();
    return out;
}

void TestWire::roundTrip() {
    std::vector<Record> expected;
    const std::string bytes = sampleStream(&expected);
    Decoder* d = nullptr;
    const std::vector<Record> got = decodeAll(bytes, bytes.size(), &d);
    QVERIFY2(d->finish(), d->error().c_str());
    QCOMPARE(got.size(), expected.size());
    for (std::size_t i = 0; i < got.size(); ++i)
        QVERIFY2(sameRecord(got[i], expected[i]), qPrintable(QString::number(i)));
    QCOMPARE(d->stringOf(3), std::string_view("forward · ünïcode"));
    QCOMPARE(d->recordsDecoded(), std::uint64_t(expected.size()));
    // Interning: the same text is sent once.
    Encoder e;
    QCOMPARE(e.string("x"), e.string("x"));
    QVERIFY(e.string("y") != e.string("x"));
}

void TestWire::anySplitDecodesTheSame() {
    std::vector<Record> expected;
    const std::string bytes = sampleStream(&expected);
    for (std::size_t piece :
         {std::size_t(1), std::size_t(2), std::size_t(3), std::size_t(7), std::size_t(64)}) {
        Decoder* d = nullptr;
        const auto got = decodeAll(bytes, piece, &d);
        QVERIFY(d->finish());
        QCOMPARE(got.size(), expected.size());
        for (std::size_t i = 0; i < got.size(); ++i)
            QVERIFY(sameRecord(got[i], expected[i]));
    }
}

void TestWire::truncatedStreams() {
    // A capture cut anywhere (the target or the viewer died) keeps every whole record before the cut and says
    // where.
    std::vector<Record> expected;
    const std::string bytes = sampleStream(&expected);
    std::size_t previous = 0;
    for (std::size_t cut = 0; cut < bytes.size(); ++cut) {
        Decoder* d = nullptr;
        const auto got = decodeAll(std::string_view(bytes).substr(0, cut), 5, &d);
        QVERIFY(d->error().empty());
        // A cut on a record boundary is a complete (shorter) stream; anywhere else finish() says where it
        // ends.
        if (!d->finish()) {
            QVERIFY(!d->error().empty());
            QVERIFY(d->errorOffset() <= cut);
        }
        QVERIFY(got.size() >= previous); // never fewer records for a longer prefix
        for (std::size_t i = 0; i < got.size(); ++i)
            QVERIFY(sameRecord(got[i], expected[i]));
        previous = got.size();
    }
}

void TestWire::corrupt_data() {
    QTest::addColumn<QByteArray>("bytes");
    QTest::addColumn<QString>("error");
    QTest::addColumn<qint64>("offset");
    const QByteArray good = QByteArray::fromStdString(sampleStream());
    QByteArray badMagic = good;
    badMagic[0] = 'X';
    QTest::newRow("not a capture (bad magic)") << badMagic << "bad magic" << qint64(0);
    QByteArray newer = good;
    newer[4] = 9;
    QTest::newRow("a newer version") << newer << "version 9" << qint64(4);
    QByteArray huge = good;
    const char big[4] = {char(0xff), char(0xff), char(0xff), char(0x7f)};
    huge.replace(9, 4, big, 4); // the first record's length
    QTest::newRow("length beyond the limit") << huge << "exceeds the limit" << qint64(8);
    QByteArray wrongSize = good;
    const char five[4] = {5, 0, 0, 0};
    wrongSize.replace(9, 4, five,
                      4); // a string record of 5 bytes: id + 1 char, then garbage as the next record
    QTest::newRow("length that splits a record") << wrongSize << "" << qint64(-1);
    Encoder e;
    Kernel k{};
    k.name = 5; // never defined
    e.add(k);
    QTest::newRow("undefined string")
        << QByteArray::fromStdString(e.take()) << "undefined string 5" << qint64(8);
    Encoder f;
    f.add(StringDef{3, "skips ids 0..2"});
    QTest::newRow("string ids out of sequence")
        << QByteArray::fromStdString(f.take()) << "out of sequence" << qint64(8);
}

void TestWire::corrupt() {
    QFETCH(QByteArray, bytes);
    QFETCH(QString, error);
    QFETCH(qint64, offset);
    Decoder d([](const Record&) {});
    const bool fed = d.feed(std::string_view(bytes.constData(), std::size_t(bytes.size())));
    const bool finished = fed && d.finish();
    QVERIFY(!finished);
    QVERIFY(!d.error().empty());
    if (!error.isEmpty()) QVERIFY2(QString::fromStdString(d.error()).contains(error), d.error().c_str());
    if (offset >= 0) QCOMPARE(qint64(d.errorOffset()), offset);
    QVERIFY(!d.feed("more")); // stays failed
}

void TestWire::unknownRecordsAreSkipped() {
    Encoder e;
    e.add(Dropped{1});
    std::string bytes = e.take();
    // A record type from a future agent, 3 bytes of payload, then a known record.
    bytes += std::string("\x63\x03\x00\x00\x00xyz", 8);
    Encoder tail;
    tail.add(Dropped{2});
    bytes += tail.take().substr(headerSize);
    std::vector<Record> got;
    Decoder d([&](const Record& r) { got.push_back(r); });
    QVERIFY(d.feed(bytes));
    QVERIFY(d.finish());
    QCOMPARE(d.unknownSkipped(), std::uint64_t(1));
    QCOMPARE(got.size(), std::size_t(2));
    QCOMPARE(std::get<Dropped>(got[1]).records, std::uint64_t(2));
}

void TestWire::randomBytesNeverCrash() {
    std::mt19937_64 rng(1);
    const std::string good = sampleStream();
    for (int round = 0; round < 2000; ++round) {
        std::string bytes = good;
        for (int k = 0; k < 1 + int(rng() % 6); ++k)
            bytes[rng() % bytes.size()] = char(rng());
        Decoder d([](const Record&) {});
        for (std::size_t i = 0; i < bytes.size(); i += 1 + rng() % 16) {
            if (!d.feed(std::string_view(bytes).substr(i, 1 + rng() % 16))) break;
        }
        d.finish();
    }
}

QTEST_APPLESS_MAIN(TestWire)
#include "tst_wire.moc"
