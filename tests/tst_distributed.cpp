// Several ranks of one job: per-rank figures on the real sampled rank pair, the per-rank summary JSON that
// lets a batch system summarise thousands of ranks (round trip), the cross-rank synchronisation split,
// stragglers, and the distributed view from traces and from summaries.
#include "analysis/jobs/job.h"
#include "analysis/report/summaryformat.h"
#include "charts/rankheatmap.h"
#include "panels/detailspanel.h"
#include "shell/mainwindow.h"
#include "tables/tablecells.h"
#include "testsupport.h"
#include "timeline/timelinerenderer.h"
#include "timeline/timelinewidget.h"
#include "views/distributedview.h"
#include "views/jobfigures.h"

#include <cstring>

#include "query/search.h"
#include "timeline/searchbar.h"
#include "views/collectivecallspanel.h"
#include <QApplication>
#include <QComboBox>
#include <QFile>
#include <QFileInfo>
#include <QHeaderView>
#include <QLabel>
#include <QProcess>
#include <QScrollArea>
#include <QScrollBar>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTableView>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QWheelEvent>

using namespace kinetoscope;

class TestDistributed : public QObject {
    Q_OBJECT
  private slots:
    void perRankFigures_data();
    void perRankFigures();
    void summaryRoundTrip();
    void synchronisationSplit();
    void stragglers();
    void collectiveBytes_data();
    void collectiveBytes();
    void viewFromTraces();
    void viewFromSummaries();
    void alignmentSurvivesFitAndZoomOnAnyRank();
    void eightRanksDoNotGrowTheWindow();
    void detailsOfAnyRank();
    void heatMapRowsFold_data();
    void heatMapRowsFold();
    void thousandRanks();
    void stragglerOpensBesideTheMedianRank();
    void eightRanksFitAScreen();
    void findAcrossRanks();
    void collectiveToItsCallsOnEveryRank();

  private:
    QString rankPath(int r) const {
        return QString::fromStdString(test::tracePath(
            r == 0
                ? "facebookresearch__HolisticTraceAnalysis/tests__data__trace_filter__sampled_rank-0.json.gz"
                : "facebookresearch__HolisticTraceAnalysis/"
                  "tests__data__trace_filter__sampled_rank-1.json.gz"));
    }
};

void TestDistributed::perRankFigures_data() {
    QTest::addColumn<int>("rank");
    QTest::newRow("rank 0") << 0;
    QTest::newRow("rank 1") << 1;
}

void TestDistributed::perRankFigures() {
    QFETCH(int, rank);
    LoadResult r = loadTrace(rankPath(rank).toStdString());
    QVERIFY(r.ok());
    const RankFigures f = rankFigures(*r.store);
    QCOMPARE(f.rank, std::int64_t(rank));
    QCOMPARE(f.worldSize, std::int64_t(128));
    QVERIFY(!f.steps.empty());
    for (const RankStep& s : f.steps) {
        QCOMPARE(s.computation + s.communication + s.overlap + s.other, s.end - s.start);
        QVERIFY(s.computation >= 0 && s.communication >= 0 && s.overlap >= 0 && s.other >= 0);
    }
    QVERIFY(f.communication + f.overlap > 0);
    QVERIFY(!f.collectives.empty());
    TimeNs collectiveTotal = 0;
    for (const CollectiveStats& c : f.collectives)
        collectiveTotal += c.total;
    QVERIFY(collectiveTotal > 0);
}

void TestDistributed::summaryRoundTrip() {
    LoadResult r = loadTrace(rankPath(0).toStdString());
    QVERIFY(r.ok());
    const auto report = computeAnalysis(*r.store, std::nullopt, OperatorGrouping::Name, KernelGrouping::Name);
    const std::string json = summaryToJson(report->summary, report.get());
    std::string error;
    const auto back = readRankFigures(json, &error);
    QVERIFY2(back.has_value(), error.c_str());
    const RankFigures& f = report->distributed;
    QCOMPARE(back->rank, f.rank);
    QCOMPARE(back->worldSize, f.worldSize);
    QCOMPARE(back->stepMean, f.stepMean);
    QCOMPARE(back->steps.size(), f.steps.size());
    for (std::size_t i = 0; i < f.steps.size(); ++i) {
        QCOMPARE(back->steps[i].name, f.steps[i].name);
        QCOMPARE(back->steps[i].computation, f.steps[i].computation);
        QCOMPARE(back->steps[i].other, f.steps[i].other);
    }
    QCOMPARE(back->computation, f.computation);
    QCOMPARE(back->collectives.size(), f.collectives.size());
    QCOMPARE(back->collectives[0].total, f.collectives[0].total);
    QVERIFY(!readRankFigures("{\"events\": 1}", &error));
    QVERIFY(error.find("distributed") != std::string::npos);
    QVERIFY(!readRankFigures("not json", &error));
}

