// The main window and its trace tabs: loading in the background, failed and cancelled loads, the banner for
// truncated or malformed traces, Open Recent, drag-and-drop, search and area selection wired to the panels.
#include "panels/areasummarypanel.h"
#include "panels/detailspanel.h"
#include "query/search.h"
#include "shell/mainwindow.h"
#include "tables/tablemodels.h"
#include "testsupport.h"
#include "timeline/searchbar.h"

#include "timeline/criticalpathbar.h"
#include "timeline/timelinewidget.h"
#include "views/traceview.h"

#include <QApplication>
#include <QDropEvent>
#include <QFile>
#include <QImage>
#include <QMenuBar>
#include <QMimeData>
#include <QSettings>
#include <QSignalSpy>
#include <QSvgRenderer>
#include <QTabWidget>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QToolButton>
#include <QUrl>

#include <algorithm>
#include <functional>

using namespace kinetoscope;

class TestMainWindow : public QObject {
    Q_OBJECT
  private slots:
    void initTestCase();
    void opensTraceInTab();
    void failedLoadKeepsOtherTabs_data();
    void failedLoadKeepsOtherTabs();
    void bannerForDamagedTrace_data();
    void bannerForDamagedTrace();
    void cancelMidLoad();
    void recentFilesPersist();
    void dropOpensFiles();
    void searchHighlightsAndSteps();
    void areaSelectionFillsPanel();
    void detailsFollowSelection();
    void detailsListOperatorGpuWork();
    void criticalPathOfStepInView();
    void remembersWindowAndPanels();
    void newcomerHint();
    void shortcutsListed();
    void aboutNamesVersions();
    void followsDarkPalette();
    void exportsTimelineImage();

  private:
    TraceView* openAndWait(MainWindow& w, const QString& path);
    QString samplePath() const {
        return QStringLiteral(KINETOSCOPE_SOURCE_DIR "/resources/samples/sample.pt.trace.json");
    }
    QString writeTemp(const QString& name, const QByteArray& data);
    QTemporaryDir m_dir;
};

void TestMainWindow::initTestCase() {
    QCoreApplication::setOrganizationName(QStringLiteral("KinetoscopeTests"));
    QCoreApplication::setApplicationName(QStringLiteral("tst_mainwindow"));
    QSettings().clear();
    QVERIFY(m_dir.isValid());
}

QString TestMainWindow::writeTemp(const QString& name, const QByteArray& data) {
    const QString path = m_dir.filePath(name);
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly)) qFatal("cannot write %s", qPrintable(path));
    f.write(data);
    return path;
}

TraceView* TestMainWindow::openAndWait(MainWindow& w, const QString& path) {
    TraceView* view = w.openTrace(path);
    if (!QTest::qWaitFor([&] { return view->state() != TraceView::State::Loading; }, 30000)) return nullptr;
    return view;
}

void TestMainWindow::opensTraceInTab() {
    MainWindow w;
    w.show();
    TraceView* view = openAndWait(w, samplePath());
    QVERIFY(view);
    QCOMPARE(view->state(), TraceView::State::Ready);
    QCOMPARE(w.tabs()->count(), 1);
    QCOMPARE(w.tabs()->tabText(0), QStringLiteral("sample.pt.trace.json"));
    QVERIFY(view->timeline());
    QVERIFY(view->bannerText().isEmpty());
    QVERIFY(w.windowTitle().startsWith(QLatin1String("sample.pt.trace.json")));
}

void TestMainWindow::failedLoadKeepsOtherTabs_data() {
    QTest::addColumn<QByteArray>("content"); // empty: the file does not exist
    QTest::addColumn<QString>("expected");   // in the one-line error
    QTest::newRow("missing file") << QByteArray() << QStringLiteral("no-such-trace.json: ");
    QTest::newRow("not JSON") << QByteArray("hello, world\n") << QStringLiteral("byte 0");
    QTest::newRow("empty") << QByteArray(" ") << QStringLiteral("no-such-trace.json: ");
}

