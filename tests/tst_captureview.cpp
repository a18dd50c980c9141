// The viewer side of live capture: Capture > Launch with a replayed trace, the timeline and kernel table
// growing while records arrive, pause and follow, Stop, Save, and the saved file reopening with the same GPU
// work.
#include "panels/analysispanels.h"
#include "shell/launchdialog.h"
#include "shell/mainwindow.h"
#include "testsupport.h"
#include "timeline/timelinewidget.h"
#include "views/captureview.h"
#include "views/traceview.h"

#include <QAction>
#include <QApplication>
#include <QDialogButtonBox>
#include <QFileInfo>
#include <QLabel>
#include <QLineEdit>
#include <QMenuBar>
#include <QPushButton>
#include <QRegularExpression>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTimer>
#include <QtTest>

using namespace kinetoscope;

namespace {
QAction* findAction(QWidget* window, const QString& text) {
    for (QAction* a : window->findChildren<QAction*>())
        if (a->text() == text) return a;
    return nullptr;
}

live::LaunchSpec replaySpec(const char* trace, double speed) {
    live::LaunchSpec spec;
    spec.program = KINETOSCOPE_FAKE_CUDA;
    spec.agentPath = KINETOSCOPE_AGENT_LIB;
    spec.replayTrace = test::tracePath(trace);
    spec.replaySpeed = speed;
    spec.environment = {"KINETOSCOPE_FLUSH_MS=20"};
    return spec;
}

std::size_t kernelSlices(const TraceStore& s) {
    std::size_t n = 0;
    for (std::uint32_t t = 0; t < s.tracks().size(); ++t)
        for (std::uint32_t r = 0; r < s.tracks()[t].sliceCount(); ++r)
            n += s.categoryOf(EventRef{TrackId(t), EventIndex(r)}).kind == CategoryKind::Kernel;
    return n;
}
} // namespace

class TestCaptureView : public QObject {
    Q_OBJECT

  private slots:
    void init() { QSettings().clear(); }

    // The whole round trip through the menus, as a user does it.
    void launchWatchStopSaveReopen() {
        MainWindow window;
        window.show();
        QAction* launch = findAction(&window, QStringLiteral("&Launch…"));
        QVERIFY(launch);
        // The trace's GPU work spans ~64 ms; at 0.02x it arrives over ~3 s, so the view is seen growing.
        const live::LaunchSpec spec = replaySpec(
            "AMD-AGI__TraceLens/tests__traces__h100__Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz", 0.02);
        QTimer::singleShot(0, this, [spec] {
            for (QWidget* w : QApplication::topLevelWidgets())
                if (auto* dialog = qobject_cast<LaunchDialog*>(w)) {
                    dialog->setSpec(spec);
                    dialog->accept();
                }
        });
        launch->trigger();
        CaptureView* capture = window.currentCapture();
        QVERIFY(capture);
        QVERIFY2(capture->status().targetRunning, qPrintable(capture->statusText()));

        // Live: several snapshots while the target still runs, each with more kernels than the last.
        QTRY_VERIFY_WITH_TIMEOUT(capture->refreshCount() >= 1 && capture->traceView(), 30000);
        const std::size_t first = kernelSlices(*capture->traceView()->trace()->store);
        QTRY_VERIFY_WITH_TIMEOUT(
            capture->traceView() && kernelSlices(*capture->traceView()->trace()->store) > first, 30000);
        QVERIFY(capture->status().capturing);
        QVERIFY(capture->statusText().contains(QStringLiteral("records")));
        QVERIFY(capture->statusText().contains(QStringLiteral("dropped")));
        // The kernel table is the one a loaded trace has, and it is filled.
        QTRY_VERIFY_WITH_TIMEOUT(capture->traceView()->analysis() != nullptr, 30000);

        // Pausing freezes the view while records keep arriving; following again catches up.
        capture->setFollow(false);
        const int shown = capture->refreshCount();
        const auto records = capture->status().counts.records;
        QTRY_VERIFY_WITH_TIMEOUT(capture->status().counts.records > records, 30000);
        QTest::qWait(600);
        QCOMPARE(capture->refreshCount(), shown);
        capture->setFollow(true);
        QTRY_VERIFY_WITH_TIMEOUT(capture->refreshCount() > shown, 30000);

        // Stop: nothing more is received, the program runs on.
        QAction* stop = findAction(&window, QStringLiteral("&Stop Capture"));
        QVERIFY(stop);
        stop->setEnabled(true);
        stop->trigger();
        QVERIFY(!capture->status().capturing);
        const auto kept = capture->status().counts;
        QTest::qWait(300);
        QCOMPARE(capture->status().counts.records, kept.records);

        QTemporaryDir dir;
        const QString saved = dir.filePath("capture.pt.trace.json");
        QString error;
        QVERIFY2(capture->save(saved, &error), qPrintable(error));
        // Saving says what it wrote (issue 52 item 14).
        QVERIFY2(capture->lastSaveText().startsWith(QStringLiteral("Saved ")) &&
                     capture->lastSaveText().contains(saved),
                 qPrintable(capture->lastSaveText()));
        // The program ended after Stop: the tab says when and how, and it is reaped, not a zombie until the
        // viewer quits (it read "running (pid N)" forever).
        QVERIFY(capture->status().targetRunning);
        const QString pidText = capture->statusText().section(QStringLiteral("(pid "), 1).section(')', 0, 0);
        QVERIFY2(!pidText.isEmpty(), qPrintable(capture->statusText()));
        capture->terminateTarget();
        QTRY_VERIFY_WITH_TIMEOUT(capture->statusText().contains(QStringLiteral("program ended by signal 15")),
                                 10000);
        QVERIFY(!capture->statusText().contains(QStringLiteral("running (pid")));
        QVERIFY(QRegularExpression(QStringLiteral(" at \\d\\d:\\d\\d:\\d\\d"))
                    .match(capture->statusText())
                    .hasMatch());
        QVERIFY(!QFileInfo::exists(QStringLiteral("/proc/") + pidText));

        TraceView* reopened = window.openTrace(saved);
        QTRY_COMPARE_WITH_TIMEOUT(reopened->state(), TraceView::State::Ready, 30000);
        QCOMPARE(kernelSlices(*reopened->trace()->store), std::size_t(kept.kernels));
        QVERIFY(!reopened->trace()->store->flows().empty());
        QVERIFY(reopened->bannerText().isEmpty());
    }

