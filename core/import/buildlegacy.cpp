// Store build, legacy traces: the categories and nesting slack of the legacy autograd profiler's threads.
#include "storebuild.h"

namespace kinetoscope::storebuild {

namespace {
// torch.autograd.profiler's EventList.export_chrome_trace writes this pid for every CPU RecordFunction.
constexpr std::string_view legacyCpuPid = "CPU functions";
} // namespace

void StoreBuild::classifyLegacyRecordFunctions() {
    std::uint16_t operatorCategory = 0, annotationCategory = 0;
    auto categoryFor = [&](CategoryKind kind) {
        std::uint16_t& id = kind == CategoryKind::CpuOp ? operatorCategory : annotationCategory;
        if (id == 0) {
            // Named for what they are, so that Details does not show a category the file never wrote.
            const StringId name = m_store.strings.intern(
                kind == CategoryKind::CpuOp ? "cpu_op (by name)" : "user_annotation (by name)");
            id = std::uint16_t(m_store.categories.size());
            m_store.categories.push_back({name, kind});
        }
        return id;
    };
    for (Track& track : m_store.tracks) {
        if (track.kind != TrackKind::CpuThread || track.pidText.value == 0 ||
            m_store.strings.view(track.pidText) != legacyCpuPid)
            continue;
        bool wholeMicroseconds = true;
        bool uncategorised = false;
        for (std::size_t r = 0; r < track.starts.size(); ++r) {
            wholeMicroseconds =
                wholeMicroseconds && track.starts[r] % 1000 == 0 && track.durations[r] % 1000 == 0;
            if (track.categories[r] != 0 || (track.flags[r] & SliceFlag::Instant)) continue;
            uncategorised = true;
            const CategoryKind kind = legacyRecordFunctionKind(m_store.strings.view(track.names[r]));
            track.categories[r] = categoryFor(kind);
            ++(kind == CategoryKind::CpuOp ? m_store.stats.legacyOperators : m_store.stats.legacyAnnotations);
        }
        // The profiler rounds each start and end to the microsecond apart: a child can end 1 µs after its
        // parent.
        if (uncategorised && wholeMicroseconds) track.nestingSlack = 1000;
        track.duplicatesMerged = uncategorised;
    }
}

} // namespace kinetoscope::storebuild
