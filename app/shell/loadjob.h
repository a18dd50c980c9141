#pragma once

#include "shell/loadedtrace.h"

#include <QObject>
#include <QString>

#include <atomic>
#include <memory>
#include <thread>

namespace kinetoscope {

// Loads one trace on a worker thread. Progress is published through atomics that the UI polls on a timer
// (the loader may report thousands of times a second); the result arrives by queued signal. Cancelling only
// sets a flag the loader checks between chunks, so the UI never waits for a load.
class LoadJob : public QObject {
    Q_OBJECT
  public:
    // `previews`: build the first screens of a large file (`previewed`); a caller that shows none says false,
    // and the load spends nothing on them.
    explicit LoadJob(QString path, QObject* parent = nullptr, bool previews = true);
    ~LoadJob() override;

    void start();
    void cancel();
    const QString& path() const { return m_path; }

    struct Progress {
        int stage = 0; // LoadProgress::Stage
        quint64 bytesDone = 0;
        quint64 bytesTotal = 0;
        quint64 eventsDone = 0;
    };
    Progress progress() const;

  signals:
    // A large file's first screens, before `loaded`: stores of samples of its events (LoadOptions::preview: a
    // gzip file's as it inflates, then one spread over the whole file). Files under
    // KINETOSCOPE_PREVIEW_MIN_BYTES (default 64 MiB) have none.
    void previewed(std::shared_ptr<kinetoscope::LoadedTrace> preview);
    void loaded(std::shared_ptr<kinetoscope::LoadedTrace> trace);
    void failed(QString message, bool cancelled);

  private:
    struct Shared;
    QString m_path;
    bool m_previews = true;
    std::shared_ptr<Shared> m_shared;
    std::thread m_thread;
};

} // namespace kinetoscope
