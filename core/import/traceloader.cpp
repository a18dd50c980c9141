#include "traceloader.h"

#include "model/freedmemory.h"
#include "model/parallel.h"

#include "documentlayout.h"
#include "jsonbackend.h"
#include "jsonscan.h"
#include "sourcebuffer.h"
#include "storebuilder.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <thread>

namespace kinetoscope {

namespace {

using jsonscan::ScanStatus;
using jsonscan::skipSpace;

// How a scanner-driven pass over the event array ended.
struct RobustEnd {
    std::size_t next = 0; // offset of the next event not parsed (when stopped at the limit)
    bool arrayClosed = false;
    std::size_t arrayClose = 0; // offset of ']'
    bool truncated = false;
    std::size_t truncatedAt = 0;
    std::string truncationReason;
};

// Steps through events one by one with the structural scanner, parsing runs of well-delimited events
// in bulk and any run that fails event by event, so one bad event costs only itself. Stops at the
// first event starting at or after `limit`, at the array's end, or where the text runs out.
RobustEnd parseRobust(EventParser& parser, std::string_view text, std::size_t pos, std::size_t limit,
                      ParsedChunk& out, const std::atomic<bool>* cancel) {
    constexpr std::size_t runBytes = 1u << 20;
    std::vector<std::pair<std::size_t, std::size_t>> run;
    auto flush = [&] {
        if (run.empty()) return;
        const ParsedChunk::Mark m = out.mark();
        if (!parser.parseRun(text, run.front().first, run.back().second, out)) {
            out.rollback(m);
            for (const auto& [b, e] : run)
                parser.parseOne(text, b, e, out);
        }
        run.clear();
    };
    RobustEnd end;
    std::size_t lastEnd = pos;
    // After damage, continue at the next event boundary; false (and `end` says why) when there is none.
    auto resync = [&](std::size_t from) {
        const std::size_t comma = jsonscan::findObjectBoundary(text, from, text.size());
        if (comma == std::string_view::npos) {
            end.truncated = true;
            end.truncatedAt = pos;
            end.truncationReason = "no further event could be found after damaged data";
            return false;
        }
        pos = comma + 1;
        return true;
    };
    while (true) {
        pos = skipSpace(text, pos);
        if (pos >= text.size()) {
            flush();
            end.truncated = true;
            end.truncatedAt = lastEnd;
            end.truncationReason = "the event array is not closed";
            return end;
        }
        if (text[pos] == ']') {
            flush();
            end.arrayClosed = true;
            end.arrayClose = pos;
            return end;
        }
        if (pos >= limit) {
            flush();
            end.next = pos;
            return end;
        }
        if (cancel && run.empty() && cancel->load(std::memory_order_relaxed)) {
            end.next = pos;
            return end;
        }
        const auto scan = jsonscan::scanValue(text, pos);
        if (scan.status == ScanStatus::Truncated) {
            flush();
            end.truncated = true;
            end.truncatedAt = pos;
            end.truncationReason = "the file ends inside an event";
            return end;
        }
        if (scan.status == ScanStatus::Invalid) {
            flush();
            ++out.eventsSeen;
            out.addIssue(scan.end, "unbalanced bracket; skipped to the next event");
            if (!resync(scan.end + 1)) return end;
            lastEnd = pos;
            continue;
        }
        run.emplace_back(pos, scan.end);
        if (scan.end - run.front().first > runBytes) flush();
        lastEnd = scan.end;
        pos = skipSpace(text, scan.end);
        if (pos < text.size() && text[pos] == ',') {
            ++pos;
            continue;
        }
        if (pos >= text.size() || text[pos] == ']') continue;
        // Something other than a separator between two events.
        flush();
        if (text[pos] == '{') {
            out.note(pos, "missing ',' between events");
            continue;
        }
        ++out.eventsSeen;
        out.addIssue(pos, "unexpected text between events; skipped to the next event");
        if (!resync(pos)) return end;
    }
}

struct ChunkPlan {
    std::size_t begin = 0; // a '{' (speculative for all but the first)
    std::size_t end = 0;   // the ',' before the next chunk, or the end of the text for the last one
};

// The first screen of a large file (LoadOptions::preview): pieces of the event array spread evenly over the
// whole file, parsed on `threads` threads and built into a store of their own. Each piece starts at an event
// boundary found from its nominal offset (a false one inside a string only costs that piece some events:
// parseRobust skips what does not parse) and ends at the first event starting past its size; the last piece
// reaches the array's end, so the keys after it (baseTimeNanoseconds) are read as the full load reads them.
void buildPreview(const std::shared_ptr<const SourceBuffer>& source, std::size_t eventsBegin,
                  const DocumentLayout& layout, const ImportStats& fileStats, const LoadOptions& options,
                  unsigned threads) {
    const std::string_view text = source->text();
    const std::size_t total = text.size() - eventsBegin;
    // Many small pieces rather than a few large ones: the sample then shows every part of the trace.
    constexpr std::size_t pieces = 256;
    const std::size_t pieceBytes =
        std::clamp<std::size_t>(total / 16, std::size_t(4) << 20, std::size_t(32) << 20) / pieces;
    std::vector<std::size_t> begins;
    for (std::size_t k = 0; k < pieces; ++k) {
        std::size_t begin = eventsBegin;
        if (k > 0) {
            const std::size_t nominal = k + 1 == pieces ? text.size() - std::min(total, pieceBytes)
                                                        : eventsBegin + k * (total / pieces);
            const std::size_t comma = jsonscan::findObjectBoundary(text, nominal, text.size());
            if (comma == std::string_view::npos) continue;
            begin = skipSpace(text, comma + 1);
        }
        const std::size_t previous =
            begins.size() == 1 ? std::max(pieceBytes, std::size_t(1) << 20) : pieceBytes;
        if (!begins.empty() && begin < begins.back() + previous) continue; // would overlap the one before
        begins.push_back(begin);
    }
    std::vector<ParsedChunk> chunks(begins.size());
    std::vector<RobustEnd> ends(begins.size());
    std::atomic<std::size_t> next{0};
    auto worker = [&] {
        EventParser parser;
        for (std::size_t i; (i = next.fetch_add(1)) < begins.size();) {
            chunks[i].begin = begins[i];
            // The first piece is larger: the metadata that names processes and threads usually opens the
            // array.
            const std::size_t size = i == 0 ? std::max(pieceBytes, std::size_t(1) << 20) : pieceBytes;
            const std::size_t limit = i + 1 == begins.size() ? text.size() : begins[i] + size;
            ends[i] = parseRobust(parser, text, begins[i], limit, chunks[i], options.cancel);
            chunks[i].ok = true;
            chunks[i].tallyThreads();
        }
    };
    runOnThreads(std::min<unsigned>(threads, unsigned(begins.size())), worker);
    if (options.cancel && options.cancel->load()) return;
    TraceStoreParts store;
    DocumentLayout sampled = layout;
    store.stats.fileBytes = fileStats.fileBytes;
    store.stats.jsonBytes = fileStats.jsonBytes;
    store.stats.gzip = fileStats.gzip;
    store.stats.preview = true;
    // (Only a short trailer: a last piece that began inside a long one could take a nested ']' for the
    // array's.)
    if (!ends.empty() && ends.back().arrayClosed && text.size() - ends.back().arrayClose < pieceBytes)
        readTrailingKeys(text, ends.back().arrayClose, sampled, store.stats);
    store.metadata.topLevel = std::move(sampled.topLevel);
    decodeTopLevelMetadata(store.metadata);
    store.sourcePath = options.sourcePath;
    buildStore(store, chunks, source, {});
    options.preview(std::make_unique<const TraceStore>(std::move(store)));
}

// Whether text[begin, end) holds any of `needles` (one may run on to `text`'s end past `end`). Needles that
// share a beginning (`"kernel_num_gb"`, `"kernel_flop"`) are looked for in one pass over the text, for it.
bool textHasAny(std::string_view text, std::size_t begin, std::size_t end,
                const std::vector<std::string>& needles) {
    if (needles.empty()) return false;
    std::string_view shared = needles.front();
    std::size_t longest = 0;
    for (std::string_view n : needles) {
        std::size_t k = 0;
        while (k < shared.size() && k < n.size() && shared[k] == n[k])
            ++k;
        shared = shared.substr(0, k);
        longest = std::max(longest, n.size());
    }
    if (shared.empty()) { // nothing shared: one pass each
        for (const std::string& n : needles)
            if (!n.empty() && textHasAny(text, begin, end, {n})) return true;
        return false;
    }
    const std::size_t last = std::min(text.size(), end + longest - 1);
    for (std::size_t at = begin; at < last;) {
        const void* hit = ::memmem(text.data() + at, last - at, shared.data(), shared.size());
        if (!hit) return false;
        const std::size_t pos = std::size_t(static_cast<const char*>(hit) - text.data());
        for (std::string_view n : needles)
            if (pos + n.size() <= last && text.substr(pos, n.size()) == n) return true;
        at = pos + 1;
    }
    return false;
}

LoadResult fail(const LoadFailure& f) {
    LoadResult r;
    r.error = f.reason;
    r.errorOffset = f.offset;
    r.errorHasOffset = f.hasOffset;
    return r;
}

LoadResult loadFromBuffer(std::shared_ptr<const SourceBuffer> source, ImportStats stats,
                          const LoadOptions& options, std::chrono::steady_clock::time_point started) {
    const std::string_view text = source->text();
    const std::atomic<bool>* cancel = options.cancel;
    auto cancelled = [&] { return cancel && cancel->load(std::memory_order_relaxed); };
    auto cancelledResult = [] { return LoadResult::cancelledLoad(); };
    PhaseClock clock(options.phaseTiming, started);

    DocumentLayout layout;
    if (auto failure = findEventArray(text, layout)) return fail(*failure);

    const std::size_t eventsBegin = skipSpace(text, layout.arrayOpen + 1);

    // Speculative split: boundaries that look like "},{" are taken as event boundaries; a chunk that then
    // fails to parse (a false boundary inside a string, or damage) is redone by the scanner below.
    unsigned threads = options.threads ? options.threads : std::max(1u, std::thread::hardware_concurrency());
    const std::size_t total = text.size() > eventsBegin ? text.size() - eventsBegin : 0;
    const std::size_t chunkBytes = std::max<std::size_t>(options.chunkBytes, 4096);
    std::vector<ChunkPlan> plan;
    {
        std::size_t begin = eventsBegin;
        while (true) {
            const std::size_t nominal = begin + chunkBytes;
            if (nominal >= text.size()) break;
            const std::size_t comma = jsonscan::findObjectBoundary(text, nominal, text.size());
            if (comma == std::string_view::npos) break;
            plan.push_back({begin, comma});
            begin = skipSpace(text, comma + 1);
        }
        plan.push_back({begin, text.size()}); // the last piece is always scanned: it holds the array's end
    }
    // GPU work only unless the text holds one of the keys: each chunk is searched as it is parsed (while its
    // bytes are at hand); a key found anywhere makes it a full load, parsed again.
    const std::vector<std::string>& keys = options.gpuWorkOnlyUnlessTextHas;
    bool gpuWorkOnly = options.gpuWorkOnly && !textHasAny(text, 0, eventsBegin, keys);
    std::atomic<bool> keyFound{false};
    if (options.preview && !options.gpuWorkOnly && total >= std::max<std::size_t>(options.previewMinBytes, 1))
        buildPreview(source, eventsBegin, layout, stats, options, threads);
    if (cancelled()) return cancelledResult();
    threads = std::min<unsigned>(threads, unsigned(plan.size()));

    std::vector<ParsedChunk> chunks(plan.size());
    RobustEnd lastEnd;
    std::atomic<std::size_t> nextChunk{0};
    std::atomic<std::uint64_t> bytesDone{0}, eventsDone{0};
    std::mutex progressMutex;
    auto worker = [&] {
        EventParser parser(gpuWorkOnly);
        while (!cancelled() && !keyFound.load(std::memory_order_relaxed)) {
            const std::size_t i = nextChunk.fetch_add(1);
            if (i >= plan.size()) break;
            if (gpuWorkOnly && textHasAny(text, plan[i].begin, plan[i].end, keys)) {
                keyFound = true;
                break;
            }
            ParsedChunk& chunk = chunks[i];
            chunk.begin = plan[i].begin;
            if (i + 1 == plan.size()) {
                lastEnd = parseRobust(parser, text, plan[i].begin, text.size(), chunk, cancel);
                chunk.ok = true;
            } else {
                chunk.ok =
                    plan[i].begin < plan[i].end && parser.parseRun(text, plan[i].begin, plan[i].end, chunk);
                if (!chunk.ok)
                    chunk.rollback(ParsedChunk().mark());
                else
                    source->release(plan[i].begin, plan[i].end);
            }
            if (chunk.ok)
                chunk.tallyThreads(); // here, on the parsing threads, rather than in the serial build
            const std::uint64_t done = bytesDone += plan[i].end - plan[i].begin;
            const std::uint64_t events = eventsDone += chunk.eventsSeen;
            if (options.progress) {
                std::lock_guard lock(progressMutex);
                options.progress({LoadProgress::Stage::Parsing, done, total, events});
            }
        }
    };
    runOnThreads(threads, worker);
    if (keyFound) {
        gpuWorkOnly = false;
        chunks = std::vector<ParsedChunk>(plan.size());
        nextChunk = 0;
        bytesDone = 0;
        eventsDone = 0;
        runOnThreads(threads, worker);
    }
    stats.gpuWorkOnly = gpuWorkOnly;
    if (cancelled()) return cancelledResult();
    clock.lap("read+parse");

    // Accept chunks in order while each starts where the previous one truly ended; redo the rest.
    std::vector<ParsedChunk> accepted;
    accepted.reserve(chunks.size());
    EventParser repairParser(gpuWorkOnly);
    std::size_t pos = eventsBegin;
    RobustEnd finalEnd;
    bool finished = false;
    for (std::size_t i = 0; i < plan.size() && !finished; ++i) {
        const bool last = i + 1 == plan.size();
        if (pos == plan[i].begin && chunks[i].ok) {
            accepted.push_back(std::move(chunks[i]));
            if (last) {
                finalEnd = lastEnd;
                finished = true;
            } else {
                pos = skipSpace(text, plan[i].end + 1);
            }
            continue;
        }
        if (pos > plan[i].end && !last) continue; // already covered by a repair pass
        ParsedChunk repaired;
        repaired.begin = pos;
        const std::size_t limit = last ? text.size() : plan[i + 1].begin;
        const RobustEnd end = parseRobust(repairParser, text, pos, limit, repaired, cancel);
        accepted.push_back(std::move(repaired));
        if (end.arrayClosed || end.truncated || last) {
            finalEnd = end;
            finished = true;
        } else {
            pos = end.next;
            // A repair that stopped past a later chunk's start makes those chunks useless.
            while (i + 1 < plan.size() && plan[i + 1].begin < pos && plan[i + 1].end <= pos)
                ++i;
        }
        chunks[i] = ParsedChunk();
        if (cancelled()) return cancelledResult();
    }
    chunks.clear();
    chunks.shrink_to_fit();

    if (finalEnd.truncated) {
        stats.truncated = true;
        stats.truncatedAt = finalEnd.truncatedAt;
        stats.addIssue(finalEnd.truncatedAt,
                       "truncated: " + finalEnd.truncationReason + "; events before this byte were loaded");
    } else if (finalEnd.arrayClosed) {
        readTrailingKeys(text, finalEnd.arrayClose, layout, stats);
    }

    if (options.progress) options.progress({LoadProgress::Stage::Building, total, total, eventsDone.load()});

    TraceStoreParts store;
    store.metadata.topLevel = std::move(layout.topLevel);
    decodeTopLevelMetadata(store.metadata);
    store.stats = std::move(stats);
    store.sourcePath = options.sourcePath;
    if (!options.sourceFormat.empty()) {
        store.stats.sourceFormat = options.sourceFormat;
        store.stats.fileBytes = options.sourceFileBytes;
        store.stats.conversionNotes = options.sourceNotes;
    }
    clock.lap("repair");
    buildStore(store, accepted, source, options.phaseTiming);
    if (cancelled()) return cancelledResult();
    clock.lap("build");
    source->expectRandomReads();

    LoadResult result;
    result.store = std::make_unique<const TraceStore>(std::move(store));
    result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    return result;
}

// A preview of a gzip file while it inflates: `json`, the sample GzipSampler made of the text inflated so
// far, loaded on this (the sampler's) thread alone and handed on unless the sampler or the load stops
// meanwhile.
void previewWhileInflating(std::string json, std::uint64_t inflated, const LoadOptions& options,
                           const std::atomic<bool>& stop) {
    std::shared_ptr<const SourceBuffer> source(SourceBuffer::fromText(json));
    if (!source) return;
    json = std::string();
    ImportStats stats;
    stats.preview = true;
    stats.gzip = true;
    stats.fileBytes = stats.jsonBytes = source->size();
    stats.previewInflatedBytes = inflated;
    LoadOptions sampleOptions;
    sampleOptions.threads = 1;
    sampleOptions.cancel = &stop;
    sampleOptions.sourcePath = options.sourcePath;
    LoadResult r = loadFromBuffer(source, std::move(stats), sampleOptions, std::chrono::steady_clock::now());
    const bool cancelled = stop.load() || (options.cancel && options.cancel->load());
    if (r.ok() && !cancelled) options.preview(std::move(r.store));
}

} // namespace

LoadResult LoadResult::cancelledLoad() {
    LoadResult r;
    r.cancelled = true;
    r.error = "cancelled";
    return r;
}

std::string LoadResult::message(const std::string& path) const {
    if (errorHasOffset) return path + ": byte " + std::to_string(errorOffset) + ": " + error;
    return path + ": " + error;
}

std::vector<std::string> loadWarnings(const ImportStats& st, const std::string& path) {
    std::vector<std::string> out;
    if (st.truncated)
        out.push_back(path + ": byte " + std::to_string(st.truncatedAt) +
                      ": file is truncated; loaded the events before it");
    if (st.gzipCutShort)
        out.push_back(path + ": the gzip stream is cut short or corrupt; loaded the " +
                      std::to_string(st.jsonBytes) + " bytes that inflated");
    for (const std::string& note : st.conversionNotes)
        out.push_back(path + ": " + note);
    if (st.malformedEvents)
        out.push_back(path + ": " + std::to_string(st.malformedEvents) +
                      " malformed events skipped (first at byte " +
                      std::to_string(st.issues.empty() ? 0 : st.issues.front().offset) + ")");
    return out;
}

std::optional<TraceText> readTraceFile(const std::string& path, const LoadOptions& options,
                                       LoadResult& failure) {
    TraceText file;
    file.started = std::chrono::steady_clock::now();
    SourceBuffer::ProgressFn readProgress;
    if (options.progress)
        readProgress = [&](std::uint64_t done, std::uint64_t total) {
            options.progress({LoadProgress::Stage::Reading, done, total, 0});
        };
    GzipSampler::SampleFn sample;
    if (options.preview)
        sample = [&options](std::string json, std::uint64_t inflated, const std::atomic<bool>& stop) {
            previewWhileInflating(std::move(json), inflated, options, stop);
        };
    SourceBuffer::OpenResult opened =
        SourceBuffer::open(path, options.cancel, readProgress, sample, options.previewMinBytes);
    if (!opened.buffer) {
        failure =
            opened.cancelled ? LoadResult::cancelledLoad() : fail({opened.error, opened.errorOffset, false});
        return std::nullopt;
    }
    file.stats.fileBytes = opened.buffer->fileSize();
    file.stats.jsonBytes = opened.buffer->size();
    file.stats.gzip = opened.buffer->wasGzip();
    file.stats.gzipCutShort = opened.gzipCutShort;
    // Filed where the text that inflated ends (every issue's offset is in the text); the reason names the
    // compressed byte.
    if (opened.gzipCutShort)
        file.stats.addIssue(opened.buffer->size(), "gzip stream is cut short or corrupt at compressed byte " +
                                                       std::to_string(opened.gzipCutAt) +
                                                       "; loading what inflated");
    file.source = std::move(opened.buffer);
    return file;
}

LoadResult loadJsonTrace(TraceText file, const LoadOptions& options) {
    LoadResult result = loadFromBuffer(std::move(file.source), std::move(file.stats), options, file.started);
    returnFreedMemory(); // the parse's buffers, freed on the loader's threads
    return result;
}

LoadResult loadTraceText(std::string_view json, const LoadOptions& options) {
    const auto started = std::chrono::steady_clock::now();
    if (json.empty()) return fail({"empty file", 0, false});
    std::shared_ptr<const SourceBuffer> source(SourceBuffer::fromText(json));
    ImportStats stats;
    stats.fileBytes = stats.jsonBytes = json.size();
    LoadResult result = loadFromBuffer(source, std::move(stats), options, started);
    returnFreedMemory();
    return result;
}

} // namespace kinetoscope
