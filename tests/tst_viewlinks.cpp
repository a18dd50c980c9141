// Links and saved views in the viewer (issue 64): a kinetoscope:// link and a .kview file open the trace at
// the range and selection they name (the view's pinned and hidden tracks and query too), Copy Link and Save
// View round-trip, a link naming a missing file says so, a bad link says why, and Export Range writes a trace
// of what the range held.
#include "open/viewfile.h"
#include "panels/querypanel.h"
#include "shell/mainwindow.h"
#include "testsupport.h"
#include "timeline/timelinewidget.h"
#include "views/traceview.h"

#include <QApplication>
#include <QClipboard>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>

using namespace kinetoscope;

namespace {

TraceView* waitReady(MainWindow& w) {
    auto* view = qobject_cast<TraceView*>(w.tabs()->currentWidget());
    if (!view) return nullptr;
    if (!QTest::qWaitFor([&] { return view->state() != TraceView::State::Loading; }, 60000)) return nullptr;
    QCoreApplication::processEvents();
    return view;
}

// A slice in the middle of the trace, and a range around it.
struct Target {
    std::int64_t id = 0;
    TimeNs from = 0, to = 0;
};
Target middleSlice(const TraceStore& store) {
    for (std::uint32_t t = 0; t < store.tracks().size(); ++t) {
        const Track& track = store.tracks()[t];
        if (track.kind != TrackKind::GpuStream || track.sliceCount() < 10) continue;
        const std::uint32_t i = std::uint32_t(track.sliceCount() / 2);
        const EventRef ref{TrackId(t), EventIndex(i)};
        const TimeNs start = track.starts[i];
        return {sliceIdOf(store, ref), start - 50000, start + track.durations[i] + 50000};
    }
    return {};
}

} // namespace

class TestViewLinks : public QObject {
    Q_OBJECT

  private slots:
    void linkOpensTheView() {
        const std::string path = test::tracePath(test::traces::qwenH100);
        LoadResult loaded = loadTrace(path);
        QVERIFY(loaded.ok());
        const Target target = middleSlice(*loaded.store);
        ViewLink link;
        link.files = {path};
        link.range = std::pair{target.from, target.to};
        link.select = target.id;
        MainWindow w;
        // As a running instance receives it, and as the command line passes it: through openFile.
        w.openFile(QString::fromStdString(viewLinkUrl(link)));
        TraceView* view = waitReady(w);
        QVERIFY(view && view->state() == TraceView::State::Ready);
        QCOMPARE(view->timeline()->axis().start, target.from);
        QCOMPARE(view->timeline()->axis().end, target.to);
        QCOMPARE(sliceIdOf(*loaded.store, view->timeline()->selected()), target.id);
        QVERIFY(view->viewProblems().isEmpty());
        // Copy Link gives the same view back.
        const QString copied = w.copyLinkToView();
        QCOMPARE(QApplication::clipboard()->text(), copied);
        std::string error;
        const auto back = parseViewLink(copied.toStdString(), error);
        QVERIFY2(back, error.c_str());
        QCOMPARE(back->range, link.range);
        QCOMPARE(back->select, link.select);
        QCOMPARE(back->files.front(),
                 QFileInfo(QString::fromStdString(path)).absoluteFilePath().toStdString());
    }

