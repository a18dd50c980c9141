#pragma once

#include <algorithm>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace kinetoscope {

struct ImportIssue {
    std::uint64_t offset = 0; // byte offset in the (decompressed) JSON text, or in a capture stream
    std::string reason;
};

// What the loader saw, skipped and repaired. Malformed input is counted here, never fatal.
struct ImportStats {
    static constexpr std::size_t maxReportedIssues = 10;

    std::uint64_t fileBytes = 0; // on disk
    std::uint64_t jsonBytes = 0; // after decompression
    bool gzip = false;
    // A live capture's wire stream (a spool or raw capture), not JSON: jsonBytes are the stream's bytes.
    bool wireStream = false;
    // The file's own format when it was read into Kineto's JSON first ("nsys_sqlite"); empty for JSON.
    std::string sourceFormat;
    // What the reader of that format could not read (unended NVTX ranges, a damaged Perfetto packet), one
    // line each: said with the load's warnings and in the summary's run header.
    std::vector<std::string> conversionNotes;
    // The gzip stream ended early or is corrupt: what inflated is all there is (the issue says where).
    bool gzipCutShort = false;
    std::uint64_t eventsSeen = 0;                        // array elements read
    std::map<std::string, std::uint64_t> phaseCounts;    // by `ph` text
    std::map<std::string, std::uint64_t> categoryCounts; // by `cat` text as written
    std::uint64_t malformedEvents = 0;                   // skipped: not an object, bad JSON, bad field
    std::uint64_t unknownPhaseEvents = 0;                // skipped: phase we do not know
    std::uint64_t overlappingSlices = 0; // partially overlap their enclosing slice: kept on another lane
    std::uint64_t jitterOverlaps = 0;    // overlap a sibling by under 1 µs (clock jitter): kept on its lane
    // The legacy autograd profiler's events without a category, given one by name (buildlegacy.cpp).
    std::uint64_t legacyOperators = 0;
    std::uint64_t legacyAnnotations = 0;
    std::uint64_t endWithoutBegin = 0;     // `E` with no open `B`: dropped
    std::uint64_t beginWithoutEnd = 0;     // `B` never closed: kept, ending at the track's last time
    std::uint64_t flowStartsUnmatched = 0; // `s` whose `f` never came (or whose slice is missing)
    std::uint64_t flowEndsUnmatched = 0;   // `f` whose `s` never came (or whose slice is missing)
    std::uint64_t flowsUnbound = 0;        // a flow end with no slice to bind to
    std::uint64_t asyncUnmatched = 0;      // `b` without `e` or the reverse
    std::vector<ImportIssue> issues;       // the first few, by byte offset
    bool truncated = false;                // the file ended inside the event array
    std::uint64_t truncatedAt = 0;         // offset of the first byte not loaded
    std::string trailingProblem;           // something wrong after the event array (not fatal)
    // A preview: a sample of the file's events shown while the whole file loads (LoadOptions::preview); the
    // counts above are the sample's.
    bool preview = false;
    // A preview of a gzip file taken while it inflates: of its first previewInflatedBytes of JSON text only
    // (0: a sample spread over the whole file).
    std::uint64_t previewInflatedBytes = 0;
    // A store of the GPU's work alone (LoadOptions::gpuWorkOnly): the other events were read and checked (the
    // events seen, the counts by phase and category and the malformed ones are the whole file's; those of
    // slices, flows and async spans the kept events') but not kept; slicesNotKept complete slices among them.
    bool gpuWorkOnly = false;
    std::uint64_t slicesNotKept = 0;

    void addIssue(std::uint64_t offset, std::string reason) {
        if (issues.size() < maxReportedIssues) issues.push_back({offset, std::move(reason)});
    }
    // After issues were appended from several places (the reader, the parse, the builder, a capture stream's
    // decoder): by offset, those at one offset in the order they came, the first maxReportedIssues kept.
    void keepFirstIssues() {
        std::stable_sort(issues.begin(), issues.end(),
                         [](const ImportIssue& a, const ImportIssue& b) { return a.offset < b.offset; });
        if (issues.size() > maxReportedIssues) issues.resize(maxReportedIssues);
    }
};

} // namespace kinetoscope
