// The first screen of a large file (LoadOptions::preview, core/import/traceloader.cpp): a store of a sample
// of the event array spread over the whole file, built before the full parse. On real traces: it is
// consistent (the store's invariants hold), every slice in it is the full store's, it spans most of the
// trace, it costs a small part of the file, it comes once, only for files past the threshold, and a load
// cancelled from it stops cleanly (ASan and LSan check that nothing is left).
#include "fuzz/fuzz_input.h"
#include "testsupport.h"

#include <QTemporaryDir>
#include <QTest>

#include <fstream>

#include <map>
#include <set>
#include <tuple>
#include <vector>

using namespace kinetoscope;

class TestPreview : public QObject {
    Q_OBJECT
  private slots:
    void sampleOfTheFullStore_data();
    void sampleOfTheFullStore();
    void growingWhileInflating_data();
    void growingWhileInflating();
    void truncatedFile();
    void belowTheThreshold();
    void cancelFromThePreview();
};

namespace {

using TrackKey = std::tuple<int, std::int64_t, std::int64_t, std::string, std::string>;
TrackKey keyOf(const TraceStore& s, const Track& t) {
    return {int(t.kind), t.pid, t.tid, std::string(s.strings().view(t.pidText)),
            std::string(s.strings().view(t.tidText))};
}

struct Loaded {
    LoadResult full;
    std::unique_ptr<const TraceStore> preview;              // the one spread over the whole file
    int previews = 0;                                       // of those
    std::vector<std::unique_ptr<const TraceStore>> growing; // of a gzip file as it inflates, in order
    bool growingAfterSpread = false;
};

Loaded loadWithPreview(const std::string& path, std::size_t minBytes = 0) {
    Loaded out;
    LoadOptions options;
    options.chunkBytes = 1 << 20;
    options.previewMinBytes = minBytes;
    options.preview = [&](std::unique_ptr<const TraceStore> s) {
        if (s->stats().previewInflatedBytes > 0) {
            out.growingAfterSpread |= out.previews > 0;
            out.growing.push_back(std::move(s));
            return;
        }
        ++out.previews;
        out.preview = std::move(s);
    };
    out.full = loadTrace(path, options);
    return out;
}

// Empty when every slice of `sample` is one of `full`'s (same track, name, start and duration); else the
// name of the first that is not.
std::string sliceNotInFull(const TraceStore& sample, const TraceStore& full) {
    std::map<TrackKey, std::multiset<std::tuple<TimeNs, TimeNs, std::string>>> slices;
    for (const Track& t : full.tracks())
        for (std::uint32_t r = 0; r < t.sliceCount(); ++r)
            slices[keyOf(full, t)].insert(
                {t.starts[r], t.durations[r], std::string(full.strings().view(t.names[r]))});
    for (const Track& t : sample.tracks()) {
        const auto it = slices.find(keyOf(sample, t));
        if (it == slices.end() && t.sliceCount() > 0) return "a track the full store lacks";
        for (std::uint32_t r = 0; r < t.sliceCount(); ++r) {
            const auto slice =
                std::make_tuple(t.starts[r], t.durations[r], std::string(sample.strings().view(t.names[r])));
            if (it->second.count(slice) == 0) return std::get<2>(slice);
        }
    }
    return {};
}

} // namespace

void TestPreview::sampleOfTheFullStore_data() {
    QTest::addColumn<QString>("trace");
    QTest::addColumn<double>("minSpanShare"); // of the full store's span the sample covers, at least
    QTest::addColumn<bool>("smallFile");      // its first piece (1 MiB) is the whole event array
    QTest::newRow("resnet50 2020") << test::traces::resnet2020 << 0.9 << false;
    QTest::newRow("qwen h100") << test::traces::qwenH100 << 0.9 << false;
    QTest::newRow("alexnet") << test::traces::htaAlexnet << 0.9 << true;
    QTest::newRow("bert mi300") << test::traces::bertMi300 << 0.9 << false;
}

void TestPreview::sampleOfTheFullStore() {
    QFETCH(QString, trace);
    QFETCH(double, minSpanShare);
    QFETCH(bool, smallFile);
    Loaded l = loadWithPreview(test::tracePath(trace.toUtf8().constData()));
    QVERIFY2(l.full.ok(), l.full.error.c_str());
    QCOMPARE(l.previews, 1);
    QVERIFY(l.preview);
    const TraceStore& p = *l.preview;
    const TraceStore& f = *l.full.store;
    QVERIFY(p.stats().preview);
    QVERIFY(!f.stats().preview);
    QCOMPARE(fuzz::brokenInvariant(p), 0);
    // A sample: fewer events (all of a small file's), but not nothing.
    QVERIFY(p.sliceCount() > 0);
    QVERIFY2(smallFile ? p.sliceCount() == f.sliceCount() : p.sliceCount() < f.sliceCount(),
             qPrintable(QStringLiteral("%1 of %2").arg(p.sliceCount()).arg(f.sliceCount())));
    // Over most of the trace's span.
    QVERIFY(p.minTime() >= f.minTime() && p.maxTime() <= f.maxTime());
    const double share = double(p.maxTime() - p.minTime()) / double(f.maxTime() - f.minTime());
    QVERIFY2(share >= minSpanShare, qPrintable(QString::number(share)));
    qInfo("sample: %zu of %zu slices, %.0f%% of the span", p.sliceCount(), f.sliceCount(), 100 * share);
    // Every slice of the sample is the full store's: same track, name, start and duration.
    const std::string stray = sliceNotInFull(p, f);
    QVERIFY2(stray.empty(), stray.c_str());
    QVERIFY(!l.growingAfterSpread);
}

