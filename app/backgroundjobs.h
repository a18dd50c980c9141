#pragma once

#include <QThreadPool>

namespace kinetoscope {

// The pool our own long jobs run on (analyses, searches, area summaries, folder checks). Never Qt's global pool:
// the raster paint engine splits large fills across QThreadPool::globalInstance() and waits for them, so a global
// pool busy with a 10-second analysis froze painting, and so the whole UI (found by tst_resources).
QThreadPool* backgroundPool();

} // namespace kinetoscope