void TestMainWindow::failedLoadKeepsOtherTabs() {
    QFETCH(QByteArray, content);
    QFETCH(QString, expected);
    MainWindow w;
    TraceView* good = openAndWait(w, samplePath());
    QVERIFY(good && good->state() == TraceView::State::Ready);
    const QString path = content.isEmpty() ? m_dir.filePath(QStringLiteral("no-such-trace.json"))
                                           : writeTemp(QStringLiteral("no-such-trace.json"), content);
    if (content.isEmpty()) QFile::remove(path);
    TraceView* bad = openAndWait(w, path);
    QVERIFY(bad);
    QCOMPARE(bad->state(), TraceView::State::Failed);
    QVERIFY2(bad->errorMessage().startsWith(path), qPrintable(bad->errorMessage()));
    QVERIFY2(bad->errorMessage().contains(expected), qPrintable(bad->errorMessage()));
    QVERIFY(!bad->errorMessage().contains(QLatin1Char('\n')));
    QCOMPARE(w.tabs()->count(), 2);
    QCOMPARE(good->state(), TraceView::State::Ready);
    QVERIFY(w.tabs()->tabText(1).startsWith(QStringLiteral("⚠")));
}

void TestMainWindow::bannerForDamagedTrace_data() {
    QTest::addColumn<QString>("damage");
    QTest::addColumn<QString>("expected");
    QTest::newRow("truncated") << QStringLiteral("truncate") << QStringLiteral("The file is cut off at byte");
    QTest::newRow("malformed event") << QStringLiteral("malform") << QStringLiteral("malformed event");
    // A gzip file: the offset is in the inflated text, which the banner says (not the file's own byte).
    QTest::newRow("gzip of a cut file")
        << QStringLiteral("truncate,gzip") << QStringLiteral("The JSON inside is cut off at byte");
    QTest::newRow("gzip stream cut") << QStringLiteral("gzip,cut")
                                     << QStringLiteral("The gzip stream ends early or is corrupt");
    // Only the trailer (CRC and size) is lost: the JSON is whole, so there is no cut byte to name (this once
    // said "before byte 0").
    QTest::newRow("gzip trailer cut")
        << QStringLiteral("gzip,trailer") << QStringLiteral("the JSON inside is whole (59.5 KiB inflated)");
}

void TestMainWindow::bannerForDamagedTrace() {
    QFETCH(QString, damage);
    QFETCH(QString, expected);
    QFile f(samplePath());
    QVERIFY(f.open(QIODevice::ReadOnly));
    QByteArray text = f.readAll();
    const QStringList steps = damage.split(QLatin1Char(','));
    for (const QString& step : steps) {
        if (step == QLatin1String("truncate")) {
            text.truncate(text.size() * 2 / 3);
        } else if (step == QLatin1String("malform")) {
            // Break one event in the middle of the array: an unquoted key.
            const qsizetype at = text.indexOf("\"ph\": \"X\"", text.size() / 2);
            QVERIFY(at > 0);
            text.replace(at, 4, "ph: ");
        } else if (step == QLatin1String("gzip")) {
            text = QByteArray::fromStdString(test::gzipText(text.toStdString()));
        } else if (step == QLatin1String("cut")) {
            text.truncate(text.size() / 2);
        } else if (step == QLatin1String("trailer")) {
            text.chop(4); // the gzip trailer's size field
        }
    }
    const bool gzip = steps.contains(QLatin1String("gzip"));
    MainWindow w;
    TraceView* view = openAndWait(
        w, writeTemp(steps.front() + (gzip ? QStringLiteral("-gz.json.gz") : QStringLiteral(".json")), text));
    QVERIFY(view);
    QCOMPARE(view->state(), TraceView::State::Ready);
    QVERIFY2(view->bannerText().contains(expected), qPrintable(view->bannerText()));
    if (!steps.contains(QLatin1String("trailer"))) {
        QVERIFY(view->bannerText().contains(QLatin1String("byte ")));
        QVERIFY(!view->bannerText().contains(QLatin1String("byte 0 ")));
    }
    if (gzip)
        QVERIFY2(view->bannerText().contains(QLatin1String("iB inflated")) ||
                     view->bannerText().contains(QLatin1String("iB of JSON that inflated")),
                 qPrintable(view->bannerText()));
}

