#include "shell/attachdialog.h"

#include <signal.h>

#include <cerrno>

#include <QCheckBox>
#include <QDir>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QRadioButton>
#include <QSpinBox>
#include <QTableWidget>
#include <QTimer>
#include <QVBoxLayout>

namespace kinetoscope {

namespace {
enum Column { Pid, State, Job, Rank, LastPoll, Capture, Command, ColumnCount };

QString noProcessText() {
    return QObject::tr(
        "No PyTorch process polls yet. Start the job with <b>KINETO_USE_DAEMON=1</b> in its environment "
        "(PyTorch 2.0 or later; it polls every 5 s), on this host and in the same network namespace, or with "
        "the same <b>KINETO_IPC_SOCKET_DIR</b> in both.");
}
} // namespace

AttachDialog::AttachDialog(QWidget* parent)
    : QDialog(parent), m_daemon("the Kinetoscope viewer's Attach dialog") {
    setWindowTitle(tr("Attach to a Running PyTorch Process"));
    resize(980, 520);
    auto* layout = new QVBoxLayout(this);
    m_hint = new QLabel(this);
    m_hint->setWordWrap(true);
    m_hint->setTextFormat(Qt::RichText);
    layout->addWidget(m_hint);
    m_table = new QTableWidget(0, ColumnCount, this);
    m_table->setHorizontalHeaderLabels(
        {tr("PID"), tr("Profiler"), tr("Job"), tr("Rank"), tr("Last poll"), tr("Capture"), tr("Command")});
    m_table->verticalHeader()->hide();
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->horizontalHeader()->setStretchLastSection(true);
    layout->addWidget(m_table, 1);

    auto* form = new QFormLayout;
    auto* span = new QHBoxLayout;
    m_byTime = new QRadioButton(tr("&Duration (ms):"), this);
    m_byTime->setChecked(true);
    m_duration = new QSpinBox(this);
    m_duration->setRange(1, 600000);
    m_duration->setValue(2000);
    auto* bySteps = new QRadioButton(tr("&Iterations:"), this);
    bySteps->setToolTip(
        tr("Optimizer steps, counted by the hook PyTorch installs with KINETO_USE_DAEMON. A loop "
           "without torch.optim gets a 500 ms trace instead: use a duration there."));
    m_iterations = new QSpinBox(this);
    m_iterations->setRange(1, 1000);
    m_iterations->setValue(3);
    span->addWidget(m_byTime);
    span->addWidget(m_duration);
    span->addSpacing(16);
    span->addWidget(bySteps);
    span->addWidget(m_iterations);
    span->addStretch(1);
    form->addRow(tr("Record:"), span);
    auto* what = new QHBoxLayout;
    m_shapes = new QCheckBox(tr("Input &shapes"), this);
    m_stack = new QCheckBox(tr("Python s&tacks"), this);
    m_memory = new QCheckBox(tr("&Memory events"), this);
    m_modules = new QCheckBox(tr("M&odules"), this);
    m_shapes->setChecked(true);
    m_stack->setChecked(true);
    for (QCheckBox* box : {m_shapes, m_stack, m_memory, m_modules})
        what->addWidget(box);
    what->addStretch(1);
    form->addRow(tr("With:"), what);
    m_folder = new QLineEdit(QDir::home().filePath(QStringLiteral("kinetoscope-traces")), this);
    auto* folderLabel = new QLabel(tr("Save &to:"), this);
    folderLabel->setBuddy(m_folder);
    form->addRow(folderLabel, m_folder);
    layout->addLayout(form);

    auto* buttons = new QHBoxLayout;
    m_capture = new QPushButton(tr("&Capture"), this);
    m_cancel = new QPushButton(tr("C&ancel Capture"), this);
    auto* close = new QPushButton(tr("Close"), this);
    m_cancel->setEnabled(false);
    buttons->addStretch(1);
    buttons->addWidget(m_capture);
    buttons->addWidget(m_cancel);
    buttons->addWidget(close);
    layout->addLayout(buttons);
    connect(m_capture, &QPushButton::clicked, this, &AttachDialog::startCapture);
    connect(m_cancel, &QPushButton::clicked, this, &AttachDialog::cancelCapture);
    connect(close, &QPushButton::clicked, this, &QDialog::reject);
    connect(m_table, &QTableWidget::itemChanged, this, [this] { refresh(); });

    m_timer = new QTimer(this);
    m_timer->setInterval(200);
    connect(m_timer, &QTimer::timeout, this, &AttachDialog::pump);
    m_timer->start();
    tryToBind();
    refresh();
}

void AttachDialog::tryToBind() {
    std::string error;
    m_bound = m_daemon.bind(error);
    if (m_bound) {
        m_hint->setStyleSheet({});
        m_timer->setInterval(200);
        return;
    }
    QString who = QString::fromStdString(error).toHtmlEscaped();
    if (m_daemon.nameHeld()) {
        const live::NameHolder holder = live::askNameHolder(100);
        if (holder.pid > 0)
            who = tr("%1 (pid %2) listens: close it there")
                      .arg(QString::fromStdString(holder.name).toHtmlEscaped())
                      .arg(holder.pid);
    }
    m_hint->setText(
        tr("Cannot listen for PyTorch processes: %1. Trying again every second; or trace with the "
           "other program's own tool.")
            .arg(who));
    m_hint->setStyleSheet(QStringLiteral("color:#991b1b"));
    m_timer->setInterval(1000);
}

int AttachDialog::rowOf(qint64 pid) const {
    return m_rowByPid.value(pid, -1);
}

AttachDialog::~AttachDialog() = default;

bool AttachDialog::tick(qint64 pid) {
    const int row = rowOf(pid);
    if (row < 0) return false;
    m_table->item(row, Pid)->setCheckState(Qt::Checked);
    return true;
}

void AttachDialog::pump() {
    if (!m_bound) {
        tryToBind();
        if (!m_bound) return;
        refresh();
    }
    m_daemon.pump(0);
    if (m_session) {
        m_session->step();
        if (m_session->finished()) {
            QStringList paths;
            for (const live::AttachTarget& t : m_session->targets())
                if (t.state == live::AttachTarget::State::Done) paths << QString::fromStdString(t.path);
            refresh();
            m_session.reset(); // (its rows keep their last words)
            m_cancel->setEnabled(false);
            if (!paths.isEmpty()) emit tracesReady(paths);
        }
    }
    refresh();
}

void AttachDialog::refresh() {
    const QSignalBlocker block(m_table);
    const auto now = std::chrono::steady_clock::now();
    // One row a process that polled; a row stays (with its capture's state) once it is there.
    for (const auto& [pid, p] : m_daemon.processes()) {
        int row = rowOf(pid);
        if (row < 0) {
            row = m_table->rowCount();
            m_rowByPid.insert(pid, row);
            m_table->insertRow(row);
            auto* pidItem = new QTableWidgetItem(QString::number(pid));
            pidItem->setData(Qt::UserRole, qint64(pid));
            pidItem->setFlags(pidItem->flags() | Qt::ItemIsUserCheckable);
            pidItem->setCheckState(Qt::Unchecked);
            m_table->setItem(row, Pid, pidItem);
            for (int c = State; c < ColumnCount; ++c)
                m_table->setItem(row, c, new QTableWidgetItem);
            const auto env = live::processJobEnvironment(pid);
            const auto rank = env.find("RANK");
            m_table->item(row, Rank)->setText(rank == env.end() ? QStringLiteral("-")
                                                                : QString::fromStdString(rank->second));
            const QString command = QString::fromStdString(live::processCommandLine(pid));
            m_table->item(row, Command)->setText(command);
            m_table->item(row, Command)->setToolTip(command); // (cut by the column)
        }
        // A process that ended stays listed (its capture's state may matter), said to be gone.
        const bool gone = ::kill(pid, 0) != 0 && errno == ESRCH;
        m_table->item(row, State)->setText(gone ? tr("gone") : p.idle ? tr("idle") : tr("busy"));
        m_table->item(row, Job)->setText(p.jobId ? QString::number(p.jobId) : QStringLiteral("-"));
        m_table->item(row, LastPoll)
            ->setText(tr("%1 s ago").arg(std::chrono::duration<double>(now - p.lastPoll).count(), 0, 'f', 0));
    }
    if (m_session)
        for (const live::AttachTarget& t : m_session->targets())
            if (const int r = rowOf(t.pid); r >= 0) {
                QTableWidgetItem* item = m_table->item(r, Capture);
                const QString state = QString::fromStdString(live::stateText(t));
                item->setText(state);
                item->setToolTip(t.state == live::AttachTarget::State::Done ? QString::fromStdString(t.path)
                                                                            : state); // (cut by the column)
                item->setForeground(t.state == live::AttachTarget::State::Failed ? QColor(0x99, 0x1b, 0x1b)
                                                                                 : QColor(0x11, 0x18, 0x27));
            }
    if (m_bound)
        m_hint->setText(
            m_daemon.processes().empty()
                ? noProcessText()
                : tr("PyTorch processes that poll for a trace request (KINETO_USE_DAEMON=1). Tick "
                     "those to trace: each records with its own profiler, and the traces open "
                     "when they are written (several as a job)."));
    int ticked = 0;
    for (int r = 0; r < m_table->rowCount(); ++r)
        ticked += m_table->item(r, Pid)->checkState() == Qt::Checked;
    m_capture->setEnabled(m_bound && !m_session && ticked > 0);
}

void AttachDialog::startCapture() {
    std::vector<pid_t> pids;
    for (int r = 0; r < m_table->rowCount(); ++r)
        if (m_table->item(r, Pid)->checkState() == Qt::Checked)
            pids.push_back(pid_t(m_table->item(r, Pid)->data(Qt::UserRole).toLongLong()));
    if (pids.empty()) return;
    live::TraceRequest request;
    if (m_byTime->isChecked())
        request.durationMs = m_duration->value();
    else
        request.iterations = m_iterations->value();
    request.shapes = m_shapes->isChecked();
    request.stack = m_stack->isChecked();
    request.memory = m_memory->isChecked();
    request.modules = m_modules->isChecked();
    // Polls every 5 s by default: a little more than one interval for the first.
    m_session = std::make_unique<live::AttachSession>(m_daemon, request, m_folder->text().toStdString(),
                                                      std::chrono::seconds(12));
    std::string error;
    if (!m_session->start(pids, error)) {
        m_session.reset();
        m_hint->setText(QString::fromStdString(error).toHtmlEscaped());
        return;
    }
    m_cancel->setEnabled(true);
    refresh();
}

void AttachDialog::cancelCapture() {
    if (!m_session) return;
    m_session->cancel("cancelled");
    pump();
}

} // namespace kinetoscope
