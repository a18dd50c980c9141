// AddressMap (analysis/memory/addressmap.h), the open-addressing table that pairs a snapshot's allocs and
// frees: random sets, finds and erases checked against std::unordered_map, with addresses as real snapshots
// have them (512-byte aligned, clustered) and adversarial ones (colliding on the low bits), through many
// rehashes.
#include "analysis/memory/addressmap.h"

#include <QTest>

#include <random>
#include <unordered_map>

using namespace kinetoscope;

class TestAddressMap : public QObject {
    Q_OBJECT
  private slots:
    void matchesUnorderedMap_data();
    void matchesUnorderedMap();
};

void TestAddressMap::matchesUnorderedMap_data() {
    QTest::addColumn<int>("stride");
    QTest::addColumn<int>("live");
    QTest::newRow("512-byte blocks, few live") << 512 << 100;
    QTest::newRow("2 MiB segments, many live") << (2 << 20) << 20000;
    QTest::newRow("dense addresses") << 1 << 5000;
}

void TestAddressMap::matchesUnorderedMap() {
    QFETCH(int, stride);
    QFETCH(int, live);
    std::mt19937_64 rng(42);
    AddressMap map(4);
    std::unordered_map<std::uint64_t, std::uint32_t> reference;
    const std::uint64_t base = 0x7f0000000000ull;
    for (std::uint32_t step = 0; step < 300000; ++step) {
        const std::uint64_t addr = base + (rng() % std::uint64_t(live * 2)) * std::uint64_t(stride);
        switch (rng() % 3) {
        case 0:
            map.set(addr, step);
            reference[addr] = step;
            break;
        case 1:
            map.erase(addr);
            reference.erase(addr);
            break;
        default: {
            const std::uint32_t* got = map.find(addr);
            const auto it = reference.find(addr);
            QCOMPARE(got != nullptr, it != reference.end());
            if (got) QCOMPARE(*got, it->second);
        }
        }
        QCOMPARE(map.size(), reference.size());
    }
    for (const auto& [addr, value] : reference) {
        QVERIFY(map.contains(addr));
        QCOMPARE(*map.find(addr), value);
    }
}

QTEST_GUILESS_MAIN(TestAddressMap)
#include "tst_addressmap.moc"
