#pragma once

#include "analysis/ops/steps.h"
#include "model/tracestore.h"
#include "query/derivedtracks.h"
#include "query/flowindex.h"
#include "query/hostview.h"

#include <memory>
#include <string>

namespace kinetoscope {

// A trace ready to show: the store and the indexes the timeline needs, all built off the UI thread.
struct LoadedTrace {
    std::unique_ptr<const TraceStore> store;
    FlowIndex flowIndex;
    std::vector<StepRange> steps;
    // Counter lanes computed after import (GPU utilisation, est. SM efficiency), drawn beside the store's.
    DerivedTracks derived;
    // Threads with Python frames shown compactly until expanded (query/hostview.h).
    HostViews hostViews;
    double loadSeconds = 0;
};

// Builds the indexes of a freshly loaded store (on the loading thread).
std::shared_ptr<LoadedTrace> prepareLoadedTrace(std::unique_ptr<const TraceStore> store, double loadSeconds);

} // namespace kinetoscope
