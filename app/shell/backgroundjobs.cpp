#include "shell/backgroundjobs.h"

#include <QCoreApplication>

#include <mutex>
#include <vector>

#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace kinetoscope {

QThreadPool* backgroundPool() {
    static QThreadPool* pool = [] {
        auto* p = new QThreadPool;
        p->setObjectName(QStringLiteral("kinetoscope-background"));
        p->setMaxThreadCount(std::max(2, QThread::idealThreadCount()));
        // A job still running when the application ends would run on into the static destructors (seen: "pure
        // virtual method called" at exit after a window closed while its ranks were loading). Queued jobs are
        // dropped, running ones finished, before the application object goes.
        qAddPostRoutine([] {
            backgroundPool()->clear();
            backgroundPool()->waitForDone();
        });
        return p;
    }();
    return pool;
}

void joinAtExit(std::thread thread) {
    if (!thread.joinable()) return;
    struct Leftovers {
        std::mutex mutex;
        std::vector<std::thread> threads;
    };
    static Leftovers* leftovers = [] {
        auto* l = new Leftovers;
        // As the pool's jobs: none may run on into the static destructors.
        qAddPostRoutine([] {
            std::vector<std::thread> threads;
            {
                std::lock_guard lock(leftovers->mutex);
                threads.swap(leftovers->threads);
            }
            for (std::thread& t : threads)
                t.join();
        });
        return l;
    }();
    std::lock_guard lock(leftovers->mutex);
    leftovers->threads.push_back(std::move(thread));
}

void lowerThreadPriority(int niceness) {
    // Qt ignores thread priorities under Linux's default scheduler; the per-thread nice value is what counts.
    const auto tid = static_cast<id_t>(::syscall(SYS_gettid));
    if (::getpriority(PRIO_PROCESS, tid) < niceness) ::setpriority(PRIO_PROCESS, tid, niceness);
}

void startBackground(std::function<void()> job) {
    backgroundPool()->start([job = std::move(job)] {
        lowerThreadPriority();
        job();
    });
}

} // namespace kinetoscope
