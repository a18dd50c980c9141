#include "tracecache.h"

#include "open/opentrace.h"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>

namespace kinetoscope::mcp {

std::shared_ptr<AnalysisResult> OpenTrace::report(ReportSections sections, OperatorGrouping grouping) {
    auto& slot = m_reports[{sections.to_ullong(), int(grouping)}];
    if (!slot) {
        // The whole report serves every smaller ask (a copy that says which sections it answers: the writers
        // write those only), rather than computing them again.
        const auto whole = m_reports.find({allReportSections().to_ullong(), int(grouping)});
        if (whole != m_reports.end() && whole->second) {
            slot = std::make_shared<AnalysisResult>(*whole->second);
            slot->sections = sections;
        } else {
            slot = computeAnalysis(*store, std::nullopt, grouping, KernelGrouping::Name, sections);
        }
    }
    return slot;
}

sql::TraceDatabase& OpenTrace::database() {
    if (!m_database) m_database = std::make_unique<sql::TraceDatabase>(*store);
    return *m_database;
}

std::optional<std::string> allowedPath(const std::string& root, const std::string& path, std::string& error) {
    char resolved[PATH_MAX];
    if (!::realpath(path.c_str(), resolved)) {
        error = path + ": " + std::strerror(errno);
        return std::nullopt;
    }
    const std::string real = resolved;
    if (!root.empty() && real != root && !real.starts_with(root.ends_with('/') ? root : root + "/")) {
        error = path + ": outside the folder this server may read (" + root + ")";
        return std::nullopt;
    }
    // Only regular files and folders: a device or a pipe would block the server for good.
    struct stat st {};
    if (::stat(real.c_str(), &st) != 0 || !(S_ISREG(st.st_mode) || S_ISDIR(st.st_mode))) {
        error = path + ": not a regular file";
        return std::nullopt;
    }
    return real;
}

std::shared_ptr<OpenTrace> TraceCache::open(const std::string& idOrPath, std::string& error) {
    std::string path = idOrPath;
    for (const auto& [p, id] : m_idOfPath)
        if (id == idOrPath) path = p;
    if (path.empty()) {
        error = "no trace given (a path, or an id from open_trace)";
        return nullptr;
    }
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) {
        const bool looksLikeId =
            idOrPath.size() > 1 && idOrPath[0] == 't' &&
            std::all_of(idOrPath.begin() + 1, idOrPath.end(), [](char c) { return c >= '0' && c <= '9'; });
        error = looksLikeId ? idOrPath + ": no trace has this id (open it with open_trace)"
                            : path + ": no such file";
        return nullptr;
    }
    const auto allowed = allowedPath(m_root, path, error);
    if (!allowed) return nullptr;
    path = *allowed;
    const std::int64_t modified = std::int64_t(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
    const auto cached =
        std::find_if(m_traces.begin(), m_traces.end(), [&](const auto& t) { return t->path == path; });
    if (cached != m_traces.end()) {
        auto trace = *cached;
        m_traces.erase(cached);
        if (trace->modifiedNs == modified && trace->size == std::int64_t(st.st_size)) {
            m_traces.push_back(trace);
            return trace;
        }
    }
    LoadResult r = loadTrace(path);
    if (!r.ok()) {
        error = r.message(path);
        return nullptr;
    }
    auto trace = std::make_shared<OpenTrace>();
    auto& id = m_idOfPath[path];
    if (id.empty()) id = "t" + std::to_string(m_idOfPath.size());
    trace->id = id;
    trace->path = path;
    trace->modifiedNs = modified;
    trace->size = std::int64_t(st.st_size);
    trace->loadSeconds = r.seconds;
    trace->warnings = loadWarnings(r.store->stats(), path);
    trace->store = std::move(r.store);
    m_traces.push_back(trace);
    if (m_traces.size() > m_capacity) m_traces.erase(m_traces.begin());
    return trace;
}

} // namespace kinetoscope::mcp