// A gzip file's preview grows as it inflates: samples of the first 4 MiB, 16 MiB... and of the whole stream
// (KINETOSCOPE_GZIP_SAMPLE_TO_END lets the sampler reach its end before the full load goes on), each a
// consistent store of the full store's slices over a span that only grows, all before the preview spread over
// the whole file.
void TestPreview::growingWhileInflating_data() {
    QTest::addColumn<QString>("trace");
    QTest::addColumn<int>("samples"); // 4 MiB, 16 MiB, 64 MiB... and the stream's end
    QTest::newRow("owlv2 mi300, 61 MB")
        << QString::fromUtf8("AMD-AGI__TraceLens/"
                             "tests__traces__mi300__google_owlv2-large-patch14-ensemble__1016001.json.gz")
        << 3;
    QTest::newRow("mtia, 87 MB") << QString::fromUtf8(
                                        "facebookresearch__HolisticTraceAnalysis/"
                                        "tests__data__mtia_trace_single_rank__mtia_rank_0.json.gz")
                                 << 4;
}

void TestPreview::growingWhileInflating() {
    QFETCH(QString, trace);
    QFETCH(int, samples);
    qputenv("KINETOSCOPE_GZIP_SAMPLE_TO_END", "1");
    Loaded l = loadWithPreview(test::tracePath(trace.toUtf8().constData()));
    qunsetenv("KINETOSCOPE_GZIP_SAMPLE_TO_END");
    QVERIFY2(l.full.ok(), l.full.error.c_str());
    const TraceStore& f = *l.full.store;
    QCOMPARE(int(l.growing.size()), samples);
    QCOMPARE(l.previews, 1);
    QVERIFY(!l.growingAfterSpread);
    std::uint64_t inflated = 0;
    TimeNs end = 0;
    for (const auto& g : l.growing) {
        const ImportStats& st = g->stats();
        QVERIFY(st.preview && st.gzip);
        QVERIFY(st.previewInflatedBytes > inflated);
        inflated = st.previewInflatedBytes;
        QCOMPARE(fuzz::brokenInvariant(*g), 0);
        QVERIFY(g->sliceCount() > 0 && g->sliceCount() < f.sliceCount());
        QVERIFY(st.jsonBytes <= std::uint64_t(33) << 20); // a sample, never the whole text
        const std::string stray = sliceNotInFull(*g, f);
        QVERIFY2(stray.empty(), stray.c_str());
        QVERIFY(g->maxTime() >= end);
        end = g->maxTime();
    }
    QVERIFY(l.growing.front()->stats().previewInflatedBytes >= std::uint64_t(4) << 20);
    QCOMPARE(inflated, f.stats().jsonBytes); // the last: the whole stream
    qInfo("samples of %s: %zu ... %zu slices of %zu", qPrintable(trace.section('/', -1)),
          l.growing.front()->sliceCount(), l.growing.back()->sliceCount(), f.sliceCount());
}

// A file cut in the middle: the preview still comes, and the full load opens what there is.
void TestPreview::truncatedFile() {
    const std::string text = test::readText(test::tracePath(test::traces::qwenH100));
    QTemporaryDir dir;
    const std::string path = dir.filePath(QStringLiteral("cut.json")).toStdString();
    std::ofstream(path, std::ios::binary) << text.substr(0, text.size() * 2 / 3);
    Loaded l = loadWithPreview(path);
    QVERIFY2(l.full.ok(), l.full.error.c_str());
    QVERIFY(l.full.store->stats().truncated);
    QCOMPARE(l.previews, 1);
    QCOMPARE(fuzz::brokenInvariant(*l.preview), 0);
    QVERIFY(l.preview->sliceCount() > 0 && l.preview->sliceCount() < l.full.store->sliceCount());
}

void TestPreview::belowTheThreshold() {
    const std::string path = test::tracePath(test::traces::qwenH100);
    Loaded l = loadWithPreview(path, std::size_t(1) << 40);
    QVERIFY(l.full.ok());
    QCOMPARE(l.previews, 0);
    // And the default threshold (64 MiB) is above this 30-odd MB trace.
    LoadOptions options;
    int previews = 0;
    options.preview = [&](std::unique_ptr<const TraceStore>) { ++previews; };
    QVERIFY(loadTrace(path, options).ok());
    QCOMPARE(previews, 0);
}

// Cancel pressed while the preview is on screen: the load ends as cancelled, nothing else comes.
void TestPreview::cancelFromThePreview() {
    std::atomic<bool> cancel{false};
    LoadOptions options;
    options.chunkBytes = 1 << 20;
    options.previewMinBytes = 0;
    options.cancel = &cancel;
    int previews = 0;
    bool empty = false; // (checked here: a gzip file's first previews come on the sampler's thread)
    options.preview = [&](std::unique_ptr<const TraceStore> s) {
        ++previews;
        empty |= !s || s->sliceCount() == 0;
        cancel = true;
    };
    const LoadResult r = loadTrace(test::tracePath(test::traces::qwenH100), options);
    QVERIFY(!empty);
    QCOMPARE(previews, 1);
    QVERIFY(r.cancelled);
    QVERIFY(!r.ok());
}

QTEST_GUILESS_MAIN(TestPreview)
#include "tst_preview.moc"
