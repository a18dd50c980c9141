#include "shell/loadjob.h"

#include "shell/backgroundjobs.h"

#include "open/opentrace.h"

#include <QCoreApplication>
#include <QMetaObject>
#include <QPointer>

namespace kinetoscope {

struct LoadJob::Shared {
    std::atomic<bool> cancel{false};
    std::atomic<int> stage{0};
    std::atomic<quint64> bytesDone{0};
    std::atomic<quint64> bytesTotal{0};
    std::atomic<quint64> eventsDone{0};
};

LoadJob::LoadJob(QString path, QObject* parent, bool previews)
    : QObject(parent), m_path(std::move(path)), m_previews(previews), m_shared(std::make_shared<Shared>()) {}

LoadJob::~LoadJob() {
    m_shared->cancel = true;
    // The worker owns a reference to the shared state and delivers through a QPointer, so it can outlive us
    // (not the application: the loader stops between pieces once cancelled).
    joinAtExit(std::move(m_thread));
}

void LoadJob::start() {
    QPointer<LoadJob> self(this);
    auto shared = m_shared;
    const std::string path = m_path.toStdString();
    m_thread = std::thread([self, shared, path, previews = m_previews] {
        lowerThreadPriority(); // the loader's own worker threads inherit it
        LoadOptions options;
        options.cancel = &shared->cancel;
        options.progress = [shared](const LoadProgress& p) {
            shared->stage = int(p.stage);
            shared->bytesDone = p.bytesDone;
            shared->bytesTotal = p.bytesTotal;
            shared->eventsDone = p.eventsDone;
        };
        if (const QByteArray min = qgetenv("KINETOSCOPE_PREVIEW_MIN_BYTES"); !min.isEmpty())
            options.previewMinBytes = std::size_t(min.toULongLong());
        if (previews)
            options.preview = [self, shared](std::unique_ptr<const TraceStore> sample) {
                if (shared->cancel) return;
                std::shared_ptr<LoadedTrace> preview = prepareLoadedTrace(std::move(sample), 0);
                QMetaObject::invokeMethod(
                    QCoreApplication::instance(),
                    [self, preview] {
                        if (self) emit self->previewed(preview);
                    },
                    Qt::QueuedConnection);
                // Tests hold the full parse back this long, to act on the preview before the full trace
                // comes.
                const int hold = qEnvironmentVariableIntValue("KINETOSCOPE_PREVIEW_HOLD_MS");
                for (int waited = 0; waited < hold && !shared->cancel; waited += 10)
                    std::this_thread::sleep_for(std::chrono::milliseconds(10));
            };
        LoadResult result = loadTrace(path, options);
        std::shared_ptr<LoadedTrace> trace;
        if (result.ok() && !shared->cancel)
            trace = prepareLoadedTrace(std::move(result.store), result.seconds);
        const bool cancelled = result.cancelled || shared->cancel;
        const QString message =
            QString::fromStdString(cancelled ? path + ": loading cancelled" : result.message(path));
        // Delivered through the application object: `self` may be deleted meanwhile, and is only checked on
        // its thread.
        QMetaObject::invokeMethod(
            QCoreApplication::instance(),
            [self, trace, message, cancelled] {
                if (!self) return;
                if (trace && !cancelled)
                    emit self->loaded(trace);
                else
                    emit self->failed(message, cancelled);
            },
            Qt::QueuedConnection);
    });
}

void LoadJob::cancel() {
    m_shared->cancel = true;
}

LoadJob::Progress LoadJob::progress() const {
    return {m_shared->stage.load(), m_shared->bytesDone.load(), m_shared->bytesTotal.load(),
            m_shared->eventsDone.load()};
}

} // namespace kinetoscope
