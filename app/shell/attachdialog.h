#pragma once

#include "live/attachsession.h"

#include <QDialog>
#include <QHash>

#include <memory>

class QCheckBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QRadioButton;
class QSpinBox;
class QTableWidget;
class QTimer;

namespace kinetoscope {

// File › Attach to a Running PyTorch Process…: Kineto's on-demand daemon in the window (live/ondemand.h). The
// processes started with KINETO_USE_DAEMON=1 that poll, refreshed as they poll; what to record; Capture for
// the ticked ones, each row then saying where it is (waiting for its poll, recording, writing, done, or why
// it failed), with Cancel. The traces that arrive are handed on (tracesReady) to open: one as a trace,
// several as a job. When nothing polls, it says what the user must do.
class AttachDialog : public QDialog {
    Q_OBJECT
  public:
    explicit AttachDialog(QWidget* parent = nullptr);
    ~AttachDialog() override;

    QTableWidget* processTable() const { return m_table; }
    QLabel* hint() const { return m_hint; }
    QPushButton* captureButton() const { return m_capture; }
    QSpinBox* durationBox() const { return m_duration; }
    QLineEdit* folderField() const { return m_folder; }
    // Ticks the row of `pid` (false when it is not listed).
    bool tick(qint64 pid);

  signals:
    void tracesReady(const QStringList& paths);

  private:
    void pump();
    void refresh();
    // Binds the name Kineto polls, or says who holds it (another Kinetoscope, dynolog); tried again every
    // second while it is held, so that the dialog works once the other lets go.
    void tryToBind();
    int rowOf(qint64 pid) const;
    void startCapture();
    void cancelCapture();

    live::OnDemandDaemon m_daemon;
    bool m_bound = false;
    QHash<qint64, int> m_rowByPid; // rows are only ever appended
    std::unique_ptr<live::AttachSession> m_session;
    QTableWidget* m_table;
    QLabel* m_hint;
    QRadioButton* m_byTime;
    QSpinBox* m_duration;
    QSpinBox* m_iterations;
    QCheckBox* m_shapes;
    QCheckBox* m_stack;
    QCheckBox* m_memory;
    QCheckBox* m_modules;
    QLineEdit* m_folder;
    QPushButton* m_capture;
    QPushButton* m_cancel;
    QTimer* m_timer;
};

} // namespace kinetoscope
