#include "parsedchunk.h"

namespace kinetoscope {

std::uint64_t ParsedChunk::nextUid() {
    static std::atomic<std::uint64_t> counter{1};
    return counter.fetch_add(1, std::memory_order_relaxed);
}

ParsedChunk::Mark ParsedChunk::mark() const {
    Mark m{events.size(),     ids.size(),
           asyncIds.size(),   flows.size(),
           counters.size(),   metas.size(),
           memoryArgs.size(), issues.size(),
           eventsSeen,        malformed,
           unknownPhase,      otherPhaseCount,
           slicesNotKept,     std::vector<std::uint64_t>(std::begin(phaseCounts), std::end(phaseCounts)),
           categoryCounts};
    return m;
}

void ParsedChunk::rollback(const Mark& m) {
    events.resize(m.events);
    ids.resize(m.ids);
    asyncIds.resize(m.asyncIds);
    flows.resize(m.flows);
    counters.resize(m.counters);
    metas.resize(m.metas);
    memoryArgs.resize(m.memoryArgs);
    issues.resize(m.issues);
    eventsSeen = m.eventsSeen;
    malformed = m.malformed;
    unknownPhase = m.unknownPhase;
    otherPhaseCount = m.otherPhaseCount;
    slicesNotKept = m.slicesNotKept;
    std::copy(m.phaseCounts.begin(), m.phaseCounts.end(), std::begin(phaseCounts));
    // Categories interned meanwhile stay (their names are harmless); their counts go back.
    for (std::size_t i = 0; i < categoryCounts.size(); ++i)
        categoryCounts[i] = i < m.categoryCounts.size() ? m.categoryCounts[i] : 0;
}

void ParsedChunk::tallyThreads() {
    slicesByThread.assign(threads.size(), 0);
    beginByThread.assign(threads.size(), 0);
    beginEndEvents = 0;
    for (const ParsedEvent& e : events) {
        if (e.phase == 'X' || e.phase == 'i') {
            ++slicesByThread[e.thread];
        } else if (e.phase == 'B' || e.phase == 'E') {
            ++beginEndEvents;
            if (e.phase == 'B') beginByThread[e.thread] = 1;
        }
    }
}

} // namespace kinetoscope
