#pragma once

#include <QThreadPool>

#include <functional>
#include <thread>

namespace kinetoscope {

// The pool our own long jobs run on (analyses, searches, area summaries, folder checks). Never Qt's global
// pool: the raster paint engine splits large fills across QThreadPool::globalInstance() and waits for them,
// so a global pool busy with a 10-second analysis froze painting, and so the whole UI (found by
// tst_resources).
QThreadPool* backgroundPool();

// Runs `job` on the background pool at a lower CPU priority than the UI thread, so that on a busy machine the
// event loop still gets the cores first.
void startBackground(std::function<void()> job);
// Keeps a worker thread whose owner has gone (and cancelled it) until the application ends, then joins it: a
// thread still running while static objects are destroyed crashes the process on the way out.
void joinAtExit(std::thread thread);
// Lowers the calling thread's priority (Linux: per-thread nice; threads it creates inherit it). 5 leaves the
// UI thread ahead; 19 takes only what the other threads leave.
void lowerThreadPriority(int niceness = 5);

} // namespace kinetoscope
