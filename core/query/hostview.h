#pragma once

#include "model/tracestore.h"

#include <cstdint>
#include <vector>

namespace kinetoscope {

// A CPU thread of a with_stack trace, shown compactly. Its Python frames nest 20 to 60 deep above the
// operators, so the thread alone filled the screen and pushed the GPU streams below the fold. The compact
// view has two parts, each a track of its own (columns copied from the thread's, so the renderer draws them
// as any track):
//   - `python`: the outermost Python frames, one lane: a summary of where Python runs;
//   - `host`: everything else on the thread (operators, annotations, runtime calls, steps), laid out among
//     themselves by the same nesting rule (model/nesting.h), so the top-level operators sit near the top.
// Rows of either map back to the thread's own rows: selection, Details, flows and search work on the store's
// events, and the view only decides where they are drawn.
struct HostView {
    static constexpr std::uint32_t noRow = 0xffffffffu;
    static constexpr std::uint32_t pythonBit = 0x80000000u;

    TrackId source;
    Track python;
    Track host;
    std::vector<std::uint32_t> pythonRows; // python row -> the thread's row
    std::vector<std::uint32_t> hostRows;   // host row -> the thread's row
    // The thread's row -> its row in `host`, or in `python` with pythonBit set; noRow for a Python frame
    // below the outermost (shown within the summary lane).
    std::vector<std::uint32_t> shownRowOf;
    std::uint32_t pythonLanes = 0; // lanes the Python frames take among themselves: what expanding reveals
};

struct HostViews {
    std::vector<HostView> views;
    std::vector<int> viewOfTrack; // by the store's track id: index into views, or -1

    const HostView* of(TrackId track) const {
        return track.value < viewOfTrack.size() && viewOfTrack[track.value] >= 0
                   ? &views[std::size_t(viewOfTrack[track.value])]
                   : nullptr;
    }
};

// The compact views of every CPU thread that has Python frames (one of Python frames alone has an empty host
// part); threads without Python frames need none. Linear in the threads' slices plus a sort of each one's
// rows by start.
HostViews buildHostViews(const TraceStore& store);

} // namespace kinetoscope
