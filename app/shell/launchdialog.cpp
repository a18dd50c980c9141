#include "shell/launchdialog.h"
#include "panels/panellayout.h"

#include <QDialogButtonBox>
#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QProcess>
#include <QPushButton>
#include <QSettings>
#include <QToolButton>
#include <QVBoxLayout>

namespace kinetoscope {

LaunchDialog::LaunchDialog(QWidget* parent) : QDialog(parent) {
    setWindowTitle(tr("Launch and Capture"));
    auto* form = new QFormLayout;
    // A label given as text beside a layout has no buddy, and shows its "&" as it is: each label is made with
    // its field as buddy, so Alt+letter reaches it.
    auto labelFor = [this](const QString& text, QWidget* field) {
        auto* label = new QLabel(text, this);
        label->setBuddy(field);
        return label;
    };
    auto browseRow = [this, form, labelFor](const QString& label, QLineEdit* edit, bool directory,
                                            const QString& filter) {
        auto* row = new QHBoxLayout;
        auto* browse = new QToolButton(this);
        browse->setText(QStringLiteral("…"));
        row->addWidget(edit, 1);
        row->addWidget(browse);
        form->addRow(labelFor(label, edit), row);
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
    form->addRow(labelFor(tr("&Arguments:"), m_arguments), m_arguments);
    m_directory = new QLineEdit(this);
    browseRow(tr("&Working directory:"), m_directory, true, {});
    m_environment = new QPlainTextEdit(this);
    m_environment->setPlaceholderText(tr("NAME=VALUE, one per line"));
    m_environment->setMaximumHeight(80);
    form->addRow(labelFor(tr("&Environment:"), m_environment), m_environment);
    m_replay = new QLineEdit(this);
    m_replay->setPlaceholderText(tr("empty: capture the GPU with CUPTI"));
    browseRow(tr("&Replay trace:"), m_replay, false,
              tr("Traces (*.json *.json.gz *.pt.trace.json);;All files (*)"));
    m_speed = new QLineEdit(QStringLiteral("1"), this);
    m_speed->setToolTip(
        tr("Replay speed: 1 keeps the trace's timing, 2 plays twice as fast, 0 as fast as possible"));
    form->addRow(labelFor(tr("Replay &speed:"), m_speed), m_speed);

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
    // Nothing to start without a program or a trace to replay.
    QPushButton* start = buttons->button(QDialogButtonBox::Ok);
    auto updateStart = [this, start] {
        start->setEnabled(!m_program->text().trimmed().isEmpty() || !m_replay->text().trimmed().isEmpty());
    };
    connect(m_program, &QLineEdit::textChanged, this, updateStart);
    connect(m_replay, &QLineEdit::textChanged, this, updateStart);
    updateStart();
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
    panellayout::keepOnScreen(this);

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

} // namespace kinetoscope
