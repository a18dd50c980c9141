#include "open/rankinput.h"

#include "open/opentrace.h"

#include "import/sourcebuffer.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <thread>

namespace kinetoscope {

namespace {
// A rank file names its format in its first member; a summary starts with its event count. Anything else is
// given to the trace reader, which says what it is not.
RankInputKind sniff(std::string_view text) {
    const std::string_view head = text.substr(0, 256);
    const auto open = head.find_first_not_of(" \t\r\n");
    if (open == std::string_view::npos || head[open] != '{') return RankInputKind::Trace;
    const auto key = head.find_first_not_of(" \t\r\n", open + 1);
    if (key == std::string_view::npos) return RankInputKind::Trace;
    const std::string_view first = head.substr(key);
    if (first.starts_with("\"format\"")) return RankInputKind::RankFile;
    return first.starts_with("\"events\"") ? RankInputKind::Summary : RankInputKind::Trace;
}
} // namespace

RankInput readRankInput(const std::string& path, const std::atomic<bool>* cancel, bool keepTrace,
                        unsigned threads) {
    RankInput in;
    LoadOptions options;
    options.sourcePath = path;
    options.cancel = cancel;
    options.threads = threads;
    LoadResult failure;
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec)) {
        in.error = path + ": a folder, not a file";
        return in;
    }
    if (std::string reason = notATraceReason(path); !reason.empty()) {
        in.error = path + ": " + reason;
        return in;
    }
    std::optional<TraceText> file = readTraceFile(path, options, failure);
    if (!file) {
        in.error = failure.message(path);
        return in;
    }
    const std::string_view text = file->source->text();
    in.kind = sniff(text);
    if (in.kind != RankInputKind::Trace) {
        // A rank file is at most 64 KB and a summary a few MB: a bigger one is refused before it is parsed
        // (its DOM would take ten times its size, on every reader thread at once).
        constexpr std::size_t largest = 256u << 20;
        if (text.size() > largest) {
            in.error = path + ": " + std::to_string(text.size() >> 20) +
                       " MB is too large for a rank file or a summary (at most 256 MB)";
            return in;
        }
        std::string error;
        in.figures = readRankFigures(text, &error);
        if (!in.figures)
            in.error = path + ": " + error;
        else if (in.figures->source.empty())
            in.figures->source = path;
        return in;
    }
    LoadResult r = loadReadTrace(std::move(*file), options);
    if (!r.ok()) {
        in.error = r.message(path);
        return in;
    }
    in.figures = rankFigures(*r.store);
    // Absolute: the rank file is read elsewhere later, and the viewer opens the trace from what it names.
    std::error_code absoluteError;
    const std::filesystem::path absolute = std::filesystem::absolute(path, absoluteError);
    if (!absoluteError) in.figures->source = absolute.lexically_normal().string();
    if (keepTrace) in.trace = std::move(r.store);
    return in;
}

std::vector<std::string> jobFiles(const std::vector<std::string>& arguments,
                                  std::vector<UnreadableFile>& unreadable) {
    namespace fs = std::filesystem;
    std::vector<std::string> files;
    for (const std::string& argument : arguments) {
        std::error_code ec;
        if (!fs::is_directory(argument, ec)) {
            files.push_back(argument);
            continue;
        }
        std::vector<std::string> inFolder;
        for (fs::directory_iterator it(argument, ec), end; !ec && it != end; it.increment(ec)) {
            const std::string name = it->path().filename().string();
            // (".partial": a rank file `rank -o` is still writing)
            std::error_code entryError; // a dangling link is skipped, not the end of the listing
            if (name.starts_with('.') || name.ends_with(".partial") || !it->is_regular_file(entryError))
                continue;
            inFolder.push_back(it->path().string());
        }
        if (ec) unreadable.push_back({argument, argument + ": " + ec.message()});
        std::sort(inFolder.begin(), inFolder.end());
        files.insert(files.end(), inFolder.begin(), inFolder.end());
    }
    return files;
}

std::vector<std::string> readFileList(const std::string& listPath, std::vector<UnreadableFile>& unreadable) {
    namespace fs = std::filesystem;
    std::vector<std::string> files;
    std::ifstream in(listPath);
    if (!in) {
        unreadable.push_back({listPath, listPath + ": cannot read the file list"});
        return files;
    }
    const fs::path folder = fs::path(listPath).parent_path();
    std::string line;
    while (std::getline(in, line)) {
        while (!line.empty() && (line.back() == '\r' || line.back() == ' ' || line.back() == '\t'))
            line.pop_back();
        const auto first = line.find_first_not_of(" \t");
        if (first == std::string::npos || line[first] == '#') continue;
        const fs::path p = line.substr(first);
        files.push_back(p.is_absolute() || folder.empty() ? p.string() : (folder / p).string());
    }
    return files;
}

JobInputs readJobInputs(const std::vector<std::string>& files, const JobReadOptions& options) {
    JobInputs out;
    std::vector<RankInput> inputs(files.size());
    std::atomic<std::size_t> next{0}, done{0};
    const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
    unsigned threads = options.threads ? options.threads : cores;
    threads = unsigned(std::max<std::size_t>(1, std::min<std::size_t>(threads, files.size())));
    // Traces among the files each load on their share of the cores, not on all of them at once.
    const unsigned traceThreads = std::max(1u, cores / threads);
    const auto work = [&] {
        for (std::size_t i; (i = next++) < files.size();) {
            if (options.cancel && options.cancel->load()) return;
            try {
                inputs[i] = readRankInput(files[i], options.cancel, options.keepTraces, traceThreads);
            } catch (const std::exception& e) { // out of memory on one file: that file fails, not the job
                inputs[i] = RankInput{};
                inputs[i].error = files[i] + ": " + e.what();
            }
            const std::size_t d = ++done;
            if (options.progress) options.progress(d, files.size());
        }
    };
    {
        std::vector<std::jthread> pool;
        for (unsigned t = 1; t < threads; ++t)
            pool.emplace_back(work);
        work();
    }
    if (options.cancel && options.cancel->load()) {
        out.cancelled = true;
        return out;
    }
    for (std::size_t i = 0; i < files.size(); ++i) {
        if (inputs[i].figures) {
            out.ranks.push_back(std::move(*inputs[i].figures));
            if (options.keepTraces) out.traces.push_back(std::move(inputs[i].trace));
        } else {
            out.unreadable.push_back({files[i], std::move(inputs[i].error)});
        }
    }
    return out;
}

} // namespace kinetoscope
