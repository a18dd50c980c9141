// The radix sort behind the importer's large tables (correlation and External-id indexes, flows): it must
// give exactly std::sort's order for every size and key shape, including keys that vary only in high bits,
// all-equal keys and many ties broken by the secondary criterion.
#include "model/radixsort.h"

#include <QtTest>

#include <random>
#include <tuple>

using namespace kinetoscope;

namespace {
struct Entry {
    std::uint64_t key = 0;
    std::uint32_t tieBreak = 0;
    std::uint32_t payload = 0;
};
} // namespace

class TestRadixSort : public QObject {
    Q_OBJECT
  private slots:
    void matchesStdSort_data() {
        QTest::addColumn<int>("size");
        QTest::addColumn<QString>("shape");
        for (int size : {0, 1, 4095, 4096, 100000})
            for (const char* shape : {"dense", "random64", "equal", "fewDistinct", "highBits", "descending"})
                QTest::addRow("%d %s", size, shape) << size << QString(shape);
    }
    void matchesStdSort() {
        QFETCH(int, size);
        QFETCH(QString, shape);
        std::mt19937_64 random(std::uint64_t(size) * 31 + std::uint64_t(qHash(shape)));
        std::vector<Entry> v(static_cast<std::size_t>(size));
        for (std::size_t i = 0; i < v.size(); ++i) {
            std::uint64_t key = 0;
            if (shape == "dense")
                key = 1000 + random() % (v.size() * 2 + 1);
            else if (shape == "random64")
                key = random();
            else if (shape == "equal")
                key = 0xDEADBEEFull;
            else if (shape == "fewDistinct")
                key = random() % 7;
            else if (shape == "highBits")
                key = (random() % 5) << 58 | 0x1234;
            else if (shape == "descending")
                key = std::uint64_t(v.size() - i) << 20;
            v[i] = {key, std::uint32_t(random() % 3), std::uint32_t(i)};
        }
        auto less = [](const Entry& a, const Entry& b) {
            return std::tie(a.key, a.tieBreak, a.payload) < std::tie(b.key, b.tieBreak, b.payload);
        };
        std::vector<Entry> expected = v;
        std::sort(expected.begin(), expected.end(), less);
        radixSort(
            v, [](const Entry& e) { return e.key; }, less);
        QCOMPARE(v.size(), expected.size());
        for (std::size_t i = 0; i < v.size(); ++i) {
            QCOMPARE(v[i].key, expected[i].key);
            QCOMPARE(v[i].payload, expected[i].payload);
        }
    }
};

QTEST_GUILESS_MAIN(TestRadixSort)
#include "tst_radixsort.moc"
