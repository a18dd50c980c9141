// Derived tracks (core/query/derivedtracks) and how the lane layout shows them beside the store's tracks: a
// busy series folded to its mean per pixel column at any zoom, a GPU's lanes at the top of its group, the
// others in groups of their own, titles, units, hiding and hit values.
#include "query/lanelayout.h"
#include "testsupport.h"

#include <QTest>

#include <random>

using namespace kinetoscope;

class TestDerivedTracks : public QObject {
    Q_OBJECT
  private slots:
    void meanPerColumn_data();
    void meanPerColumn();
    void peakFoldIsTheStoreFold();
    void denseColumnsKeepEveryPeak_data();
    void denseColumnsKeepEveryPeak();
    void meanColumnsOnALongSeries();
    void blocksOfAGrownTrackAreNotUsed();
    void meanColumnsZoomedInFarFromTheEnds();
    void meanBetween();
    void layoutPlacesDerivedLanes();
    void layoutValuesAndHiding();
};

namespace {
// Busy 10–25 µs and 40–45 µs, over 0–50 µs.
StepSeries busySeries() {
    return {{0, 10000, 25000, 40000, 45000, 50000}, {0, 1, 0, 1, 0, 0}};
}

DerivedTrack busyTrack(std::int64_t gpu = -1, std::string group = "Derived") {
    DerivedTrack t("busy", busySeries(), CounterUnit::Ratio, CounterFold::Mean);
    t.gpu = gpu;
    t.groupTitle = std::move(group);
    t.fullScale = 1;
    return t;
}

const char* const twoStreams = R"({"traceEvents": [
    {"ph": "X", "cat": "cpu_op", "name": "op", "pid": 1, "tid": 1, "ts": 0, "dur": 50},
    {"ph": "X", "cat": "kernel", "name": "k1", "pid": 0, "tid": 7, "ts": 10, "dur": 10},
    {"ph": "X", "cat": "kernel", "name": "k2", "pid": 0, "tid": 8, "ts": 15, "dur": 10}]})";
} // namespace

void TestDerivedTracks::meanPerColumn_data() {
    QTest::addColumn<qint64>("start");
    QTest::addColumn<qint64>("end");
    QTest::addColumn<double>("width");
    QTest::addColumn<QList<float>>("xs");
    QTest::addColumn<QList<double>>("values");
    QTest::newRow("whole series, 10 µs a column")
        << qint64(0) << qint64(50000) << 5.0 << QList<float>{0, 1, 2, 3, 4}
        << QList<double>{0, 1, 0.5, 0, 0.5};
    QTest::newRow("zoomed into a busy run")
        << qint64(12000) << qint64(22000) << 2.0 << QList<float>{0, 1} << QList<double>{1, 1};
    QTest::newRow("half a column before the series")
        << qint64(-10000) << qint64(10000) << 2.0 << QList<float>{1} << QList<double>{0};
    QTest::newRow("after the series")
        << qint64(60000) << qint64(70000) << 4.0 << QList<float>{} << QList<double>{};
    QTest::newRow("a column straddling the end")
        << qint64(40000) << qint64(60000) << 4.0 << QList<float>{0, 1} << QList<double>{1, 0};
}

void TestDerivedTracks::meanPerColumn() {
    QFETCH(qint64, start);
    QFETCH(qint64, end);
    QFETCH(double, width);
    QFETCH(QList<float>, xs);
    QFETCH(QList<double>, values);
    std::vector<CounterColumn> columns;
    busyTrack().collectColumns(TimeAxis{start, end, width}, columns);
    QCOMPARE(qsizetype(columns.size()), xs.size());
    for (qsizetype i = 0; i < xs.size(); ++i) {
        QCOMPARE(columns[std::size_t(i)].x, xs[i]);
        QCOMPARE(columns[std::size_t(i)].maxValue, values[i]);
        QCOMPARE(columns[std::size_t(i)].minValue, values[i]);
        QCOMPARE(columns[std::size_t(i)].lastValue, values[i]);
    }
}

void TestDerivedTracks::peakFoldIsTheStoreFold() {
    const DerivedTrack peak("queue", busySeries(), CounterUnit::Plain, CounterFold::Peak);
    const TimeAxis axis{0, 50000, 2};
    std::vector<CounterColumn> derived, store;
    peak.collectColumns(axis, derived);
    collectCounterColumns(peak.track(), axis, store);
    QCOMPARE(derived.size(), store.size());
    for (std::size_t i = 0; i < store.size(); ++i) {
        QCOMPARE(derived[i].x, store[i].x);
        QCOMPARE(derived[i].maxValue, store[i].maxValue);
    }
    QCOMPARE(derived.front().maxValue, 1.0); // a spike inside a column is kept
}

// A column of a zoomed-out view holds thousands of samples: its peak is the greatest of them all, wherever it
// sits (the columns once read a column's first 64 samples and its last), with the blocks or without.
void TestDerivedTracks::denseColumnsKeepEveryPeak_data() {
    QTest::addColumn<int>("spikeAt");
    QTest::addColumn<bool>("withBlocks");
    for (const int at : {0, 1, 31, 32, 64, 65, 700, 4999, 5000, 6143, 9998, 9999})
        for (const bool blocks : {false, true})
            QTest::addRow("spike at %d%s", at, blocks ? ", blocks" : "") << at << blocks;
}

