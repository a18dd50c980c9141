#include "captureview.h"

#include "analysispanels.h"
#include "backgroundjobs.h"
#include "loadedtrace.h"
#include "timelinewidget.h"
#include "traceview.h"

#include <QCoreApplication>
#include <QDialogButtonBox>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QPlainTextEdit>
#include <QPointer>
#include <QProcess>
#include <QPushButton>
#include <QSaveFile>
#include <QSettings>
#include <QStackedWidget>
#include <QTabWidget>
#include <QTimer>
#include <QToolButton>
#include <QVBoxLayout>

namespace kinetoscope {

LaunchDialog::LaunchDialog(QWidget* parent) : QDialog(parent) {
    setWindowTitle(tr("Launch and Capture"));
    auto* form = new QFormLayout;
    auto browseRow = [this, form](const QString& label, QLineEdit* edit, bool directory,
                                  const QString& filter) {
        auto* row = new QHBoxLayout;
        auto* browse = new QToolButton(this);
        browse->setText(QStringLiteral("…"));
        row->addWidget(edit, 1);
        row->addWidget(browse);
        form->addRow(label, row);
        connect(browse, &QToolButton::clicked, this, [this, edit, directory, filter] {
            const QString chosen =
                directory ? QFileDialog::getExistingDirectory(this, tr("Working Directory"), edit->text())
                          : QFileDialog::getOpenFileName(this, tr("Choose"), edit->text(), filter);
            if (!chosen.isEmpty()) edit->setText(chosen);
        });
    };
    m_program = new QLineEdit(this);
    m_program->setPlaceholderText(tr("python3, ./train, …"));
    browseRow(tr("&Program:"), m_program, false, {});
    m_arguments = new QLineEdit(this);
    m_arguments->setPlaceholderText(tr("train.py --epochs 1   (quotes group words)"));
    form->addRow(tr("&Arguments:"), m_arguments);
    m_directory = new QLineEdit(this);
    browseRow(tr("&Working directory:"), m_directory, true, {});
    m_environment = new QPlainTextEdit(this);
    m_environment->setPlaceholderText(tr("NAME=VALUE, one per line"));
    m_environment->setMaximumHeight(80);
    form->addRow(tr("&Environment:"), m_environment);
    m_replay = new QLineEdit(this);
    m_replay->setPlaceholderText(tr("empty: capture the GPU with CUPTI"));
    browseRow(tr("&Replay trace:"), m_replay, false,
              tr("Traces (*.json *.json.gz *.pt.trace.json);;All files (*)"));
    m_speed = new QLineEdit(QStringLiteral("1"), this);
    m_speed->setToolTip(
        tr("Replay speed: 1 keeps the trace's timing, 2 plays twice as fast, 0 as fast as possible"));
    form->addRow(tr("Replay &speed:"), m_speed);

    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    buttons->button(QDialogButtonBox::Ok)->setText(tr("&Start"));
    connect(buttons, &QDialogButtonBox::accepted, this, [this] {
        QSettings settings;
        settings.setValue("capture/program", m_program->text());
        settings.setValue("capture/arguments", m_arguments->text());
        settings.setValue("capture/directory", m_directory->text());
        settings.setValue("capture/environment", m_environment->toPlainText());
        settings.setValue("capture/replay", m_replay->text());
        settings.setValue("capture/speed", m_speed->text());
        accept();
    });
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    auto* layout = new QVBoxLayout(this);
    auto* note =
        new QLabel(tr("The program runs with Kinetoscope's CUPTI agent injected (CUDA_INJECTION64_PATH); "
                      "its kernels, copies and CUDA calls appear as they complete."),
                   this);
    note->setWordWrap(true);
    layout->addWidget(note);
    layout->addLayout(form);
    layout->addWidget(buttons);
    resize(640, sizeHint().height());

    QSettings settings;
    m_program->setText(settings.value("capture/program").toString());
    m_arguments->setText(settings.value("capture/arguments").toString());
    m_directory->setText(settings.value("capture/directory").toString());
    m_environment->setPlainText(settings.value("capture/environment").toString());
    m_replay->setText(settings.value("capture/replay").toString());
    m_speed->setText(settings.value("capture/speed", "1").toString());
}

live::LaunchSpec LaunchDialog::spec() const {
    live::LaunchSpec spec;
    spec.program = m_program->text().trimmed().toStdString();
    for (const QString& a : QProcess::splitCommand(m_arguments->text()))
        spec.arguments.push_back(a.toStdString());
    spec.workingDirectory = m_directory->text().trimmed().toStdString();
    for (const QString& line : m_environment->toPlainText().split(QLatin1Char('\n'), Qt::SkipEmptyParts))
        if (line.contains(QLatin1Char('='))) spec.environment.push_back(line.trimmed().toStdString());
    spec.replayTrace = m_replay->text().trimmed().toStdString();
    bool ok = false;
    const double speed = m_speed->text().toDouble(&ok);
    spec.replaySpeed = ok && speed >= 0 ? speed : 1;
    return spec;
}

void LaunchDialog::setSpec(const live::LaunchSpec& spec) {
    m_program->setText(QString::fromStdString(spec.program));
    QStringList args;
    for (const std::string& a : spec.arguments) {
        const QString q = QString::fromStdString(a);
        args << (q.contains(QLatin1Char(' ')) ? QLatin1Char('"') + q + QLatin1Char('"') : q);
    }
    m_arguments->setText(args.join(QLatin1Char(' ')));
    m_directory->setText(QString::fromStdString(spec.workingDirectory));
    QStringList env;
    for (const std::string& e : spec.environment)
        env << QString::fromStdString(e);
    m_environment->setPlainText(env.join(QLatin1Char('\n')));
    m_replay->setText(QString::fromStdString(spec.replayTrace));
    m_speed->setText(QString::number(spec.replaySpeed));
}

CaptureView::CaptureView(live::LaunchSpec spec, QWidget* parent) : QWidget(parent), m_spec(std::move(spec)) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(0);
    auto* bar = new QWidget(this);
    bar->setStyleSheet(
        QStringLiteral("QWidget#captureBar{background:#eef2ff;border-bottom:1px solid #c7d2fe}"));
    bar->setObjectName(QStringLiteral("captureBar"));
    auto* barLayout = new QHBoxLayout(bar);
    barLayout->setContentsMargins(8, 3, 8, 3);
    m_status = new QLabel(bar);
    m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_followButton = new QPushButton(tr("Pause View"), bar);
    m_followButton->setToolTip(tr("Freeze the view (records keep arriving) / follow the newest data again"));
    m_stopButton = new QPushButton(tr("Stop Capture"), bar);
    m_stopButton->setToolTip(tr("Stop receiving; the program keeps running"));
    barLayout->addWidget(m_status, 1);
    barLayout->addWidget(m_followButton);
    barLayout->addWidget(m_stopButton);
    layout->addWidget(bar);
    m_stack = new QStackedWidget(this);
    m_waiting = new QLabel(
        tr("Waiting for the first records from %1…").arg(QString::fromStdString(m_spec.program)), m_stack);
    m_waiting->setAlignment(Qt::AlignCenter);
    m_waiting->setWordWrap(true);
    m_stack->addWidget(m_waiting);
    layout->addWidget(m_stack, 1);

