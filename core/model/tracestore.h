#pragma once

#include "category.h"
#include "ids.h"
#include "importstats.h"
#include "stringpool.h"
#include "timeconv.h"
#include "track.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace kinetoscope {

struct ProcessInfo {
    std::int64_t pid = 0;
    StringId pidText;
    StringId name;
    std::vector<StringId> labels;
    std::int64_t sortIndex = 0;
    bool hasSortIndex = false;
};

struct Category {
    StringId name; // as written
    CategoryKind kind = CategoryKind::Other;
};

enum class FlowKind : std::uint8_t { Launch, ForwardBackward, Other };

struct Flow {
    EventRef source;
    EventRef target;
    FlowKind kind = FlowKind::Other;
    StringId category;
};

struct CorrelationEntry {
    std::uint64_t id = 0;
    EventRef ref;
};

struct DeviceProperties {
    std::int64_t id = -1;
    std::string name;
    std::int64_t totalGlobalMem = 0;
    std::int64_t computeMajor = 0;
    std::int64_t computeMinor = 0;
    std::int64_t numSms = 0;
    std::int64_t maxThreadsPerMultiprocessor = 0;
    std::int64_t warpSize = 0;
};

struct TraceMetadata {
    // Every top-level key except traceEvents, with its value as JSON text.
    std::vector<std::pair<std::string, std::string>> topLevel;
    std::optional<std::int64_t> schemaVersion;
    std::optional<std::int64_t> baseTimeNanoseconds;
    std::string displayTimeUnit;
    std::vector<DeviceProperties> devices;
    std::optional<std::int64_t> rank;
    std::optional<std::int64_t> worldSize;
    std::string distributedBackend;

    const std::string* find(std::string_view key) const;
};

struct ArgField {
    std::string key;
    std::string value; // strings unquoted; numbers, arrays and objects as JSON text
    bool isString = false;
};

// What a store is made of, as the importer fills it (the JSON build and the live capture's): plain data, and
// the few operations the build needs. Sealed into a TraceStore once built; nothing changes it after that.
struct TraceStoreParts {
    StringPool strings;
    std::vector<Category> categories;
    std::vector<Track> tracks;
    std::vector<ProcessInfo> processes;
    std::vector<Flow> flows;                  // sorted by (source, target)
    std::vector<std::uint32_t> flowsByTarget; // indices into flows, sorted by target
    // Sorted by id: runtime/driver calls and GPU work carrying `correlation`; ops, launches and GPU work
    // carrying `External id`.
    std::vector<CorrelationEntry> launchByCorrelation;
    std::vector<CorrelationEntry> gpuByCorrelation;
    std::vector<CorrelationEntry> byExternalId;
    TraceMetadata metadata;
    ImportStats stats;
    TimeNs minTime = 0;
    TimeNs maxTime = 0;
    std::string sourcePath;

    const Track& track(TrackId id) const { return tracks[id.value]; }
    const Category& categoryOf(EventRef ref) const {
        return categories[tracks[ref.track.value].categories[ref.index.value]];
    }
    // The text args ranges point into, and whatever owns it (a mapped file, inflated gzip, a live capture's
    // buffer).
    void setSourceText(std::shared_ptr<const void> owner, std::string_view text);
    std::uint64_t packArgs(ArgsRange range);
    // The packed form when it needs no side-table entry (any thread may call it); false for args of 16 MiB or
    // more.
    static bool packArgsInline(ArgsRange range, std::uint64_t& packed);
    ArgsRange argsRange(EventRef ref) const;
    std::string_view argsText(EventRef ref) const;
    // Sorts flowsByTarget (after the flows are final).
    void indexFlows();

    std::shared_ptr<const void> sourceOwner;
    std::string_view sourceText;
    std::vector<ArgsRange> longArgs; // args of 16 MiB or more
};

// Everything loaded from one trace: immutable once built (the importer fills TraceStoreParts and seals them
// in here); shared by the GUI, the CLI and the analyses.
class TraceStore {
  public:
    TraceStore();
    explicit TraceStore(TraceStoreParts parts);
    ~TraceStore();
    TraceStore(TraceStore&&) noexcept;
    TraceStore& operator=(TraceStore&&) noexcept;

    const StringPool& strings() const { return m.strings; }
    const std::vector<Category>& categories() const { return m.categories; }
    const std::vector<Track>& tracks() const { return m.tracks; }
    const std::vector<ProcessInfo>& processes() const { return m.processes; }
    const std::vector<Flow>& flows() const { return m.flows; } // sorted by (source, target)
    const std::vector<std::uint32_t>& flowsByTarget() const { return m.flowsByTarget; }
    // Sorted by id: runtime/driver calls and GPU work carrying `correlation`; ops, launches and GPU work
    // carrying `External id`.
    const std::vector<CorrelationEntry>& launchByCorrelation() const { return m.launchByCorrelation; }
    const std::vector<CorrelationEntry>& gpuByCorrelation() const { return m.gpuByCorrelation; }
    const std::vector<CorrelationEntry>& byExternalId() const { return m.byExternalId; }
    const TraceMetadata& metadata() const { return m.metadata; }
    const ImportStats& stats() const { return m.stats; }
    TimeNs minTime() const { return m.minTime; }
    TimeNs maxTime() const { return m.maxTime; }
    const std::string& sourcePath() const { return m.sourcePath; }

    const Track& track(TrackId id) const { return m.track(id); }
    std::size_t sliceCount() const;
    std::size_t counterSampleCount() const;
    const Category& categoryOf(EventRef ref) const { return m.categoryOf(ref); }
    std::string_view nameOf(EventRef ref) const {
        return m.strings.view(m.tracks[ref.track.value].names[ref.index.value]);
    }
    TimeNs durationOf(EventRef ref) const { return m.tracks[ref.track.value].durations[ref.index.value]; }
    // Keeps in `longest` whichever of it and `candidate` lasts longer (the one seen first on a tie); the
    // analyses use it to pick the example a table row or a recommendation links to.
    void keepLongest(EventRef& longest, EventRef candidate) const {
        if (!longest.isValid() || durationOf(candidate) > durationOf(longest)) longest = candidate;
    }
    const ProcessInfo* process(std::int64_t pid) const;

    ArgsRange argsRange(EventRef ref) const { return m.argsRange(ref); }
    // The args text of a slice, straight from the source (empty when it had none). Decoding it is JSON work,
    // which the query layer does (decodeArgs in query/args.h).
    std::string_view argsText(EventRef ref) const { return m.argsText(ref); }
    // The text every args text is a part of (what follows one is readable to its end).
    std::string_view sourceText() const { return m.sourceText; }

    // Launch (runtime/driver call) of a GPU slice, and GPU slices of a launch, joined by correlation id.
    std::optional<EventRef> launchOf(EventRef gpuSlice) const;
    std::vector<EventRef> gpuWorkOf(EventRef launch) const;
    std::optional<std::uint64_t> correlationOf(EventRef ref) const;
    // Flows leaving / entering a slice.
    std::vector<const Flow*> flowsFrom(EventRef ref) const;
    std::vector<const Flow*> flowsInto(EventRef ref) const;

    // Bytes held by the store itself (columns, strings, tables), not the source text.
    std::size_t bytesHeld() const;

  private:
    TraceStoreParts m;
};

} // namespace kinetoscope
