#pragma once

// `kinetoscope-cli query TRACE [SQL]`: SQL over a trace (core/sql, docs/SQL.md), the SQL from the argument, a
// file (--file) or standard input; the rows as an aligned table, CSV or JSON. `export --sqlite`: the same
// tables written into a SQLite file.

#include <CLI/CLI.hpp>

#include <string>

namespace kinetoscope::cli {

struct QueryArgs {
    std::string path;
    std::string sql;
    std::string file;
    bool csv = false;
    bool json = false;
};

CLI::App* addQueryCommand(CLI::App& app, QueryArgs& args);
int runQuery(const QueryArgs& args);

// `kinetoscope-cli export TRACE --sqlite OUT.db`: the same tables in a real SQLite file (docs/SQL.md).
struct ExportArgs {
    std::string path;
    std::string sqlite;
};
CLI::App* addExportCommand(CLI::App& app, ExportArgs& args);
int runExport(const ExportArgs& args);

} // namespace kinetoscope::cli