    connect(m_followButton, &QPushButton::clicked, this, [this] { setFollow(!m_follow); });
    connect(m_stopButton, &QPushButton::clicked, this, &CaptureView::stop);
    m_poll = new QTimer(this);
    m_poll->setInterval(250);
    connect(m_poll, &QTimer::timeout, this, &CaptureView::poll);
}

CaptureView::~CaptureView() = default; // the session's destructor stops reading; the program is left running

bool CaptureView::start(QString* error) {
    m_session = std::make_unique<live::CaptureSession>();
    std::string why;
    if (!m_session->start(m_spec, why)) {
        m_session.reset();
        const QString message = tr("Cannot start the capture: %1").arg(QString::fromStdString(why));
        m_waiting->setText(message);
        m_waiting->setStyleSheet(QStringLiteral("QLabel{color:#991b1b;padding:24px}"));
        m_statusText = message;
        m_status->setText(message);
        m_stopButton->setEnabled(false);
        m_ended = true;
        if (error) *error = message;
        return false;
    }
    m_poll->start();
    poll();
    return true;
}

bool CaptureView::capturing() const {
    return m_session && m_session->status().capturing;
}

live::SessionStatus CaptureView::status() const {
    return m_session ? m_session->status() : live::SessionStatus{};
}

QString CaptureView::title() const {
    return tr("Capture: %1").arg(QFileInfo(QString::fromStdString(m_spec.program)).fileName());
}

void CaptureView::stop() {
    if (!m_session) return;
    m_session->stop();
    poll();
}

void CaptureView::terminateTarget() {
    if (m_session) m_session->terminateTarget();
}

void CaptureView::setFollow(bool follow) {
    m_follow = follow;
    m_followButton->setText(follow ? tr("Pause View") : tr("Follow"));
    if (follow) poll();
}

