#pragma once

#include "live/capturesession.h"

#include <QElapsedTimer>
#include <QWidget>

#include <memory>

class QCheckBox;
class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QPushButton;
class QStackedWidget;
class QTimer;

namespace kinetoscope {

class TraceView;
struct LoadedTrace;

// One live capture in a tab: the target runs with the agent injected, records stream in, and the timeline and
// the tables (a full TraceView of the capture so far) are rebuilt off the UI thread as they grow, following
// the newest data unless paused. A status line counts records received, dropped and bytes. Save writes a
// Kineto trace.
class CaptureView : public QWidget {
    Q_OBJECT
  public:
    explicit CaptureView(live::LaunchSpec spec, QWidget* parent = nullptr);
    ~CaptureView() override;

    // Starts the target; false with a one-line reason (shown in the tab as well).
    bool start(QString* error = nullptr);
    // Stops receiving; the target runs on (its agent counts what it can no longer send).
    void stop();
    void terminateTarget();
    // Refuses (with `error`) a capture that received no record: it would open as a blank timeline.
    bool save(const QString& path, QString* error);
    // What the last save wrote, for the window to confirm it: "Saved 1,234 records (56 kernels) to PATH".
    QString lastSaveText() const { return m_savedText; }

    bool capturing() const;
    bool follow() const { return m_follow; }
    void setFollow(bool follow);
    live::SessionStatus status() const;
    QString statusText() const { return m_statusText; }
    QString title() const;
    // The view of the latest snapshot shown (null until the first records arrive).
    TraceView* traceView() const { return m_view; }
    // Snapshots shown so far.
    int refreshCount() const { return m_refreshes; }

  signals:
    void refreshed();
    void statusChanged();
    void captureEnded();

  private:
    void poll();
    void rebuild();
    void show(std::shared_ptr<LoadedTrace> trace, std::uint64_t generation);
    // " · program exited with code 0 at 21:40:02", or ended by which signal.
    static QString exitText(const live::SessionStatus& st);

    live::LaunchSpec m_spec;
    std::unique_ptr<live::CaptureSession> m_session;
    QStackedWidget* m_stack;
    QLabel* m_waiting;
    QLabel* m_status;
    QPushButton* m_followButton;
    QPushButton* m_stopButton;
    QTimer* m_poll;
    TraceView* m_view = nullptr;
    QString m_statusText;
    QString m_savedText;
    bool m_follow = true;
    bool m_building = false;
    bool m_ended = false;
    std::uint64_t m_shownGeneration = 0;
    int m_refreshes = 0;
    QElapsedTimer m_buildTimer, m_sinceBuild;
    qint64 m_lastBuildMs = 0;
};

} // namespace kinetoscope
