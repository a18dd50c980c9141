// Store build, pairing: B/E events into slices, async begin/end into tracks of their own, counter samples
// into series, metadata onto processes and threads.
#include "storebuild.h"

#include <numeric>
#include <tuple>

namespace kinetoscope::storebuild {

void StoreBuild::matchBeginEnd(std::uint32_t trackIndex) {
    auto& list = m_beginEnds[trackIndex];
    if (list.empty()) return;
    std::stable_sort(list.begin(), list.end(),
                     [](const BeginEnd& a, const BeginEnd& b) { return a.event.ts < b.event.ts; });
    Track& track = m_store.tracks[trackIndex];
    std::vector<const BeginEnd*> open;
    std::vector<std::uint32_t> unterminated;
    for (const BeginEnd& be : list) {
        if (be.event.phase == 'B') {
            open.push_back(&be);
            continue;
        }
        if (open.empty()) {
            ++m_store.stats.endWithoutBegin;
            continue;
        }
        const ParsedEvent& b = open.back()->event;
        const std::uint64_t beginSeq = open.back()->seq;
        open.pop_back();
        track.starts.push_back(b.ts);
        track.durations.push_back(be.event.ts - b.ts);
        // chrome://tracing lets E name a slice that B left unnamed.
        track.names.push_back(StringId(b.name ? b.name : be.event.name));
        track.categories.push_back(b.category ? b.category : be.event.category);
        track.flags.push_back(SliceFlag::BeginEnd);
        track.args.push_back(m_store.packArgs({b.argsOffset, b.argsLength}));
        m_rowSeq[trackIndex].push_back(beginSeq);
    }
    if (!open.empty()) {
        // Never closed: keep them, ending where the track's last event ends.
        TimeNs trackEnd = list.back().event.ts;
        for (std::size_t r = 0; r < track.starts.size(); ++r)
            trackEnd = std::max(trackEnd, track.endOf(r));
        for (const BeginEnd* be : open) {
            ++m_store.stats.beginWithoutEnd;
            const ParsedEvent& b = be->event;
            track.starts.push_back(b.ts);
            track.durations.push_back(std::max<TimeNs>(0, trackEnd - b.ts));
            track.names.push_back(StringId(b.name));
            track.categories.push_back(b.category);
            track.flags.push_back(SliceFlag::BeginEnd | SliceFlag::Unterminated);
            track.args.push_back(m_store.packArgs({b.argsOffset, b.argsLength}));
            m_rowSeq[trackIndex].push_back(be->seq);
        }
    }
    list.clear();
    list.shrink_to_fit();
}

void StoreBuild::buildAsyncTracks() {
    if (m_async.empty()) return;
    // Pairs are matched per (process, category, id); each process+category gets one track whose
    // lanes hold the overlapping ranges.
    std::sort(m_async.begin(), m_async.end(), [](const PendingAsync& a, const PendingAsync& b) {
        return std::tie(a.thread.pid, a.thread.pidText, a.event.category, a.idText, a.id, a.event.ts, a.seq) <
               std::tie(b.thread.pid, b.thread.pidText, b.event.category, b.idText, b.id, b.event.ts, b.seq);
    });
    std::unordered_map<GlobalThread, std::uint32_t, GlobalThreadHash> tracks;
    auto trackFor = [&](const PendingAsync& a) -> Track& {
        const GlobalThread key{a.thread.pid, a.event.category, a.thread.pidText, 0};
        auto [it, inserted] = tracks.try_emplace(key, std::uint32_t(m_store.tracks.size()));
        if (inserted) {
            Track t;
            t.kind = TrackKind::Async;
            t.pid = a.thread.pid;
            t.pidText = StringId(a.thread.pidText);
            t.name = m_store.categories[a.event.category].name;
            m_store.tracks.push_back(std::move(t));
            m_beginEnds.emplace_back();
        }
        return m_store.tracks[it->second];
    };
    auto push = [&](Track& t, const ParsedEvent& e, TimeNs dur, std::uint8_t flags) {
        t.starts.push_back(e.ts);
        t.durations.push_back(dur);
        t.names.push_back(StringId(e.name));
        t.categories.push_back(e.category);
        t.flags.push_back(flags);
        t.args.push_back(m_store.packArgs({e.argsOffset, e.argsLength}));
    };
    std::vector<const PendingAsync*> open;
    auto sameKey = [](const PendingAsync& a, const PendingAsync& b) {
        return a.thread.pid == b.thread.pid && a.thread.pidText == b.thread.pidText &&
               a.event.category == b.event.category && a.id == b.id && a.idText == b.idText;
    };
    TimeNs lastTime = 0;
    for (const PendingAsync& a : m_async)
        lastTime = std::max(lastTime, a.event.ts);
    for (std::size_t i = 0; i < m_async.size(); ++i) {
        const PendingAsync& a = m_async[i];
        if (a.event.phase == 'n')
            push(trackFor(a), a.event, 0, SliceFlag::Instant);
        else if (a.event.phase == 'b')
            open.push_back(&a);
        else if (open.empty())
            ++m_store.stats.asyncUnmatched;
        else {
            const PendingAsync& b = *open.back();
            open.pop_back();
            push(trackFor(b), b.event, a.event.ts - b.event.ts, 0);
        }
        if (i + 1 == m_async.size() || !sameKey(a, m_async[i + 1])) {
            for (const PendingAsync* b : open) {
                ++m_store.stats.asyncUnmatched;
                push(trackFor(*b), b->event, std::max<TimeNs>(0, lastTime - b->event.ts),
                     SliceFlag::Unterminated);
            }
            open.clear();
        }
    }
    m_async.clear();
    m_async.shrink_to_fit();
}

void StoreBuild::buildCounterTracks() {
    for (auto& series : m_counters) {
        Track t;
        t.kind = TrackKind::Counter;
        t.pid = series.key.pid;
        t.pidText = StringId(series.key.pidText);
        const std::string_view name = m_store.strings.view(StringId(series.key.name));
        const std::string_view key = m_store.strings.view(StringId(series.key.series));
        t.name = (key == name || key.empty())
                     ? StringId(series.key.name)
                     : m_store.strings.intern(std::string(name) + " · " + std::string(key));
        std::stable_sort(series.samples.begin(), series.samples.end(),
                         [](const auto& a, const auto& b) { return a.first < b.first; });
        t.counterTimes.reserve(series.samples.size());
        t.counterValues.reserve(series.samples.size());
        for (const auto& [ts, v] : series.samples) {
            t.counterTimes.push_back(ts);
            t.counterValues.push_back(v);
        }
        m_store.tracks.push_back(std::move(t));
        m_beginEnds.emplace_back();
    }
    m_counters.clear();
}

void StoreBuild::applyMetadata() {
    std::unordered_map<std::uint64_t, std::size_t> processIndex;
    auto process = [&](const GlobalThread& th) -> ProcessInfo& {
        const std::uint64_t key = (std::uint64_t(th.pidText) << 40) ^ std::uint64_t(th.pid);
        auto [it, inserted] = processIndex.try_emplace(key, m_store.processes.size());
        if (inserted) {
            ProcessInfo p;
            p.pid = th.pid;
            p.pidText = StringId(th.pidText);
            m_store.processes.push_back(p);
        }
        return m_store.processes[it->second];
    };
    for (const Track& t : m_store.tracks)
        process({t.pid, 0, t.pidText.value, 0});
    for (const auto& [m, th] : m_metas) {
        switch (m.kind) {
        case MetaKind::ProcessName:
            process(th).name = StringId(m.text);
            break;
        case MetaKind::ProcessLabels:
            process(th).labels.push_back(StringId(m.text));
            break;
        case MetaKind::ProcessSortIndex:
            process(th).sortIndex = m.number;
            process(th).hasSortIndex = true;
            break;
        case MetaKind::ThreadName:
        case MetaKind::ThreadSortIndex: {
            auto it = m_threadTracks.find(th);
            if (it == m_threadTracks.end()) break; // a thread with no events
            Track& t = m_store.tracks[it->second];
            if (m.kind == MetaKind::ThreadName)
                t.name = StringId(m.text);
            else {
                t.sortIndex = m.number;
                t.hasSortIndex = true;
            }
            break;
        }
        }
    }
    m_metas.clear();
}

} // namespace kinetoscope::storebuild
