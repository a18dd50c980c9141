// kinetoscope-bench-ui TRACE
//
// Opens TRACE in the real main window (offscreen) and measures how long the UI thread goes without running
// its event loop while the trace loads and the first frames paint: a 1 ms timer records the largest gap
// between its ticks. Then it zooms, searches and area-selects, and measures those too. Prints
// `max_stall_ms=<x>` last.
#include "shell/mainwindow.h"
#include "timeline/searchbar.h"
#include "timeline/timelinewidget.h"
#include "views/traceview.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QSignalSpy>
#include <QTimer>

#include <cstdio>

using namespace kinetoscope;

int main(int argc, char** argv) {
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    if (argc != 2) {
        std::fprintf(stderr, "usage: kinetoscope-bench-ui TRACE\n");
        return 2;
    }
    MainWindow window;
    window.resize(1920, 1080);
    window.show();
    QElapsedTimer clock;
    clock.start();
    qint64 last = 0, worst = 0, worstAt = 0;
    QString phase = QStringLiteral("load");
    QString worstPhase;
    QTimer ticker;
    ticker.setInterval(1);
    QObject::connect(&ticker, &QTimer::timeout, [&] {
        const qint64 now = clock.nsecsElapsed();
        if (now - last > worst) {
            worst = now - last;
            worstAt = now;
            worstPhase = phase;
        }
        last = now;
    });
    ticker.start();
    last = clock.nsecsElapsed();
    TraceView* view = window.openTrace(QString::fromLocal8Bit(argv[1]));
    auto spin = [&](auto done, int timeoutMs) {
        QElapsedTimer t;
        t.start();
        while (!done() && t.elapsed() < timeoutMs)
            app.processEvents(QEventLoop::AllEvents, 5);
    };
    spin([&] { return view->state() != TraceView::State::Loading; }, 600000);
    if (view->state() != TraceView::State::Ready) {
        std::fprintf(stderr, "%s\n", qPrintable(view->errorMessage()));
        return 1;
    }
    const double loadSeconds = double(clock.nsecsElapsed()) / 1e9;
    phase = QStringLiteral("first frames");
    spin([] { return false; }, 500);
    phase = QStringLiteral("zooming");
    TimelineWidget* t = view->timeline();
    for (int i = 0; i < 30; ++i) {
        t->zoomBy(0.7);
        t->repaint();
        app.processEvents();
    }
    phase = QStringLiteral("search");
    view->showSearch();
    view->searchBar()->setText(QStringLiteral("aten::"));
    QSignalSpy searched(view, &TraceView::searchFinished);
    QMetaObject::invokeMethod(view, [view] { view->runSearch(); });
    spin([&] { return !view->searchRunning() && searched.count() > 0; }, 60000);
    phase = QStringLiteral("area selection");
    QSignalSpy area(view, &TraceView::areaSummaryReady);
    t->fitAll();
    t->setAreaSelection(
        AreaSelection{TimeRange{t->axis().start, t->axis().end}, 0, int(t->layout().rows().size()) - 1});
    spin([&] { return area.count() > 0; }, 120000);
    ticker.stop();
    std::printf("search matches: %zu\n", view->matchCount());
    std::printf(
        "trace: %s\nloaded and shown in %.2f s\nworst stall during: %s (at %.2f s)\nmax_stall_ms=%.1f\n",
        argv[1], loadSeconds, qPrintable(worstPhase), double(worstAt) / 1e9, double(worst) / 1e6);
    return 0;
}