void CaptureView::poll() {
    if (!m_session) return;
    const live::SessionStatus st = m_session->status();
    const QLocale locale;
    QString text = tr("%1 records · %2 kernels · %3 dropped · %4 MB")
                       .arg(locale.toString(qulonglong(st.counts.records)),
                            locale.toString(qulonglong(st.counts.kernels)),
                            locale.toString(qulonglong(st.counts.dropped)))
                       .arg(double(st.counts.bytes) / 1e6, 0, 'f', 1);
    if (st.targetRunning)
        text += tr(" · %1 running (pid %2)")
                    .arg(QFileInfo(QString::fromStdString(m_spec.program)).fileName())
                    .arg(m_session->targetPid());
    else if (st.targetExited)
        text += tr(" · program exited (%1)").arg(st.exitStatus);
    if (st.capturing)
        text += m_follow ? tr(" · live") : tr(" · view paused");
    else
        text += tr(" · capture ended");
    if (st.counts.rejected)
        text += tr(" · %1 record(s) with impossible times skipped").arg(st.counts.rejected);
    if (st.refusedPeers) text += tr(" · %1 foreign connection(s) refused").arg(st.refusedPeers);
    if (!st.streamError.empty()) text += tr(" · stream cut: %1").arg(QString::fromStdString(st.streamError));
    text += tr(" · spool %1").arg(QString::fromStdString(m_session->spoolPath()));
    if (text != m_statusText) {
        m_statusText = text;
        m_status->setText(text);
        emit statusChanged();
    }
    m_stopButton->setEnabled(st.capturing);
    m_followButton->setEnabled(st.capturing);
    // A paused view stays as it is; otherwise show new data once the previous rebuild is done.
    // Each rebuild is the whole capture so far: for a long capture it takes a while, so wait twice as long as
    // the last one took before the next, and the viewer never spends more than a third of a core beside the
    // target.
    const bool rested = !m_sinceBuild.isValid() || m_sinceBuild.elapsed() >= 2 * m_lastBuildMs;
    if ((m_follow || !m_view) && !m_building && rested && m_session->generation() != m_shownGeneration &&
        st.counts.records > 0)
        rebuild();
    if (!st.capturing && !m_ended && !m_building && m_session->generation() == m_shownGeneration) {
        m_ended = true;
        m_poll->setInterval(1000);
        emit captureEnded();
    }
}

void CaptureView::rebuild() {
    m_building = true;
    m_buildTimer.start();
    const std::uint64_t generation = m_session->generation();
    // The copy is taken here, under the session's short lock; building the trace from it happens off the UI
    // thread.
    auto records = std::make_shared<live::CaptureRecords>(m_session->snapshot());
    QPointer<CaptureView> self(this);
    startBackground([records, self, generation] {
        LoadOptions options;
        options.sourcePath = "live capture";
        LoadResult r = records->buildStore(options);
        std::shared_ptr<LoadedTrace> trace;
        if (r.ok()) trace = prepareLoadedTrace(std::move(r.store), r.seconds);
        QMetaObject::invokeMethod(QCoreApplication::instance(), [self, trace, generation] {
            if (self) self->show(trace, generation);
        });
    });
}

void CaptureView::show(std::shared_ptr<LoadedTrace> trace, std::uint64_t generation) {
    m_building = false;
    m_lastBuildMs = m_buildTimer.elapsed();
    m_sinceBuild.start();
    m_shownGeneration = generation;
    if (!trace) return;
    // Keep what the user looks at: the bottom tab, and the visible range unless following the newest data.
    std::optional<TimeAxis> previousAxis;
    bool sawEverything = true; // the previous view showed the whole capture: keep showing all of it
    int bottomTab = -1;
    if (m_view && m_view->timeline()) {
        previousAxis = m_view->timeline()->frame().axis;
        const TraceStore& old = *m_view->trace()->store;
        sawEverything = previousAxis->start <= old.minTime && previousAxis->end >= old.maxTime;
        bottomTab = m_view->bottomTabs()->currentIndex();
    }
    auto* view = new TraceView(trace, title(), m_stack);
    m_stack->addWidget(view);
    m_stack->setCurrentWidget(view);
    if (m_view) m_view->deleteLater();
    m_view = view;
    if (bottomTab >= 0)
        view->bottomTabs()->setCurrentIndex(bottomTab);
    else
        view->bottomTabs()->setCurrentWidget(view->kernelPanel());
    if (view->timeline()) {
        const TraceStore& store = *trace->store;
        if (previousAxis && !m_follow) {
            view->timeline()->setVisibleRange(previousAxis->start, previousAxis->end, false);
        } else if (previousAxis && !sawEverything && store.maxTime > store.minTime) {
            // Follow a zoomed-in view: keep the zoom, slide to the newest data. (A view of everything stays
            // one.)
            const TimeNs span = std::min(previousAxis->span(), store.maxTime - store.minTime);
            view->timeline()->setVisibleRange(store.maxTime - span, store.maxTime, false);
        }
    }
    ++m_refreshes;
    emit refreshed();
}

bool CaptureView::save(const QString& path, QString* error) {
    if (!m_session) {
        if (error) *error = tr("nothing was captured");
        return false;
    }
    const std::string json = m_session->snapshot().toTraceJson();
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly) ||
        file.write(json.data(), qint64(json.size())) != qint64(json.size()) || !file.commit()) {
        if (error) *error = tr("%1: %2").arg(path, file.errorString());
        return false;
    }
    return true;
}

} // namespace kinetoscope
