#pragma once

// The dependency graph behind analysis/gpu/criticalpath.h: internal to the analysis layer, apart so that its
// construction (criticalpathgraph.cpp) and the longest path (criticalpath.cpp) each stay one concern.

#include "analysis/gpu/criticalpath.h"

#include <cstdint>
#include <optional>
#include <unordered_map>
#include <vector>

namespace kinetoscope {

struct CpGraph {
    struct Event {
        EventRef ref;
        TimeNs start = 0, end = 0;
        std::uint32_t startNode = 0, endNode = 0;
        bool gpu = false;
        bool blocking = false; // a call that waits for the GPU: its own time is weightless
        bool lock = false;     // a call that holds the CUDA runtime lock (HTA's CUDA_RUNTIME_EVENTS)
    };
    struct Node {
        std::uint32_t event = 0;
        TimeNs ts = 0;
        bool isStart = false;
    };
    struct Edge {
        std::uint32_t from = 0, to = 0;
        PathEdgeKind kind = PathEdgeKind::Operator;
        TimeNs weight = 0;
        EventRef attributed;
    };

    std::vector<Event> events;
    std::vector<Node> nodes; // in time order
    std::vector<Edge> edges; // in the order they were added, which breaks ties between equally long paths
    // Nodes in the order edges first named them: the graph holds only these (an event without edges is not
    // part of it), and their order seeds the topological order as networkx's would be.
    std::vector<std::uint32_t> nodesByFirstEdge;
    bool threadsMerged = false;
    std::uint32_t inferredSyncs = 0; // waits of blocking calls seen in a trace without cuda_sync events

    std::optional<std::uint32_t> eventOf(EventRef ref) const;
    void addEvent(EventRef ref, TimeNs start, TimeNs end, bool gpu, bool blocking, bool lock);
    // Sorts the nodes by time once every event is in.
    void makeNodes();
    // An edge u → v; adding one that exists replaces its kind and weight, as networkx does.
    void addEdge(std::uint32_t u, std::uint32_t v, PathEdgeKind kind, bool zeroWeight = false,
                 EventRef attributed = {});

  private:
    std::unordered_map<std::uint64_t, std::uint32_t> m_eventByRef;
    std::unordered_map<std::uint64_t, std::uint32_t> m_edgeByEnds;
    std::vector<bool> m_nodeSeen;
};

// The graph of the ops and launch calls starting in [from, to] and of the GPU work they launched.
CpGraph buildCriticalPathGraph(const TraceStore& store, TimeNs from, TimeNs to, CriticalPathOptions options);
// A DataLoader's range: enumerate(DataLoader)#..., enumerate(DataPipe)#... (the breakdown's DataLoader).
bool isDataLoaderRange(std::string_view name);

} // namespace kinetoscope