void TestDerivedTracks::denseColumnsKeepEveryPeak() {
    QFETCH(int, spikeAt);
    QFETCH(bool, withBlocks);
    // 10,000 samples 1 ns apart, values 1 but for a spike of 100 and a dip of -5 beside it.
    Track t;
    t.kind = TrackKind::Counter;
    for (int i = 0; i < 10000; ++i) {
        t.counterTimes.push_back(i);
        t.counterValues.push_back(i == spikeAt ? 100.0 : i == (spikeAt + 1) % 10000 ? -5.0 : 1.0);
    }
    const CounterBlocks blocks = CounterBlocks::of(t);
    for (const double width : {1.0, 3.0, 7.0, 100.0, 2000.0}) {
        const TimeAxis axis{0, 10000, width};
        std::vector<CounterColumn> columns;
        collectCounterColumns(t, axis, columns, withBlocks ? &blocks : nullptr);
        QVERIFY(!columns.empty());
        double peak = -1e9, dip = 1e9;
        for (const CounterColumn& c : columns) {
            peak = std::max(peak, c.maxValue);
            dip = std::min(dip, c.minValue);
            QVERIFY(c.minValue <= c.lastValue && c.lastValue <= c.maxValue);
        }
        QCOMPARE(peak, 100.0);
        QCOMPARE(dip, -5.0);
        // The spike's own column holds it.
        const auto column = std::find_if(columns.begin(), columns.end(), [&](const CounterColumn& c) {
            return int(c.x) == std::min(int(double(spikeAt) * width / 10000.0), int(std::ceil(width)));
        });
        QVERIFY(column != columns.end());
        QCOMPARE(column->maxValue, 100.0);
    }
}

// The mean per column walks a long series edge to edge (galloping from the previous edge): the same values as
// the mean over each column's time computed alone, at every zoom.
void TestDerivedTracks::meanColumnsOnALongSeries() {
    std::mt19937_64 rng(7);
    StepSeries series;
    TimeNs t = 1000;
    for (int i = 0; i < 200000; ++i) {
        series.times.push_back(t);
        series.values.push_back(double(rng() % 2));
        t += TimeNs(1 + rng() % 5000);
    }
    const TimeNs end = t;
    const DerivedTrack track("busy", std::move(series), CounterUnit::Ratio, CounterFold::Mean);
    const auto& times = track.track().counterTimes;
    for (int k = 0; k < 40; ++k) {
        const TimeNs a = TimeNs(rng() % std::uint64_t(end + 2000)) - 1000;
        const TimeNs span = std::max<TimeNs>(1, TimeNs(rng() % std::uint64_t(end >> (k % 20))));
        const TimeAxis axis{a, a + span, double(200 + rng() % 1800)};
        std::vector<CounterColumn> columns;
        track.collectColumns(axis, columns);
        for (const CounterColumn& c : columns) {
            const int col = int(c.x);
            const TimeNs from = std::max(times.front(), axis.timeAt(col));
            const TimeNs to = std::min(times.back(), axis.timeAt(col + 1));
            const double expected = track.meanBetween(from, to);
            QVERIFY2(std::abs(c.maxValue - expected) <= 1e-9 * std::max(1.0, std::abs(expected)),
                     qPrintable(
                         QStringLiteral("column %1: %2 against %3").arg(col).arg(c.maxValue).arg(expected)));
        }
    }
}

// A live capture's counter grows after the layout made its blocks: the samples past them still count.
void TestDerivedTracks::blocksOfAGrownTrackAreNotUsed() {
    Track t;
    t.kind = TrackKind::Counter;
    for (int i = 0; i < 40; ++i) {
        t.counterTimes.push_back(i);
        t.counterValues.push_back(1);
    }
    const CounterBlocks blocks = CounterBlocks::of(t); // two blocks, room for 64 samples
    for (int i = 40; i < 200; ++i) {
        t.counterTimes.push_back(i);
        t.counterValues.push_back(i == 50 ? 9.0 : 1.0);
    }
    std::vector<CounterColumn> columns;
    collectCounterColumns(t, TimeAxis{0, 200, 1}, columns, &blocks);
    QCOMPARE(columns.size(), std::size_t(1));
    QCOMPARE(columns[0].maxValue, 9.0);
}