void TestMainWindow::cancelMidLoad() {
    // Large enough (~60 MB) that the load is still running when Cancel is pressed.
    QFile f(samplePath());
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QByteArray sample = f.readAll();
    const qsizetype open = sample.indexOf('[', sample.indexOf("traceEvents"));
    const qsizetype close = sample.lastIndexOf(']');
    const QByteArray events = sample.mid(open + 1, close - open - 1);
    QByteArray big = "{\"traceEvents\": [";
    big.reserve(64 << 20);
    for (int i = 0; big.size() < (60 << 20); ++i) {
        if (i) big += ',';
        big += events;
    }
    big += "]}";
    const QString path = writeTemp(QStringLiteral("big.json"), big);
    MainWindow w;
    TraceView* view = w.openTrace(path);
    QSignalSpy spy(view, &TraceView::stateChanged);
    view->cancelLoad();
    QVERIFY(QTest::qWaitFor([&] { return view->state() != TraceView::State::Loading; }, 30000));
    QCOMPARE(view->state(), TraceView::State::Cancelled);
    QCOMPARE(spy.count(), 1);
    // Closing a tab while it loads does not wait for the loader, and nothing crashes when the result arrives.
    TraceView* second = w.openTrace(path);
    QVERIFY(second->state() == TraceView::State::Loading);
    w.tabs()->tabCloseRequested(w.tabs()->indexOf(second));
    QTest::qWait(200);
    QCOMPARE(w.tabs()->count(), 1);
}

// View > Critical Path of the Step in View: computed off the UI thread, outlined on the timeline, its
// breakdown in the strip above; the strip's ✕ clears both.
void TestMainWindow::criticalPathOfStepInView() {
    MainWindow w;
    w.show();
    TraceView* view = openAndWait(w, QString::fromStdString(test::tracePath(test::traces::qwenH100)));
    QVERIFY(view && view->state() == TraceView::State::Ready);
    QSignalSpy ready(view, &TraceView::criticalPathReady);
    view->showCriticalPath();
    QVERIFY(view->criticalPathBar()->isVisible());
    QVERIFY(ready.wait(30000));
    QVERIFY(view->timeline()->criticalPath());
    // With inferred waits (the trace has no cuda_sync events): docs/DEFINITIONS.md, "Critical path".
    const QString text = view->criticalPathBar()->text();
    QVERIFY2(
        text.startsWith(QStringLiteral("Critical path of ProfilerStep#6: 33.721 ms (95.8% of the step's")),
        qPrintable(text));
    QVERIFY2(text.contains(QStringLiteral("GPU compute 89.7%")), qPrintable(text));
    auto* close = view->criticalPathBar()->findChildren<QToolButton*>().last();
    QTest::mouseClick(close, Qt::LeftButton);
    QVERIFY(!view->criticalPathBar()->isVisible());
    QVERIFY(!view->timeline()->criticalPath());
}

void TestMainWindow::recentFilesPersist() {
    QSettings().clear();
    {
        MainWindow w;
        QVERIFY(openAndWait(w, samplePath()));
        QCOMPARE(w.recentFiles().value(0), QFileInfo(samplePath()).absoluteFilePath());
    }
    MainWindow again;
    QCOMPARE(again.recentFiles().size(), 1);
    // Failed loads are not remembered; re-opening moves a file to the front without duplicates.
    QVERIFY(openAndWait(again, m_dir.filePath(QStringLiteral("missing.json"))));
    QCOMPARE(again.recentFiles().size(), 1);
    QVERIFY(openAndWait(again, samplePath()));
    QCOMPARE(again.recentFiles().size(), 1);
}