    // Running to the end: the final view holds every kernel of the replayed trace, and the tab says it ended.
    void captureRunsToTheEnd() {
        MainWindow window;
        const char* trace = "AMD-AGI__TraceLens/tests__traces__torch_compile_triton__trace.json.gz";
        CaptureView* capture = window.startCapture(replaySpec(trace, 0));
        QSignalSpy ended(capture, &CaptureView::captureEnded);
        QTRY_VERIFY_WITH_TIMEOUT(ended.count() == 1, 60000);
        const LoadResult original = loadTrace(test::tracePath(trace));
        QVERIFY(capture->traceView());
        QCOMPARE(kernelSlices(*capture->traceView()->trace()->store), kernelSlices(*original.store));
        QCOMPARE(window.tabs()->tabText(window.tabs()->indexOf(capture)), capture->title());
        QVERIFY2(capture->statusText().contains(QStringLiteral("program exited with code 0 at ")),
                 qPrintable(capture->statusText()));
    }

    // A capture that ends before any record arrives says so in its tab and refuses to save (it saved an empty
    // trace that reopened as a blank timeline without a word).
    void noRecordsNothingToSave() {
        MainWindow window;
        window.show();
        live::LaunchSpec spec;
        spec.program = "/bin/sleep";
        spec.arguments = {"0.3"};
        spec.agentPath = KINETOSCOPE_AGENT_LIB;
        CaptureView* capture = window.startCapture(spec);
        QVERIFY(capture);
        QSignalSpy ended(capture, &CaptureView::captureEnded);
        capture->stop();
        QTRY_VERIFY_WITH_TIMEOUT(ended.count() == 1, 10000);
        QCOMPARE(capture->status().counts.records, std::uint64_t(0));
        bool said = false;
        for (QLabel* l : capture->findChildren<QLabel*>())
            said = said || (l->isVisible() && l->text().contains(QStringLiteral("nothing to show or save")));
        QVERIFY(said);
        QTemporaryDir dir;
        QString error;
        QVERIFY(!capture->save(dir.filePath("empty.json"), &error));
        QVERIFY(error.contains(QStringLiteral("no record")));
        QVERIFY(!QFileInfo::exists(dir.filePath("empty.json")));
        // sleep ends by itself: exited with code 0, reaped though nothing reads the socket any more.
        QTRY_VERIFY_WITH_TIMEOUT(capture->statusText().contains(QStringLiteral("program exited with code 0")),
                                 10000);
    }

    // A program that cannot start says so in its tab; other tabs are untouched.
    void launchFailureStaysInItsTab() {
        MainWindow window;
        live::LaunchSpec spec;
        spec.program = "/nonexistent/program";
        spec.agentPath = KINETOSCOPE_AGENT_LIB;
        CaptureView* capture = window.startCapture(spec);
        QVERIFY(!capture->capturing());
        QVERIFY2(capture->statusText().contains(QStringLiteral("cannot run")),
                 qPrintable(capture->statusText()));
        QVERIFY(!capture->save(QDir::temp().filePath("never.json"), nullptr));
    }

    // The dialog's labels showed "&Program:" with its ampersand (a label beside a layout has no buddy), and
    // Start took an empty program. Each label has its field as buddy; Start waits for a program or a replay.
    void launchDialogLabelsAndStart() {
        LaunchDialog dialog;
        dialog.setSpec({});
        auto* buttons = dialog.findChild<QDialogButtonBox*>();
        QVERIFY(buttons);
        QPushButton* start = buttons->button(QDialogButtonBox::Ok);
        QVERIFY(!start->isEnabled());
        int labelled = 0;
        for (QLabel* label : dialog.findChildren<QLabel*>()) {
            if (!label->text().contains(QLatin1Char('&'))) continue;
            QVERIFY2(label->buddy(), qPrintable(label->text()));
            ++labelled;
        }
        QCOMPARE(labelled, 6); // program, arguments, working directory, environment, replay, speed
        QLineEdit* program = nullptr;
        for (QLabel* label : dialog.findChildren<QLabel*>())
            if (label->text() == QStringLiteral("&Program:"))
                program = qobject_cast<QLineEdit*>(label->buddy());
        QVERIFY(program);
        program->setText(QStringLiteral("python3"));
        QVERIFY(start->isEnabled());
        program->setText(QStringLiteral("  "));
        QVERIFY(!start->isEnabled());
        live::LaunchSpec replay;
        replay.replayTrace = "trace.json";
        dialog.setSpec(replay);
        QVERIFY(start->isEnabled());
    }
};

QTEST_MAIN(TestCaptureView)
#include "tst_captureview.moc"