// A 1 µs view early in a 10 s series: the series' end is some 10^10 pixels away, beyond an int; the view
// still has its columns (they were none: the last column's index overflowed).
void TestDerivedTracks::meanColumnsZoomedInFarFromTheEnds() {
    const DerivedTrack t("busy", StepSeries{{0, 500, 10'000'000'000}, {1, 0, 0}}, CounterUnit::Ratio,
                         CounterFold::Mean);
    for (const TimeNs start : {TimeNs(0), TimeNs(-5'000'000'000), TimeNs(9'999'990'000)}) {
        std::vector<CounterColumn> columns;
        t.collectColumns(TimeAxis{start, start + 1000, 1660}, columns);
        if (start < 0) {
            QVERIFY(columns.empty()); // seconds before the series
            continue;
        }
        QCOMPARE(columns.size(), std::size_t(1660));
        QCOMPARE(columns.front().maxValue, start == 0 ? 1.0 : 0.0);
        QCOMPARE(columns.back().maxValue, 0.0);
    }
}

void TestDerivedTracks::meanBetween() {
    const DerivedTrack t = busyTrack();
    QCOMPARE(t.meanBetween(0, 50000), 20.0 / 50.0);
    QCOMPARE(t.meanBetween(15000, 20000), 1.0);
    QCOMPARE(t.meanBetween(20000, 30000), 0.5);
    QCOMPARE(t.meanBetween(-50000, 50000), 20.0 / 100.0); // before the first sample counts as 0
    QCOMPARE(t.meanBetween(12000, 12000), 1.0);           // an empty range: the value in force
}

void TestDerivedTracks::layoutPlacesDerivedLanes() {
    LoadResult r = test::loadText(twoStreams);
    QVERIFY2(r.ok(), r.error.c_str());
    const TraceStore& s = *r.store;
    DerivedTracks derived;
    derived.push_back(busyTrack(0));
    derived.push_back(busyTrack(-1, "Queues"));
    derived.push_back(busyTrack(5, "GPU 5")); // no such GPU in the trace: a group of its own
    const LaneLayout layout(s, &derived);
    const std::uint32_t n = std::uint32_t(s.tracks().size());
    QCOMPARE(layout.trackCount(), s.tracks().size() + 3);
    // The GPU's group starts with its streams, then its derived lane.
    const LaneGroup* gpu = nullptr;
    for (const LaneGroup& g : layout.groups())
        if (g.kind == LaneGroup::Kind::Gpu) gpu = &g;
    QVERIFY(gpu);
    QCOMPARE(gpu->tracks.size(), std::size_t(3));
    QCOMPARE(layout.track(gpu->tracks[0]).kind, TrackKind::GpuStream);
    QCOMPARE(layout.track(gpu->tracks[1]).kind, TrackKind::GpuStream);
    QCOMPARE(gpu->tracks[2], TrackId(n));
    QCOMPARE(layout.groupOf(TrackId(n)), std::uint32_t(gpu - layout.groups().data()));
    // The others after the store's groups, one group per title.
    QCOMPARE(layout.groups()[layout.groups().size() - 2].title, std::string("Queues"));
    QCOMPARE(layout.groups().back().title, std::string("GPU 5"));
    QCOMPARE(layout.groups().back().tracks, std::vector<TrackId>{TrackId(n + 2)});
    QCOMPARE(layout.laneTitle(TrackId(n)), std::string("busy"));
    QCOMPARE(layout.trackTitle(TrackId(n)), gpu->title + " · busy");
    QCOMPARE(layout.derived(TrackId(n)), &derived[0]);
    QVERIFY(!layout.derived(TrackId(0)));
    QCOMPARE(layout.counterUnit(TrackId(n)), CounterUnit::Ratio);
    // A counter row, drawn where its group says.
    const int row = layout.firstRowOf(TrackId(n));
    QVERIFY(row >= 0);
    QCOMPARE(layout.rows()[std::size_t(row)].kind, LaneRow::Kind::Counter);
    QCOMPARE(layout.rows()[std::size_t(row)].track, TrackId(n));
    QCOMPARE(layout.rows()[std::size_t(row) - 1].track, gpu->tracks[1]); // after the last stream
}

void TestDerivedTracks::layoutValuesAndHiding() {
    LoadResult r = test::loadText(twoStreams);
    QVERIFY2(r.ok(), r.error.c_str());
    const TraceStore& s = *r.store;
    DerivedTracks derived;
    derived.push_back(busyTrack(0));
    LaneLayout layout(s, &derived);
    const TrackId id(std::uint32_t(s.tracks().size()));
    // The value under the cursor is the mean over the pixel column under it.
    const TimeAxis axis{0, 50000, 5};
    QCOMPARE(layout.counterValueAt(id, axis, 25000), std::optional<double>(0.5));
    QCOMPARE(layout.counterValueAt(id, axis, 12000), std::optional<double>(1.0));
    QCOMPARE(layout.counterValueAt(id, axis, 80000), std::nullopt);
    std::vector<CounterColumn> columns;
    layout.collectColumns(id, axis, columns);
    QCOMPARE(columns.size(), std::size_t(5));
    const double height = layout.contentHeight();
    layout.setHidden(id, true);
    QVERIFY(layout.isHidden(id));
    QCOMPARE(layout.firstRowOf(id), -1);
    QCOMPARE(layout.contentHeight(), height - layout.metrics().counterHeight - layout.metrics().trackGap);
    layout.setHidden(id, false);
    QCOMPARE(layout.contentHeight(), height);
    // Without derived tracks the layout is the store's alone.
    const LaneLayout plain(s);
    QCOMPARE(plain.trackCount(), s.tracks().size());
}

QTEST_MAIN(TestDerivedTracks)
#include "tst_derivedtracks.moc"
