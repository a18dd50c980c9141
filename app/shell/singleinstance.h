#pragma once

#include <QObject>
#include <QStringList>

class QLocalServer;

namespace kinetoscope {

// One Kinetoscope window per user: a second `kinetoscope FILE` (a double-click in the file manager) hands its
// files to the running instance over a local socket and exits; the running one opens them as tabs.
class SingleInstance : public QObject {
    Q_OBJECT
  public:
    // The socket name, one per user and display ($WAYLAND_DISPLAY, else $DISPLAY); KINETOSCOPE_INSTANCE
    // overrides it (tests).
    static QString defaultName();

    explicit SingleInstance(QString name = defaultName(), QObject* parent = nullptr);
    ~SingleInstance() override;

    // Sends absolute paths to a running instance; true when one took them.
    bool sendToRunning(const QStringList& files, int timeoutMs = 2000) const;
    // Becomes the running instance (replacing a stale socket left by a crash). False when it cannot listen.
    bool listen();
    const QString& name() const { return m_name; }

  signals:
    void filesReceived(const QStringList& files);

  private:
    QString m_name;
    QLocalServer* m_server = nullptr;
};

} // namespace kinetoscope
