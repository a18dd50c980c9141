#pragma once

#include <QHash>
#include <QObject>
#include <QString>

class QTimer;

namespace kinetoscope {

// Watches a folder (and below) for traces a running job writes: a file is reported once, when it has stopped
// growing for two polls and its content is complete (JSON that ends its document; gzip whose stream inflates
// to the end). A half-written file is waited for, never reported half.
class FolderWatcher : public QObject {
    Q_OBJECT
  public:
    explicit FolderWatcher(QString dir, QObject* parent = nullptr, int pollMs = 1000);
    const QString& dir() const { return m_dir; }
    // Files present when watching started are reported too (like opening the folder), unless told otherwise.
    void start(bool reportExisting = true);
    void pollNow();
    // Whether a file's content is a complete document (exposed for tests).
    static bool isComplete(const QString& path);

  signals:
    void traceReady(const QString& path);
    void scanned(); // after each poll

  private:
    struct Seen {
        qint64 size = -1;
        qint64 mtime = 0;
        int stablePolls = 0;
        bool reported = false;
        bool checking = false;
        bool notTrace = false;
    };
    QString m_dir;
    QTimer* m_timer;
    QHash<QString, Seen> m_seen;
    bool m_reportExisting = true;
    bool m_firstPoll = true;
};

} // namespace kinetoscope
