#pragma once

// The traces an MCP session has opened, by path and modification time: a trace is loaded once and read by
// every tool call after it, until its file changes (then it loads again, keeping its id) or it falls out of
// the cache (the least recently used goes first, past `capacity`). Each keeps its reports, one per set of
// sections and grouping asked for, and its SQL database, made when first needed.

#include "analysis/report/analysisresult.h"
#include "model/tracestore.h"
#include "sql/tracedatabase.h"

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace kinetoscope::mcp {

struct OpenTrace {
    std::string id;   // "t1": what open_trace returns, and what every tool takes instead of the path
    std::string path; // absolute
    std::int64_t modifiedNs = 0;
    std::int64_t size = 0;
    std::unique_ptr<const TraceStore> store;
    std::vector<std::string> warnings; // what the loader warns about (loadWarnings)
    double loadSeconds = 0;

    // The report of these sections (computed at first use).
    std::shared_ptr<AnalysisResult> report(ReportSections sections = allReportSections(),
                                           OperatorGrouping grouping = OperatorGrouping::Name);
    sql::TraceDatabase& database();

  private:
    std::map<std::pair<unsigned long long, int>, std::shared_ptr<AnalysisResult>> m_reports;
    std::unique_ptr<sql::TraceDatabase> m_database;
};

// Whether the server may read `path` (a file or folder): under `root` when one is set (`mcp --root DIR`).
// The resolved path, or nullopt and the one-line reason.
std::optional<std::string> allowedPath(const std::string& root, const std::string& path, std::string& error);

class TraceCache {
  public:
    explicit TraceCache(std::size_t capacity = 4, std::string root = {})
        : m_capacity(capacity), m_root(std::move(root)) {}
    // A trace by its id or path: the cached one while its file is unchanged, else loaded (nullptr and the
    // loader's one-line error naming file and byte otherwise).
    std::shared_ptr<OpenTrace> open(const std::string& idOrPath, std::string& error);

  private:
    std::size_t m_capacity;
    std::string m_root;
    std::vector<std::shared_ptr<OpenTrace>> m_traces; // most recently used last
    std::map<std::string, std::string> m_idOfPath;    // ids stay with their path across reloads
};

} // namespace kinetoscope::mcp
