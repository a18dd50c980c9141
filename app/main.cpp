#include "live/capturesession.h"
#include "panels/panellayout.h"
#include "shell/mainwindow.h"
#include "shell/singleinstance.h"
#include "timeline/headlessrender.h"
#include "views/captureview.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QFileInfo>
#include <QIcon>
#include <QLoggingCategory>

#include <cstdio>
#include <cstring>

using namespace kinetoscope;

int main(int argc, char** argv) {
    // Headless rendering needs no display: choose the offscreen platform before Qt picks one, and keep stderr
    // to our one-line errors (Qt warns about the environment of headless machines, e.g. an unset
    // XDG_RUNTIME_DIR).
    // --help and --version need no display either: like every Unix tool they answer on a machine without one.
    for (int i = 1; i < argc; ++i) {
        const bool answerOnly = std::strcmp(argv[i], "--help") == 0 || std::strcmp(argv[i], "-h") == 0 ||
                                std::strcmp(argv[i], "--help-all") == 0 ||
                                std::strcmp(argv[i], "--version") == 0 || std::strcmp(argv[i], "-v") == 0;
        if (std::strcmp(argv[i], "--render") != 0 && !answerOnly) continue;
        if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
        QLoggingCategory::setFilterRules(QStringLiteral("default.warning=false\nqt.*.warning=false"));
    }
    QApplication app(argc, argv);
    QApplication::setApplicationName(QStringLiteral("Kinetoscope"));
    QApplication::setOrganizationName(QStringLiteral("Kinetoscope"));
    QApplication::setApplicationVersion(QStringLiteral(KINETOSCOPE_VERSION));
    QApplication::setDesktopFileName(QStringLiteral("io.github.kinetoscope.Kinetoscope"));
    QApplication::setWindowIcon(QIcon(QStringLiteral(":/icons/kinetoscope.svg")));

    QCommandLineParser parser;
    parser.setApplicationDescription(
        QStringLiteral("A viewer for PyTorch profiler (Kineto) and Chrome traces."));
    parser.addHelpOption();
    parser.addVersionOption();
    QCommandLineOption render(QStringLiteral("render"),
                              QStringLiteral("Render the timeline of TRACE to OUT.png and exit."),
                              QStringLiteral("OUT.png"));
    QCommandLineOption size(QStringLiteral("size"),
                            QStringLiteral("Image size for --render (default 1600x900)."),
                            QStringLiteral("WxH"), QStringLiteral("1600x900"));
    QCommandLineOption range(QStringLiteral("range"),
                             QStringLiteral("Time range for --render, in microseconds from the trace start."),
                             QStringLiteral("START_US:END_US"));
    QCommandLineOption flows(QStringLiteral("flows"),
                             QStringLiteral("Flow arrows for --render: none or all (default none)."),
                             QStringLiteral("none|all"), QStringLiteral("none"));
    QCommandLineOption colors(QStringLiteral("color"), QStringLiteral("Colour slices by category or name."),
                              QStringLiteral("category|name"), QStringLiteral("category"));
    QCommandLineOption criticalPath(
        QStringLiteral("critical-path"),
        QStringLiteral("For --render: outline the critical path of the step most in view."));
    QCommandLineOption newWindow(
        QStringLiteral("new-window"),
        QStringLiteral("Open a new window instead of handing the traces to the running one."));
    QCommandLineOption compare(QStringLiteral("compare"),
                               QStringLiteral("Compare two traces: --compare A B (A is the baseline)."));
    QCommandLineOption watch(QStringLiteral("watch"),
                             QStringLiteral("Watch DIR: open each trace a running job completes there."),
                             QStringLiteral("DIR"));
    QCommandLineOption distributed(
        QStringLiteral("distributed"),
        QStringLiteral(
            "Open the files (traces, rank files, summaries) or folders of them as the ranks of one job."));
    QCommandLineOption captureDemo(
        QStringLiteral("capture-replay"),
        QStringLiteral("Live-capture demo without a GPU: capture kinetoscope-fake-cuda replaying TRACE "
                       "(at --speed, default 1) as if it were a running CUDA program."),
        QStringLiteral("TRACE"));
    QCommandLineOption speed(QStringLiteral("speed"),
                             QStringLiteral("Replay speed for --capture-replay (0: as fast as possible)."),
                             QStringLiteral("X"), QStringLiteral("1"));
    parser.addOptions({render, size, range, flows, colors, criticalPath, newWindow, compare, watch,
                       distributed, captureDemo, speed});
    parser.addPositionalArgument(
        QStringLiteral("TRACE"),
        QStringLiteral("Trace files to open (.json, .json.gz, ...), saved views (.kview) "
                       "or kinetoscope://open?file=... links."),
        QStringLiteral("[TRACE...]"));
    parser.process(app);

    const QStringList files = parser.positionalArguments();
    const ColorMode colorMode =
        parser.value(colors) == QLatin1String("name") ? ColorMode::Name : ColorMode::Category;
    if (parser.isSet(render)) {
        auto fail = [](const QString& message) {
            std::fprintf(stderr, "kinetoscope: %s\n", qPrintable(message));
            return 1;
        };
        if (files.size() != 1) return fail(QStringLiteral("--render takes exactly one TRACE"));
        RenderRequest request;
        request.tracePath = files.front();
        request.outputPath = parser.value(render);
        request.colors = colorMode;
        request.criticalPath = parser.isSet(criticalPath);
        const auto parsedSize = parseSize(parser.value(size));
        if (!parsedSize) return fail(QStringLiteral("--size: expected WxH, e.g. 1920x1080"));
        request.size = *parsedSize;
        if (parser.isSet(range)) {
            request.rangeFromStart = parseRange(parser.value(range));
            if (!request.rangeFromStart)
                return fail(QStringLiteral("--range: expected START_US:END_US with START < END"));
        }
        const QString flowText = parser.value(flows);
        if (flowText == QLatin1String("none"))
            request.flows = FlowMode::None;
        else if (flowText == QLatin1String("all"))
            request.flows = FlowMode::All;
        else
            return fail(QStringLiteral("--flows: expected none or all"));
        const QString error = renderTimeline(request);
        if (!error.isEmpty()) return fail(error);
        return 0;
    }

    // A double-clicked trace opens as a tab in the window that is already running.
    SingleInstance instance;
    // A comparison always opens in a window of its own.
    if (!parser.isSet(newWindow) && !parser.isSet(compare) && !parser.isSet(distributed) &&
        !parser.isSet(watch) && !parser.isSet(captureDemo)) {
        QStringList absolute;
        for (const QString& f : files) // a link goes as it is; a path made absolute for the other process
            absolute << (f.startsWith(QLatin1String("kinetoscope:")) || f.startsWith(QLatin1String("file://"))
                             ? f
                             : QFileInfo(f).absoluteFilePath());
        if (instance.sendToRunning(absolute)) return 0;
    }
    MainWindow window;
    if (!parser.isSet(newWindow) && !parser.isSet(compare)) {
        instance.listen();
        window.attachSingleInstance(&instance);
    }
    panellayout::keepOnScreen(&window); // the default 1400x900, or a geometry saved on a larger screen
    window.show();
    if (parser.isSet(compare)) {
        if (files.size() != 2) {
            std::fprintf(stderr, "kinetoscope: --compare takes two traces, A (baseline) and B\n");
            return 2;
        }
        window.openComparison(files[0], files[1]);
        return app.exec();
    }
    if (parser.isSet(watch)) window.watchFolder(parser.value(watch));
    if (parser.isSet(captureDemo)) {
        live::LaunchSpec spec;
        // kinetoscope-fake-cuda sits beside the agent, in the build tree and when installed.
        const QString agent = QString::fromStdString(live::defaultAgentPath());
        const QString fake =
            QFileInfo(QCoreApplication::applicationDirPath() + "/kinetoscope-fake-cuda").exists()
                ? QCoreApplication::applicationDirPath() + "/kinetoscope-fake-cuda"
                : QFileInfo(agent).absolutePath() + "/kinetoscope-fake-cuda";
        spec.program = fake.toStdString();
        spec.replayTrace = QFileInfo(parser.value(captureDemo)).absoluteFilePath().toStdString();
        spec.replaySpeed = parser.value(speed).toDouble();
        window.startCapture(spec);
    }
    if (parser.isSet(distributed)) {
        window.openDistributed(files);
        return app.exec();
    }
    for (const QString& f : files) {
        if (QFileInfo(f).isDir())
            window.openFolder(f);
        else
            window.openFile(f);
    }
    return app.exec();
}
