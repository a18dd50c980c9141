// kinetoscope-bench-firstframe TRACE|SNAPSHOT [--size WxH] [--no-preview] [--idle]
//
// What a user waits for when opening a trace in the viewer (a TraceView, as a tab shows it, 1400x900 by
// default), from the moment it is asked to open the file: the first painted frame with lanes (the preview of
// a large file, LoadOptions::preview, or the full trace of a small one), the complete store on screen, and
// the panels filled (every analysis); the UI thread's frames while the file loads (each a full repaint of the
// preview timeline, one every 16 ms, and the gaps between those ticks: how late the event loop was); and the
// process's peak memory. Last line: `first_frame_s=.. store_s=.. full_frame_s=.. panels_s=.. frame_p50_ms=..
// frame_p99_ms=.. tick_p99_ms=.. frames=.. peak_rss_mb=..`. A memory snapshot is opened as its tab
// (SnapshotView): the first frame is its first preview's timeline (or the whole one's), the store the whole
// snapshot on screen; it has no panels (panels_s is the store's time).
#include "charts/memorytimelinewidget.h"
#include "snapshot/snapshotloader.h"
#include "timeline/headlessrender.h"
#include "timeline/timelinewidget.h"
#include "views/snapshotview.h"
#include "views/traceview.h"

#include "percentile.h"

#include <QApplication>
#include <QTimer>

#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <functional>
#include <vector>

using namespace kinetoscope;

using bench::percentile;

int main(int argc, char** argv) {
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    QString path;
    QSize size(1400, 900);
    bool idle = false;
    for (int i = 1; i < argc; ++i) {
        if (std::strcmp(argv[i], "--size") == 0 && i + 1 < argc) {
            const auto s = parseSize(QString::fromLocal8Bit(argv[++i]));
            if (!s) return std::fprintf(stderr, "bad --size\n"), 2;
            size = *s;
        } else if (std::strcmp(argv[i], "--idle") == 0) {
            idle = true;
        } else if (std::strcmp(argv[i], "--no-preview") == 0) {
            qputenv("KINETOSCOPE_PREVIEW_MIN_BYTES", "1099511627776");
            qputenv("KINETOSCOPE_SNAPSHOT_PREVIEW_MIN_BYTES", "1099511627776");
        } else {
            path = QString::fromLocal8Bit(argv[i]);
        }
    }
    if (path.isEmpty()) {
        std::fprintf(stderr,
                     "usage: kinetoscope-bench-firstframe TRACE [--size WxH] [--no-preview] [--idle]\n");
        return 2;
    }
    using Clock = std::chrono::steady_clock;
    const auto t0 = Clock::now();
    const auto since = [&](Clock::time_point t) { return std::chrono::duration<double>(t - t0).count(); };
    double firstFrame = -1, store = -1, fullFrame = -1, panels = -1;
    std::vector<double> frames, ticks;
    const auto printFigures = [&] {
        rusage usage{};
        getrusage(RUSAGE_SELF, &usage);
        std::printf("first_frame_s=%.3f store_s=%.3f full_frame_s=%.3f panels_s=%.3f frame_p50_ms=%.1f "
                    "frame_p99_ms=%.1f tick_p99_ms=%.1f frames=%zu peak_rss_mb=%.0f\n",
                    firstFrame, store, fullFrame, panels, percentile(frames, 0.5), percentile(frames, 0.99),
                    percentile(ticks, 0.99), frames.size(), double(usage.ru_maxrss) / 1024.0);
    };
    // While the file loads: a full repaint of what is on screen every 16 ms (the widget `loadingFrame` gives,
    // none yet when null), and the gaps between those ticks.
    std::function<QWidget*()> loadingFrame;
    QTimer frameTimer;
    frameTimer.setInterval(16);
    auto lastTick = Clock::now();
    QObject::connect(&frameTimer, &QTimer::timeout, [&] {
        const auto now = Clock::now();
        ticks.push_back(std::chrono::duration<double, std::milli>(now - lastTick).count());
        lastTick = now;
        if (QWidget* shown = loadingFrame()) {
            const auto start = Clock::now();
            shown->grab();
            frames.push_back(std::chrono::duration<double, std::milli>(Clock::now() - start).count());
        }
    });
    // A preview painted: the first is the first frame (later ones, a gzip file's as it inflates, replace it).
    const auto previewOnScreen = [&] {
        const double at = since(Clock::now());
        if (firstFrame < 0) firstFrame = at;
        std::fprintf(stderr, "preview on screen at %.3f s\n", at);
    };
    if (isPickleFile(path.toStdString())) {
        auto* view = new SnapshotView(path);
        view->resize(size);
        view->show();
        QObject::connect(view, &SnapshotView::previewShown, [&] {
            view->timeline()->waitForRaster();
            view->timeline()->grab();
            previewOnScreen();
        });
        loadingFrame = [view]() -> QWidget* { return view->snapshot() ? view->timeline() : nullptr; };
        if (!idle) frameTimer.start();
        QObject::connect(view, &SnapshotView::stateChanged, [&](SnapshotView::State s) {
            frameTimer.stop();
            if (s != SnapshotView::State::Ready || !view->timeline()) {
                std::fprintf(stderr, "%s: %s\n", qPrintable(path), qPrintable(view->errorMessage()));
                app.exit(1);
                return;
            }
            store = since(Clock::now());
            view->timeline()->waitForRaster();
            view->timeline()->grab();
            fullFrame = panels = since(Clock::now());
            if (firstFrame < 0) firstFrame = fullFrame;
            app.exit(0);
        });
        const int rc = app.exec();
        if (rc != 0) return rc;
        printFigures();
        delete view;
        return 0;
    }
    auto* view = new TraceView(path);
    view->resize(size);
    view->show();
    // The first frame: painted at once when the preview (or the full trace) is on screen.
    QObject::connect(view, &TraceView::previewShown, [&] {
        view->previewTimeline()->grab();
        previewOnScreen();
    });
    loadingFrame = [view]() -> QWidget* { return view->previewTimeline(); };
    if (!idle) frameTimer.start();
    QObject::connect(view, &TraceView::stateChanged, [&](TraceView::State s) {
        if (s != TraceView::State::Ready) {
            std::fprintf(stderr, "%s: %s\n", qPrintable(path), qPrintable(view->errorMessage()));
            app.exit(1);
            return;
        }
        store = since(Clock::now());
        frameTimer.stop();
        view->timeline()->grab();
        fullFrame = since(Clock::now());
        if (firstFrame < 0) firstFrame = fullFrame;
    });
    QObject::connect(view, &TraceView::analysisReady, [&] {
        panels = since(Clock::now());
        app.exit(0);
    });
    const int rc = app.exec();
    if (rc != 0) return rc;
    printFigures();
    delete view;
    return 0;
}
