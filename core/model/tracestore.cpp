#include "tracestore.h"

#include "radixsort.h"

#include <algorithm>

namespace kinetoscope {

namespace {
constexpr std::uint64_t argsLengthBits = 24;
constexpr std::uint64_t argsLengthMask = (1ull << argsLengthBits) - 1;
constexpr std::uint64_t argsLongMarker = argsLengthMask; // length field value: see m_longArgs
} // namespace

std::uint32_t Track::depthOf(std::uint32_t row) const {
    auto it = std::upper_bound(laneBegin.begin(), laneBegin.end(), row);
    return std::uint32_t(it - laneBegin.begin()) - 1;
}

std::pair<std::uint32_t, std::uint32_t> Track::rowsInRange(std::uint32_t depth, TimeNs from,
                                                           TimeNs to) const {
    if (depth + 1 >= laneBegin.size()) return {0, 0};
    const auto first = starts.begin() + laneBegin[depth];
    const auto last = starts.begin() + laneBegin[depth + 1];
    // Ends are sorted within a lane (non-overlapping, sorted by start), so the first row that ends at
    // or after `from` is found by binary search over starts of the following row.
    auto lo = std::lower_bound(first, last, from);
    if (lo != first) {
        const auto prev = std::uint32_t(lo - starts.begin()) - 1;
        if (endOf(prev) >= from) --lo;
    }
    auto hi = std::upper_bound(lo, last, to);
    return {std::uint32_t(lo - starts.begin()), std::uint32_t(hi - starts.begin())};
}

std::optional<std::uint32_t> Track::deepestAt(TimeNs t) const {
    std::optional<std::uint32_t> found;
    for (std::uint32_t d = 0; d + 1 < laneBegin.size(); ++d) {
        const auto first = starts.begin() + laneBegin[d];
        const auto last = starts.begin() + laneBegin[d + 1];
        auto it = std::upper_bound(first, last, t);
        bool contained = false;
        // Skip instants: a flow binds to a slice, not to a marker at the same time.
        while (it != first) {
            const auto row = std::uint32_t(it - starts.begin()) - 1;
            if (!(flags[row] & SliceFlag::Instant)) {
                if (t < endOf(row) || t == starts[row]) {
                    found = row;
                    contained = true;
                }
                break;
            }
            --it;
        }
        // No early exit on an empty lane: a slice displaced by an overlap can sit below a gap.
        (void)contained;
    }
    return found;
}

bool Track::encloses(std::uint32_t outer, std::uint32_t row) const {
    if (outer == row) return false;
    const TimeNs ps = starts[outer], pe = endOf(outer), s = starts[row], e = endOf(row);
    if (!(ps <= s && s < pe && e <= pe)) return false;
    return !(ps == s && pe == e) || depthOf(outer) < depthOf(row);
}

std::optional<std::uint32_t> Track::candidateOnLane(std::uint32_t depth, TimeNs t) const {
    if (depth + 1 >= laneBegin.size()) return std::nullopt;
    const auto first = starts.begin() + laneBegin[depth];
    const auto last = starts.begin() + laneBegin[depth + 1];
    // Rows of a lane do not overlap, so only the last one starting at or before `t` can contain it.
    for (auto it = std::upper_bound(first, last, t); it != first;) {
        --it;
        const auto row = std::uint32_t(it - starts.begin());
        if (starts[row] == t && durations[row] == 0) continue;
        return row;
    }
    return std::nullopt;
}

std::optional<std::uint32_t> Track::parentOf(std::uint32_t row) const {
    const std::uint32_t d = depthOf(row);
    if (d > 0) {
        if (const auto above = candidateOnLane(d - 1, starts[row]); above && encloses(*above, row)) {
            // The innermost unless a deeper lane holds a slice displaced by an overlap that also encloses it.
            if (!(flags[*above] & SliceFlag::Overlapping) && !(flags[row] & SliceFlag::Overlapping))
                return above;
        }
    }
    // The layout places a slice below every slice still open at its start, so whatever encloses it sits on a
    // shallower lane, and a slice on lane 0 has no parent.
    std::optional<std::uint32_t> inner;
    for (std::uint32_t lane = 0; lane < d; ++lane) {
        const auto p = candidateOnLane(lane, starts[row]);
        if (!p || !encloses(*p, row)) continue;
        if (!inner || encloses(*inner, *p)) inner = p;
    }
    return inner;
}

std::size_t Track::bytesHeld() const {
    return starts.capacity() * sizeof(TimeNs) + durations.capacity() * sizeof(TimeNs) +
           names.capacity() * sizeof(StringId) + categories.capacity() * sizeof(std::uint16_t) +
           flags.capacity() + args.capacity() * sizeof(std::uint64_t) + laneBegin.capacity() * 4 +
           counterTimes.capacity() * sizeof(TimeNs) + counterValues.capacity() * sizeof(double);
}

const std::string* TraceMetadata::find(std::string_view key) const {
    for (const auto& [k, v] : topLevel)
        if (k == key) return &v;
    return nullptr;
}

TraceStore::TraceStore() = default;
TraceStore::~TraceStore() = default;
TraceStore::TraceStore(TraceStore&&) noexcept = default;
TraceStore& TraceStore::operator=(TraceStore&&) noexcept = default;

std::size_t TraceStore::sliceCount() const {
    std::size_t n = 0;
    for (const Track& t : tracks)
        n += t.sliceCount();
    return n;
}

std::size_t TraceStore::counterSampleCount() const {
    std::size_t n = 0;
    for (const Track& t : tracks)
        n += t.counterTimes.size();
    return n;
}

const ProcessInfo* TraceStore::process(std::int64_t pid) const {
    for (const ProcessInfo& p : processes)
        if (p.pid == pid && !p.pidText.isValid()) return &p;
    for (const ProcessInfo& p : processes)
        if (p.pid == pid) return &p;
    return nullptr;
}

void TraceStore::setSourceText(std::shared_ptr<const void> owner, std::string_view text) {
    m_sourceOwner = std::move(owner);
    m_sourceText = text;
}

bool TraceStore::packArgsInline(ArgsRange range, std::uint64_t& packed) {
    if (range.length == 0) {
        packed = 0;
        return true;
    }
    if (range.length < argsLongMarker && range.offset < (1ull << 40)) {
        packed = (range.offset << argsLengthBits) | range.length;
        return true;
    }
    return false;
}

std::uint64_t TraceStore::packArgs(ArgsRange range) {
    if (std::uint64_t packed; packArgsInline(range, packed)) return packed;
    m_longArgs.push_back(range);
    return (std::uint64_t(m_longArgs.size() - 1) << argsLengthBits) | argsLongMarker;
}

ArgsRange TraceStore::argsRange(EventRef ref) const {
    const std::uint64_t packed = tracks[ref.track.value].args[ref.index];
    const std::uint64_t length = packed & argsLengthMask;
    if (length == argsLongMarker) return m_longArgs[packed >> argsLengthBits];
    return {packed >> argsLengthBits, std::uint32_t(length)};
}

std::string_view TraceStore::argsText(EventRef ref) const {
    const ArgsRange r = argsRange(ref);
    if (r.length == 0 || r.offset + r.length > m_sourceText.size()) return {};
    return m_sourceText.substr(r.offset, r.length);
}

void TraceStore::indexFlows() {
    flowsByTarget.resize(flows.size());
    for (std::uint32_t i = 0; i < flows.size(); ++i)
        flowsByTarget[i] = i;
    // Flows are in source order; for one target, keep that order.
    radixSort(
        flowsByTarget, [&](std::uint32_t i) { return packRef(flows[i].target); },
        [&](std::uint32_t a, std::uint32_t b) {
            return std::pair(flows[a].target, a) < std::pair(flows[b].target, b);
        });
}

std::vector<const Flow*> TraceStore::flowsFrom(EventRef ref) const {
    std::vector<const Flow*> out;
    auto it = std::lower_bound(flows.begin(), flows.end(), ref,
                               [](const Flow& f, const EventRef& r) { return f.source < r; });
    for (; it != flows.end() && it->source == ref; ++it)
        out.push_back(&*it);
    return out;
}

std::vector<const Flow*> TraceStore::flowsInto(EventRef ref) const {
    std::vector<const Flow*> out;
    auto it = std::lower_bound(flowsByTarget.begin(), flowsByTarget.end(), ref,
                               [&](std::uint32_t f, const EventRef& r) { return flows[f].target < r; });
    for (; it != flowsByTarget.end() && flows[*it].target == ref; ++it)
        out.push_back(&flows[*it]);
    return out;
}

std::optional<EventRef> TraceStore::launchOf(EventRef gpuSlice) const {
    for (const Flow* f : flowsInto(gpuSlice))
        if (f->kind == FlowKind::Launch) return f->source;
    return std::nullopt;
}

std::vector<EventRef> TraceStore::gpuWorkOf(EventRef launch) const {
    std::vector<EventRef> out;
    for (const Flow* f : flowsFrom(launch))
        if (f->kind == FlowKind::Launch) out.push_back(f->target);
    return out;
}

std::optional<std::uint64_t> TraceStore::correlationOf(EventRef ref) const {
    for (const auto* table : {&launchByCorrelation, &gpuByCorrelation})
        for (const CorrelationEntry& e : *table)
            if (e.ref == ref) return e.id;
    return std::nullopt;
}

std::size_t TraceStore::bytesHeld() const {
    std::size_t n = strings.bytesHeld();
    for (const Track& t : tracks)
        n += t.bytesHeld() + sizeof(Track);
    n += flows.capacity() * sizeof(Flow) + flowsByTarget.capacity() * 4;
    n += (launchByCorrelation.capacity() + gpuByCorrelation.capacity() + byExternalId.capacity()) *
         sizeof(CorrelationEntry);
    n += categories.capacity() * sizeof(Category) + processes.capacity() * sizeof(ProcessInfo);
    n += m_longArgs.capacity() * sizeof(ArgsRange);
    return n;
}

} // namespace kinetoscope
