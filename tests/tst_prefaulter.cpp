// Prefaulter (model/prefaulter.h): populating a table from another thread while it is written must leave
// every value its writer wrote, whether the table is filled whole or followed a little ahead of its writer,
// and tables too small to pay for a thread are not watched.
#include "model/prefaulter.h"

#include <QTest>

#include <cstdint>
#include <fstream>
#include <memory>
#include <string>

using namespace kinetoscope;

class TestPrefaulter : public QObject {
    Q_OBJECT
  private slots:
    void keepsWhatIsWritten_data();
    void keepsWhatIsWritten();
    void smallTablesAreNotWatched();
};

namespace {

// This process's resident memory in bytes (Linux), or 0.
std::size_t residentBytes() {
    std::ifstream statm("/proc/self/statm");
    std::size_t pages = 0, resident = 0;
    statm >> pages >> resident;
    return resident * 4096;
}

} // namespace

void TestPrefaulter::keepsWhatIsWritten_data() {
    QTest::addColumn<int>("megabytes");
    QTest::addColumn<bool>("followed");
    QTest::addColumn<int>("writtenBefore"); // per cent of the table written before the thread starts
    QTest::newRow("filled whole, 64 MB") << 64 << false << 0;
    QTest::newRow("filled whole, partly written first") << 48 << false << 30;
    QTest::newRow("followed, 256 MB reserved, a quarter written") << 256 << true << 0;
}

void TestPrefaulter::keepsWhatIsWritten() {
    QFETCH(int, megabytes);
    QFETCH(bool, followed);
    QFETCH(int, writtenBefore);
    const std::size_t count = std::size_t(megabytes) << 17; // of 8 bytes
    // Not value-initialised: fresh pages, as a reserved vector's are.
    const std::unique_ptr<std::uint64_t[]> table(new std::uint64_t[count]);
    const std::size_t written = followed ? count / 4 : count;
    const std::size_t first = written * std::size_t(writtenBefore) / 100;
    auto value = [](std::size_t i) { return i * 0x9e3779b97f4a7c15ull; };
    for (std::size_t i = 0; i < first; ++i)
        table[i] = value(i);
    const std::size_t before = residentBytes();
    {
        Prefaulter prefaulter;
        const int slot = prefaulter.watch(table.get(), count * sizeof(std::uint64_t), followed);
        QVERIFY(slot >= 0);
        prefaulter.start();
        for (std::size_t i = first; i < written; ++i) {
            if ((i & 0xffff) == 0) prefaulter.written(slot, i * sizeof(std::uint64_t));
            table[i] = value(i);
        }
    }
    for (std::size_t i = 0; i < written; ++i)
        if (table[i] != value(i)) QFAIL(qPrintable(QStringLiteral("value %1 changed").arg(i)));
    // A followed table is populated no further than a little past what was written (under ASan, plus the
    // shadow of what was written: an eighth).
    if (followed && before > 0) {
        const std::size_t grown = residentBytes() - before;
        const std::size_t bytes = written * sizeof(std::uint64_t);
        QVERIFY2(grown <= bytes + bytes / 8 + Prefaulter::aheadBytes + (8u << 20),
                 qPrintable(QStringLiteral("%1 MB resident for %2 MB written")
                                .arg(grown >> 20)
                                .arg((written * sizeof(std::uint64_t)) >> 20)));
    }
}

void TestPrefaulter::smallTablesAreNotWatched() {
    std::vector<char> small(Prefaulter::minimumBytes - 1);
    Prefaulter prefaulter;
    QCOMPARE(prefaulter.watch(small.data(), small.size()), -1);
    prefaulter.start(); // nothing watched: no thread, and stopping is harmless
    prefaulter.written(-1, 100);
}

QTEST_GUILESS_MAIN(TestPrefaulter)
#include "tst_prefaulter.moc"
