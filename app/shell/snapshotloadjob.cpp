#include "shell/snapshotloadjob.h"

#include "model/gzipsize.h"
#include "shell/backgroundjobs.h"
#include "snapshot/snapshotloader.h"

#include <QCoreApplication>
#include <QMetaObject>
#include <QPointer>

#include <atomic>
#include <chrono>

#ifdef __linux__
#include <pthread.h>
#endif

namespace kinetoscope {

struct SnapshotLoadJob::Shared {
    std::atomic<bool> cancel{false};
    std::atomic<bool> previewsDone{false};    // set when the full load ends (or is cancelled)
    std::atomic<bool> previewsRunning{false}; // the previews' thread has not ended yet
};

namespace {

constexpr std::uint64_t firstPreviewBytes = std::uint64_t(32) << 20;
constexpr std::uint64_t lastPreviewBytes = std::uint64_t(512) << 20; // a preview's graph costs memory too

// Named, so that a look at the process's threads (and a test) can tell them.
void nameThread(const char* name) {
#ifdef __linux__
    pthread_setname_np(pthread_self(), name);
#else
    (void)name;
#endif
}

std::uint64_t environmentBytes(const char* name, std::uint64_t fallback) {
    const QByteArray v = qgetenv(name);
    return v.isEmpty() ? fallback : v.toULongLong();
}

// Each device's timeline; none when cancelled.
LoadedSnapshot withTimelines(std::shared_ptr<const MemorySnapshot> snapshot, const std::atomic<bool>& cancel,
                             std::uint64_t fileTextBytes) {
    LoadedSnapshot out;
    for (const DeviceHistory& h : snapshot->devices) {
        out.timelines.push_back(std::make_shared<const MemoryTimeline>(
            *snapshot, h, MemoryTimeline::defaultCheckpointBudget, &cancel));
        if (cancel) return {};
    }
    out.snapshot = std::move(snapshot);
    out.fileTextBytes = fileTextBytes;
    return out;
}

} // namespace

SnapshotLoadJob::SnapshotLoadJob(QString path, QObject* parent)
    : QObject(parent), m_path(std::move(path)), m_shared(std::make_shared<Shared>()) {}

SnapshotLoadJob::~SnapshotLoadJob() {
    cancel();
    // The workers own a reference to the shared state and deliver through a QPointer: they may outlive us,
    // but not the application (they stop within milliseconds of the cancel).
    joinAtExit(std::move(m_full));
    joinAtExit(std::move(m_previews));
}

void SnapshotLoadJob::cancel() {
    m_shared->cancel = true;
    m_shared->previewsDone = true;
}

void SnapshotLoadJob::start() {
    QPointer<SnapshotLoadJob> self(this);
    auto shared = m_shared;
    const std::string path = m_path.toStdString();
    // Delivered through the application object: `self` may be deleted meanwhile, and is only checked on its
    // thread.
    const auto deliver = [self](auto f) {
        QMetaObject::invokeMethod(
            QCoreApplication::instance(),
            [self, f] {
                if (self) f(*self);
            },
            Qt::QueuedConnection);
    };

    const std::uint64_t pickleBytes = fileTextSize(path);
    m_full = std::thread([shared, path, pickleBytes, deliver] {
        nameThread("snapshot-load");
        lowerThreadPriority();
        SnapshotLoadOptions options;
        options.cancel = &shared->cancel;
        SnapshotLoadResult r = loadSnapshot(path, options);
        // Tests hold the whole snapshot back until every preview is in, and this long after, to look at them.
        const int hold = qEnvironmentVariableIntValue("KINETOSCOPE_PREVIEW_HOLD_MS");
        if (hold == 0) shared->previewsDone = true; // a preview still being read is of no use now
        LoadedSnapshot loaded;
        if (r.ok()) loaded = withTimelines(r.snapshot, shared->cancel, pickleBytes);
        while (hold > 0 && shared->previewsRunning && !shared->cancel)
            std::this_thread::sleep_for(std::chrono::milliseconds(10));
        for (int waited = 0; waited < hold && !shared->cancel; waited += 10)
            std::this_thread::sleep_for(std::chrono::milliseconds(10));
        shared->previewsDone = true;
        if (shared->cancel) return;
        const QString message = QString::fromStdString(r.message(path));
        if (!loaded.snapshot) {
            deliver([message](SnapshotLoadJob& job) { emit job.failed(message); });
            return;
        }
        if (!r.error.empty()) loaded.warning = message;
        deliver([loaded = std::move(loaded)](SnapshotLoadJob& job) { emit job.loaded(loaded); });
    });

    if (pickleBytes < environmentBytes("KINETOSCOPE_SNAPSHOT_PREVIEW_MIN_BYTES", std::uint64_t(256) << 20))
        return;
    shared->previewsRunning = true;
    m_previews = std::thread([shared, path, pickleBytes, deliver] {
        nameThread("snapshot-preview");
        struct Ended {
            std::atomic<bool>& running;
            ~Ended() { running = false; }
        } ended{shared->previewsRunning};
        lowerThreadPriority();
        SnapshotLoadOptions options;
        options.cancel = &shared->previewsDone;
        // Each preview four times the last, while it reads at most half the file: past that, the whole is
        // near.
        for (std::uint64_t bytes = std::max<std::uint64_t>(
                 64 << 10, environmentBytes("KINETOSCOPE_SNAPSHOT_PREVIEW_BYTES", firstPreviewBytes));
             bytes <= pickleBytes / 2 && bytes <= lastPreviewBytes && !shared->previewsDone; bytes *= 4) {
            options.stopAtBytes = bytes;
            SnapshotLoadResult r = loadSnapshot(path, options);
            if (!r.ok() || !r.snapshot->partial) return; // an error, or the file ended first
            LoadedSnapshot preview = withTimelines(r.snapshot, shared->previewsDone, pickleBytes);
            if (!preview.snapshot) return;
            deliver([preview = std::move(preview)](SnapshotLoadJob& job) { emit job.previewed(preview); });
            // The first screen is up: the longer previews take only what the whole file's read leaves of the
            // cores, so that they cost it little.
            lowerThreadPriority(19);
        }
    });
}

} // namespace kinetoscope
