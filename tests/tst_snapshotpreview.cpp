// The snapshot tab's previews (SnapshotLoadJob) on a real CUDA memory snapshot, made small enough to preview
// by the environment: each preview is the beginning of the whole, they only grow, the whole one replaces
// them keeping the zoom, the clicked moment and the selected allocation; closing the tab mid-way leaves no
// thread behind; a file cut short opens with what it holds and says so.
#include "charts/memorytimelinewidget.h"
#include "snapshot/snapshotloader.h"
#include "testsupport.h"
#include "views/snapshotview.h"
#include "views/traceview.h"

#include <QApplication>
#include <QComboBox>
#include <QDir>
#include <QFile>
#include <QLabel>
#include <QTemporaryDir>
#include <QTest>
#include <QTextBrowser>

#include <memory>
#include <vector>

using namespace kinetoscope;

class TestSnapshotPreview : public QObject {
    Q_OBJECT
  private slots:
    void init();
    void cleanup();
    void previewsThenWhole();
    void closingMidwayLeavesNothing();
    void truncatedFileOpensWithWhatItHolds();
};

namespace {

const char* const training =
    "snapshots/Wedsonlin__assignment2-systems__results__medium_1024_training_memory_snapshot.pickle";

std::size_t eventsOf(const MemorySnapshot& s) {
    std::size_t n = 0;
    for (const DeviceHistory& h : s.devices)
        n += h.size();
    return n;
}

// The snapshot loader's threads running (SnapshotLoadJob names them).
int loaderThreads() {
    int n = 0;
    const QDir tasks(QStringLiteral("/proc/self/task"));
    for (const QString& task : tasks.entryList(QDir::Dirs | QDir::NoDotAndDotDot)) {
        QFile comm(tasks.filePath(task + QStringLiteral("/comm")));
        if (comm.open(QIODevice::ReadOnly) && comm.readAll().startsWith("snapshot-")) ++n;
    }
    return n;
}

} // namespace

void TestSnapshotPreview::init() {
    // The 3.7 MB snapshot previewed as a large one is: from 256 KiB, then 1 MiB; the whole held back until
    // both are in, and 1.5 s more.
    qputenv("KINETOSCOPE_SNAPSHOT_PREVIEW_MIN_BYTES", "1");
    qputenv("KINETOSCOPE_SNAPSHOT_PREVIEW_BYTES", QByteArray::number(256 * 1024));
    qputenv("KINETOSCOPE_PREVIEW_HOLD_MS", "1500");
}

void TestSnapshotPreview::cleanup() {
    qunsetenv("KINETOSCOPE_SNAPSHOT_PREVIEW_MIN_BYTES");
    qunsetenv("KINETOSCOPE_SNAPSHOT_PREVIEW_BYTES");
    qunsetenv("KINETOSCOPE_PREVIEW_HOLD_MS");
}

