#include "analysis/gpu/criticalpathgraph.h"

#include "analysis/gpu/gpuidle.h"
#include "analysis/ops/summary.h"

#include "model/argscan.h"

#include <algorithm>
#include <array>
#include <map>
#include <tuple>

namespace kinetoscope {

namespace {

// A gap longer than this between two GPU events on a stream is not the GPU waiting for the previous one but
// an unrecorded dependency (HTA's KERNEL_KERNEL_DELAY_THRESHOLD_US: compute streams wait < 10 µs,
// communication streams ~1 ms).
constexpr TimeNs kernelKernelDelayLimit = 1'500'000;

// Calls that wait for the GPU: the time they spend is the GPU's, which the sync edges bring in, so their own
// is weightless. HTA's list, and HIP's counterparts (HTA has none: on AMD it counts the wait as CPU time).
bool isBlockingCall(std::string_view name) {
    static constexpr std::array<std::string_view, 13> calls = {"cudaDeviceSynchronize",
                                                               "cudaStreamSynchronize",
                                                               "cudaEventQuery",
                                                               "cudaEventSynchronize",
                                                               "cudaMemcpy",
                                                               "cudaMemcpyAsync",
                                                               "hipDeviceSynchronize",
                                                               "hipStreamSynchronize",
                                                               "hipEventQuery",
                                                               "hipEventSynchronize",
                                                               "hipMemcpy",
                                                               "hipMemcpyAsync",
                                                               "hipMemcpyWithStream"};
    return std::find(calls.begin(), calls.end(), name) != calls.end();
}

// Calls that take the CUDA runtime's lock, so that only one thread's makes progress at a time.
bool holdsRuntimeLock(std::string_view name) {
    return name == "cudaLaunchKernel" || name == "cudaMemcpyAsync" || name == "cudaHostAlloc";
}

bool isGraphCpuKind(CategoryKind k) {
    return k == CategoryKind::CpuOp || k == CategoryKind::Runtime || k == CategoryKind::Driver;
}

std::optional<EventRef> callByCorrelation(const TraceStore& store, std::int64_t id) {
    if (id < 0) return std::nullopt;
    const auto& table = store.launchByCorrelation();
    const auto it = std::lower_bound(table.begin(), table.end(), std::uint64_t(id),
                                     [](const CorrelationEntry& e, std::uint64_t v) { return e.id < v; });
    if (it == table.end() || it->id != std::uint64_t(id)) return std::nullopt;
    return it->ref;
}

// Calls f(row) for the rows of `track` that start in [from, to].
template <typename F> void forRowsStartingIn(const Track& track, TimeNs from, TimeNs to, F f) {
    for (std::uint32_t d = 0; d < track.laneCount(); ++d) {
        const auto [b, e] = track.rowsInRange(d, from, to);
        for (std::uint32_t r = b; r < e; ++r)
            if (track.starts[r] >= from && track.starts[r] <= to) f(r);
    }
}

// A thread's slices as HTA's call stack sees them: starts and ends in time order, ends before starts at the
// same time, the longer of two starting together first; each end closes whatever is open on top.
struct Bracket {
    TimeNs time;
    bool isStart;
    TimeNs duration;
    std::uint64_t order; // ties between equal slices: the shallower opens first and closes last
    std::uint32_t slice;
    bool operator<(const Bracket& o) const {
        if (time != o.time) return time < o.time;
        if (isStart != o.isStart) return !isStart;
        if (duration != o.duration) return isStart ? duration > o.duration : duration < o.duration;
        return isStart ? order < o.order : order > o.order;
    }
};

struct ThreadSlice {
    EventRef ref;
    TimeNs start, end;
    std::optional<std::uint32_t> event; // in the graph: ops and runtime/driver calls (and DataLoader ranges)
    bool dataLoader = false;            // a DataLoader range in the graph
};

class GraphBuilder {
  public:
    GraphBuilder(const TraceStore& store, TimeNs from, TimeNs to, CriticalPathOptions options)
        : m_store(store), m_from(from), m_to(to), m_inferWaits(options.inferWaits),
          m_dataLoading(options.dataLoading) {}
    CpGraph build();

