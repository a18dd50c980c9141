#include "views/captureview.h"

#include "model/textformat.h"

#include "panels/analysispanels.h"
#include "shell/backgroundjobs.h"
#include "shell/loadedtrace.h"
#include "timeline/timelinewidget.h"
#include "views/traceview.h"

#include <QCoreApplication>
#include <QDateTime>
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

#include <cstring>

namespace kinetoscope {

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
    m_session->pollTarget(); // after Stop Capture no reader thread watches the program: reap it here
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
        text += exitText(st);
    if (st.capturing)
        text += m_follow ? tr(" · live") : tr(" · view paused");
    else
        text += tr(" · capture ended");
    for (const std::string& notice : st.notices)
        text += tr(" · agent: %1").arg(QString::fromStdString(notice));
    if (st.counts.rejected)
        text += tr(" · %1 with impossible times skipped")
                    .arg(QString::fromStdString(countText(st.counts.rejected, "record")));
    if (st.refusedPeers)
        text +=
            tr(" · %1 refused").arg(QString::fromStdString(countText(st.refusedPeers, "foreign connection")));
    if (!st.streamError.empty()) text += tr(" · stream cut: %1").arg(QString::fromStdString(st.streamError));
    text += tr(" · spool %1").arg(QString::fromStdString(m_session->spoolPath()));
    if (text != m_statusText) {
        m_statusText = text;
        m_status->setText(text);
        emit statusChanged();
    }
    m_stopButton->setEnabled(st.capturing);
    m_followButton->setEnabled(st.capturing ||
                               !m_follow); // paused at the end: one more Follow shows the rest
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
        // Nothing arrived: say so where the timeline would be (it was saved as an empty trace, silently).
        if (st.counts.records == 0) {
            m_waiting->setText(
                tr("The capture ended before any record arrived: there is nothing to show or "
                   "save.%1")
                    .arg(st.notices.empty()
                             ? QString()
                             : tr(" The agent said: %1").arg(QString::fromStdString(st.notices.back()))));
            m_waiting->setStyleSheet(QStringLiteral("QLabel{color:#92400e;padding:24px}"));
        }
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
    // Paused while this build ran: what the user looks at stays; following again builds anew.
    if (!m_follow && m_view) return;
    m_shownGeneration = generation;
    if (!trace) return;
    // Keep what the user looks at: the bottom tab, and the visible range unless following the newest data.
    std::optional<TimeAxis> previousAxis;
    bool sawEverything = true; // the previous view showed the whole capture: keep showing all of it
    int bottomTab = -1;
    if (m_view && m_view->timeline()) {
        previousAxis = m_view->timeline()->frame().axis;
        const TraceStore& old = *m_view->trace()->store;
        sawEverything = previousAxis->start <= old.minTime() && previousAxis->end >= old.maxTime();
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
        } else if (previousAxis && !sawEverything && store.maxTime() > store.minTime()) {
            // Follow a zoomed-in view: keep the zoom, slide to the newest data. (A view of everything stays
            // one.)
            const TimeNs span = std::min(previousAxis->span(), store.maxTime() - store.minTime());
            view->timeline()->setVisibleRange(store.maxTime() - span, store.maxTime(), false);
        }
    }
    ++m_refreshes;
    emit refreshed();
}

bool CaptureView::save(const QString& path, QString* error) {
    if (!m_session || m_session->status().counts.records == 0) {
        if (error) *error = tr("Nothing was captured: no record arrived, so there is no trace to save.");
        return false;
    }
    const live::CaptureRecords records = m_session->snapshot();
    const std::string json = records.toTraceJson();
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly) ||
        file.write(json.data(), qint64(json.size())) != qint64(json.size()) || !file.commit()) {
        if (error) *error = tr("%1: %2").arg(path, file.errorString());
        return false;
    }
    m_savedText = tr("Saved %1 (%2 kernels) to %3")
                      .arg(QString::fromStdString(countText(records.counts().records, "record")))
                      .arg(QLocale().toString(qulonglong(records.counts().kernels)))
                      .arg(path);
    return true;
}

QString CaptureView::exitText(const live::SessionStatus& st) {
    const QString when = QDateTime::fromMSecsSinceEpoch(st.exitedAtMs).toString(QStringLiteral("HH:mm:ss"));
    if (st.exitSignal != 0)
        return tr(" · program ended by signal %1 (%2) at %3")
            .arg(st.exitSignal)
            .arg(QString::fromLocal8Bit(::strsignal(st.exitSignal)), when);
    return tr(" · program exited with code %1 at %2").arg(st.exitStatus).arg(when);
}

} // namespace kinetoscope
