#include "hosttree.h"

#include <algorithm>
#include <cctype>
#include <numeric>

namespace kinetoscope {

bool isAnnotationName(std::string_view n) {
    return n.starts_with("ProfilerStep#") || n.starts_with("Optimizer.step#") || n.starts_with("Optimizer.zero_grad#") ||
           n.starts_with("enumerate(DataLoader)#") || n.starts_with("enumerate(DataPipe)#");
}

std::string annotationGroupName(std::string_view name) {
    const std::size_t hash = name.rfind('#');
    if (hash == std::string_view::npos || hash + 1 == name.size()) return std::string(name);
    for (std::size_t i = hash + 1; i < name.size(); ++i)
        if (!std::isdigit(static_cast<unsigned char>(name[i]))) return std::string(name);
    return std::string(name.substr(0, hash + 1)) + "*";
}

HostRole hostRole(const TraceStore& store, const Track& track, std::uint32_t row) {
    if (track.flags[row] & SliceFlag::Instant) return HostRole::None;
    switch (store.categories[track.categories[row]].kind) {
    case CategoryKind::CpuOp:
        return isAnnotationName(store.strings.view(track.names[row])) ? HostRole::Annotation : HostRole::Operator;
    case CategoryKind::UserAnnotation: return HostRole::Annotation;
    case CategoryKind::Runtime:
    case CategoryKind::Driver: return HostRole::Launch;
    default: return HostRole::None;
    }
}

std::vector<HostNode> hostTree(const TraceStore& store, const Track& track) {
    struct Item {
        std::uint32_t row;
        std::uint32_t depth;
        HostRole role;
    };
    std::vector<Item> items;
    for (std::uint32_t d = 0; d < track.laneCount(); ++d) {
        for (std::uint32_t r = track.laneBegin[d]; r < track.laneBegin[d + 1]; ++r) {
            const HostRole role = hostRole(store, track, r);
            if (role != HostRole::None) items.push_back({r, d, role});
        }
    }
    // The store's own order within a thread: start, then longer first, then lane (the lane layout puts the event
    // earlier in the file on the shallower lane when two have the same start and duration).
    std::sort(items.begin(), items.end(), [&](const Item& a, const Item& b) {
        if (track.starts[a.row] != track.starts[b.row]) return track.starts[a.row] < track.starts[b.row];
        if (track.durations[a.row] != track.durations[b.row]) return track.durations[a.row] > track.durations[b.row];
        return a.depth != b.depth ? a.depth < b.depth : a.row < b.row;
    });
    std::vector<HostNode> nodes(items.size());
    std::vector<std::int32_t> open;
    for (std::size_t i = 0; i < items.size(); ++i) {
        const TimeNs s = track.starts[items[i].row], e = track.endOf(items[i].row);
        while (!open.empty()) {
            const std::uint32_t top = nodes[std::size_t(open.back())].row;
            if (s < track.endOf(top) && e <= track.endOf(top)) break;
            open.pop_back();
        }
        nodes[i] = {items[i].row, open.empty() ? -1 : open.back(), items[i].role};
        open.push_back(std::int32_t(i));
    }
    return nodes;
}

std::int32_t owningNode(const std::vector<HostNode>& nodes, std::int32_t node) {
    std::int32_t p = nodes[std::size_t(node)].parent;
    while (p >= 0 && nodes[std::size_t(p)].role == HostRole::Launch) p = nodes[std::size_t(p)].parent;
    return p;
}

std::optional<EventRef> launchingOperator(const TraceStore& store, EventRef launch) {
    const Track& t = store.tracks[launch.track.value];
    for (auto p = t.parentOf(launch.index); p; p = t.parentOf(*p)) {
        const HostRole role = hostRole(store, t, *p);
        if (role == HostRole::Operator || role == HostRole::Annotation) return EventRef{launch.track, *p};
    }
    return std::nullopt;
}

TimeNs launchDelay(const TraceStore& store, EventRef gpuWork, EventRef launch) {
    const TimeNs start = store.tracks[gpuWork.track.value].starts[gpuWork.index];
    return std::max<TimeNs>(0, start - store.tracks[launch.track.value].endOf(launch.index));
}

} // namespace kinetoscope