void TestMainWindow::dropOpensFiles() {
    MainWindow w;
    w.show();
    QMimeData mime;
    mime.setUrls({QUrl::fromLocalFile(samplePath())});
    QDragEnterEvent enter(QPoint(10, 10), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(&w, &enter);
    QVERIFY(enter.isAccepted());
    QDropEvent drop(QPointF(10, 10), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(&w, &drop);
    QCOMPARE(w.tabs()->count(), 1);
    auto* view = qobject_cast<TraceView*>(w.tabs()->widget(0));
    QVERIFY(QTest::qWaitFor([&] { return view->state() == TraceView::State::Ready; }, 30000));
}

void TestMainWindow::searchHighlightsAndSteps() {
    MainWindow w;
    w.show();
    TraceView* view = openAndWait(w, QString::fromStdString(test::tracePath(test::traces::qwenH100)));
    QVERIFY(view && view->state() == TraceView::State::Ready);
    view->showSearch();
    QVERIFY(view->searchBar()->isVisible());
    QSignalSpy finished(view, &TraceView::searchFinished);
    view->searchBar()->setText(QStringLiteral("aten::mm"));
    view->runSearch();
    QVERIFY(finished.wait(10000));
    const TraceStore& s = *view->trace()->store;
    const SearchResult expected = searchSlices(s, {"aten::mm", false, false});
    QVERIFY(expected.matches.size() > 2);
    QCOMPARE(view->matchCount(), expected.matches.size());
    QVERIFY(view->timeline()->frame().searchNames != nullptr);
    view->timeline()->fitAll();
    view->nextMatch();
    QCOMPARE(view->currentMatchIndex(), 0);
    QCOMPARE(view->timeline()->selected(), expected.matches[0]);
    QCOMPARE(view->timeline()->frame().currentMatch, expected.matches[0]);
    view->nextMatch();
    QCOMPARE(view->timeline()->selected(), expected.matches[1]);
    view->previousMatch();
    view->previousMatch(); // wraps to the last
    QCOMPARE(view->currentMatchIndex(), int(expected.matches.size()) - 1);
    // An invalid regex is reported, not fatal; clearing the query removes the highlight.
    view->searchBar()->setRegex(true);
    view->searchBar()->setText(QStringLiteral("(oops"));
    view->runSearch();
    QVERIFY(finished.wait(10000));
    QCOMPARE(view->matchCount(), std::size_t(0));
    view->searchBar()->setText(QString());
    view->runSearch();
    QVERIFY(view->timeline()->frame().searchNames == nullptr);
}

void TestMainWindow::areaSelectionFillsPanel() {
    MainWindow w;
    TraceView* view = openAndWait(w, samplePath());
    QVERIFY(view);
    QSignalSpy ready(view, &TraceView::areaSummaryReady);
    TimelineWidget* t = view->timeline();
    const TraceStore& s = t->store();
    const int lastRow = int(t->layout().rows().size()) - 1;
    t->setAreaSelection(AreaSelection{TimeRange{s.minTime(), s.maxTime()}, 0, lastRow});
    QVERIFY(ready.wait(10000));
    QTableWidget* table = view->areaPanel()->table();
    QVERIFY(table->rowCount() > 5);
    // Sorted by total, descending; counts add up to every slice of the trace.
    qulonglong count = 0;
    for (int r = 0; r < table->rowCount(); ++r)
        count += table->item(r, 1)->data(SortRole).toULongLong();
    QCOMPARE(count, qulonglong(s.sliceCount()));
    QVERIFY(table->item(0, 2)->data(SortRole).toDouble() >= table->item(1, 2)->data(SortRole).toDouble());
}

void TestMainWindow::detailsFollowSelection() {
    MainWindow w;
    TraceView* view = openAndWait(w, samplePath());
    QVERIFY(view);
    const TraceStore& s = *view->trace()->store;
    EventRef kernel;
    for (std::uint32_t t = 0; t < s.tracks().size() && !kernel.isValid(); ++t) {
        if (s.tracks()[t].kind == TrackKind::GpuStream && s.tracks()[t].sliceCount())
            kernel = {TrackId(t), EventIndex(0)};
    }
    QVERIFY(kernel.isValid());
    view->timeline()->setSelected(kernel);
    QCOMPARE(view->details()->shown(), kernel);
    const auto launch = s.launchOf(kernel);
    QVERIFY(launch.has_value());
    emit view->details()->anchorClicked(QUrl(DetailsPanel::linkFor(*launch)));
    QCOMPARE(view->timeline()->selected(), *launch);
    QCOMPARE(view->details()->shown(), *launch);
}

// Details of an operator show the GPU work it launched: per kernel, count and GPU total, each a link to its
// longest event (selecting aten::bmm on the Qwen trace listed its parents, args and runtime children, not its
// kernels).
void TestMainWindow::detailsListOperatorGpuWork() {
    MainWindow w;
    TraceView* view = openAndWait(w, QString::fromStdString(test::tracePath(test::traces::qwenH100)));
    QVERIFY(view);
    const TraceStore& s = *view->trace()->store;
    const StringId bmm = s.strings().find("aten::bmm");
    EventRef op;
    for (std::uint32_t t = 0; t < s.tracks().size() && !op.isValid(); ++t) {
        const Track& track = s.tracks()[t];
        if (track.kind != TrackKind::CpuThread) continue;
        for (std::uint32_t r = 0; r < track.sliceCount() && !op.isValid(); ++r)
            if (track.names[r] == bmm) op = {TrackId(t), EventIndex(r)};
    }
    QVERIFY(op.isValid());
    // Brute force: the GPU work of every launch call within the operator's range on its thread.
    const Track& track = s.track(op.track);
    std::vector<EventRef> expected;
    for (std::uint32_t r = 0; r < track.sliceCount(); ++r)
        if (track.starts[r] >= track.starts[op.index.value] &&
            track.endOf(r) <= track.endOf(op.index.value) &&
            isLaunchCategory(s.categoryOf({op.track, EventIndex(r)}).kind))
            for (EventRef g : s.gpuWorkOf({op.track, EventIndex(r)}))
                expected.push_back(g);
    QVERIFY(!expected.empty());
    view->timeline()->setSelected(op);
    const QString html = view->details()->toPlainText();
    QVERIFY2(html.contains(QStringLiteral("GPU work launched")) &&
                 html.contains(QStringLiteral("%1 events, ").arg(expected.size())),
             qPrintable(html));
    EventRef kernelLink;
    for (EventRef l : view->details()->links())
        if (std::find(expected.begin(), expected.end(), l) != expected.end()) kernelLink = l;
    QVERIFY(kernelLink.isValid());
    emit view->details()->anchorClicked(QUrl(DetailsPanel::linkFor(kernelLink)));
    QCOMPARE(view->timeline()->selected(), kernelLink);
}

void TestMainWindow::remembersWindowAndPanels() {
    QSettings().clear();
    {
        MainWindow w;
        w.show();
        w.resize(1100, 720);
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        TraceView* view = openAndWait(w, samplePath());
        QVERIFY(view);
        w.setDetailsVisible(false);
        QVERIFY(!view->details()->isVisibleTo(view));
        w.close();
    }
    MainWindow again;
    again.show();
    QVERIFY(QTest::qWaitForWindowExposed(&again));
    QCOMPARE(again.size(), QSize(1100, 720));
    QVERIFY(!again.detailsVisible());
    TraceView* view = openAndWait(again, samplePath());
    QVERIFY(!view->details()->isVisibleTo(view));
    again.setDetailsVisible(true);
    QVERIFY(view->details()->isVisibleTo(view));
}

void TestMainWindow::newcomerHint() {
    QSettings().clear();
    {
        MainWindow w;
        w.show();
        TraceView* view = openAndWait(w, samplePath());
        QVERIFY(view && view->timeline()->showsHint());
        // Programmatic moves (opening, revealing a search match) do not count as use.
        view->timeline()->fitAll();
        QVERIFY(view->timeline()->showsHint());
        QTest::keyClick(view->timeline(), Qt::Key_W);
        QVERIFY(!view->timeline()->showsHint());
        QVERIFY(QSettings().value(QStringLiteral("hints/timelineUsed")).toBool());
    }
    MainWindow again;
    TraceView* view = openAndWait(again, samplePath());
    QVERIFY(view && !view->timeline()->showsHint());
    // Unused, the hint still leaves after its timeout (it must not sit over a lane for good), without
    // counting as use: the next launch shows it again.
    QSettings().clear();
    view->timeline()->setShowHint(true, 50);
    QVERIFY(view->timeline()->showsHint());
    QTRY_VERIFY_WITH_TIMEOUT(!view->timeline()->showsHint(), 2000);
    QVERIFY(!QSettings().value(QStringLiteral("hints/timelineUsed")).toBool());
}

void TestMainWindow::shortcutsListed() {
    MainWindow w;
    const QString html = w.shortcutsHtml();
    int withShortcut = 0;
    std::function<void(const QList<QAction*>&)> walk = [&](const QList<QAction*>& actions) {
        for (QAction* a : actions) {
            if (a->menu()) walk(a->menu()->actions());
            if (a->shortcut().isEmpty()) continue;
            ++withShortcut;
            QVERIFY2(html.contains(a->shortcut().toString(QKeySequence::NativeText).toHtmlEscaped()),
                     qPrintable(a->text()));
        }
    };
    walk(w.menuBar()->actions());
    QVERIFY(withShortcut >=
            10); // Open, Close, Quit, Find, next/previous, zoom in/out, back/forward, full screen...
    for (const char* key : {"Ctrl+drag", "Shift+drag", "Drag on the ruler", "Alt+Left"})
        QVERIFY(html.contains(QLatin1String(key)));
}

void TestMainWindow::aboutNamesVersions() {
    const QString text = MainWindow::versionsText();
    QVERIFY(text.contains(QLatin1String(qVersion())));
    QVERIFY(text.contains(QLatin1String("simdjson 3.")));
    QVERIFY(text.contains(QLatin1String("CUPTI")));
}

void TestMainWindow::followsDarkPalette() {
    MainWindow w;
    w.show();
    TraceView* view = openAndWait(w, samplePath());
    QVERIFY(view);
    QVERIFY(!view->timeline()->renderer().theme().dark);
    const QPalette light = QApplication::palette();
    QPalette dark = light;
    dark.setColor(QPalette::Window, QColor(0x20, 0x20, 0x20));
    dark.setColor(QPalette::WindowText, Qt::white);
    QApplication::setPalette(dark);
    QVERIFY(QTest::qWaitFor([&] { return view->timeline()->renderer().theme().dark; }, 2000));
    const QImage image = view->timeline()->grab().toImage();
    // Most of the timeline is background and lane fills: dark now (one pixel would depend on the lanes'
    // layout).
    int darkPixels = 0, pixels = 0;
    for (int y = 0; y < image.height(); y += 4)
        for (int x = 0; x < image.width(); x += 4, ++pixels)
            darkPixels += QColor(image.pixel(x, y)).lightness() < 80;
    QVERIFY2(darkPixels * 2 > pixels,
             qPrintable(QStringLiteral("%1 of %2 dark").arg(darkPixels).arg(pixels)));
    QApplication::setPalette(light);
    QVERIFY(QTest::qWaitFor([&] { return !view->timeline()->renderer().theme().dark; }, 2000));
}

// File > Export Timeline Image (issue 61 item 16): what the timeline shows, as PNG and as SVG whose boxes and
// labels are shapes; a file that cannot be written is named, and nothing is left half-written.
void TestMainWindow::exportsTimelineImage() {
    MainWindow w;
    w.show();
    TraceView* view = openAndWait(w, samplePath());
    QVERIFY(view);
    const QSize size = view->timeline()->frame().size;
    QVERIFY(!size.isEmpty());

    const QString png = m_dir.filePath("timeline.png");
    QCOMPARE(w.exportTimeline(png), QString());
    QImage image(png);
    QVERIFY(!image.isNull());
    QCOMPARE(image.size(), size * std::max<qreal>(1, view->timeline()->devicePixelRatioF()));
    // Slices in their colours, not one background: many distinct colours.
    QSet<QRgb> colours;
    for (int y = 0; y < image.height(); y += 3)
        for (int x = 0; x < image.width(); x += 3)
            colours.insert(image.pixel(x, y));
    QVERIFY2(colours.size() > 20, qPrintable(QString::number(colours.size())));

    const QString svg = m_dir.filePath("timeline.svg");
    QCOMPARE(w.exportTimeline(svg), QString());
    QFile file(svg);
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QByteArray text = file.readAll();
    QVERIFY(text.contains("<svg"));
    QVERIFY(text.contains("sample.pt.trace.json")); // the title
    QVERIFY(text.contains("ProfilerStep#"));        // labels are text, not pixels
    QVERIFY(text.count("<path") + text.count("<rect") > 50);
    QVERIFY(!text.contains("<image")); // no raster inside
    QSvgRenderer renderer(text);
    QVERIFY(renderer.isValid());
    QCOMPARE(renderer.viewBox().size(), size); // in the timeline's pixels

    const QString bad = m_dir.filePath("missing/folder/timeline.png");
    QVERIFY(w.exportTimeline(bad).contains(bad));
    QVERIFY(w.exportTimeline(m_dir.filePath("timeline.xyz")).contains(QStringLiteral("timeline.xyz")));
    QVERIFY(!QFile::exists(m_dir.filePath("timeline.xyz")));
}

QTEST_MAIN(TestMainWindow)
#include "tst_mainwindow.moc"
