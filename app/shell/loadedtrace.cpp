#include "shell/loadedtrace.h"

#include "analysis/gpu/gpuqueue.h"
#include "analysis/gpu/gpuseries.h"

namespace kinetoscope {

std::shared_ptr<LoadedTrace> prepareLoadedTrace(std::unique_ptr<const TraceStore> store, double loadSeconds) {
    auto trace = std::make_shared<LoadedTrace>();
    trace->flowIndex = FlowIndex(*store);
    trace->steps = findSteps(*store);
    trace->derived = gpuActivityTracks(*store);
    for (DerivedTrack& lane : gpuQueueTracks(*store))
        trace->derived.push_back(std::move(lane));
    for (DerivedTrack& lane : gpuBandwidthTracks(*store))
        trace->derived.push_back(std::move(lane));
    trace->hostViews = buildHostViews(*store);
    trace->store = std::move(store);
    trace->loadSeconds = loadSeconds;
    return trace;
}

} // namespace kinetoscope
