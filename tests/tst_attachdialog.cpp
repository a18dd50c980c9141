// File › Attach to a Running PyTorch Process… (issue 53): the dialog lists the processes that poll
// (kinetoscope-fake-kineto speaking Kineto's side), says what to do when none does, captures the ticked ones
// with each row's state, and the traces open: one as a trace, several as a job.
#include "live/ondemand.h"
#include "shell/attachdialog.h"
#include "shell/mainwindow.h"
#include "testsupport.h"
#include "views/distributedview.h"
#include "views/traceview.h"

#include <QAction>
#include <QApplication>
#include <QLabel>
#include <QLineEdit>
#include <QProcess>
#include <QPushButton>
#include <QSpinBox>
#include <QTabWidget>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>

#include <memory>

using namespace kinetoscope;

class TestAttachDialog : public QObject {
    Q_OBJECT
  private slots:
    void init();
    void cleanup();
    void saysWhatToDoWhenNothingPolls();
    void capturesAndOpensAJob();
    void oneTraceOpensAsATrace();
    void listensOnceTheNameIsFree();

  private:
    QProcess* startClient();
    AttachDialog* openDialog(MainWindow& window);

    std::unique_ptr<QTemporaryDir> m_socketDir;
    std::vector<std::unique_ptr<QProcess>> m_clients;
};

void TestAttachDialog::init() {
    m_socketDir = std::make_unique<QTemporaryDir>();
    // The dialog's daemon and the clients meet in this folder, not at the machine's "dynolog".
    qputenv("KINETO_IPC_SOCKET_DIR", m_socketDir->path().toLocal8Bit());
}

void TestAttachDialog::cleanup() {
    for (auto& c : m_clients) {
        c->kill();
        c->waitForFinished(3000);
    }
    m_clients.clear();
    qunsetenv("KINETO_IPC_SOCKET_DIR");
}

QProcess* TestAttachDialog::startClient() {
    auto p = std::make_unique<QProcess>();
    p->setProcessEnvironment(QProcessEnvironment::systemEnvironment());
    p->start(QStringLiteral(KINETOSCOPE_FAKE_KINETO), {});
    p->waitForStarted();
    m_clients.push_back(std::move(p));
    return m_clients.back().get();
}

AttachDialog* TestAttachDialog::openDialog(MainWindow& window) {
    for (QAction* a : window.findChildren<QAction*>())
        if (a->text() == QStringLiteral("&Attach to a Running PyTorch Process…")) a->trigger();
    return window.findChild<AttachDialog*>();
}

void TestAttachDialog::saysWhatToDoWhenNothingPolls() {
    MainWindow window;
    AttachDialog* dialog = openDialog(window);
    QVERIFY(dialog);
    QVERIFY(dialog->isVisible());
    QTest::qWait(400);
    QCOMPARE(dialog->processTable()->rowCount(), 0);
    QVERIFY2(dialog->hint()->text().contains(QStringLiteral("KINETO_USE_DAEMON=1")),
             qPrintable(dialog->hint()->text()));
    QVERIFY(!dialog->captureButton()->isEnabled());
}

void TestAttachDialog::capturesAndOpensAJob() {
    QProcess* a = startClient();
    QProcess* b = startClient();
    MainWindow window;
    window.resize(1400, 900);
    window.show();
    AttachDialog* dialog = openDialog(window);
    QVERIFY(dialog);
    QTRY_COMPARE_WITH_TIMEOUT(dialog->processTable()->rowCount(), 2, 10000);
    QVERIFY(!dialog->captureButton()->isEnabled()); // nothing ticked yet
    QVERIFY(dialog->tick(a->processId()) && dialog->tick(b->processId()));
    QVERIFY(dialog->captureButton()->isEnabled());
    QTemporaryDir out;
    dialog->folderField()->setText(out.path());
    dialog->durationBox()->setValue(50);
    QTest::mouseClick(dialog->captureButton(), Qt::LeftButton);
    // Each row says where its capture is, then the two traces open as a job of two ranks.
    bool sawState = false;
    QTRY_VERIFY_WITH_TIMEOUT(
        [&] {
            for (int r = 0; r < dialog->processTable()->rowCount(); ++r)
                sawState = sawState || !dialog->processTable()->item(r, 5)->text().isEmpty();
            return window.findChild<DistributedView*>() != nullptr;
        }(),
        20000);
    QVERIFY(sawState);
    auto* job = window.findChild<DistributedView*>();
    QTRY_VERIFY_WITH_TIMEOUT(job->isReady(), 30000);
    QCOMPARE(job->timelines().size(), std::size_t(2));
    for (int r = 0; r < dialog->processTable()->rowCount(); ++r)
        QCOMPARE(dialog->processTable()->item(r, 5)->text(), QStringLiteral("done"));
    for (QProcess* c : {a, b})
        QVERIFY(QFile::exists(out.filePath(QStringLiteral("kineto_%1.pt.trace.json").arg(c->processId()))));
}

void TestAttachDialog::oneTraceOpensAsATrace() {
    QProcess* a = startClient();
    MainWindow window;
    window.show();
    AttachDialog* dialog = openDialog(window);
    QVERIFY(dialog);
    QTRY_COMPARE_WITH_TIMEOUT(dialog->processTable()->rowCount(), 1, 10000);
    QVERIFY(dialog->tick(a->processId()));
    QTemporaryDir out;
    dialog->folderField()->setText(out.path());
    dialog->durationBox()->setValue(50);
    QTest::mouseClick(dialog->captureButton(), Qt::LeftButton);
    QTRY_VERIFY_WITH_TIMEOUT(window.findChild<TraceView*>() != nullptr, 20000);
    TraceView* view = window.findChild<TraceView*>();
    QTRY_COMPARE_WITH_TIMEOUT(view->state(), TraceView::State::Ready, 30000);
    QCOMPARE(view->trace()->store->sliceCount(), std::size_t(4));
}

// Another program holds the name (here a daemon of this process, as another Kinetoscope would): the dialog
// says it cannot listen, tries again by itself, and lists the processes once the other lets go.
void TestAttachDialog::listensOnceTheNameIsFree() {
    auto other = std::make_unique<live::OnDemandDaemon>();
    std::string error;
    QVERIFY2(other->bind(error), error.c_str());
    MainWindow window;
    AttachDialog* dialog = openDialog(window);
    QVERIFY(dialog);
    QVERIFY2(dialog->hint()->text().contains(QStringLiteral("Cannot listen")),
             qPrintable(dialog->hint()->text()));
    QProcess* a = startClient();
    QTest::qWait(600);
    QCOMPARE(dialog->processTable()->rowCount(), 0);
    other.reset(); // the other program ends
    QTRY_COMPARE_WITH_TIMEOUT(dialog->processTable()->rowCount(), 1, 10000);
    QVERIFY(dialog->tick(a->processId()));
    QVERIFY(!dialog->hint()->text().contains(QStringLiteral("Cannot listen")));
    // A cut cell shows its whole text as a tooltip.
    QVERIFY(
        dialog->processTable()->item(0, 6)->toolTip().contains(QStringLiteral("kinetoscope-fake-kineto")));
}

QTEST_MAIN(TestAttachDialog)
#include "tst_attachdialog.moc"
