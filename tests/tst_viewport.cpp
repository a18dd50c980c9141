// Viewport queries on real traces: culling and folding, hit testing, flow culling, search,
// area summaries, lane layout, steps and memory counters — each checked against a brute-force answer.
#include "analysis/memory/memory.h"
#include "analysis/ops/steps.h"
#include "query/areasummary.h"
#include "query/flowindex.h"
#include "query/lanelayout.h"
#include "query/search.h"
#include "query/viewport.h"
#include "testsupport.h"

#include <QTest>

#include <map>
#include <random>
#include <set>

using namespace kinetoscope;

class TestViewport : public QObject {
    Q_OBJECT
  private slots:
    void initTestCase();
    void folding_data();
    void folding();
    void hitTesting_data();
    void hitTesting();
    void flowCulling_data();
    void flowCulling();
    void search_data();
    void search();
    void searchWholeName();
    void areaSummary_data();
    void areaSummary();
    void areaGroupings_data();
    void areaGroupings();
    void laneLayout_data();
    void laneLayout();
    void trackTitles_data();
    void trackTitles();
    void trackManagement();
    void depthCap();
    void sampleSteps();
    void memoryCounters();
    void counterColumnsWithBlocks();

  private:
    const TraceStore& store(const QString& name);
    std::map<QString, std::unique_ptr<const TraceStore>> m_stores;
};

