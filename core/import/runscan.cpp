#include "runscan.h"

#include <zlib.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <map>
#include <regex>

namespace kinetoscope {

namespace fs = std::filesystem;

namespace {
bool endsWith(const std::string& s, const std::string& suffix) {
    return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

std::string head(const std::string& path, std::size_t bytes) {
    std::string out(bytes, '\0');
    gzFile f = gzopen(path.c_str(), "rb"); // reads plain files as they are, and gzip transparently
    if (!f) return {};
    const int n = gzread(f, out.data(), unsigned(bytes));
    gzclose(f);
    out.resize(n > 0 ? std::size_t(n) : 0);
    return out;
}

struct NameParts {
    std::string worker;
    std::string span;
};

// "worker0.1623143566756.pt.trace.json.gz" -> (worker0, 1623143566756); "rank-3.json" -> (rank-3, "").
NameParts splitName(const std::string& file) {
    std::string stem = file;
    for (const char* suffix : {".gz", ".json", ".trace", ".pt"}) {
        if (endsWith(stem, suffix)) stem.resize(stem.size() - std::strlen(suffix));
    }
    static const std::regex withSpan(R"(^(.*)\.(\d{10,})$)");
    std::smatch m;
    if (std::regex_match(stem, m, withSpan)) return {m[1], m[2]};
    return {stem, ""};
}
} // namespace

bool looksLikeTrace(const std::string& path) {
    const std::string name = fs::path(path).filename().string();
    for (const char* suffix : {".pt.trace.json", ".pt.trace.json.gz", ".trace.json", ".trace.json.gz"}) {
        if (endsWith(name, suffix)) return true;
    }
    if (name == "compiled_module_profile.json") return true;
    if (!endsWith(name, ".json") && !endsWith(name, ".json.gz")) return false;
    return head(path, 4096).find("\"traceEvents\"") != std::string::npos;
}

std::vector<TraceRun> scanRuns(const std::string& dir, std::string* error) {
    std::error_code ec;
    const fs::path root(dir);
    if (!fs::is_directory(root, ec)) {
        if (error) *error = dir + ": not a folder";
        return {};
    }
    // run name -> worker name -> files
    std::map<std::string, std::map<std::string, std::vector<TraceFile>>> runs;
    static const std::regex rankFamily(R"(^(.*?)[._-]?(rank[-_]?\d+)(.*)$)", std::regex::icase);
    for (auto it = fs::recursive_directory_iterator(root, fs::directory_options::skip_permission_denied, ec);
         !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
        if (!it->is_regular_file(ec)) continue;
        const std::string path = it->path().string();
        if (!looksLikeTrace(path)) continue;
        std::string run = fs::relative(it->path().parent_path(), root, ec).string();
        if (run.empty()) run = ".";
        NameParts parts = splitName(it->path().filename().string());
        // Files named for their rank ("job_rank-3.json") are the workers of one run even in a shared folder.
        std::smatch m;
        if (std::regex_match(parts.worker, m, rankFamily)) {
            const std::string family = std::string(m[1]) + std::string(m[3]);
            if (!family.empty()) run = run == "." ? family : run + "/" + family;
            parts.worker = m[2];
        }
        runs[run][parts.worker].push_back({path, parts.span, std::uint64_t(it->file_size(ec))});
    }
    if (ec && error) *error = dir + ": " + ec.message();
    std::vector<TraceRun> out;
    for (auto& [runName, workers] : runs) {
        TraceRun run;
        run.name = runName;
        for (auto& [workerName, files] : workers) {
            std::sort(files.begin(), files.end(), [](const TraceFile& a, const TraceFile& b) {
                return a.span != b.span ? a.span < b.span : a.path < b.path;
            });
            run.workers.push_back({workerName, std::move(files)});
        }
        // Ranks in numeric order (rank-2 before rank-10).
        std::sort(run.workers.begin(), run.workers.end(), [](const TraceWorker& a, const TraceWorker& b) {
            auto num = [](const std::string& s) {
                const auto p = s.find_first_of("0123456789");
                return p == std::string::npos ? -1L : std::strtol(s.c_str() + p, nullptr, 10);
            };
            const long na = num(a.name), nb = num(b.name);
            return na != nb ? na < nb : a.name < b.name;
        });
        out.push_back(std::move(run));
    }
    return out;
}

} // namespace kinetoscope
