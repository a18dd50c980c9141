#include "tracestore.h"

#include "radixsort.h"

#include <algorithm>

namespace kinetoscope {

namespace {
constexpr std::uint64_t argsLengthBits = 24;
constexpr std::uint64_t argsLengthMask = (1ull << argsLengthBits) - 1;
constexpr std::uint64_t argsLongMarker = argsLengthMask; // length field value: see m_longArgs
} // namespace

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