namespace {
const char* const corpus[] = {
    "../../main/resources/samples/sample.pt.trace.json",
    "AMD-AGI__TraceLens/tests__traces__h100__Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz",
    "AMD-AGI__TraceLens/tests__traces__b200__eager_trace.json.gz",
    "facebookresearch__HolisticTraceAnalysis/"
    "tests__data__with_gpu_user_annotation__step_based_trace_2543932.json.gz",
    "pytorch__kineto/tb_plugin__samples__resnet50_num_workers_0__worker0.pt.trace.json.gz",
};

std::string pathOf(const QString& name) {
    if (name.startsWith(QLatin1String("../../main/")))
        return std::string(KINETOSCOPE_SOURCE_DIR "/") + name.mid(11).toStdString();
    return test::tracePath(name.toUtf8().constData());
}

void addCorpusRows() {
    QTest::addColumn<QString>("trace");
    for (const char* t : corpus)
        QTest::newRow(QString::fromLatin1(t).section(QLatin1Char('/'), -1).left(60).toUtf8().constData())
            << QString::fromLatin1(t);
}

// Windows to test: the whole trace, and windows of 10%, 0.1% and 10 µs at seeded random places.
std::vector<TimeAxis> windowsOf(const TraceStore& s, std::mt19937_64& rng) {
    std::vector<TimeAxis> out{{s.minTime(), s.maxTime() + 1, 1500}};
    const TimeNs span = std::max<TimeNs>(s.maxTime() - s.minTime(), 1000);
    for (double fraction : {0.1, 0.001}) {
        for (int i = 0; i < 3; ++i) {
            const TimeNs w = std::max<TimeNs>(TimeNs(double(span) * fraction), 200);
            const TimeNs a = s.minTime() + TimeNs(rng() % std::uint64_t(span));
            out.push_back({a, a + w, 1000});
        }
    }
    const TimeNs a = s.minTime() + TimeNs(rng() % std::uint64_t(span));
    out.push_back({a, a + 10'000, 1920});
    return out;
}
} // namespace

void TestViewport::initTestCase() {}

const TraceStore& TestViewport::store(const QString& name) {
    auto& slot = m_stores[name];
    if (!slot) {
        LoadResult r = loadTrace(pathOf(name));
        if (!r.ok()) qFatal("cannot load %s: %s", qPrintable(name), r.error.c_str());
        slot = std::move(r.store);
    }
    return *slot;
}

void TestViewport::folding_data() {
    addCorpusRows();
}

void TestViewport::folding() {
    QFETCH(QString, trace);
    const TraceStore& s = store(trace);
    std::mt19937_64 rng(7);
    std::size_t checkedSlices = 0;
    for (const TimeAxis& axis : windowsOf(s, rng)) {
        for (const Track& t : s.tracks()) {
            for (std::uint32_t d = 0; d < t.laneCount(); ++d) {
                std::vector<SliceBox> boxes;
                collectLaneBoxes(t, d, axis, 1.0, boxes);
                // Every slice of the lane that intersects the window is counted in exactly one box...
                std::uint64_t inView = 0;
                for (std::uint32_t r = t.laneBegin[d]; r < t.laneBegin[d + 1]; ++r) {
                    if (t.endOf(r) >= axis.start && t.starts[r] <= axis.end) ++inView;
                }
                std::uint64_t folded = 0;
                for (const SliceBox& b : boxes)
                    folded += b.folded;
                QCOMPARE(folded, inView);
                // ...boxes are in order, at least a pixel wide, and overlap their neighbour by under a
                // pixel...
                for (std::size_t i = 0; i < boxes.size(); ++i) {
                    QVERIFY(boxes[i].x1 - boxes[i].x0 >= 1.0f - 1e-4f);
                    if (i > 0) QVERIFY2(boxes[i].x0 >= boxes[i - 1].x1 - 1.0f - 1e-3f, "boxes out of order");
                }
                // ...drawing cost follows pixels: no more boxes than pixel columns (plus both edges).
                QVERIFY(boxes.size() <= std::size_t(axis.width) + 4);
                // ...and every visible slice lies under some box.
                for (std::uint32_t r = t.laneBegin[d]; r < t.laneBegin[d + 1]; ++r) {
                    if (t.endOf(r) < axis.start || t.starts[r] > axis.end) continue;
                    const float xs = float(std::max(-2.0, axis.xOf(t.starts[r])));
                    const float xe = float(std::min(axis.width + 2, axis.xOf(t.endOf(r))));
                    auto it = std::upper_bound(boxes.begin(), boxes.end(), xe + 1.0f,
                                               [](float x, const SliceBox& b) { return x < b.x0; });
                    bool covered = false;
                    for (auto k = it; k != boxes.begin() && !covered;) {
                        --k;
                        covered = k->x1 >= xs - 1.0f;
                        if (k->x1 < xs - 2.0f && it - k > 3) break;
                    }
                    QVERIFY2(covered, qPrintable(QStringLiteral("slice %1 not under any box").arg(r)));
                    ++checkedSlices;
                }
            }
        }
    }
    QVERIFY(checkedSlices > 0);
}

void TestViewport::hitTesting_data() {
    addCorpusRows();
}

void TestViewport::hitTesting() {
    QFETCH(QString, trace);
    const TraceStore& s = store(trace);
    std::mt19937_64 rng(11);
    int checked = 0;
    for (std::uint32_t ti = 0; ti < s.tracks().size(); ++ti) {
        const Track& t = s.tracks()[ti];
        if (t.sliceCount() == 0) continue;
        for (int k = 0; k < 50; ++k) {
            const std::uint32_t r = std::uint32_t(rng() % t.sliceCount());
            if (t.durations[r] < 3) continue;
            const std::uint32_t d = t.depthOf(r);
            const TimeNs mid = t.starts[r] + t.durations[r] / 2;
            QCOMPARE(sliceAt(t, d, mid, 0), std::optional<std::uint32_t>(r));
            // Just past the end, with slack, the nearest slice is still this one unless a neighbour touches
            // it.
            const auto near = sliceAt(t, d, t.endOf(r) + 1, 1);
            QVERIFY(near.has_value());
            ++checked;
        }
        // A time in no slice of lane 0 finds nothing without slack.
        if (t.laneCount() > 0) QVERIFY(!sliceAt(t, 0, s.minTime() - 1'000'000, 0).has_value());
    }
    QVERIFY(checked > 0);
}

void TestViewport::flowCulling_data() {
    addCorpusRows();
}

void TestViewport::flowCulling() {
    QFETCH(QString, trace);
    const TraceStore& s = store(trace);
    const FlowIndex index(s);
    std::mt19937_64 rng(3);
    for (const TimeAxis& axis : windowsOf(s, rng)) {
        std::set<std::uint32_t> expected, got;
        for (std::uint32_t i = 0; i < s.flows().size(); ++i) {
            TimeNs a = FlowIndex::arrowStart(s, s.flows()[i]);
            TimeNs b = FlowIndex::arrowEnd(s, s.flows()[i]);
            if (b < a) std::swap(a, b);
            if (b >= axis.start && a <= axis.end) expected.insert(i);
        }
        index.forEachInRange(axis.start, axis.end, [&](std::uint32_t i) {
            got.insert(i);
            return true;
        });
        QCOMPARE(got, expected);
        // The zoomed-out timeline's sample: the exact count, and one flow in every `stride` of those
        // crossing.
        for (const std::size_t stride : {std::size_t(1), std::size_t(3), std::size_t(17)}) {
            std::set<std::uint32_t> sampled;
            std::size_t visits = 0;
            const std::size_t count = index.sampleInRange(axis.start, axis.end, stride, [&](std::uint32_t i) {
                sampled.insert(i);
                ++visits;
            });
            QCOMPARE(count, expected.size());
            QCOMPARE(index.countInRange(axis.start, axis.end), expected.size());
            QCOMPARE(visits, (expected.size() + stride - 1) / stride);
            QCOMPARE(sampled.size(), visits);
            QVERIFY(std::includes(expected.begin(), expected.end(), sampled.begin(), sampled.end()));
        }
    }
}

void TestViewport::search_data() {
    QTest::addColumn<QString>("trace");
    QTest::addColumn<QString>("text");
    QTest::addColumn<bool>("regex");
    QTest::addColumn<bool>("caseSensitive");
    const QString qwen = QString::fromLatin1(corpus[1]);
    QTest::newRow("substring") << qwen << QStringLiteral("aten::") << false << false;
    QTest::newRow("substring, any case") << qwen << QStringLiteral("ATEN::MM") << false << false;
    QTest::newRow("substring, case-sensitive misses") << qwen << QStringLiteral("ATEN::MM") << false << true;
    QTest::newRow("regex") << qwen << QStringLiteral("^cuda(LaunchKernel|MemcpyAsync)$") << true << false;
    QTest::newRow("legacy trace") << QString::fromLatin1(corpus[4]) << QStringLiteral("conv") << false
                                  << false;
}

// A table row marks its name on the timeline matched whole: a template kernel name, full of characters a
// regex would take for syntax, is found as written, and only where the name is exactly it.
void TestViewport::searchWholeName() {
    const TraceStore& s = store(QString::fromLatin1(corpus[1]));
    StringId templateName;
    for (const Track& t : s.tracks()) {
        if (t.kind != TrackKind::GpuStream || t.sliceCount() == 0) continue;
        for (StringId n : t.names)
            if (s.strings().view(n).find('<') != std::string_view::npos) templateName = n;
    }
    QVERIFY(templateName.isValid());
    const std::string name(s.strings().view(templateName));
    const SearchResult result = searchSlices(s, {name, true, false, true}); // regex ignored for a whole name
    QVERIFY(result.error.empty());
    std::size_t expected = 0;
    for (const Track& t : s.tracks())
        expected += std::size_t(std::count(t.names.begin(), t.names.end(), templateName));
    QCOMPARE(result.matches.size(), expected);
    for (const EventRef& m : result.matches)
        QCOMPARE(std::string(s.nameOf(m)), name);
    // A part of the name is not the whole name.
    QVERIFY(searchSlices(s, {name.substr(0, name.size() - 1), false, false, true}).matches.empty());
}

void TestViewport::search() {
    QFETCH(QString, trace);
    QFETCH(QString, text);
    QFETCH(bool, regex);
    QFETCH(bool, caseSensitive);
    const TraceStore& s = store(trace);
    const SearchResult result = searchSlices(s, {text.toStdString(), regex, caseSensitive});
    QVERIFY(result.error.empty());
    const QRegularExpression re(regex ? text : QRegularExpression::escape(text),
                                caseSensitive ? QRegularExpression::NoPatternOption
                                              : QRegularExpression::CaseInsensitiveOption);
    std::size_t expected = 0;
    for (const Track& t : s.tracks()) {
        for (StringId n : t.names) {
            const std::string_view v = s.strings().view(n);
            if (re.match(QString::fromUtf8(v.data(), qsizetype(v.size()))).hasMatch()) ++expected;
        }
    }
    QCOMPARE(result.matches.size(), expected);
    for (std::size_t i = 1; i < result.matches.size(); ++i) {
        const auto& a = result.matches[i - 1];
        const auto& b = result.matches[i];
        QVERIFY(s.track(a.track).starts[a.index.value] <= s.track(b.track).starts[b.index.value]);
    }
    if (caseSensitive && text == QLatin1String("ATEN::MM"))
        QCOMPARE(expected, std::size_t(0));
    else
        QVERIFY(expected > 0);
    QVERIFY(!searchSlices(s, {"(unclosed", true, false}).error.empty());
}

void TestViewport::areaSummary_data() {
    addCorpusRows();
}

void TestViewport::areaSummary() {
    QFETCH(QString, trace);
    const TraceStore& s = store(trace);
    std::mt19937_64 rng(5);
    const auto windows = windowsOf(s, rng);
    const TimeAxis window = windows[1];
    std::vector<TrackId> tracks;
    for (std::uint32_t i = 0; i < s.tracks().size(); ++i)
        tracks.push_back(TrackId(i));
    const AreaSummary summary = summarizeArea(s, tracks, window.start, window.end);
    std::map<std::uint32_t, std::pair<std::uint64_t, TimeNs>> expected; // name -> (count, clipped total)
    for (const Track& t : s.tracks()) {
        if (t.kind == TrackKind::Counter) continue;
        for (std::uint32_t r = 0; r < t.sliceCount(); ++r) {
            if (t.endOf(r) < window.start || t.starts[r] > window.end) continue;
            auto& e = expected[t.names[r].value];
            ++e.first;
            e.second += std::min(t.endOf(r), window.end) - std::max(t.starts[r], window.start);
        }
    }
    QCOMPARE(summary.rows.size(), expected.size());
    for (const AreaSummaryRow& row : summary.rows) {
        const auto& e = expected.at(row.name.value);
        QCOMPARE(row.count, e.first);
        QCOMPARE(row.total, e.second);
        QVERIFY(row.self <= row.total && row.self >= 0);
    }
    for (std::size_t i = 1; i < summary.rows.size(); ++i)
        QVERIFY(summary.rows[i - 1].total >= summary.rows[i].total);
}

void TestViewport::areaGroupings_data() {
    addCorpusRows();
}

void TestViewport::areaGroupings() {
    // The same area pivoted by category and by track: the same slices, the same time, only grouped otherwise.
    QFETCH(QString, trace);
    const TraceStore& s = store(trace);
    std::vector<TrackId> tracks;
    for (std::uint32_t i = 0; i < s.tracks().size(); ++i)
        tracks.push_back(TrackId(i));
    const TimeNs from = s.minTime() + (s.maxTime() - s.minTime()) / 4,
                 to = s.maxTime() - (s.maxTime() - s.minTime()) / 4;
    const AreaSummary byName = summarizeArea(s, tracks, from, to);
    auto sums = [](const AreaSummary& a) {
        std::uint64_t count = 0;
        TimeNs total = 0, self = 0;
        for (const AreaSummaryRow& r : a.rows) {
            count += r.count;
            total += r.total;
            self += r.self;
        }
        return std::make_tuple(count, total, self);
    };
    for (AreaGrouping g : {AreaGrouping::Category, AreaGrouping::Track}) {
        const AreaSummary pivot = summarizeArea(s, tracks, from, to, g);
        QCOMPARE(pivot.grouping, g);
        QCOMPARE(pivot.sliceCount, byName.sliceCount);
        QVERIFY(sums(pivot) == sums(byName));
        std::set<std::uint32_t> keys;
        for (const AreaSummaryRow& r : pivot.rows) {
            if (g == AreaGrouping::Track) {
                QVERIFY(r.track.isValid() && r.track.value < s.tracks().size());
                QVERIFY(s.track(r.track).kind != TrackKind::Counter);
                QVERIFY(keys.insert(r.track.value).second);
            } else {
                QVERIFY(std::any_of(s.categories().begin(), s.categories().end(),
                                    [&](const Category& c) { return c.name == r.name; }));
                QVERIFY(keys.insert(r.name.value).second);
            }
        }
        // A category's row holds exactly its slices.
        if (g == AreaGrouping::Category && !pivot.rows.empty()) {
            const AreaSummaryRow& top = pivot.rows.front();
            std::uint64_t count = 0;
            for (const Track& t : s.tracks()) {
                if (t.kind == TrackKind::Counter) continue;
                for (std::uint32_t r = 0; r < t.sliceCount(); ++r)
                    if (s.categories()[t.categories[r]].name == top.name && t.endOf(r) >= from &&
                        t.starts[r] <= to)
                        ++count;
            }
            QCOMPARE(top.count, count);
        }
    }
}

void TestViewport::trackTitles_data() {
    QTest::addColumn<QString>("json");
    QTest::addColumn<QString>("title");
    QTest::addColumn<QString>("tid");
    // Kineto's thread ids are signed 32-bit: the top bit set reads negative, the OS's id is the unsigned one.
    QTest::newRow("negative tid") << R"([{"ph":"X","name":"a","pid":1,"tid":-549452224,"ts":0,"dur":1}])"
                                  << "thread 3745515072"
                                  << "3745515072";
    QTest::newRow("named thread")
        << R"([{"ph":"M","name":"thread_name","pid":1,"tid":7,"args":{"name":"python"}},{"ph":"X","name":"a","pid":1,"tid":7,"ts":0,"dur":1}])"
        << "python (7)"
        << "7";
    // Kineto's name for a thread without one: "thread 7 ()" reads "thread 7".
    QTest::newRow("unnamed thread, Kineto's empty parentheses")
        << R"j([{"ph":"M","name":"thread_name","pid":1,"tid":7,"args":{"name":"thread 7 ()"}},{"ph":"X","name":"a","pid":1,"tid":7,"ts":0,"dur":1}])j"
        << "thread 7"
        << "7";
    // A GPU stream whose tid is text: the stream as written, never "tid 0".
    QTest::newRow("GPU stream as text")
        << R"([{"ph":"X","cat":"kernel","name":"k","pid":0,"tid":"stream 7","ts":0,"dur":1}])"
        << "GPU 0 · stream 7"
        << "stream 7";
}

void TestViewport::trackTitles() {
    QFETCH(QString, json);
    QFETCH(QString, title);
    QFETCH(QString, tid);
    const LoadResult r = test::loadText(json.toStdString());
    QVERIFY2(r.ok(), r.error.c_str());
    const TraceStore& s = *r.store;
    QVERIFY(!s.tracks().empty());
    QCOMPARE(QString::fromStdString(trackTitle(s, TrackId(0))), title);
    QCOMPARE(QString::fromStdString(threadIdText(s, s.track(TrackId(0)))), tid);
}

void TestViewport::trackManagement() {
    // Filter by name, pin to the top, empty counter lanes hidden: on a real trace with memory counters.
    const TraceStore& s = store(QString::fromLatin1(corpus[1]));
    LaneLayout layout(s);
    const std::size_t all = layout.rows().size();
    // "Memory reserved · CPU" never leaves 0: hidden from the start, and counted.
    std::size_t emptyCounters = 0;
    for (std::uint32_t t = 0; t < s.tracks().size(); ++t) {
        const Track& track = s.tracks()[t];
        if (track.kind != TrackKind::Counter) continue;
        const bool empty = std::all_of(track.counterValues.begin(), track.counterValues.end(),
                                       [](double v) { return v == 0; });
        emptyCounters += empty;
        QCOMPARE(layout.isHidden(TrackId(t)), empty);
        QCOMPARE(layout.firstRowOf(TrackId(t)) < 0, empty);
    }
    QVERIFY(emptyCounters >= 1);
    QCOMPARE(layout.hiddenCount(), emptyCounters);

    // A filter keeps the tracks whose title (or group title) matches, and no group without one.
    layout.setTrackFilter("STREAM");
    QVERIFY(layout.rows().size() < all);
    int streams = 0;
    for (const LaneRow& row : layout.rows()) {
        if (row.kind == LaneRow::Kind::GroupHeader) continue;
        QVERIFY2(QString::fromStdString(layout.trackTitle(row.track))
                     .contains(QLatin1String("stream"), Qt::CaseInsensitive),
                 layout.trackTitle(row.track).c_str());
        streams += s.track(row.track).kind == TrackKind::GpuStream && row.depth == 0;
    }
    QVERIFY(streams >= 1);
    for (std::size_t i = 0; i + 1 < layout.rows().size(); ++i)
        if (layout.rows()[i].kind == LaneRow::Kind::GroupHeader)
            QVERIFY(layout.rows()[i + 1].kind != LaneRow::Kind::GroupHeader);
    layout.setTrackFilter("no track has this name");
    QVERIFY(layout.rows().empty());
    layout.setTrackFilter("");
    QCOMPARE(layout.rows().size(), all);

    // Pinning moves a track into a "Pinned" group at the top, out of its own; unpinning puts it back.
    TrackId stream;
    for (std::uint32_t t = 0; t < s.tracks().size() && !stream.isValid(); ++t)
        if (s.tracks()[t].kind == TrackKind::GpuStream) stream = TrackId(t);
    const int before = layout.firstRowOf(stream);
    const std::string shortTitle = layout.laneTitle(stream);
    QVERIFY2(shortTitle.rfind("stream", 0) == 0, shortTitle.c_str());
    layout.setPinned(stream, true);
    QVERIFY(layout.isPinned(stream));
    // Under "Pinned" no device header names the GPU: the lane does.
    QCOMPARE(layout.laneTitle(stream), "GPU " + std::to_string(s.track(stream).pid) + " · " + shortTitle);
    QCOMPARE(layout.rows()[0].kind, LaneRow::Kind::GroupHeader);
    QCOMPARE(layout.groups()[layout.rows()[0].group].title, std::string("Pinned"));
    QCOMPARE(layout.firstRowOf(stream), 1);
    // One header more ("Pinned"), and one fewer when the stream was its group's only track.
    const bool alone = layout.groups()[layout.groupOf(stream)].tracks.size() == 1;
    QCOMPARE(layout.rows().size(), all + 1 - (alone ? 1 : 0));
    layout.setPinned(stream, false);
    QCOMPARE(layout.laneTitle(stream), shortTitle);
    QCOMPARE(layout.firstRowOf(stream), before);
    QCOMPARE(layout.rows().size(), all);
}

void TestViewport::depthCap() {
    // Stacked views show at most N lanes of a thread; a deeper slice's place is the last lane shown, and an
    // opened thread shows all its lanes again.
    const TraceStore& s = store(QString::fromLatin1(corpus[4])); // resnet50: deep operator stacks
    LaneLayout layout(s);
    TrackId deep;
    for (std::uint32_t t = 0; t < s.tracks().size(); ++t)
        if (s.tracks()[t].kind == TrackKind::CpuThread && s.tracks()[t].laneCount() > 6 &&
            (!deep.isValid() || s.tracks()[t].laneCount() > s.track(deep).laneCount()))
            deep = TrackId(t);
    QVERIFY(deep.isValid());
    const Track& t = s.track(deep);
    const std::size_t all = layout.rows().size();
    layout.setDepthCap(4);
    QCOMPARE(layout.cappedLanes(deep), std::uint32_t(t.laneCount() - 4));
    QVERIFY(layout.rows().size() < all);
    const int first = layout.firstRowOf(deep);
    int lanesShown = 0;
    for (const LaneRow& row : layout.rows())
        lanesShown += row.track == deep;
    QCOMPARE(lanesShown, 4);
    const std::uint32_t deepest = t.laneBegin[t.laneCount() - 1];
    QCOMPARE(layout.rowOf({deep, EventIndex(deepest)}), first + 3);
    QCOMPARE(layout.rowOf({deep, EventIndex(t.laneBegin[1])}), first + 1);
    layout.setUncapped(deep, true);
    QCOMPARE(layout.cappedLanes(deep), 0u);
    QCOMPARE(layout.rowOf({deep, EventIndex(deepest)}), first + int(t.laneCount()) - 1);
    layout.setUncapped(deep, false);
    layout.setDepthCap(0);
    QCOMPARE(layout.rows().size(), all);
}

void TestViewport::laneLayout_data() {
    addCorpusRows();
}

void TestViewport::laneLayout() {
    QFETCH(QString, trace);
    const TraceStore& s = store(trace);
    LaneLayout layout(s);
    const auto& rows = layout.rows();
    QVERIFY(!rows.empty());
    for (std::size_t i = 0; i < rows.size(); ++i) {
        if (i > 0) QVERIFY(rows[i].y >= rows[i - 1].y + rows[i - 1].height);
        QCOMPARE(layout.rowAt(rows[i].y + rows[i].height / 2), int(i));
    }
    // Every track appears under exactly one group; slices map to their track's row plus their lane.
    std::size_t tracks = 0;
    for (const LaneGroup& g : layout.groups())
        tracks += g.tracks.size();
    QCOMPARE(tracks, s.tracks().size());
    for (std::uint32_t ti = 0; ti < s.tracks().size(); ++ti) {
        const Track& t = s.tracks()[ti];
        if (t.sliceCount() == 0) continue;
        const std::uint32_t last = std::uint32_t(t.sliceCount() - 1);
        const int row = layout.rowOf({TrackId(ti), EventIndex(last)});
        QCOMPARE(row, layout.firstRowOf(TrackId(ti)) + int(t.depthOf(last)));
        QCOMPARE(rows[std::size_t(row)].track, TrackId(ti));
        if (t.kind == TrackKind::GpuStream && !s.metadata().devices.empty()) {
            QVERIFY2(
                QString::fromStdString(layout.trackTitle(TrackId(ti))).contains(QStringLiteral(" · stream ")),
                layout.trackTitle(TrackId(ti)).c_str());
        }
    }
    // Collapsing a group sends its slices to the group's header row and shortens the content.
    const double before = layout.contentHeight();
    const TrackId first(0);
    const std::uint32_t group = layout.groupOf(first);
    layout.setCollapsed(group, true);
    QVERIFY(layout.contentHeight() < before);
    if (s.tracks()[0].sliceCount() > 0) {
        const int header = layout.rowOf({first, EventIndex(0)});
        QCOMPARE(rows[std::size_t(header)].kind, LaneRow::Kind::GroupHeader);
        QCOMPARE(rows[std::size_t(header)].group, group);
    }
    layout.setCollapsed(group, false);
    QCOMPARE(layout.contentHeight(), before);
    layout.setHidden(first, true);
    QCOMPARE(layout.firstRowOf(first), -1);
    layout.setHidden(first, false);
    QVERIFY(layout.firstRowOf(first) >= 0);
}

void TestViewport::sampleSteps() {
    const TraceStore& s = store(QString::fromLatin1(corpus[0]));
    QCOMPARE(findSteps(s).size(), std::size_t(3));
    QCOMPARE(std::string(s.strings().view(findSteps(s)[0].name)), std::string("ProfilerStep#2"));
    // On every trace with steps: a step never starts before its host range nor before the previous step's
    // end, and ends no earlier than its host range (tst_overview checks the exact ranges against the
    // plugin's).
    int tracesWithSteps = 0, extended = 0;
    for (const char* name : corpus) {
        const TraceStore& t = store(QString::fromLatin1(name));
        const std::vector<StepRange> steps = findSteps(t);
        if (!steps.empty()) ++tracesWithSteps;
        TimeNs previousEnd = std::numeric_limits<TimeNs>::min();
        for (const StepRange& st : steps) {
            QVERIFY(st.start >= st.cpuStart);
            QVERIFY(st.start >= previousEnd);
            QVERIFY(st.end >= std::max(st.cpuEnd, st.start));
            if (st.end > st.cpuEnd) ++extended;
            previousEnd = st.end;
        }
    }
    QVERIFY(tracesWithSteps >= 2);
    QVERIFY2(extended > 0, "no step on any trace was extended by its GPU work");
}

// The store build turns `[memory]` events into counter tracks, after every other track.
void TestViewport::memoryCounters() {
    LoadResult r = loadTrace(pathOf(QString::fromLatin1(corpus[0])));
    QVERIFY(r.ok());
    const TraceStore& s = *r.store;
    std::size_t memoryEvents = 0;
    const StringId memory = s.strings().find("[memory]");
    for (const Track& t : s.tracks())
        memoryEvents += std::size_t(std::count(t.names.begin(), t.names.end(), memory));
    QVERIFY(memoryEvents > 0);
    QVERIFY(s.tracks().size() >= 2);
    const std::size_t first = s.tracks().size() - 2;
    const Track& allocated = s.tracks()[first];
    QCOMPARE(allocated.kind, TrackKind::Counter);
    QCOMPARE(std::string(s.strings().view(allocated.name)), std::string("Memory allocated · GPU 0"));
    QCOMPARE(allocated.counterTimes.size(), memoryEvents);
    QVERIFY(std::is_sorted(allocated.counterTimes.begin(), allocated.counterTimes.end()));
    // The generator allocates and frees the same amount every step: the total returns to zero.
    QCOMPARE(allocated.counterValues.back(), 0.0);
    QVERIFY(*std::max_element(allocated.counterValues.begin(), allocated.counterValues.end()) > 0);
    QCOMPARE(std::string(s.strings().view(s.tracks()[first + 1].name)),
             std::string("Memory reserved · GPU 0"));
}

// The blocks only save reading: on a real trace's memory counters (the Qwen inference trace's, which the 1 GB
// benchmark trace repeats), every column is the same with them as without, at every zoom, and the peak over a
// view's columns is the peak of the samples in it.
void TestViewport::counterColumnsWithBlocks() {
    for (const char* name : {corpus[1]}) {
        const TraceStore& s = store(QString::fromLatin1(name));
        std::mt19937_64 rng(11);
        int checked = 0;
        for (const Track& t : s.tracks()) {
            if (t.kind != TrackKind::Counter || t.counterTimes.size() < 2 * CounterBlocks::size) continue;
            const CounterBlocks blocks = CounterBlocks::of(t);
            const TimeNs lo = t.counterTimes.front(), span = t.counterTimes.back() - lo + 1;
            for (int k = 0; k < 60; ++k) {
                const TimeNs width = std::max<TimeNs>(1, span >> (k % 16));
                const TimeNs start = lo - width / 8 + TimeNs(rng() % std::uint64_t(span));
                const TimeAxis axis{start, start + width, double(100 + rng() % 1900)};
                std::vector<CounterColumn> plain, fast;
                collectCounterColumns(t, axis, plain);
                collectCounterColumns(t, axis, fast, &blocks);
                QCOMPARE(fast.size(), plain.size());
                for (std::size_t i = 0; i < plain.size(); ++i) {
                    QCOMPARE(fast[i].x, plain[i].x);
                    QCOMPARE(fast[i].minValue, plain[i].minValue);
                    QCOMPARE(fast[i].maxValue, plain[i].maxValue);
                    QCOMPARE(fast[i].lastValue, plain[i].lastValue);
                }
                // Brute force: the samples inside the view, and the one in force at its left edge.
                double peak = -1e300;
                for (std::size_t i = 0; i < t.counterTimes.size(); ++i)
                    if (t.counterTimes[i] <= axis.end &&
                        (t.counterTimes[i] >= axis.start ||
                         (i + 1 < t.counterTimes.size() && t.counterTimes[i + 1] > axis.start) ||
                         i + 1 == t.counterTimes.size()))
                        peak = std::max(peak, t.counterValues[i]);
                double columnsPeak = -1e300;
                for (const CounterColumn& c : fast)
                    columnsPeak = std::max(columnsPeak, c.maxValue);
                if (!fast.empty()) QCOMPARE(columnsPeak, peak);
                ++checked;
            }
        }
        QVERIFY2(checked > 0, name);
    }
}

QTEST_APPLESS_MAIN(TestViewport)
#include "tst_viewport.moc"