    void savedViewRoundTrips() {
        QTemporaryDir dir;
        // The trace beside the view: the view names it relative to itself, and the folder can move.
        const QString trace = dir.filePath("runs/trace.json.gz");
        QVERIFY(QDir(dir.path()).mkdir("runs"));
        QVERIFY(QFile::copy(QString::fromStdString(test::tracePath(test::traces::qwenH100)), trace));
        LoadResult loaded = loadTrace(trace.toStdString());
        const Target target = middleSlice(*loaded.store);
        const QString viewPath = dir.filePath("bottleneck.kview");
        std::string pinnedTitle, hiddenTitle;
        {
            MainWindow w;
            w.openTrace(trace);
            TraceView* view = waitReady(w);
            QVERIFY(view && view->state() == TraceView::State::Ready);
            view->timeline()->setVisibleRange(target.from, target.to);
            view->timeline()->setSelected(*sliceOfId(*loaded.store, target.id));
            // Pin the GPU stream, hide a CPU thread, leave a query in the editor.
            for (std::uint32_t t = 0; t < loaded.store->tracks().size(); ++t) {
                const Track& track = loaded.store->tracks()[t];
                if (track.kind == TrackKind::GpuStream && pinnedTitle.empty()) {
                    view->timeline()->setTrackPinned(TrackId(t), true);
                    pinnedTitle = trackTitle(*loaded.store, TrackId(t));
                } else if (track.kind == TrackKind::CpuThread && hiddenTitle.empty() &&
                           track.sliceCount() > 0) {
                    view->timeline()->setTrackHidden(TrackId(t), true);
                    hiddenTitle = trackTitle(*loaded.store, TrackId(t));
                }
            }
            view->queryPanel()->setSql(QStringLiteral("SELECT name, count(*) FROM kernel GROUP BY name"));
            QCOMPARE(w.saveView(viewPath), QString());
        }
        std::string error;
        const auto saved = readViewFile(viewPath.toStdString(), error);
        QVERIFY2(saved, error.c_str());
        QFile raw(viewPath);
        QVERIFY(raw.open(QIODevice::ReadOnly));
        QVERIFY(raw.readAll().contains("\"runs/trace.json.gz\"")); // relative to the view

        // Moved elsewhere, the folder still opens.
        QTemporaryDir moved;
        QVERIFY(QDir().rename(dir.filePath("runs"), moved.filePath("runs")));
        QVERIFY(QDir().rename(viewPath, moved.filePath("bottleneck.kview")));
        MainWindow w;
        QCOMPARE(w.openViewFile(moved.filePath("bottleneck.kview")), QString());
        TraceView* view = waitReady(w);
        QVERIFY(view && view->state() == TraceView::State::Ready);
        QCOMPARE(view->path(), moved.filePath("runs/trace.json.gz"));
        QCOMPARE(view->timeline()->axis().start, target.from);
        QCOMPARE(view->timeline()->axis().end, target.to);
        QCOMPARE(sliceIdOf(*loaded.store, view->timeline()->selected()), target.id);
        const ViewFile now = view->currentViewFile();
        QCOMPARE(now.pinned, std::vector<std::string>{pinnedTitle});
        QCOMPARE(now.hidden, saved->hidden);
        QVERIFY(std::find(now.hidden.begin(), now.hidden.end(), hiddenTitle) != now.hidden.end());
        QCOMPARE(view->queryPanel()->sql(),
                 QStringLiteral("SELECT name, count(*) FROM kernel GROUP BY name"));
    }

    void missingFileSaysSo() {
        MainWindow w;
        w.openFile(QStringLiteral("kinetoscope://open?file=/nonexistent/run/trace.json&range=1:2&select=3"));
        TraceView* view = waitReady(w);
        QVERIFY(view);
        QCOMPARE(view->state(), TraceView::State::Failed);
        QVERIFY2(view->errorMessage().contains("/nonexistent/run/trace.json"),
                 qPrintable(view->errorMessage()));
    }

    void badLinks_data() {
        QTest::addColumn<QString>("url");
        QTest::addColumn<QString>("says");
        QTest::newRow("backwards range") << "kinetoscope://open?file=/a.json&range=9:2"
                                         << "range:";
        QTest::newRow("no file") << "kinetoscope://open?select=4"
                                 << "names no file";
        QTest::newRow("bad id") << "kinetoscope://open?file=/a.json&select=x"
                                << "select:";
    }
    void badLinks() {
        QFETCH(QString, url);
        QFETCH(QString, says);
        MainWindow w;
        const QString error = w.openLink(url);
        QVERIFY2(error.contains(says), qPrintable(error));
        QCOMPARE(w.tabs()->count() > 0 && qobject_cast<TraceView*>(w.tabs()->currentWidget()), false);
    }

    // A link to a slice id the trace does not have: the trace opens, and the view says what it could not do.
    void unknownSlice() {
        ViewLink link;
        link.files = {test::tracePath(test::traces::htaMi250)};
        link.select = 99999999;
        MainWindow w;
        w.openLink(QString::fromStdString(viewLinkUrl(link)));
        TraceView* view = waitReady(w);
        QVERIFY(view && view->state() == TraceView::State::Ready);
        QVERIFY2(view->viewProblems().contains("no slice with id 99999999"),
                 qPrintable(view->viewProblems()));
    }

    void exportRange() {
        const std::string path = test::tracePath(test::traces::qwenH100);
        LoadResult loaded = loadTrace(path);
        const Target target = middleSlice(*loaded.store);
        MainWindow w;
        w.openTrace(QString::fromStdString(path));
        TraceView* view = waitReady(w);
        QVERIFY(view && view->state() == TraceView::State::Ready);
        view->timeline()->setVisibleRange(target.from, target.to);
        QTemporaryDir dir;
        const QString out = dir.filePath("range.json.gz");
        QCOMPARE(w.exportRange(out), QString());
        LoadResult trimmed = loadTrace(out.toStdString());
        QVERIFY(trimmed.ok());
        // Every slice the range overlaps, no other.
        std::size_t expected = 0;
        for (const Track& t : loaded.store->tracks())
            for (std::size_t i = 0; i < t.sliceCount(); ++i)
                expected += t.starts[i] <= target.to && t.starts[i] + t.durations[i] >= target.from;
        QCOMPARE(trimmed.store->sliceCount(), expected);
    }
};

QTEST_MAIN(TestViewLinks)
#include "tst_viewlinks.moc"
