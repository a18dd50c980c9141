#include "backgroundjobs.h"

namespace kinetoscope {

QThreadPool* backgroundPool() {
    static QThreadPool* pool = [] {
        auto* p = new QThreadPool;
        p->setObjectName(QStringLiteral("kinetoscope-background"));
        p->setMaxThreadCount(std::max(2, QThread::idealThreadCount()));
        return p;
    }();
    return pool;
}

} // namespace kinetoscope