void TestSnapshotPreview::previewsThenWhole() {
    const QString path = QString::fromStdString(test::tracePath(training));
    const SnapshotLoadResult whole = loadSnapshot(path.toStdString());
    QVERIFY(whole.ok());
    SnapshotView view(path);
    // Every preview seen, in order, as it is shown: counted from before the event loop first runs (the first
    // may come while the window is exposed), and by signal (two may arrive within one turn of the loop).
    std::vector<std::shared_ptr<const MemorySnapshot>> seen;
    connect(&view, &SnapshotView::previewShown, this, [&] { seen.push_back(view.snapshot()); });
    view.resize(1400, 900);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    QVERIFY(QTest::qWaitFor([&] { return seen.size() == 2 || view.state() != SnapshotView::State::Loading; },
                            20000));
    QCOMPARE(view.state(), SnapshotView::State::Loading);
    QCOMPARE(seen.size(), std::size_t(2));
    QVERIFY(seen[0]->partial && seen[1]->partial);
    QVERIFY(seen[0]->readBytes >= 256 * 1024 && seen[0]->readBytes < seen[1]->readBytes);
    QVERIFY(seen[1]->readBytes >= 1024 * 1024);
    QVERIFY(eventsOf(*seen[0]) > 0 && eventsOf(*seen[0]) < eventsOf(*seen[1]));
    QVERIFY(eventsOf(*seen[1]) < eventsOf(*whole.snapshot));
    for (const auto& preview : seen) { // the beginning of the whole, event by event
        const DeviceHistory& h = preview->devices.front();
        const DeviceHistory& w = *whole.snapshot->device(h.device);
        for (std::size_t i = 0; i < h.size(); ++i) {
            QCOMPARE(h.addrs[i], w.addrs[i]);
            QCOMPARE(h.sizes[i], w.sizes[i]);
            QCOMPARE(h.actions[i], w.actions[i]);
        }
    }
    QVERIFY(view.partialBanner()->isVisible());
    QVERIFY2(view.partialBanner()->text().startsWith(QStringLiteral("Preview: the first 1")),
             qPrintable(view.partialBanner()->text()));
    QVERIFY(view.timeline()->waitForRaster());

    // What the user does on the preview: zoom into its middle, click a moment, pick an allocation made there.
    const std::int64_t n = view.timeline()->timeline()->eventCount();
    view.timeline()->setView(double(n) / 4, double(n) / 2);
    QVERIFY(view.timeline()->waitForRaster());
    const QRectF plot = view.timeline()->plotRect();
    QTest::mouseClick(view.timeline(), Qt::LeftButton, {},
                      QPointF(plot.center().x(), plot.bottom() - 2).toPoint());
    const std::int64_t clicked = view.moment();
    QVERIFY(clicked >= n / 4 - 1 && clicked <= n / 2);
    const auto& allocations = view.timeline()->timeline()->allocations();
    std::int32_t pick = -1;
    for (std::size_t a = 0; a < allocations.size() && pick < 0; ++a)
        if (allocations[a].begin >= n / 3) pick = std::int32_t(a);
    QVERIFY(pick >= 0);
    view.selectAllocation(pick);
    const AllocationLifetime picked = allocations[std::size_t(pick)];
    const double from = view.timeline()->viewFrom(), to = view.timeline()->viewTo();
    QComboBox* streamBox = nullptr;
    for (QComboBox* box : view.findChildren<QComboBox*>())
        if (box->itemText(0) == QStringLiteral("all streams")) streamBox = box;
    QVERIFY(streamBox && streamBox->count() >= 2);
    streamBox->setCurrentIndex(1); // one stream's allocations only
    const QString stream = streamBox->currentText();
    QVERIFY(view.snapshot()->partial); // all the above was done on the preview

    QVERIFY(QTest::qWaitFor([&] { return view.state() == SnapshotView::State::Ready; }, 20000));
    QVERIFY(!view.snapshot()->partial);
    QCOMPARE(eventsOf(*view.snapshot()), eventsOf(*whole.snapshot));
    QVERIFY(!view.partialBanner()->isVisible());
    QCOMPARE(view.timeline()->viewFrom(), from);
    QCOMPARE(view.timeline()->viewTo(), to);
    QCOMPARE(view.moment(), clicked);
    QCOMPARE(streamBox->currentText(), stream);
    const std::int32_t selected = view.timeline()->selectedAllocation();
    QVERIFY(selected >= 0);
    const AllocationLifetime& now = view.timeline()->timeline()->allocations()[std::size_t(selected)];
    QCOMPARE(now.begin, picked.begin);
    QCOMPARE(now.addr, picked.addr);
    QCOMPARE(now.size, picked.size);
    QVERIFY(view.allocationText()->toPlainText().contains(QStringLiteral("event %1").arg(picked.begin + 1)));
}

// The tab closed while its file loads: both reads stop, and no thread is left running.
void TestSnapshotPreview::closingMidwayLeavesNothing() {
    const QString path = QString::fromStdString(test::tracePath(training));
    auto view = std::make_unique<SnapshotView>(path);
    view->show();
    QVERIFY(QTest::qWaitFor([&] { return view->snapshot() != nullptr; }, 20000)); // a preview is up
    QCOMPARE(view->state(), SnapshotView::State::Loading);
    QVERIFY(loaderThreads() > 0); // the whole file's read, held back
    view.reset();
    QVERIFY2(QTest::qWaitFor([&] { return loaderThreads() == 0; }, 2000),
             qPrintable(QStringLiteral("%1 loader threads left").arg(loaderThreads())));
    QTest::qWait(50); // nothing is delivered to the deleted view
}

// A snapshot cut at 70 % (a process killed while it wrote) opens with the events before the cut, and the
// banner names the file, the byte and the reason.
void TestSnapshotPreview::truncatedFileOpensWithWhatItHolds() {
    qunsetenv("KINETOSCOPE_SNAPSHOT_PREVIEW_MIN_BYTES");
    const std::string text = test::readText(test::tracePath(training));
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("cut.pickle"));
    {
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(text.data(), qint64(text.size() * 7 / 10));
    }
    SnapshotView view(path);
    view.resize(1400, 900);
    view.show();
    QVERIFY(QTest::qWaitFor([&] { return view.state() != SnapshotView::State::Loading; }, 20000));
    QCOMPARE(view.state(), SnapshotView::State::Ready);
    QVERIFY(view.snapshot()->partial && eventsOf(*view.snapshot()) > 0);
    QVERIFY(view.partialBanner()->isVisible());
    const QString banner = view.partialBanner()->text();
    QVERIFY2(banner.startsWith(path + QStringLiteral(": byte ")) &&
                 banner.contains(QStringLiteral("truncated")),
             qPrintable(banner));
    QVERIFY(view.timeline()->waitForRaster());
    QVERIFY2(view.stateFigures()->text().contains(QStringLiteral("does not reach")),
             qPrintable(view.stateFigures()->text()));
}

QTEST_MAIN(TestSnapshotPreview)
#include "tst_snapshotpreview.moc"