void TestDistributed::synchronisationSplit() {
    // Two ranks on two hosts whose clocks are 5 ms apart, one all-reduce each in step 1: rank 0 arrives 30 µs
    // before rank 1, and both kernels end together (the collective transfers once both are there). Aligned on
    // that end, rank 0 waited 30 µs and each transferred 100 µs.
    std::vector<RankFigures> ranks(2);
    for (int r = 0; r < 2; ++r) {
        RankFigures& f = ranks[std::size_t(r)];
        f.rank = r;
        f.steps.push_back({.name = "ProfilerStep#1", .start = r * 5'000'000, .end = r * 5'000'000 + 500'000});
        f.collectives.push_back({.name = "AllReduce", .calls = 1, .total = r == 0 ? 130'000 : 100'000});
        f.instances.push_back({0, 0, 0, r == 0 ? 10'000 : 40'000, 140'000});
    }
    const JobReport job = analyseJob(std::move(ranks));
    QVERIFY(!job.sharedClock);
    QCOMPARE(job.ranks[0].collectives[0].synchronization, TimeNs(30'000));
    QCOMPARE(job.ranks[0].collectives[0].transfer, TimeNs(100'000));
    QCOMPARE(job.ranks[1].collectives[0].synchronization, TimeNs(0));
    QCOMPARE(job.ranks[1].collectives[0].transfer, TimeNs(100'000));
    QCOMPARE(job.collectives.size(), std::size_t(1));
    QCOMPARE(job.collectives[0].lastToArrive.size(), std::size_t(1));
    QCOMPARE(job.ranks[job.collectives[0].lastToArrive[0].rank].rank, std::int64_t(1));
}

void TestDistributed::stragglers() {
    std::vector<RankFigures> ranks(3);
    const TimeNs compute[] = {100, 102, 150};
    for (int i = 0; i < 3; ++i) {
        ranks[std::size_t(i)].rank = i;
        ranks[std::size_t(i)].steps.push_back(
            {.name = "ProfilerStep#1", .end = 1000, .computation = compute[i]});
    }
    const JobReport job = analyseJob(std::move(ranks));
    QCOMPARE(job.stragglers.size(), std::size_t(1));
    QCOMPARE(job.ranks[job.stragglers[0].rank].rank, std::int64_t(2));
    QCOMPARE(job.stragglers[0].excess, TimeNs(48)); // over the median rank's 102
}

void TestDistributed::collectiveBytes_data() {
    QTest::addColumn<bool>("onKernel");
    QTest::newRow("sizes on the kernel") << true;
    QTest::newRow("sizes only on record_param_comms") << false;
}

// TraceLens' b200 trace, rank 0 of 8: one all-gather of 201 088 BFloat16 elements out (25 136 in). Its size
// is the gathered output, as nccl-tests and TraceLens' "Full msg size" count it (docs/DEFINITIONS.md,
// "Collectives").
void TestDistributed::collectiveBytes() {
    QFETCH(bool, onKernel);
    std::string text =
        test::readText(test::tracePath("AMD-AGI__TraceLens/tests__traces__b200__eager_trace.json.gz"));
    QVERIFY(!text.empty());
    if (!onKernel) {
        // Older Kineto writes the sizes on the CPU operator only: hide them from the kernel's args.
        const std::size_t kernel = text.find("\"ncclDevKernel_AllGather");
        QVERIFY(kernel != std::string::npos);
        for (const char* key : {"\"In msg nelems\"", "\"Out msg nelems\""}) {
            const std::size_t at = text.find(key, kernel);
            QVERIFY(at != std::string::npos);
            text.replace(at, std::strlen(key), std::string(key).insert(1, "x-"));
        }
    }
    const LoadResult r = test::loadText(text);
    QVERIFY(r.ok());
    const RankFigures f = rankFigures(*r.store);
    QCOMPARE(f.collectives.size(), std::size_t(1));
    QCOMPARE(f.collectives[0].name, std::string("_allgather_base"));
    QCOMPARE(f.collectives[0].calls, std::uint64_t(1));
    QCOMPARE(f.collectives[0].bytes, 201088.0 * 2);
}

void TestDistributed::viewFromTraces() {
    DistributedView view({rankPath(0), rankPath(1)});
    view.resize(1400, 900);
    view.show();
    QSignalSpy ready(&view, &DistributedView::ready);
    QVERIFY(view.isReady() || ready.wait(60000));
    QCOMPARE(view.ranks().size(), std::size_t(2));
    QCOMPARE(view.rankTable()->rowCount(), 2);
    // Sorted by rank, ascending, as the header's arrow says.
    QCOMPARE(view.rankTable()->item(0, 0)->text(), QStringLiteral("0"));
    QCOMPARE(view.rankTable()->item(1, 0)->text(), QStringLiteral("1"));
    QCOMPARE(view.rankTable()->horizontalHeader()->sortIndicatorOrder(), Qt::AscendingOrder);
    QVERIFY(view.collectiveTable()->rowCount() >= 2);
    // These ranks record no message sizes: no column of empty Bytes cells.
    bool anyBytes = false;
    for (const RankFigures& r : view.ranks())
        for (const CollectiveStats& c : r.collectives)
            anyBytes = anyBytes || c.bytes > 0;
    QCOMPARE(view.collectiveTable()->isColumnHidden(3), !anyBytes);
    // With both ranks loaded, collective time splits into waiting and transfer.
    TimeNs sync = 0;
    for (const RankFigures& r : view.ranks()) {
        for (const CollectiveStats& c : r.collectives) {
            QCOMPARE(c.synchronization + c.transfer, c.total);
            sync += c.synchronization;
        }
    }
    QVERIFY(sync > 0);
    QCOMPARE(view.timelines().size(), std::size_t(2));
    // Aligned by first step and zoomed together.
    TimelineWidget* a = view.timelines()[0];
    TimelineWidget* b = view.timelines()[1];
    a->zoomBy(0.5);
    QCOMPARE(b->axis().start - a->axis().start, view.shiftOf(1) - view.shiftOf(0));
    QCOMPARE(b->axis().span(), a->axis().span());
    // Zoomed all the way out on rank 0, whose trace is the longer at both ends: rank 1 stays aligned.
    a->zoomBy(1000);
    QCOMPARE(b->axis().start - a->axis().start, view.shiftOf(1) - view.shiftOf(0));
    QCOMPARE(b->axis().span(), a->axis().span());
    view.alignment()->setCurrentIndex(1); // by clock
    QCOMPARE(b->axis().start - a->axis().start, view.shiftOf(1) - view.shiftOf(0));
    QVERIFY(!view.stragglerLabel()->text().isEmpty());
}

// A slow rank's trace is longer than the others' (its last step takes 26 ms, theirs 10). Selecting a kernel
// on it and pressing 0, dragging on its ruler, or zooming out on it used to clamp the other ranks to their
// own shorter traces, shifting them 11-16 ms against it so that its late step looked on time. Every fit and
// zoom, from any rank, keeps the chosen alignment on every rank.
void TestDistributed::alignmentSurvivesFitAndZoomOnAnyRank() {
    QTemporaryDir dir;
    QStringList paths;
    for (int rank : {0, 1}) {
        // Each rank on a clock of its own (a different base); three steps, one kernel each.
        const long long base = rank == 0 ? 1000000 : 1005000;
        const int lengths[3] = {10000, 10000, rank == 1 ? 26000 : 10000};
        std::string events;
        long long at = base;
        for (int step = 0; step < 3; ++step) {
            const std::string n = std::to_string(step + 1);
            events += std::string(events.empty() ? "" : ",\n") +
                      "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#" + n +
                      "\",\"pid\":1,\"tid\":1,\"ts\":" + std::to_string(at) +
                      ",\"dur\":" + std::to_string(lengths[step]) + "},\n" +
                      "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,"
                      "\"tid\":1,\"ts\":" +
                      std::to_string(at + 100) + ",\"dur\":5,\"args\":{\"correlation\":" + n + "}},\n" +
                      "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\",\"pid\":0,\"tid\":7,\"ts\":" +
                      std::to_string(at + lengths[step] - 600) +
                      ",\"dur\":500,\"args\":{\"correlation\":" + n + ",\"device\":0,\"stream\":7}}";
            at += lengths[step];
        }
        const QString path = dir.filePath(QStringLiteral("rank%1.json").arg(rank));
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(("{\"distributedInfo\":{\"rank\":" + std::to_string(rank) +
                 ",\"world_size\":2,\"backend\":\"nccl\"},\"traceEvents\":[\n" + events + "\n]}")
                    .c_str());
        paths << path;
    }
    DistributedView view(paths);
    view.resize(1400, 900);
    view.show();
    QSignalSpy ready(&view, &DistributedView::ready);
    QVERIFY(view.isReady() || ready.wait(60000));
    QCOMPARE(view.timelines().size(), std::size_t(2));
    TimelineWidget* normal = view.timelines()[0];
    TimelineWidget* slow = view.timelines()[1];
    const auto aligned = [&] {
        return slow->axis().start - view.shiftOf(1) == normal->axis().start - view.shiftOf(0) &&
               slow->axis().span() == normal->axis().span();
    };
    const auto why = [&] {
        return QStringLiteral("normal rank from %1, slow rank from %2 (shifted), spans %3 and %4")
            .arg(normal->axis().start - view.shiftOf(0))
            .arg(slow->axis().start - view.shiftOf(1))
            .arg(normal->axis().span())
            .arg(slow->axis().span());
    };
    for (int byClock : {0, 1}) {
        view.alignment()->setCurrentIndex(byClock);
        QVERIFY2(aligned(), qPrintable(why()));
        // A kernel on the slow rank selected, then 0: every rank fits, the slow rank's late step included.
        const TraceStore& s = slow->store();
        for (std::uint32_t t = 0; t < s.tracks().size(); ++t)
            if (s.tracks()[t].kind == TrackKind::GpuStream) slow->setSelected({TrackId(t), EventIndex(2)});
        slow->setFocus();
        QTest::keyClick(slow, Qt::Key_0);
        QVERIFY2(aligned(), qPrintable(why()));
        QVERIFY(normal->axis().end - view.shiftOf(0) >= s.maxTime() - view.shiftOf(1));
        // A drag on the slow rank's ruler over its last fifth, where only it still has work.
        const int y = int(TimelineRenderer::rulerHeight / 2);
        const double width = slow->frame().axis.width;
        const QPoint from(int(TimelineRenderer::headerWidth + 0.8 * width), y);
        const QPoint to(int(TimelineRenderer::headerWidth + width - 2), y);
        QTest::mousePress(slow, Qt::LeftButton, {}, from);
        QTest::mouseMove(slow, to);
        QTest::mouseRelease(slow, Qt::LeftButton, {}, to);
        QVERIFY2(aligned(), qPrintable(why()));
        // Zoomed out to the limit on the slow rank, then a fit from the normal one.
        for (int k = 0; k < 40; ++k)
            slow->zoomBy(1 / 0.8);
        QVERIFY2(aligned(), qPrintable(why()));
        normal->fitAll();
        QVERIFY2(aligned(), qPrintable(why()));
    }
}

void TestDistributed::viewFromSummaries() {
    QTemporaryDir dir;
    QStringList summaries;
    for (int r : {0, 1}) {
        QProcess p;
        p.start(QStringLiteral(KINETOSCOPE_CLI),
                {QStringLiteral("summary"), rankPath(r), QStringLiteral("--json")});
        QVERIFY(p.waitForFinished(60000));
        QCOMPARE(p.exitCode(), 0);
        const QString path = dir.filePath(QStringLiteral("rank-%1.summary.json").arg(r));
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(p.readAllStandardOutput());
        summaries << path;
    }
    DistributedView fromSummaries(summaries);
    DistributedView fromTraces({rankPath(0), rankPath(1)});
    QSignalSpy a(&fromSummaries, &DistributedView::ready), b(&fromTraces, &DistributedView::ready);
    QVERIFY(fromSummaries.isReady() || a.wait(60000));
    QVERIFY(fromTraces.isReady() || b.wait(60000));
    QVERIFY(fromSummaries.timelines().empty()); // no timelines without the traces
    for (std::size_t i = 0; i < 2; ++i) {
        QCOMPARE(fromSummaries.ranks()[i].rank, fromTraces.ranks()[i].rank);
        QCOMPARE(fromSummaries.ranks()[i].computation, fromTraces.ranks()[i].computation);
        QCOMPARE(fromSummaries.ranks()[i].communication, fromTraces.ranks()[i].communication);
        QCOMPARE(fromSummaries.ranks()[i].collectives.size(), fromTraces.ranks()[i].collectives.size());
        // The summaries carry each collective's runs: the waits split as from the traces.
        for (std::size_t c = 0; c < fromTraces.ranks()[i].collectives.size(); ++c)
            QCOMPARE(fromSummaries.ranks()[i].collectives[c].synchronization,
                     fromTraces.ranks()[i].collectives[c].synchronization);
    }
}

// The distributed window of eight ranks opened 1400x1605 on a 1080-line screen: the ranks' 160 px timelines
// raised the window's minimum to their sum, and Qt grew it. The ranks now scroll, and the window keeps its
// size.
void TestDistributed::eightRanksDoNotGrowTheWindow() {
    MainWindow window;
    window.resize(1400, 900);
    window.show();
    QStringList files;
    for (int k = 0; k < 4; ++k)
        files << rankPath(0) << rankPath(1);
    DistributedView* view = window.openDistributed(files);
    QVERIFY(view);
    QSignalSpy ready(view, &DistributedView::ready);
    QVERIFY(view->isReady() || ready.wait(120000));
    QCOMPARE(view->timelines().size(), std::size_t(8));
    QTest::qWait(50); // the layouts settle
    QVERIFY2(window.minimumSizeHint().height() <= 900 && window.minimumHeight() <= 900,
             qPrintable(QStringLiteral("minimum height %1").arg(window.minimumSizeHint().height())));
    QCOMPARE(window.size(), QSize(1400, 900));
    // Issue 52 item 11: compact panes, each as tall as what it shows (nothing scrolls inside a pane), the
    // GPU streams pinned first and every one shown, a lane a CPU thread, the GPUs' derived lanes folded; the
    // plain wheel is the list's wherever the pointer is (a pane leaves it), Ctrl+wheel still zooms.
    for (TimelineWidget* t : view->timelines()) {
        QCOMPARE(t->height(), t->contentHeightPx());
        QCOMPARE(t->layout().depthCap(), 1u);
        std::size_t streams = 0, shown = 0;
        for (std::uint32_t k = 0; k < t->store().tracks().size(); ++k)
            streams += t->store().tracks()[k].kind == TrackKind::GpuStream;
        for (const LaneRow& r : t->layout().rows())
            shown += r.track.isValid() && r.track.value < t->store().tracks().size() &&
                     t->store().track(r.track).kind == TrackKind::GpuStream;
        QCOMPARE(shown, streams);
        for (const LaneGroup& g : t->layout().groups())
            if (g.kind == LaneGroup::Kind::Gpu) QVERIFY(g.collapsed);
        // HTA's ranks: all of five streams, two threads and the folded groups in under 150 px (a 160 px pane
        // scrolled to show them).
        QVERIFY2(t->height() < 150, qPrintable(QString::number(t->height())));
        const QPointF at(TimelineRenderer::headerWidth + 100, t->height() / 2.0);
        QWheelEvent plain(at, t->mapToGlobal(at), QPoint(), QPoint(0, -120), Qt::NoButton, Qt::NoModifier,
                          Qt::NoScrollPhase, false);
        QApplication::sendEvent(t, &plain);
        QVERIFY(!plain.isAccepted());
    }
    TimelineWidget* first = view->timelines().front();
    const TimeNs span = first->axis().span();
    const QPointF at(TimelineRenderer::headerWidth + 100, first->height() / 2.0);
    QWheelEvent zoom(at, first->mapToGlobal(at), QPoint(), QPoint(0, 120), Qt::NoButton, Qt::ControlModifier,
                     Qt::NoScrollPhase, false);
    QApplication::sendEvent(first, &zoom);
    QVERIFY(first->axis().span() < span);
}

// The distributed timelines have a Details panel: a slice clicked on any rank shows there, its links lead on
// that rank's timeline.
void TestDistributed::detailsOfAnyRank() {
    DistributedView view({rankPath(0), rankPath(1)});
    view.resize(1400, 900);
    view.show();
    QSignalSpy ready(&view, &DistributedView::ready);
    QVERIFY(view.isReady() || ready.wait(60000));
    QVERIFY(!view.details());
    TimelineWidget* b = view.timelines()[1];
    const TraceStore& s = b->store();
    EventRef kernel;
    for (std::uint32_t t = 0; t < s.tracks().size() && !kernel.isValid(); ++t)
        if (s.tracks()[t].kind == TrackKind::GpuStream && s.tracks()[t].sliceCount() > 0)
            kernel = {TrackId(t), EventIndex(0)};
    QVERIFY(kernel.isValid());
    b->setSelected(kernel);
    QVERIFY(view.details());
    QCOMPARE(view.details()->shown(), kernel);
    QTabWidget* tabs = view.findChild<QTabWidget*>();
    QVERIFY(tabs);
    for (int i = 0; i < tabs->count(); ++i)
        if (tabs->tabText(i) == QStringLiteral("Timelines")) tabs->setCurrentIndex(i);
    QVERIFY(view.details()->isVisibleTo(&view));
    QApplication::processEvents();
    QVERIFY2(view.details()->height() >= 100,
             qPrintable(QString::number(view.details()->height()))); // not a sliver
    QCOMPARE(view.detailsTitle()->text(), QStringLiteral("Details · rank 1"));
    // Its launch call is a link; following it selects the call on rank 1's timeline.
    const std::optional<EventRef> launch = s.launchOf(kernel);
    QVERIFY(launch);
    emit view.details()->anchorClicked(QUrl(DetailsPanel::linkFor(*launch)));
    QCOMPARE(b->selected(), *launch);
    // A slice on rank 0 brings rank 0's panel to the front.
    const TraceStore& s0 = view.timelines()[0]->store();
    for (std::uint32_t t = 0; t < s0.tracks().size(); ++t)
        if (s0.tracks()[t].sliceCount() > 0) {
            view.timelines()[0]->setSelected({TrackId(t), EventIndex(0)});
            break;
        }
    QCOMPARE(view.detailsTitle()->text(), QStringLiteral("Details · rank 0"));
}

void TestDistributed::heatMapRowsFold_data() {
    QTest::addColumn<int>("ranks");
    QTest::addColumn<double>("height");
    QTest::addColumn<int>("perRow");
    QTest::addColumn<int>("rowCount");
    QTest::newRow("8 ranks: one row each, at most 22 px") << 8 << 400.0 << 1 << 8;
    QTest::newRow("100 ranks in 400 px: one each") << 100 << 400.0 << 1 << 100;
    QTest::newRow("1,000 ranks in 400 px: 8 a row") << 1000 << 400.0 << 8 << 125;
    QTest::newRow("10,000 ranks in 600 px: 50 a row") << 10000 << 600.0 << 50 << 200;
}

void TestDistributed::heatMapRowsFold() {
    QFETCH(int, ranks);
    QFETCH(double, height);
    QFETCH(int, perRow);
    QFETCH(int, rowCount);
    const HeatMapRows rows = foldRanks(std::size_t(ranks), height);
    QCOMPARE(rows.perRow, std::size_t(perRow));
    QCOMPARE(rows.rowCount, rowCount);
    QVERIFY(rows.rowPx >= 3 && rows.rowPx <= 22);
    QVERIFY(rows.rowPx * rows.rowCount <= height);
    QCOMPARE(rows.endRank(rows.rowCount - 1), std::size_t(ranks)); // every rank in a row
    QCOMPARE(rows.rowOf(std::size_t(ranks - 1)), rowCount - 1);
}

namespace {
// `count` rank files made from the real rank 0 of 128, each its own rank, with the planted stragglers
// computing longer in a step and arriving that much later at its collectives. Their traces are not here.
QStringList writeRankFiles(const QString& dir, std::int64_t count,
                           const std::vector<std::tuple<std::int64_t, std::size_t, TimeNs>>& planted) {
    LoadResult loaded = loadTrace(test::tracePath(
        "facebookresearch__HolisticTraceAnalysis/tests__data__trace_filter__sampled_rank-0.json.gz"));
    const RankFigures model = rankFigures(*loaded.store);
    QStringList files;
    for (std::int64_t r = 0; r < count; ++r) {
        RankFigures f = model;
        f.rank = r;
        f.worldSize = count;
        f.source = "/cluster/logs/rank" + std::to_string(r) + ".pt.trace.json";
        for (RankStep& s : f.steps)
            s.computation += (r * 7919 % 1000) * 1000;
        for (const auto& [rank, step, extra] : planted) {
            if (rank != r) continue;
            f.steps[step].computation += extra;
            for (CollectiveInstance& c : f.instances)
                if (c.step == step) c.start += extra, c.end += extra;
        }
        const QString path = dir + QStringLiteral("/rank%1.json").arg(r);
        QFile file(path);
        file.open(QIODevice::WriteOnly);
        file.write(QByteArray::fromStdString(rankFileJson(f)));
        files << path;
    }
    return files;
}
} // namespace

// 1,000 ranks from rank files: the heat map folds its rows yet shows the planted straggler in its row, the
// stragglers table lists the planted ones worst first, and no timelines (nor 1,000-row chart) are built.
void TestDistributed::thousandRanks() {
    QTemporaryDir dir;
    const QStringList files = writeRankFiles(dir.path(), 1000, {{613, 1, 40'000'000}, {17, 0, 25'000'000}});
    DistributedView view(files + QStringList{dir.filePath("missing.json")});
    view.resize(1400, 900);
    view.show();
    QSignalSpy ready(&view, &DistributedView::ready);
    QVERIFY(view.isReady() || ready.wait(60000));
    QCOMPARE(view.ranks().size(), std::size_t(1000));
    QCOMPARE(view.job().unreadable.size(), std::size_t(1));
    QVERIFY(view.figures()->banner()->text().contains(QStringLiteral("1 file not read")));
    QVERIFY(view.timelines().empty());
    QVERIFY(!view.rankTable());       // a rank table and chart of 1,000 columns are not built
    QVERIFY(!view.collectiveTable()); // nor 1,000 ranks' collectives
    QVERIFY(view.collectiveSpreadTable()->rowCount() >= 1);
    QTableWidget* stragglers = view.figures()->stragglerTable();
    QCOMPARE(stragglers->rowCount(), 2);
    QCOMPARE(stragglers->item(0, 0)->text(), QStringLiteral("rank 613"));
    QCOMPARE(stragglers->item(1, 0)->text(), QStringLiteral("rank 17"));
    // How late it arrives and why, in the view as in the CLI: the planted rank computes 40 ms more.
    QCOMPARE(stragglers->horizontalHeaderItem(4)->text(), QStringLiteral("Last to arrive"));
    QCOMPARE(stragglers->horizontalHeaderItem(10)->text(), QStringLiteral("Cause"));
    QVERIFY2(stragglers->item(0, 10)->text().startsWith(QStringLiteral("more computation")),
             qPrintable(stragglers->item(0, 10)->text()));
    RankHeatMap* map = view.figures()->heatMap();
    QTest::qWait(50);
    QVERIFY2(map->rows().perRow > 1, qPrintable(QString::number(map->height())));
    const QRect cell = map->cellRect(map->rows().rowOf(613), 1);
    const auto hit = map->cellAt(cell.center());
    QVERIFY(hit);
    QCOMPARE(view.ranks()[hit->rank].rank, std::int64_t(613));
    QVERIFY(hit->value > 1.3 * hit->median);
    // Each step's spread across the 1,000 ranks and its median rank.
    auto* steps = view.findChild<QTableWidget*>(QStringLiteral("stepTable"));
    QVERIFY(steps);
    QCOMPARE(steps->rowCount(), int(view.job().steps.size()));
    QCOMPARE(steps->item(0, 1)->text(), QStringLiteral("1000"));
    QVERIFY(steps->item(0, 5)->text().startsWith(QStringLiteral("rank ")));
    // The slowest rank named, and its time a column of its own to sort on.
    QCOMPARE(steps->horizontalHeaderItem(6)->text(), QStringLiteral("Slowest step"));
    QCOMPARE(steps->horizontalHeaderItem(7)->text(), QStringLiteral("Slowest rank"));
    for (int row = 0; row < steps->rowCount(); ++row) {
        const StepDistribution* d = nullptr;
        for (const StepDistribution& s : view.job().steps)
            if (QString::fromStdString(s.name) == steps->item(row, 0)->text()) d = &s;
        QVERIFY(d);
        QCOMPARE(steps->item(row, 7)->text(),
                 d->slowestTied ? QStringLiteral("tie")
                                : QStringLiteral("rank %1").arg(view.ranks()[d->slowestRank].rank));
    }
    steps->sortByColumn(6, Qt::DescendingOrder);
    TimeNs longest = 0;
    for (const StepDistribution& s : view.job().steps)
        longest = std::max(longest, s.stepTime.max);
    QCOMPARE(steps->item(0, 6)->text(), durationText(longest));
    // Every rank in the Per rank table (a model: no widget per cell), its split and file.
    auto* perRank = view.findChild<QTableView*>(QStringLiteral("perRankTable"));
    QVERIFY(perRank);
    QCOMPARE(perRank->textElideMode(), Qt::ElideLeft); // the file names, not "/tmp/...ata/..." on every row
    QCOMPARE(perRank->model()->rowCount(), 1000);
    QCOMPARE(perRank->model()->headerData(10, Qt::Horizontal).toString(), QStringLiteral("Synchronising"));
    // Its trace is not on this machine: where it is expected is said.
    QSignalSpy opened(&view, &DistributedView::openRanksRequested);
    view.openBesideMedian(hit->rank, 1);
    QCOMPARE(opened.count(), 0);
    QVERIFY(view.figures()->findChild<QLabel*>() != nullptr);
    bool said = false;
    for (QLabel* l : view.figures()->findChildren<QLabel*>())
        said = said || l->text().contains(QStringLiteral("/cluster/logs/rank613.pt.trace.json"));
    QVERIFY(said);
}

// Issue 52 item 11: eight ranks of a DDP job (a compute and a NCCL stream, the main and the autograd thread)
// fit a 1920x1080 window's Timelines tab whole, each pane as tall as what it shows.
void TestDistributed::eightRanksFitAScreen() {
    QTemporaryDir dir;
    QStringList paths;
    for (int rank = 0; rank < 8; ++rank) {
        std::string events;
        for (int step = 0; step < 3; ++step) {
            const int at = step * 10000;
            const std::string n = std::to_string(step + 1);
            events +=
                std::string(step ? ",\n" : "") +
                "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#" + n +
                "\",\"pid\":1,\"tid\":1,\"ts\":" + std::to_string(at) + ",\"dur\":9000},\n" +
                "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::mm\",\"pid\":1,\"tid\":1,\"ts\":" +
                std::to_string(at + 50) + ",\"dur\":200},\n" +
                "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"MmBackward0\",\"pid\":1,\"tid\":2,\"ts\":" +
                std::to_string(at + 3000) + ",\"dur\":300},\n" +
                "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,"
                "\"tid\":1,\"ts\":" +
                std::to_string(at + 100) + ",\"dur\":5,\"args\":{\"correlation\":" + n +
                "}},\n{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"gemm\",\"pid\":0,\"tid\":7,\"ts\":" +
                std::to_string(at + 200) + ",\"dur\":4000,\"args\":{\"correlation\":" + n +
                ",\"device\":0,\"stream\":7}},\n"
                "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"ncclKernel_AllReduce_RING_LL_Sum_float\","
                "\"pid\":0,"
                "\"tid\":13,\"ts\":" +
                std::to_string(at + 5000) + ",\"dur\":2000,\"args\":{\"device\":0,\"stream\":13}}";
        }
        const QString path = dir.filePath(QStringLiteral("rank%1.json").arg(rank));
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(("{\"distributedInfo\":{\"rank\":" + std::to_string(rank) +
                 ",\"world_size\":8,\"backend\":\"nccl\"},\"traceEvents\":[\n" + events + "\n]}")
                    .c_str());
        paths << path;
    }
    MainWindow window;
    window.resize(1920, 1080);
    window.show();
    DistributedView* view = window.openDistributed(paths);
    QSignalSpy ready(view, &DistributedView::ready);
    QVERIFY(view->isReady() || ready.wait(60000));
    QCOMPARE(view->timelines().size(), std::size_t(8));
    view->tabs()->setCurrentIndex(view->tabs()->count() - 1);
    QCOMPARE(view->tabs()->tabText(view->tabs()->currentIndex()), QStringLiteral("Timelines"));
    QTest::qWait(50);
    TimelineWidget* last = view->timelines().back();
    QVERIFY(last->isVisible());
    // The last pane's bottom within the list's viewport: all eight on the screen, none cut.
    auto* scroll =
        qobject_cast<QScrollArea*>(last->parentWidget()->parentWidget()->parentWidget()->parentWidget());
    QVERIFY(scroll);
    const QPoint bottom = last->mapTo(scroll->viewport(), QPoint(0, last->height()));
    QVERIFY2(
        bottom.y() <= scroll->viewport()->height(),
        qPrintable(
            QStringLiteral("last pane ends at %1 of %2").arg(bottom.y()).arg(scroll->viewport()->height())));
    QCOMPARE(scroll->verticalScrollBar()->value(), 0);
}

// With the traces at hand, a straggler opens beside its step's median rank as a job of two.
void TestDistributed::stragglerOpensBesideTheMedianRank() {
    MainWindow window;
    DistributedView* view = window.openDistributed({rankPath(0), rankPath(1)});
    QSignalSpy ready(view, &DistributedView::ready);
    QVERIFY(view->isReady() || ready.wait(60000));
    QVERIFY(!view->stragglers().empty());
    // The straggler on the table's first row (sorted by how long the others waited).
    const StragglerRow& s =
        view->stragglers()[view->figures()->stragglerTable()->item(0, 0)->data(Qt::UserRole).toULongLong()];
    std::size_t step = 0;
    while (view->job().steps[step].name != s.step)
        ++step;
    QSignalSpy opened(view, &DistributedView::openRanksRequested);
    view->figures()->stragglerTable()->cellDoubleClicked(0, 0);
    QCOMPARE(opened.count(), 1);
    const QStringList pair = opened.front().front().toStringList();
    QCOMPARE(pair.size(), 2);
    QCOMPARE(pair[0], QFileInfo(QString::fromStdString(view->ranks()[s.rank].source)).absoluteFilePath());
    QCOMPARE(pair[1],
             QFileInfo(QString::fromStdString(view->ranks()[view->job().steps[step].medianRank].source))
                 .absoluteFilePath());
    // The window opens the two on their timelines, each zoomed to that step (issue 52 item 10: it opened
    // on the Ranks tab of a "2 ranks" job).
    QCOMPARE(opened.front().at(1).toString(), QString::fromStdString(s.step));
    auto* pairView = qobject_cast<DistributedView*>(window.tabs()->currentWidget());
    QVERIFY(pairView && pairView != view);
    QVERIFY(pairView->isReady() || QSignalSpy(pairView, &DistributedView::ready).wait(60000));
    QTRY_VERIFY_WITH_TIMEOUT(pairView->isReady(), 60000);
    QCOMPARE(pairView->tabs()->tabText(pairView->tabs()->currentIndex()), QStringLiteral("Timelines"));
    QCOMPARE(pairView->timelines().size(), std::size_t(2));
    for (std::size_t i = 0; i < 2; ++i) {
        const RankStep* own = nullptr;
        for (const RankStep& r : pairView->ranks()[i].steps)
            if (r.name == s.step) own = &r;
        QVERIFY(own);
        const TimeAxis& axis = pairView->timelines()[i]->axis();
        QVERIFY(axis.start <= own->start && axis.end >= own->end);
        QVERIFY(axis.span() < (own->end - own->start) * 2);
    }
}

// Find in the job's Timelines tab (issue 61 item 10): every rank's NCCL kernels are highlighted, and Next
// walks them rank by rank, selecting each on its own rank's timeline.
void TestDistributed::findAcrossRanks() {
    DistributedView view({rankPath(0), rankPath(1)});
    view.resize(1400, 900);
    view.show();
    QSignalSpy ready(&view, &DistributedView::ready);
    QVERIFY(view.isReady() || ready.wait(60000));
    view.showSearch();
    QVERIFY(view.searchBar()->isVisible());
    QSignalSpy found(&view, &DistributedView::searchFinished);
    view.searchBar()->setText(QStringLiteral("ncclKernel"));
    QVERIFY(found.count() > 0 || found.wait(30000));
    std::size_t expected = 0, onRank0 = 0;
    for (std::size_t r = 0; r < 2; ++r) {
        const std::size_t n =
            searchSlices(view.timelines()[r]->store(), SearchQuery{"ncclKernel", false, false, false})
                .matches.size();
        QVERIFY(n > 0);
        expected += n;
        if (r == 0) onRank0 = n;
    }
    QCOMPARE(view.matchCount(), expected);
    QVERIFY2(view.findChild<QLabel*>() != nullptr, "");
    view.nextMatch();
    QCOMPARE(view.currentMatch().first, std::size_t(0));
    QCOMPARE(view.timelines()[0]->selected(), view.currentMatch().second);
    // Past rank 0's last match, the next is rank 1's first.
    for (std::size_t i = 0; i < onRank0; ++i)
        view.nextMatch();
    QCOMPARE(view.currentMatch().first, std::size_t(1));
    QCOMPARE(view.timelines()[1]->selected(), view.currentMatch().second);
    QCOMPARE(view.timelines()[1]->store().nameOf(view.currentMatch().second).substr(0, 10),
             std::string_view("ncclKernel"));
    view.previousMatch();
    QCOMPARE(view.currentMatch().first, std::size_t(0));
}

// From a Collectives row to its k-th call on every rank (issue 61 item 10): the calls, each rank's arrival
// and wait in arrival order, and a rank's kernel selected on its timeline.
void TestDistributed::collectiveToItsCallsOnEveryRank() {
    DistributedView view({rankPath(0), rankPath(1)});
    view.resize(1400, 900);
    view.show();
    QSignalSpy ready(&view, &DistributedView::ready);
    QVERIFY(view.isReady() || ready.wait(60000));
    // A collective both ranks ran.
    int row = -1;
    for (int r = 0; r < view.collectiveSpreadTable()->rowCount() && row < 0; ++r)
        if (view.collectiveSpreadTable()->item(r, 2)->text() == QStringLiteral("2")) row = r;
    QVERIFY(row >= 0);
    const std::size_t collective =
        view.collectiveSpreadTable()->item(row, 0)->data(Qt::UserRole).toULongLong();
    emit view.collectiveSpreadTable()->cellDoubleClicked(row, 0);
    CollectiveCallsPanel* panel = view.collectiveCalls();
    const std::vector<CollectiveCall> expected = collectiveCalls(view.job(), collective);
    QVERIFY(!expected.empty());
    QCOMPARE(panel->callTable()->rowCount(), int(expected.size()));
    // The first call shown: both ranks, in arrival order, the last one waiting nothing.
    QCOMPARE(panel->rankTable()->rowCount(), int(expected.front().ranks.size()));
    QCOMPARE(panel->rankTable()->item(panel->rankTable()->rowCount() - 1, 2)->text(), durationText(0));
    // A rank's kernel on its own timeline, selected.
    const CollectiveCallRank& first = expected.front().ranks.front();
    emit panel->rankTable()->cellDoubleClicked(0, 3);
    TimelineWidget* t = view.timelines()[first.rank];
    QVERIFY(t->selected().isValid());
    QCOMPARE(t->store().track(t->selected().track).starts[t->selected().index.value], first.start);
    QCOMPARE(view.tabs()->tabText(view.tabs()->currentIndex()), QStringLiteral("Timelines"));
    // And back: the selected NCCL kernel names its call, and the Collectives tab lists it on every rank.
    QVERIFY2(view.detailsTitle()->text().contains(QStringLiteral(" · call 1 of ")),
             qPrintable(view.detailsTitle()->text()));
    QVERIFY2(view.detailsTitle()->text().contains(QStringLiteral("last to arrive")),
             qPrintable(view.detailsTitle()->text()));
    QCOMPARE(panel->rankTable()->rowCount(), int(expected.front().ranks.size()));
}

QTEST_MAIN(TestDistributed)
#include "tst_distributed.moc"
