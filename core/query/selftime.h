#pragma once

#include "model/tracestore.h"

#include <cstdint>
#include <vector>

namespace kinetoscope {

// Self time, one definition everywhere (docs/DEFINITIONS.md, "Self time"): a slice's duration minus the
// durations of its direct children, nested by the one rule (P encloses E when P.start <= E.start < P.end and
// E.end <= P.end), never by the lanes: a slice that overlaps its enclosing one sits on an overflow lane, and
// its children are still its children. A host event's (an operator, an annotation, a runtime or driver call)
// children are host events, the Python frames between them invisible to it, as to key_averages() and the
// operator tables; any other slice's children are every slice directly inside it.

// Whether a slice is a host event of the operator tables (docs/DEFINITIONS.md, "Nesting: one rule").
bool isHostEvent(const TraceStore& store, const Track& track, std::uint32_t row);

// The rows of `track` on every lane that intersect [from, to], in nesting order: start, then longer first,
// then the shallower lane (the parent of two alike).
std::vector<std::uint32_t> rowsInNestingOrder(const Track& track, TimeNs from, TimeNs to);

// For rows in nesting order, each pair (parent, child) — as indices into `rows` — where the child's time
// counts against the parent by the definition above. A host event inside a Python frame inside an operator
// counts against both: the frame's time is not its own, nor is the operator's.
struct ChildLink {
    std::uint32_t parent;
    std::uint32_t child;
};
std::vector<ChildLink> childLinks(const TraceStore& store, const Track& track,
                                  const std::vector<std::uint32_t>& rows);

// The slices whose time counts against `row` (its direct children by the definition above), in time order;
// and its self time. Cost: the slices inside it.
std::vector<std::uint32_t> directChildren(const TraceStore& store, const Track& track, std::uint32_t row);
TimeNs selfTime(const TraceStore& store, const Track& track, std::uint32_t row);

} // namespace kinetoscope
