// kinetoscope-bench-frames TRACE [--frames N] [--size WxH] [--phases] [--no-flows] [--sweeps N]
//
// Renders frames of the real timeline (geometry built anew for every frame, then painted into a 1920x1080
// image with the widget's own renderer) over a sweep of views: the whole trace down to 1 µs windows at points
// spread over the trace, scrolled to different lanes, with all flow arrows on. Prints per-zoom-level figures
// and, as its last line, `median_ms=<x> p99_ms=<y>`. Single-threaded: run it under `taskset -c 0` for the
// one-core figure.
//
// --sweeps N renders the same views N times over (every cache of the renderer dropped before each sweep) and
// prints each sweep's figures, then those of each view's fastest time: on a shared machine another tenant's
// work only ever adds time, so the per-view minimum is what the code costs, and the spread of the sweeps what
// the machine added.
#include "open/opentrace.h"
#include "query/lanelayout.h"
#include "shell/loadedtrace.h"
#include "timeline/headlessrender.h"
#include "timeline/timelinerenderer.h"

#include <QGuiApplication>
#include <QImage>
#include <QPainter>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

using namespace kinetoscope;

int main(int argc, char** argv) {
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
    QGuiApplication app(argc, argv);
    std::string path;
    int frames = 200;
    QSize size(1920, 1080);
    bool phases = false;  // --phases: print geometry / arrows / paint times of every frame
    bool noFlows = false; // --no-flows: the same sweep without arrows, to see what they cost
    int sweeps = 1;
    for (int i = 1; i < argc; ++i) {
        if (std::strcmp(argv[i], "--phases") == 0)
            phases = true;
        else if (std::strcmp(argv[i], "--no-flows") == 0)
            noFlows = true;
        else if (std::strcmp(argv[i], "--sweeps") == 0 && i + 1 < argc)
            sweeps = std::max(1, std::atoi(argv[++i]));
        else if (std::strcmp(argv[i], "--frames") == 0 && i + 1 < argc)
            frames = std::max(10, std::atoi(argv[++i]));
        else if (std::strcmp(argv[i], "--size") == 0 && i + 1 < argc) {
            const auto s = parseSize(QString::fromLocal8Bit(argv[++i]));
            if (!s) return std::fprintf(stderr, "bad --size\n"), 2;
            size = *s;
        } else
            path = argv[i];
    }
    if (path.empty()) {
        std::fprintf(
            stderr, "usage: kinetoscope-bench-frames TRACE [--frames N] [--size WxH] [--phases] [--no-flows] "
                    "[--sweeps N]\n");
        return 2;
    }
    const auto t0 = std::chrono::steady_clock::now();
    LoadResult result = loadTrace(path);
    if (!result.ok()) {
        std::fprintf(stderr, "%s\n", result.message(path).c_str());
        return 1;
    }
    std::shared_ptr<const LoadedTrace> trace = prepareLoadedTrace(std::move(result.store), result.seconds);
    const double prepare = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const TraceStore& store = *trace->store;
    // The compact thread views are part of "index" above; timed once more alone, as they cost the most on
    // with_stack traces (a merge of each thread's lanes and one nesting pass).
    const auto h0 = std::chrono::steady_clock::now();
    const HostViews views = buildHostViews(store);
    const double hostViews = std::chrono::duration<double>(std::chrono::steady_clock::now() - h0).count();
    std::size_t compactRows = 0;
    for (const HostView& v : views.views)
        compactRows += v.host.sliceCount() + v.python.sliceCount();
    std::printf("compact thread views: %zu threads, %zu rows, %.3f s\n", views.views.size(), compactRows,
                hostViews);
    LaneLayout layout(store);
    TimelineRenderer renderer(trace, &layout);
    std::printf(
        "trace: %s\nevents: %llu, slices: %zu, flows: %zu, tracks: %zu, lanes: %zu, load+index %.2f s\n",
        path.c_str(), static_cast<unsigned long long>(store.stats().eventsSeen), store.sliceCount(),
        store.flows().size(), store.tracks().size(), layout.rows().size(), prepare);

    QImage image(size, QImage::Format_ARGB32_Premultiplied);
    TimelineFrame frame;
    frame.size = size;
    frame.flows = noFlows ? FlowMode::None : FlowMode::All;
    frame.axis.width = size.width() - TimelineRenderer::headerWidth;
    const TimeNs begin = store.minTime();
    const TimeNs span = std::max<TimeNs>(store.maxTime() - store.minTime(), 1000);
    const double lanesHeight = size.height() - TimelineRenderer::rulerHeight;
    const double maxScroll = std::max(0.0, layout.contentHeight() - lanesHeight);

    // Zoom levels from the whole trace down to 1 µs, log-spaced; 10 sweepViews per level at spread-out
    // centres.
    const int levels = std::max(1, frames / 10);
    const double minSpan = 1000.0;
    struct View {
        TimeNs start, end, cursor;
        double scrollY;
        int level;
    };
    std::vector<View> sweepViews;
    std::vector<double> levelSpans;
    std::uint64_t lcg = 12345;
    auto next = [&] {
        lcg = lcg * 6364136223846793005ull + 1442695040888963407ull;
        return double(lcg >> 11) / double(1ull << 53);
    };
    for (int level = 0; level < levels; ++level) {
        const double f = levels == 1 ? 0 : double(level) / double(levels - 1);
        const double viewSpan = std::exp(std::log(double(span)) * (1 - f) + std::log(minSpan) * f);
        levelSpans.push_back(viewSpan);
        for (int k = 0; k < frames / levels; ++k) {
            const double centre = double(begin) + next() * double(span);
            View v;
            v.start = TimeNs(centre - viewSpan / 2);
            v.end = v.start + std::max<TimeNs>(TimeNs(viewSpan), 1);
            v.scrollY = std::floor(next() * 3) / 2 * maxScroll; // top, middle or bottom
            v.cursor = v.start + (v.end - v.start) / 3;
            v.level = level;
            sweepViews.push_back(v);
        }
    }
    auto percentile = [](std::vector<double> v, double p) {
        std::sort(v.begin(), v.end());
        const std::size_t i = std::min(v.size() - 1, std::size_t(std::ceil(p * double(v.size())) - 1));
        return v[i];
    };

    std::vector<double> fastest(sweepViews.size(), 1e300);
    std::size_t boxes = 0, arrows = 0;
    for (int sweep = 0; sweep < sweeps; ++sweep) {
        renderer.invalidate(); // no geometry nor arrow ends kept from the sweep before
        std::vector<double> times;
        for (const View& v : sweepViews) {
            frame.axis.start = v.start;
            frame.axis.end = v.end;
            frame.scrollY = v.scrollY;
            frame.cursor = v.cursor;
            const auto a = std::chrono::steady_clock::now();
            if (phases) {
                renderer.geometry(frame);
                const auto g = std::chrono::steady_clock::now();
                std::vector<FlowArrow> fa = renderer.flowArrows(frame);
                const auto f = std::chrono::steady_clock::now();
                std::printf("geom %.2f flows %.2f (%zu) ",
                            std::chrono::duration<double, std::milli>(g - a).count(),
                            std::chrono::duration<double, std::milli>(f - g).count(), fa.size());
            }
            const auto a2 = std::chrono::steady_clock::now();
            QPainter painter(&image);
            renderer.paint(painter, frame);
            painter.end();
            const double ms =
                std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - a).count();
            if (sweep == 0) {
                boxes += renderer.geometry(frame).boxCount;
                arrows += renderer.flowArrows(frame).size(); // outside the timed part
            }
            if (phases)
                std::printf(
                    "paint %.2f total %.2f span %.0f\n",
                    std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - a2).count(),
                    ms, double(v.end - v.start));
            fastest[times.size()] = std::min(fastest[times.size()], ms);
            times.push_back(ms);
        }
        if (sweeps > 1)
            std::printf("sweep %d: median_ms=%.2f p99_ms=%.2f\n", sweep + 1, percentile(times, 0.5),
                        percentile(times, 0.99));
    }
    std::printf("%-14s %10s %10s\n", "view span", "median ms", "max ms");
    for (int level = 0; level < levels; ++level) {
        std::vector<double> t;
        for (std::size_t i = 0; i < sweepViews.size(); ++i)
            if (sweepViews[i].level == level) t.push_back(fastest[i]);
        std::printf("%-14s %10.2f %10.2f\n", formatDuration(TimeNs(levelSpans[std::size_t(level)])).c_str(),
                    percentile(t, 0.5), percentile(t, 1.0));
    }
    std::printf("frames: %zu at %dx%d, mean boxes/frame %.0f, mean arrows/frame %.0f\n", sweepViews.size(),
                size.width(), size.height(), double(boxes) / double(sweepViews.size()),
                double(arrows) / double(sweepViews.size()));
    if (sweeps > 1) std::printf("each view's fastest of %d sweeps:\n", sweeps);
    std::printf("median_ms=%.2f p99_ms=%.2f\n", percentile(fastest, 0.5), percentile(fastest, 0.99));
    return 0;
}