  private:
    void collectCpu();
    void collectGpu();
    void runtimeLockEdges();
    void callStackEdges();
    void threadEdges(const std::vector<TrackId>& tracks);
    void gpuEdges();
    void inferredSyncEdges();
    void queueLengths();
    struct Sync;
    std::vector<Sync> syncEvents();
    bool sharesLock(std::uint32_t a, std::uint32_t b) const;
    EventRef attribution(std::uint32_t u, std::uint32_t v, PathEdgeKind kind, EventRef srcParent) const;
    std::uint32_t graphEvent(EventRef ref) const { return *m_g.eventOf(ref); }

    const TraceStore& m_store;
    TimeNs m_from, m_to;
    bool m_inferWaits;
    bool m_dataLoading;
    CpGraph m_g;
    // Per GPU event of the graph: the launch call's graph event, and the launch queue's length right after
    // the call and right after the GPU event started (HTA's queue_length_runtime and queue_length).
    std::unordered_map<std::uint32_t, std::uint32_t> m_launchOf;
    std::unordered_map<std::uint32_t, std::pair<std::int64_t, std::int64_t>> m_queue;
    TimeNs m_lastGpuStart = 0;
};

struct GraphBuilder::Sync {
    EventRef ref;
    TimeNs sortTime;
    std::string_view name;
    std::int64_t device, stream, recordCorrelation;
    std::optional<EventRef> call; // the runtime call it belongs to (by correlation)
};

CpGraph GraphBuilder::build() {
    collectCpu();
    collectGpu();
    m_g.makeNodes();
    runtimeLockEdges();
    callStackEdges();
    queueLengths();
    gpuEdges();
    return std::move(m_g);
}

void GraphBuilder::collectCpu() {
    for (std::uint32_t ti = 0; ti < m_store.tracks().size(); ++ti) {
        const Track& track = m_store.track(TrackId(ti));
        if (track.kind != TrackKind::CpuThread) continue;
        forRowsStartingIn(track, m_from, m_to, [&](std::uint32_t r) {
            if (track.durations[r] <= 0 || (track.flags[r] & SliceFlag::Instant)) return;
            const CategoryKind kind = m_store.categories()[track.categories[r]].kind;
            const std::string_view name = m_store.strings().view(track.names[r]);
            // A DataLoader's range is a node like an op: the step waits for its batch (HTA's
            // data_load_events).
            const bool dataLoader = m_dataLoading &&
                                    (kind == CategoryKind::UserAnnotation || kind == CategoryKind::CpuOp) &&
                                    isDataLoaderRange(name);
            if (!dataLoader && !isGraphCpuKind(kind)) return;
            m_g.addEvent({TrackId(ti), EventIndex(r)}, track.starts[r], track.endOf(r), false,
                         isBlockingCall(name), holdsRuntimeLock(name));
        });
    }
}

// The GPU work whose launch call is in the graph.
void GraphBuilder::collectGpu() {
    const std::size_t cpuEvents = m_g.events.size();
    for (std::uint32_t e = 0; e < cpuEvents; ++e) {
        const EventRef call = m_g.events[e].ref;
        if (!isLaunchCategory(m_store.categoryOf(call).kind)) continue;
        for (EventRef work : m_store.gpuWorkOf(call)) {
            const Track& track = m_store.track(work.track);
            const std::uint32_t r = work.index.value;
            if (track.kind != TrackKind::GpuStream || !isGpuWork(m_store.categoryOf(work).kind)) continue;
            if (m_g.eventOf(work)) continue;
            m_g.addEvent(work, track.starts[r], track.endOf(r), true, false, false);
            m_launchOf[std::uint32_t(m_g.events.size() - 1)] = e;
            m_lastGpuStart = std::max(m_lastGpuStart, track.starts[r]);
        }
    }
}

bool GraphBuilder::sharesLock(std::uint32_t a, std::uint32_t b) const {
    const CpGraph::Node& na = m_g.nodes[a];
    const CpGraph::Node& nb = m_g.nodes[b];
    return m_g.events[na.event].lock && m_g.events[nb.event].lock && (na.isStart || !nb.isStart);
}

// HTA's attribution of an edge's time to one event: a span inside one event or from an event's start is that
// event's; one that unwinds the stack is the enclosing event's; one between two siblings is their parent's.
EventRef GraphBuilder::attribution(std::uint32_t u, std::uint32_t v, PathEdgeKind kind,
                                   EventRef srcParent) const {
    if (kind != PathEdgeKind::Operator && kind != PathEdgeKind::KernelKernelDelay) return {};
    const CpGraph::Node& src = m_g.nodes[u];
    const CpGraph::Node& dest = m_g.nodes[v];
    if (kind == PathEdgeKind::KernelKernelDelay || src.isStart) return m_g.events[src.event].ref;
    if (!dest.isStart) return m_g.events[dest.event].ref;
    return srcParent;
}

// The CUDA runtime lock: calls that overlap on different threads ran one after the other, in the order they
// ended. Each end waits for every call that began before it and for the previous end.
void GraphBuilder::runtimeLockEdges() {
    std::vector<std::uint32_t> started;
    std::optional<std::uint32_t> last;
    for (std::uint32_t n = 0; n < m_g.nodes.size(); ++n) {
        const CpGraph::Node& node = m_g.nodes[n];
        if (!m_g.events[node.event].lock) continue;
        if (node.isStart) {
            started.push_back(n);
        } else {
            while (!started.empty()) {
                const std::uint32_t s = started.back();
                started.pop_back();
                if (m_g.nodes[s].event == node.event)
                    m_g.addEdge(s, n, PathEdgeKind::Operator, false, m_g.events[node.event].ref);
                else
                    m_g.addEdge(s, n, PathEdgeKind::Dependency);
            }
            if (last && !m_g.nodes[*last].isStart) m_g.addEdge(*last, n, PathEdgeKind::Dependency);
        }
        last = n;
    }
}

// Each thread's ops, serial along its call stack. Training runs its backward pass on a thread of its own
// that never overlaps the forward pass: when exactly one thread has "forward" ops and exactly one other has
// "autograd" ops, the two are walked as one, so that the path can go from one pass into the other.
void GraphBuilder::callStackEdges() {
    std::vector<TrackId> forwardThreads, autogradThreads;
    std::vector<TrackId> threads;
    for (std::uint32_t ti = 0; ti < m_store.tracks().size(); ++ti) {
        const Track& track = m_store.track(TrackId(ti));
        if (track.kind != TrackKind::CpuThread) continue;
        threads.push_back(TrackId(ti));
        bool forward = false, autograd = false;
        forRowsStartingIn(track, m_from, m_to, [&](std::uint32_t r) {
            const CategoryKind k = m_store.categories()[track.categories[r]].kind;
            if (track.durations[r] <= 0 || (k != CategoryKind::CpuOp && k != CategoryKind::UserAnnotation))
                return;
            const std::string_view name = m_store.strings().view(track.names[r]);
            forward = forward || name.find("forward") != std::string_view::npos;
            autograd = autograd || name.find("autograd") != std::string_view::npos;
        });
        if (forward) forwardThreads.push_back(TrackId(ti));
        if (autograd) autogradThreads.push_back(TrackId(ti));
    }
    std::optional<TrackId> fwd, bwd;
    if (forwardThreads.size() == 1) fwd = forwardThreads[0];
    if (autogradThreads.size() == 1) bwd = autogradThreads[0];
    // In (pid, tid) order, as HTA groups them; the backward thread goes with the forward one.
    std::sort(threads.begin(), threads.end(), [&](TrackId a, TrackId b) {
        const Track& ta = m_store.track(a);
        const Track& tb = m_store.track(b);
        return std::tie(ta.pid, ta.tid, a.value) < std::tie(tb.pid, tb.tid, b.value);
    });
    m_g.threadsMerged = fwd && bwd && *fwd != *bwd;
    for (TrackId t : threads) {
        if (m_g.threadsMerged && t == *bwd) continue;
        if (m_g.threadsMerged && t == *fwd)
            threadEdges({*fwd, *bwd});
        else
            threadEdges({t});
    }
}

void GraphBuilder::threadEdges(const std::vector<TrackId>& tracks) {
    // Every slice of the thread that starts in the window takes part in the nesting (annotations and Python
    // frames too), though only ops and calls have nodes.
    std::vector<ThreadSlice> slices;
    std::vector<Bracket> brackets;
    for (std::size_t k = 0; k < tracks.size(); ++k) {
        const Track& track = m_store.track(tracks[k]);
        forRowsStartingIn(track, m_from, m_to, [&](std::uint32_t r) {
            if (track.durations[r] <= 0 || (track.flags[r] & SliceFlag::Instant)) return;
            const EventRef ref{tracks[k], EventIndex(r)};
            const auto s = std::uint32_t(slices.size());
            const std::optional<std::uint32_t> event = m_g.eventOf(ref);
            slices.push_back({ref, track.starts[r], track.endOf(r), event,
                              event && isDataLoaderRange(m_store.strings().view(track.names[r]))});
            const std::uint64_t order = std::uint64_t(k) << 32 | r; // rows are stored shallow lanes first
            brackets.push_back({track.starts[r], true, track.durations[r], order, s});
            brackets.push_back({track.endOf(r), false, track.durations[r], order, s});
        });
    }
    std::sort(brackets.begin(), brackets.end());

    std::vector<std::uint32_t> open;
    std::vector<EventRef> parentOf(slices.size());
    std::optional<std::uint32_t> lastNode;
    EventRef lastParent;
    int depth = 0; // of graph events only: annotations are transparent
    // The DataLoader ranges open: time inside one is data loading, the ops it runs (collate's) included, as
    // HTA's data_load_events counts it.
    std::vector<EventRef> dataLoaders;
    const auto within = [&](EventRef attributed) {
        return dataLoaders.empty() ? attributed : dataLoaders.back();
    };
    for (const Bracket& b : brackets) {
        std::uint32_t s = b.slice;
        if (b.isStart) {
            parentOf[s] = open.empty() ? EventRef{} : slices[open.back()].ref;
            open.push_back(s);
            if (!slices[s].event) continue;
            const std::uint32_t node = m_g.events[*slices[s].event].startNode;
            if (lastNode && !sharesLock(*lastNode, node)) {
                const PathEdgeKind kind = depth == 0 ? PathEdgeKind::Dependency : PathEdgeKind::Operator;
                m_g.addEdge(*lastNode, node, kind, false,
                            within(attribution(*lastNode, node, kind, lastParent)));
            }
            lastNode = node;
            lastParent = parentOf[s];
            if (slices[s].dataLoader) dataLoaders.push_back(slices[s].ref);
            ++depth;
        } else {
            if (open.empty()) continue;
            // Whatever is on top, as HTA's stack pops; except that a DataLoader range ends at its own end.
            // A Python frame begun before it and ended inside it (record_function's own __enter__) would
            // close it early, and what it holds would count its time again; one begun inside it and ended
            // after it would keep it open over the work that follows.
            if (const auto it = std::find(open.begin(), open.end(), s);
                it != open.end() && (slices[s].dataLoader || slices[open.back()].dataLoader)) {
                open.erase(it);
                if (!slices[s].dataLoader) continue;
            } else {
                s = open.back();
                open.pop_back();
            }
            if (!slices[s].event) continue;
            const CpGraph::Event& ev = m_g.events[*slices[s].event];
            if (lastNode && !sharesLock(*lastNode, ev.endNode))
                m_g.addEdge(*lastNode, ev.endNode, PathEdgeKind::Operator, ev.blocking,
                            within(attribution(*lastNode, ev.endNode, PathEdgeKind::Operator, lastParent)));
            if (slices[s].dataLoader && !dataLoaders.empty()) dataLoaders.pop_back();
            lastNode = ev.endNode;
            lastParent = parentOf[s];
            --depth;
        }
    }
}

// The launch queue of each stream (analysis/gpu/gpuqueue.h) at the graph's GPU events. A launch that started
// and ended before the window adds nothing to the queue inside it, and a stream runs its work in launch
// order, so the launches and GPU events from the window's start to its last GPU start are all it needs.
void GraphBuilder::queueLengths() {
    struct Change {
        TimeNs time;
        int delta;
        EventRef gpu;
    };
    std::map<std::uint32_t, std::vector<Change>> changes; // per GPU track
    std::unordered_map<std::uint64_t, bool> seen;
    auto addPair = [&](EventRef call, EventRef gpu) {
        if (!seen.emplace(packRef(gpu), true).second) return;
        auto& c = changes[gpu.track.value];
        c.push_back({m_store.track(call.track).starts[call.index.value], +1, gpu});
        c.push_back({m_store.track(gpu.track).starts[gpu.index.value], -1, gpu});
    };
    const TimeNs until = std::max(m_to, m_lastGpuStart);
    for (std::uint32_t ti = 0; ti < m_store.tracks().size(); ++ti) {
        const Track& track = m_store.track(TrackId(ti));
        if (track.kind == TrackKind::GpuStream) {
            forRowsStartingIn(track, m_from, until, [&](std::uint32_t r) {
                const EventRef gpu{TrackId(ti), EventIndex(r)};
                if (!isGpuWork(m_store.categoryOf(gpu).kind)) return;
                if (const auto call = m_store.launchOf(gpu); call && isLaunchCall(m_store.nameOf(*call)))
                    addPair(*call, gpu);
            });
        } else if (track.kind == TrackKind::CpuThread) {
            forRowsStartingIn(track, m_from, until, [&](std::uint32_t r) {
                const EventRef call{TrackId(ti), EventIndex(r)};
                if (!isLaunchCategory(m_store.categoryOf(call).kind) || !isLaunchCall(m_store.nameOf(call)))
                    return;
                const std::vector<EventRef> work = m_store.gpuWorkOf(call);
                if (!work.empty() && isGpuWork(m_store.categoryOf(work.front()).kind))
                    addPair(call, work.front());
            });
        }
    }
    for (auto& [track, c] : changes) {
        // At one time the launch first, as HTA's concatenation orders them.
        std::sort(c.begin(), c.end(), [](const Change& a, const Change& b) {
            return a.time != b.time ? a.time < b.time : a.delta > b.delta;
        });
        std::int64_t length = 0;
        for (const Change& ch : c) {
            length += ch.delta;
            const auto e = m_g.eventOf(ch.gpu);
            if (!e) continue;
            auto& q = m_queue.try_emplace(*e, -1, -1).first->second;
            (ch.delta > 0 ? q.first : q.second) = length;
        }
    }
}

// The synchronisation events (cuda_sync) that can link the graph: those of its calls (stream, context and
// event syncs), and every cudaStreamWaitEvent's, whose waiting launch may come later.
std::vector<GraphBuilder::Sync> GraphBuilder::syncEvents() {
    std::vector<Sync> out;
    for (std::uint32_t ti = 0; ti < m_store.tracks().size(); ++ti) {
        const Track& track = m_store.track(TrackId(ti));
        if (track.kind == TrackKind::Counter) continue;
        for (std::uint32_t r = 0; r < track.sliceCount(); ++r) {
            if (m_store.categories()[track.categories[r]].kind != CategoryKind::Sync) continue;
            const EventRef ref{TrackId(ti), EventIndex(r)};
            const std::string_view args = m_store.argsText(ref);
            Sync s{ref,
                   track.endOf(r),
                   m_store.nameOf(ref),
                   argInteger(args, "device").value_or(track.pid),
                   argInteger(args, "stream").value_or(-1),
                   argInteger(args, "wait_on_cuda_event_record_corr_id").value_or(-1),
                   callByCorrelation(m_store, argInteger(args, "correlation").value_or(-1))};
            if (!s.call) continue;
            if (s.name != "Stream Wait Event" && !m_g.eventOf(*s.call)) continue;
            out.push_back(s);
        }
    }
    return out;
}

void GraphBuilder::gpuEdges() {
    // Launches of the graph by (device, stream), and by (thread, stream), in time order.
    struct Launch {
        TimeNs start;
        std::uint32_t gpuEvent;
    };
    std::map<std::pair<std::int64_t, std::int64_t>, std::vector<Launch>> byStream;
    std::map<std::pair<std::uint32_t, std::int64_t>, std::vector<Launch>> byThread;
    for (const auto& [gpu, call] : m_launchOf) {
        if (!isLaunchCall(m_store.nameOf(m_g.events[call].ref))) continue;
        const Track& track = m_store.track(m_g.events[gpu].ref.track);
        const Launch l{m_g.events[call].start, gpu};
        byStream[{deviceOf(track), track.tid}].push_back(l);
        byThread[{m_g.events[call].ref.track.value, track.tid}].push_back(l);
    }
    auto byStart = [](const Launch& a, const Launch& b) {
        return a.start != b.start ? a.start < b.start : a.gpuEvent < b.gpuEvent;
    };
    for (auto& [k, v] : byStream)
        std::sort(v.begin(), v.end(), byStart);
    for (auto& [k, v] : byThread)
        std::sort(v.begin(), v.end(), byStart);

    std::vector<Sync> syncs = syncEvents();
    const bool traceHasSyncs = std::any_of(m_store.categories().begin(), m_store.categories().end(),
                                           [](const Category& c) { return c.kind == CategoryKind::Sync; });
    if (!traceHasSyncs && m_inferWaits) inferredSyncEdges();
    // Where each CUDA event was recorded (device, stream), from the syncs that wait on it.
    std::unordered_map<std::int64_t, std::pair<std::int64_t, std::int64_t>> recordedOn;
    for (const Sync& s : syncs) {
        const std::int64_t stream = argInteger(m_store.argsText(s.ref), "wait_on_stream").value_or(-1);
        if (stream > -1 && s.recordCorrelation > -1)
            recordedOn.emplace(s.recordCorrelation, std::pair{s.device, stream});
    }
    // The GPU event of the last launch on the recorded stream before cudaEventRecord: what the event waits
    // for.
    auto recordedWork = [&](std::int64_t recordCorrelation) -> std::optional<std::uint32_t> {
        const auto on = recordedOn.find(recordCorrelation);
        const auto call = callByCorrelation(m_store, recordCorrelation);
        if (on == recordedOn.end() || !call) return std::nullopt;
        const auto it = byStream.find(on->second);
        if (it == byStream.end()) return std::nullopt;
        const TimeNs at = m_store.track(call->track).starts[call->index.value];
        const auto next = std::upper_bound(it->second.begin(), it->second.end(), at,
                                           [](TimeNs t, const Launch& l) { return t < l.start; });
        if (next == it->second.begin()) return std::nullopt;
        return std::prev(next)->gpuEvent;
    };

    // GPU work by start and syncs by end, so that a sync sees the work that started before it ended.
    struct Item {
        TimeNs time;
        std::uint64_t order;
        std::uint32_t index; // a graph event, or a sync
        bool sync;
    };
    std::vector<Item> items;
    for (const auto& [gpu, call] : m_launchOf)
        items.push_back({m_g.events[gpu].start, packRef(m_g.events[gpu].ref), gpu, false});
    for (std::uint32_t i = 0; i < syncs.size(); ++i)
        items.push_back({syncs[i].sortTime, packRef(syncs[i].ref), i, true});
    std::sort(items.begin(), items.end(), [](const Item& a, const Item& b) {
        return a.time != b.time ? a.time < b.time : a.order < b.order;
    });

    std::map<std::pair<std::int64_t, std::int64_t>, std::uint32_t> lastOnStream; // -> end node
    std::unordered_map<std::uint32_t, std::uint32_t> waitsFor; // GPU event -> GPU event it waits for
    for (const Item& item : items) {
        if (item.sync) {
            const Sync& s = syncs[item.index];
            if (s.name == "Stream Wait Event" || s.name == "Event Sync") {
                const auto src = recordedWork(s.recordCorrelation);
                if (!src) continue;
                if (s.name == "Event Sync") {
                    m_g.addEdge(m_g.events[*src].endNode, m_g.events[graphEvent(*s.call)].endNode,
                                PathEdgeKind::Sync);
                    continue;
                }
                // The next launch on the waiting stream from the thread that called cudaStreamWaitEvent.
                const auto it = byThread.find({s.call->track.value, s.stream});
                if (it == byThread.end()) continue;
                const TimeNs at = m_store.track(s.call->track).starts[s.call->index.value];
                const auto next = std::upper_bound(it->second.begin(), it->second.end(), at,
                                                   [](TimeNs t, const Launch& l) { return t < l.start; });
                if (next != it->second.end()) waitsFor[next->gpuEvent] = *src;
            } else if (s.name == "Stream Sync" || s.name == "Context Sync") {
                const std::uint32_t callEnd = m_g.events[graphEvent(*s.call)].endNode;
                for (const auto& [stream, node] : lastOnStream)
                    if (s.name == "Context Sync" || stream == std::pair{s.device, s.stream})
                        m_g.addEdge(node, callEnd, PathEdgeKind::Sync);
            }
            continue;
        }
        const std::uint32_t gpu = item.index;
        const CpGraph::Event& ev = m_g.events[gpu];
        const Track& track = m_store.track(ev.ref.track);
        const std::pair stream{deviceOf(track), track.tid};
        m_g.addEdge(ev.startNode, ev.endNode, PathEdgeKind::Operator, false, ev.ref);

        std::optional<std::uint32_t> syncEnd;
        if (const auto w = waitsFor.find(gpu); w != waitsFor.end()) {
            syncEnd = m_g.events[w->second].endNode;
            m_g.addEdge(*syncEnd, ev.startNode, PathEdgeKind::Sync);
            waitsFor.erase(w);
        }
        const auto last = lastOnStream.find(stream);
        const std::uint32_t call = m_launchOf.at(gpu);
        const TimeNs callStart = m_g.events[call].start;
        const auto q = m_queue.find(gpu);
        const bool aloneInQueue = q != m_queue.end() && q->second.first == 1 && q->second.second == 0;
        if (aloneInQueue && (last == lastOnStream.end() || m_g.nodes[last->second].ts < callStart) &&
            (!syncEnd || m_g.nodes[*syncEnd].ts < callStart)) {
            m_g.addEdge(m_g.events[call].startNode, ev.startNode, PathEdgeKind::LaunchDelay);
        } else if (last != lastOnStream.end() &&
                   ev.start - m_g.nodes[last->second].ts < kernelKernelDelayLimit &&
                   (!syncEnd || m_g.nodes[*syncEnd].ts < m_g.nodes[last->second].ts)) {
            m_g.addEdge(last->second, ev.startNode, PathEdgeKind::KernelKernelDelay, false,
                        m_g.events[m_g.nodes[last->second].event].ref);
        }
        lastOnStream[stream] = ev.endNode;
    }
}

// Traces recorded before PyTorch 2.1 have no cuda_sync events, and HTA then lets a blocking call's wait
// vanish from the path (its own time is weightless and nothing leads into its end). What it waited for is
// plain to see: the GPU work that ended last while it ran. That work's end leads into the call's end.
void GraphBuilder::inferredSyncEdges() {
    std::vector<std::uint32_t> gpuByEnd;
    for (std::uint32_t e = 0; e < m_g.events.size(); ++e)
        if (m_g.events[e].gpu) gpuByEnd.push_back(e);
    std::sort(gpuByEnd.begin(), gpuByEnd.end(), [&](std::uint32_t a, std::uint32_t b) {
        return std::pair(m_g.events[a].end, a) < std::pair(m_g.events[b].end, b);
    });
    for (const CpGraph::Event& call : m_g.events) {
        if (!call.blocking) continue;
        const auto it = std::upper_bound(gpuByEnd.begin(), gpuByEnd.end(), call.end,
                                         [&](TimeNs t, std::uint32_t g) { return t < m_g.events[g].end; });
        if (it == gpuByEnd.begin() || m_g.events[*std::prev(it)].end < call.start) continue;
        m_g.addEdge(m_g.events[*std::prev(it)].endNode, call.endNode, PathEdgeKind::Sync);
        ++m_g.inferredSyncs;
    }
}

} // namespace

std::optional<std::uint32_t> CpGraph::eventOf(EventRef ref) const {
    const auto it = m_eventByRef.find(packRef(ref));
    if (it == m_eventByRef.end()) return std::nullopt;
    return it->second;
}

void CpGraph::addEvent(EventRef ref, TimeNs start, TimeNs end, bool gpu, bool blocking, bool lock) {
    m_eventByRef.emplace(packRef(ref), std::uint32_t(events.size()));
    events.push_back({ref, start, end, 0, 0, gpu, blocking, lock});
}

void CpGraph::makeNodes() {
    nodes.clear();
    nodes.reserve(events.size() * 2);
    for (std::uint32_t e = 0; e < events.size(); ++e) {
        nodes.push_back({e, events[e].start, true});
        nodes.push_back({e, events[e].end, false});
    }
    // In time order; at one time, in the order the events began (HTA orders them as written, which is
    // nearly that), an event's start before its end.
    std::sort(nodes.begin(), nodes.end(), [&](const Node& a, const Node& b) {
        const Event& ea = events[a.event];
        const Event& eb = events[b.event];
        return std::tuple(a.ts, ea.start, packRef(ea.ref), !a.isStart) <
               std::tuple(b.ts, eb.start, packRef(eb.ref), !b.isStart);
    });
    for (std::uint32_t n = 0; n < nodes.size(); ++n)
        (nodes[n].isStart ? events[nodes[n].event].startNode : events[nodes[n].event].endNode) = n;
    m_nodeSeen.assign(nodes.size(), false);
}

void CpGraph::addEdge(std::uint32_t u, std::uint32_t v, PathEdgeKind kind, bool zeroWeight,
                      EventRef attributed) {
    if (u == v) return;
    const bool weightless = zeroWeight || kind == PathEdgeKind::Dependency || kind == PathEdgeKind::Sync;
    // An end before its start (a child that outlasts its parent, clock skew between CPU and GPU) adds
    // nothing; HTA zeroes those of 1 µs or more and fails on the rest of the graph otherwise.
    const TimeNs weight = weightless ? 0 : std::max<TimeNs>(0, nodes[v].ts - nodes[u].ts);
    const std::uint64_t key = std::uint64_t(u) << 32 | v;
    if (const auto it = m_edgeByEnds.find(key); it != m_edgeByEnds.end()) {
        edges[it->second] = {u, v, kind, weight, attributed};
        return;
    }
    m_edgeByEnds.emplace(key, std::uint32_t(edges.size()));
    edges.push_back({u, v, kind, weight, attributed});
    for (std::uint32_t n : {u, v})
        if (!m_nodeSeen[n]) {
            m_nodeSeen[n] = true;
            nodesByFirstEdge.push_back(n);
        }
}

CpGraph buildCriticalPathGraph(const TraceStore& store, TimeNs from, TimeNs to, CriticalPathOptions options) {
    return GraphBuilder(store, from, to, options).build();
}

bool isDataLoaderRange(std::string_view name) {
    return name.starts_with("enumerate(DataLoader)") || name.starts_with("enumerate(DataPipe)");
}

} // namespace kinetoscope
