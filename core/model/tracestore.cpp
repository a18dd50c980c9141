#include "tracestore.h"

#include "radixsort.h"

#include <algorithm>

namespace kinetoscope {

namespace {
constexpr std::uint64_t argsLengthBits = 24;
constexpr std::uint64_t argsLengthMask = (1ull << argsLengthBits) - 1;
constexpr std::uint64_t argsLongMarker = argsLengthMask; // length field value: see longArgs
} // namespace

const std::string* TraceMetadata::find(std::string_view key) const {
    for (const auto& [k, v] : topLevel)
        if (k == key) return &v;
    return nullptr;
}

TraceStore::TraceStore() = default;
TraceStore::TraceStore(TraceStoreParts parts) : m(std::move(parts)) {}
TraceStore::~TraceStore() = default;
TraceStore::TraceStore(TraceStore&&) noexcept = default;
TraceStore& TraceStore::operator=(TraceStore&&) noexcept = default;

std::size_t TraceStore::sliceCount() const {
    std::size_t n = 0;
    for (const Track& t : m.tracks)
        n += t.sliceCount();
    return n;
}

std::size_t TraceStore::counterSampleCount() const {
    std::size_t n = 0;
    for (const Track& t : m.tracks)
        n += t.counterTimes.size();
    return n;
}

const ProcessInfo* TraceStore::process(std::int64_t pid) const {
    for (const ProcessInfo& p : m.processes)
        if (p.pid == pid && !p.pidText.isValid()) return &p;
    for (const ProcessInfo& p : m.processes)
        if (p.pid == pid) return &p;
    return nullptr;
}

void TraceStoreParts::setSourceText(std::shared_ptr<const void> owner, std::string_view text) {
    sourceOwner = std::move(owner);
    sourceText = text;
}

bool TraceStoreParts::packArgsInline(ArgsRange range, std::uint64_t& packed) {
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

std::uint64_t TraceStoreParts::packArgs(ArgsRange range) {
    if (std::uint64_t packed; packArgsInline(range, packed)) return packed;
    longArgs.push_back(range);
    return (std::uint64_t(longArgs.size() - 1) << argsLengthBits) | argsLongMarker;
}

ArgsRange TraceStoreParts::argsRange(EventRef ref) const {
    const std::uint64_t packed = tracks[ref.track.value].args[ref.index.value];
    const std::uint64_t length = packed & argsLengthMask;
    if (length == argsLongMarker) return longArgs[packed >> argsLengthBits];
    return {packed >> argsLengthBits, std::uint32_t(length)};
}

std::string_view TraceStoreParts::argsText(EventRef ref) const {
    const ArgsRange r = argsRange(ref);
    if (r.length == 0 || r.offset + r.length > sourceText.size()) return {};
    return sourceText.substr(r.offset, r.length);
}

void TraceStoreParts::indexFlows() {
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
    auto it = std::lower_bound(m.flows.begin(), m.flows.end(), ref,
                               [](const Flow& f, const EventRef& r) { return f.source < r; });
    for (; it != m.flows.end() && it->source == ref; ++it)
        out.push_back(&*it);
    return out;
}

std::vector<const Flow*> TraceStore::flowsInto(EventRef ref) const {
    std::vector<const Flow*> out;
    auto it = std::lower_bound(m.flowsByTarget.begin(), m.flowsByTarget.end(), ref,
                               [&](std::uint32_t f, const EventRef& r) { return m.flows[f].target < r; });
    for (; it != m.flowsByTarget.end() && m.flows[*it].target == ref; ++it)
        out.push_back(&m.flows[*it]);
    return out;
}

// (Both walk the flow tables in place: the analyses ask for every GPU event's launch, and a vector per
// question cost more than the search.)
std::optional<EventRef> TraceStore::launchOf(EventRef gpuSlice) const {
    auto it = std::lower_bound(m.flowsByTarget.begin(), m.flowsByTarget.end(), gpuSlice,
                               [&](std::uint32_t f, const EventRef& r) { return m.flows[f].target < r; });
    for (; it != m.flowsByTarget.end() && m.flows[*it].target == gpuSlice; ++it)
        if (m.flows[*it].kind == FlowKind::Launch) return m.flows[*it].source;
    return std::nullopt;
}

std::vector<EventRef> TraceStore::gpuWorkOf(EventRef launch) const {
    std::vector<EventRef> out;
    auto it = std::lower_bound(m.flows.begin(), m.flows.end(), launch,
                               [](const Flow& f, const EventRef& r) { return f.source < r; });
    for (; it != m.flows.end() && it->source == launch; ++it)
        if (it->kind == FlowKind::Launch) out.push_back(it->target);
    return out;
}

std::optional<std::uint64_t> TraceStore::correlationOf(EventRef ref) const {
    for (const auto* table : {&m.launchByCorrelation, &m.gpuByCorrelation})
        for (const CorrelationEntry& e : *table)
            if (e.ref == ref) return e.id;
    return std::nullopt;
}

std::size_t TraceStore::bytesHeld() const {
    std::size_t n = m.strings.bytesHeld();
    for (const Track& t : m.tracks)
        n += t.bytesHeld() + sizeof(Track);
    n += m.flows.capacity() * sizeof(Flow) + m.flowsByTarget.capacity() * 4;
    n += (m.launchByCorrelation.capacity() + m.gpuByCorrelation.capacity() + m.byExternalId.capacity()) *
         sizeof(CorrelationEntry);
    n += m.categories.capacity() * sizeof(Category) + m.processes.capacity() * sizeof(ProcessInfo);
    n += m.longArgs.capacity() * sizeof(ArgsRange);
    return n;
}

} // namespace kinetoscope
