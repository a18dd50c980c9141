#include "shell/folderwatcher.h"

#include "import/runscan.h"
#include "shell/backgroundjobs.h"

#include <QCoreApplication>
#include <QDirIterator>
#include <QFile>
#include <QFileInfo>
#include <QPointer>
#include <QThreadPool>
#include <QTimer>

#include <zlib.h>

namespace kinetoscope {

FolderWatcher::FolderWatcher(QString dir, QObject* parent, int pollMs)
    : QObject(parent), m_dir(std::move(dir)) {
    m_timer = new QTimer(this);
    m_timer->setInterval(pollMs);
    connect(m_timer, &QTimer::timeout, this, &FolderWatcher::pollNow);
}

void FolderWatcher::start(bool reportExisting) {
    m_reportExisting = reportExisting;
    m_firstPoll = true;
    pollNow();
    m_timer->start();
}

bool FolderWatcher::isComplete(const QString& path) {
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly)) return false;
    const QByteArray magic = f.peek(2);
    if (magic.size() == 2 && uchar(magic[0]) == 0x1f && uchar(magic[1]) == 0x8b) {
        // gzip: complete when every member inflates to its end (what `gzip -t` checks).
        f.close();
        gzFile gz = gzopen(QFile::encodeName(path).constData(), "rb");
        if (!gz) return false;
        static thread_local char buf[1 << 16];
        int n = 0;
        while ((n = gzread(gz, buf, sizeof buf)) > 0) {
        }
        int err = Z_OK;
        gzerror(gz, &err);
        const bool ok = n == 0 && err == Z_OK;
        gzclose(gz);
        return ok;
    }
    // JSON: the document's last non-space character closes it.
    const qint64 size = f.size();
    if (size == 0) return false;
    f.seek(std::max<qint64>(0, size - 4096));
    const QByteArray tail = f.readAll().trimmed();
    return !tail.isEmpty() && (tail.endsWith('}') || tail.endsWith(']'));
}

void FolderWatcher::pollNow() {
    QDirIterator it(m_dir, QDir::Files, QDirIterator::Subdirectories);
    const bool first = m_firstPoll;
    m_firstPoll = false;
    while (it.hasNext()) {
        const QString path = it.next();
        const QFileInfo info = it.fileInfo();
        Seen& s = m_seen[path];
        if (s.reported || s.checking) continue;
        if (first && !m_reportExisting) {
            s.reported = true;
            continue;
        }
        const qint64 mtime = info.lastModified().toMSecsSinceEpoch();
        if (info.size() == s.size && mtime == s.mtime) {
            ++s.stablePolls;
        } else {
            s.stablePolls = 0;
            s.notTrace = false; // it changed: look at it again
        }
        if (s.notTrace) continue;
        s.size = info.size();
        s.mtime = mtime;
        // Existing files at the first poll are taken as they are; new ones must stop growing first.
        if (!(first || s.stablePolls >= 2)) continue;
        if (!looksLikeTrace(path.toStdString())) {
            s.notTrace = true; // not a trace (yet): look again only when it changes
            continue;
        }
        s.checking = true;
        QPointer<FolderWatcher> self(this);
        startBackground([self, path] {
            const bool complete = isComplete(path);
            QMetaObject::invokeMethod(
                QCoreApplication::instance(),
                [self, path, complete] {
                    if (!self) return;
                    Seen& s = self->m_seen[path];
                    s.checking = false;
                    if (!complete) {
                        s.stablePolls = 0; // wait for it to change, then try again
                        return;
                    }
                    s.reported = true;
                    emit self->traceReady(path);
                },
                Qt::QueuedConnection);
        });
    }
    emit scanned();
}

} // namespace kinetoscope
