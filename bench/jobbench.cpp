// kinetoscope-bench-job [--viewer] FILE|DIR...
//
// Opens a distributed job the way `kinetoscope-cli job` does (read every rank file, summary or trace, then
// the job report), or with --viewer the way `kinetoscope --distributed` does (offscreen: until the job view
// is ready and painted). Prints the wall time, the process's peak RSS and the first stragglers, so that a run
// over rank files with planted stragglers shows they come first. Run one mode per process: the peak RSS is
// the process's.
#include "analysis/report/jobformat.h"
#include "open/rankinput.h"
#include "views/distributedview.h"

#include <QApplication>
#include <QElapsedTimer>

#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <cstring>

using namespace kinetoscope;

namespace {
double peakRssMb() {
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    return double(usage.ru_maxrss) / 1024.0;
}

void printStragglers(const JobReport& job) {
    for (std::size_t i = 0; i < job.stragglers.size() && i < 5; ++i) {
        const StragglerRow& s = job.stragglers[i];
        std::printf("straggler %zu: %s %s +%.3f ms\n", i + 1, rankLabel(job.ranks[s.rank]).c_str(),
                    s.step.c_str(), double(s.excess) / 1e6);
    }
}
} // namespace

int main(int argc, char** argv) {
    bool viewer = false;
    std::vector<std::string> arguments;
    for (int i = 1; i < argc; ++i) {
        if (std::strcmp(argv[i], "--viewer") == 0)
            viewer = true;
        else
            arguments.emplace_back(argv[i]);
    }
    if (arguments.empty()) {
        std::fprintf(stderr, "usage: kinetoscope-bench-job [--viewer] FILE|DIR...\n");
        return 2;
    }
    const auto started = std::chrono::steady_clock::now();
    std::vector<UnreadableFile> unreadable;
    const std::vector<std::string> files = jobFiles(arguments, unreadable);
    if (!viewer) {
        JobInputs in = readJobInputs(files);
        const JobReport job = analyseJob(std::move(in.ranks), std::move(in.unreadable));
        const std::string json = jobReportJson(job);
        const double seconds =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
        std::printf("mode=headless ranks=%zu unreadable=%zu json_bytes=%zu wall_s=%.3f peak_rss_mb=%.0f\n",
                    job.ranks.size(), job.unreadable.size(), json.size(), seconds, peakRssMb());
        printStragglers(job);
        return 0;
    }
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    QStringList list;
    for (const std::string& f : files)
        list << QString::fromStdString(f);
    DistributedView view(list);
    view.resize(1400, 900);
    view.show();
    QElapsedTimer timeout;
    timeout.start();
    while (!view.isReady() && view.errorMessage().isEmpty() && timeout.elapsed() < 600000)
        app.processEvents(QEventLoop::AllEvents, 5);
    // Painted: the view's widgets rendered once, as the first frame on screen.
    view.grab();
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    if (!view.isReady()) {
        std::fprintf(stderr, "%s\n", qPrintable(view.errorMessage()));
        return 1;
    }
    std::printf("mode=viewer ranks=%zu unreadable=%zu wall_s=%.3f peak_rss_mb=%.0f\n", view.ranks().size(),
                view.job().unreadable.size(), seconds, peakRssMb());
    printStragglers(view.job());
    return 0;
}
