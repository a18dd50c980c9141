// kinetoscope-bench-snapshot-frames SNAPSHOT [--size WxH] [--frames N]
//
// The snapshot tab's active-memory timeline on a real (or grown) snapshot, in the widget itself at 1920x1080:
// a sweep of views from the whole trace down to 4 events, at points spread over it. For each view it prints
// the time until its full-resolution raster is in (made off the UI thread: the view shows the previous raster
// stretched meanwhile) and the frames painted once it is (what panning and hovering cost), and as its last
// line `bands=<n> frame_median_ms=<x> frame_p99_ms=<y> raster_median_ms=<a> raster_p99_ms=<b>`.
#include "charts/memorytimelinewidget.h"
#include "snapshot/snapshotloader.h"
#include "timeline/headlessrender.h"

#include "percentile.h"

#include <QApplication>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

using namespace kinetoscope;

using bench::percentile;

int main(int argc, char** argv) {
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    std::string path;
    QSize size(1920, 1080);
    int framesPerView = 20;
    for (int i = 1; i < argc; ++i) {
        if (std::strcmp(argv[i], "--size") == 0 && i + 1 < argc) {
            const auto s = parseSize(QString::fromLocal8Bit(argv[++i]));
            if (!s) return std::fprintf(stderr, "bad --size\n"), 2;
            size = *s;
        } else if (std::strcmp(argv[i], "--frames") == 0 && i + 1 < argc) {
            framesPerView = std::max(1, std::atoi(argv[++i]));
        } else {
            path = argv[i];
        }
    }
    if (path.empty()) {
        std::fprintf(stderr, "usage: kinetoscope-bench-snapshot-frames SNAPSHOT [--size WxH] [--frames N]\n");
        return 2;
    }
    const SnapshotLoadResult r = loadSnapshot(path);
    if (!r.ok()) return std::fprintf(stderr, "%s\n", r.message(path).c_str()), 1;
    if (r.snapshot->devices.empty()) return std::fprintf(stderr, "%s: no device\n", path.c_str()), 1;
    const DeviceHistory& h = r.snapshot->devices.front();
    const auto t0 = std::chrono::steady_clock::now();
    auto timeline = std::make_shared<const MemoryTimeline>(*r.snapshot, h);
    const double build = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::printf("%s: %zu events, %zu bands (allocations); timeline built in %.2f s\n", path.c_str(), h.size(),
                timeline->allocations().size(), build);

    MemoryTimelineWidget widget;
    widget.resize(size);
    widget.show();
    std::vector<std::uint8_t> colors(timeline->allocations().size());
    for (std::size_t a = 0; a < colors.size(); ++a)
        colors[a] = std::uint8_t(timeline->allocations()[a].stack % 10);
    widget.setTimeline(timeline, std::move(colors));
    const double events = double(timeline->eventCount());
    std::vector<double> allFrames, allRasters;
    std::printf("%-14s %-8s %12s %12s %12s %12s\n", "span (events)", "at", "raster ms", "compute ms",
                "frame med", "frame p99");
    for (double span = events + 1; span >= 4; span /= 8) {
        for (double at : {0.1, 0.5, 0.9}) {
            const double from = std::clamp(events * at - span / 2, -1.0, events - span);
            const auto r0 = std::chrono::steady_clock::now();
            widget.setView(from, from + span);
            if (!widget.waitForRaster(120000)) return std::fprintf(stderr, "raster timed out\n"), 1;
            const double rasterMs =
                std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - r0).count();
            allRasters.push_back(rasterMs);
            // The raster alone, as the worker computes it (the rest is the hand-over and colouring).
            const auto c0 = std::chrono::steady_clock::now();
            const MemoryTimeline::Raster again = timeline->raster(
                std::int64_t(std::floor(widget.viewFrom())), std::int64_t(std::ceil(widget.viewTo())) - 1,
                widget.raster().bytesTop, widget.raster().width, widget.raster().height);
            const double computeMs =
                std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - c0).count();
            std::vector<double> frames;
            for (int f = 0; f < framesPerView; ++f) {
                const auto f0 = std::chrono::steady_clock::now();
                widget.repaint();
                frames.push_back(
                    std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - f0).count());
            }
            allFrames.insert(allFrames.end(), frames.begin(), frames.end());
            std::printf("%-14.0f %-8.1f %12.1f %12.1f %12.2f %12.2f\n", span, at, rasterMs, computeMs,
                        percentile(frames, 0.5), percentile(frames, 0.99));
        }
    }
    std::printf("bands=%zu frame_median_ms=%.2f frame_p99_ms=%.2f raster_median_ms=%.1f raster_p99_ms=%.1f\n",
                timeline->allocations().size(), percentile(allFrames, 0.5), percentile(allFrames, 0.99),
                percentile(allRasters, 0.5), percentile(allRasters, 0.99));
    return 0;
}
