// libFuzzer target: the whole import and analysis pipeline on arbitrary bytes, plain or gzip.
// Every input must load or fail with a message, and whatever loads must survive every analysis and the
// viewport queries the viewer runs. Built by the `fuzz` preset (clang-14,
// -fsanitize=fuzzer,address,undefined).
#include "analysis/gpu/criticalpath.h"
#include "analysis/jobs/diff.h"
#include "analysis/report/analysisresult.h"
#include "analysis/report/diffformat.h"
#include "analysis/report/summaryformat.h"
#include "analysis/roofline/roofline.h"
#include "fuzz_input.h"
#include "query/areasummary.h"
#include "query/args.h"
#include "query/flowindex.h"
#include "query/lanelayout.h"
#include "query/search.h"
#include "query/selftime.h"
#include "query/viewport.h"

#include <cstdint>
#include <cstdio>
#include <string>

using namespace kinetoscope;

namespace {
using fuzz::loadBytes;

void exercise(const TraceStore& s) {
    const auto report =
        computeAnalysis(s, std::nullopt, OperatorGrouping::NameAndShape, KernelGrouping::Name);
    (void)summaryToJson(report->summary, report.get());
    // The critical path of the whole trace as one window, and the roofline of its first half (the report
    // above has the whole trace's).
    (void)criticalPathAt(s, s.minTime(), s.maxTime());
    (void)perfModel(s, s.minTime(), s.minTime() + (s.maxTime() - s.minTime()) / 2);
    (void)reportToText(*report);
    (void)summarize(s, OperatorGrouping::Name, s.minTime(), s.minTime() + (s.maxTime() - s.minTime()) / 2);
    (void)kernelTable(s, KernelGrouping::NameAndLaunch);
    (void)analyzeMemory(s);
    (void)moduleTree(s);
    (void)diffToJson(diffTraces(s, s));
    LaneLayout layout(s);
    std::vector<SliceBox> boxes;
    for (const TimeAxis& axis :
         {TimeAxis{s.minTime(), s.maxTime() + 1, 1000}, TimeAxis{s.minTime(), s.minTime() + 100, 37}}) {
        for (const LaneRow& row : layout.rows()) {
            if (row.kind == LaneRow::Kind::Slices)
                collectLaneBoxes(s.track(row.track), row.depth, axis, 1.0, boxes);
            if (row.kind == LaneRow::Kind::Counter) {
                std::vector<CounterColumn> columns;
                collectCounterColumns(s.track(row.track), axis, columns);
            }
        }
    }
    const FlowIndex flows(s);
    flows.forEachInRange(s.minTime(), s.maxTime(), [](std::uint32_t) { return true; });
    (void)searchSlices(s, {"a", false, false});
    (void)searchSlices(s, {"^.*(x|y)", true, false});
    std::vector<TrackId> all;
    for (std::uint32_t t = 0; t < s.tracks().size(); ++t)
        all.push_back(TrackId(t));
    (void)summarizeArea(s, all, s.minTime(), s.maxTime());
    for (std::uint32_t t = 0; t < s.tracks().size(); ++t) {
        const Track& track = s.tracks()[t];
        for (std::uint32_t r = 0; r < track.sliceCount() && r < 64; ++r) {
            const EventRef ref{TrackId(t), EventIndex(r)};
            (void)decodeArgs(s, ref);
            (void)selfTime(s, track, r);
            (void)track.parentOf(r);
            (void)s.launchOf(ref);
            (void)s.gpuWorkOf(ref);
        }
    }
}
} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    LoadResult r = loadBytes(data, size);
    if (r.ok())
        exercise(*r.store);
    else if (r.error.empty() && !r.cancelled)
        std::abort(); // a failure must always say why
    return 0;
}
