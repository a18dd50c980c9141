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

using namespace kinetoscope;

class TestPreview : public QObject {
    Q_OBJECT
  private slots:
    void sampleOfTheFullStore_data();
    void sampleOfTheFullStore();
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
    std::unique_ptr<const TraceStore> preview;
    int previews = 0;
};

Loaded loadWithPreview(const std::string& path, std::size_t minBytes = 0) {
    Loaded out;
    LoadOptions options;
    options.chunkBytes = 1 << 20;
    options.previewMinBytes = minBytes;
    options.preview = [&](std::unique_ptr<const TraceStore> s) {
        ++out.previews;
        out.preview = std::move(s);
    };
    out.full = loadTrace(path, options);
    return out;
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
    std::map<TrackKey, std::multiset<std::tuple<TimeNs, TimeNs, std::string>>> full;
    for (const Track& t : f.tracks())
        for (std::uint32_t r = 0; r < t.sliceCount(); ++r)
            full[keyOf(f, t)].insert(
                {t.starts[r], t.durations[r], std::string(f.strings().view(t.names[r]))});
    std::size_t checked = 0;
    for (const Track& t : p.tracks()) {
        const auto it = full.find(keyOf(p, t));
        QVERIFY2(it != full.end() || t.sliceCount() == 0, "a track the full store lacks");
        for (std::uint32_t r = 0; r < t.sliceCount(); ++r, ++checked) {
            const auto slice =
                std::make_tuple(t.starts[r], t.durations[r], std::string(p.strings().view(t.names[r])));
            QVERIFY2(it->second.count(slice) > 0, std::get<2>(slice).c_str());
        }
    }
    QCOMPARE(checked, p.sliceCount());
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
    options.preview = [&](std::unique_ptr<const TraceStore> s) {
        ++previews;
        QVERIFY(s && s->sliceCount() > 0);
        cancel = true;
    };
    const LoadResult r = loadTrace(test::tracePath(test::traces::qwenH100), options);
    QCOMPARE(previews, 1);
    QVERIFY(r.cancelled);
    QVERIFY(!r.ok());
}

QTEST_GUILESS_MAIN(TestPreview)
#include "tst_preview.moc"
