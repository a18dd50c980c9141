#include "querycommand.h"

#include "model/jsonwriter.h"
#include "open/opentrace.h"
#include "sql/tracedatabase.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <iterator>
#include <sstream>

namespace kinetoscope::cli {

namespace {

std::string csvField(const std::string& text) {
    if (text.find_first_of(",\"\r\n") == std::string::npos) return text;
    std::string out = "\"";
    for (char c : text) {
        if (c == '"') out += '"';
        out += c;
    }
    return out + '"';
}

// Display width of UTF-8 text: its code points (good enough for names and numbers).
std::size_t width(const std::string& s) {
    return std::size_t(std::count_if(s.begin(), s.end(), [](char c) { return (c & 0xC0) != 0x80; }));
}

void printTable(const sql::QueryResult& r) {
    std::vector<std::vector<std::string>> cells;
    std::vector<std::size_t> widths;
    for (const std::string& c : r.columns)
        widths.push_back(width(c));
    std::vector<bool> numeric(r.columns.size(), true);
    for (const auto& row : r.rows) {
        std::vector<std::string> line;
        for (std::size_t c = 0; c < row.size(); ++c) {
            std::string text = sql::valueText(row[c]);
            // One line a row: breaks in a value are shown escaped.
            for (std::size_t at = 0; (at = text.find('\n', at)) != std::string::npos;)
                text.replace(at, 1, "\\n");
            if (std::holds_alternative<std::string>(row[c])) numeric[c] = false;
            widths[c] = std::max(widths[c], width(text));
            line.push_back(std::move(text));
        }
        cells.push_back(std::move(line));
    }
    const auto emit = [&](const std::vector<std::string>& line) {
        std::string out;
        for (std::size_t c = 0; c < line.size(); ++c) {
            const std::string pad(widths[c] - width(line[c]), ' ');
            out += numeric[c] ? pad + line[c] : line[c] + (c + 1 < line.size() ? pad : "");
            if (c + 1 < line.size()) out += "  ";
        }
        std::puts(out.c_str());
    };
    emit(r.columns);
    for (const auto& line : cells)
        emit(line);
    std::fprintf(stderr, "%zu row%s\n", r.rows.size(), r.rows.size() == 1 ? "" : "s");
}

} // namespace

CLI::App* addQueryCommand(CLI::App& app, QueryArgs& args) {
    CLI::App* c =
        app.add_subcommand("query", "SQL over a trace (Perfetto's table names: slice, thread, track, "
                                    "counter, flow, args...; docs/SQL.md)");
    c->add_option("TRACE", args.path, "a trace")->required()->type_name("");
    c->add_option("SQL", args.sql, "the query (default: --file, else standard input)")->type_name("");
    c->add_option("-f,--file", args.file, "read the SQL from FILE")->type_name("FILE");
    c->add_flag("--csv", args.csv, "as CSV (RFC 4180)");
    c->add_flag("--json", args.json, "as JSON: {\"columns\": [...], \"rows\": [[...], ...]}");
    return c;
}

int runQuery(const QueryArgs& args) {
    std::string sql = args.sql;
    if (sql.empty() && !args.file.empty()) {
        std::ifstream in(args.file, std::ios::binary);
        if (!in) {
            std::fprintf(stderr, "kinetoscope-cli: %s: cannot read the SQL\n", args.file.c_str());
            return 1;
        }
        sql.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    } else if (sql.empty()) {
        sql.assign(std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>());
    }
    LoadResult r = loadTrace(args.path);
    if (!r.ok()) {
        std::fprintf(stderr, "kinetoscope-cli: %s\n", r.message(args.path).c_str());
        return 1;
    }
    sql::TraceDatabase db(*r.store);
    const sql::QueryResult result = db.query(sql);
    if (!result.ok()) {
        if (result.errorLine > 0)
            std::fprintf(stderr, "kinetoscope-cli: query: line %d, column %d: %s\n", result.errorLine,
                         result.errorColumn, result.error.c_str());
        else
            std::fprintf(stderr, "kinetoscope-cli: query: %s\n", result.error.c_str());
        return 1;
    }
    if (args.json) {
        std::string out;
        JsonWriter w(out);
        w.beginObject({"", ",\n ", ""});
        w.key("columns");
        w.beginArray();
        for (const std::string& c : result.columns)
            w.str(c);
        w.endArray();
        w.key("rows");
        w.beginArray({"\n  ", ",\n  ", "\n "});
        for (const auto& row : result.rows) {
            w.beginArray();
            for (const sql::Value& v : row) {
                if (std::holds_alternative<std::monostate>(v))
                    w.null();
                else if (const auto* i = std::get_if<std::int64_t>(&v))
                    w.num(*i);
                else if (const auto* d = std::get_if<double>(&v))
                    std::isfinite(*d) ? w.json(sql::valueText(v)) : w.null(); // shortest round-trip text
                else
                    w.str(std::get<std::string>(v));
            }
            w.endArray();
        }
        w.endArray();
        w.endObject();
        out += '\n';
        std::fputs(out.c_str(), stdout);
    } else if (args.csv) {
        std::string out;
        for (std::size_t c = 0; c < result.columns.size(); ++c)
            out += (c ? "," : "") + csvField(result.columns[c]);
        out += "\r\n";
        for (const auto& row : result.rows) {
            for (std::size_t c = 0; c < row.size(); ++c)
                out += (c ? "," : "") + csvField(sql::valueText(row[c]));
            out += "\r\n";
        }
        std::fputs(out.c_str(), stdout);
    } else {
        printTable(result);
    }
    return 0;
}

CLI::App* addExportCommand(CLI::App& app, ExportArgs& args) {
    CLI::App* c = app.add_subcommand(
        "export",
        "Write a trace's tables (those `query` reads) into a SQLite file for DuckDB, pandas, sqlite3");
    c->add_option("TRACE", args.path, "a trace")->required()->type_name("");
    c->add_option("--sqlite", args.sqlite, "the SQLite file to write (replaced once complete)")
        ->required()
        ->type_name("OUT.db");
    return c;
}

namespace {
// The process's anonymous memory (what it holds itself, not the mapped trace's pages), in MB, from Linux's
// /proc/self/status; -1 where there is none.
double anonymousMegabytes() {
    std::FILE* f = std::fopen("/proc/self/status", "r");
    if (!f) return -1;
    char line[256];
    double kb = -1;
    while (std::fgets(line, sizeof line, f))
        if (std::sscanf(line, "RssAnon: %lf", &kb) == 1) break;
    std::fclose(f);
    return kb < 0 ? -1 : kb * 1024 / 1e6;
}
} // namespace

int runExport(const ExportArgs& args) {
    const auto started = std::chrono::steady_clock::now();
    LoadResult r = loadTrace(args.path);
    if (!r.ok()) {
        std::fprintf(stderr, "kinetoscope-cli: %s\n", r.message(args.path).c_str());
        return 1;
    }
    sql::TraceDatabase db(*r.store);
    // Where the time and the memory go, table by table, for whoever watches (KINETOSCOPE_EXPORT_TIMES=1).
    const bool times = std::getenv("KINETOSCOPE_EXPORT_TIMES") != nullptr;
    if (times) std::fprintf(stderr, "  loaded: %.0f MB anonymous\n", anonymousMegabytes());
    auto last = std::chrono::steady_clock::now();
    std::string current;
    const auto tableEnded = [&] {
        const auto now = std::chrono::steady_clock::now();
        if (times && !current.empty())
            std::fprintf(stderr, "  %s: %.2f s, %.0f MB anonymous at its end\n", current.c_str(),
                         std::chrono::duration<double>(now - last).count(), anonymousMegabytes());
        last = now;
    };
    const sql::ExportResult result =
        db.exportSqlite(args.sqlite, [&](const std::string& table, std::uint64_t rows) {
            if (rows == 0) {
                tableEnded();
                current = table;
            }
            return true;
        });
    tableEnded();
    if (!result.ok()) {
        std::fprintf(stderr, "kinetoscope-cli: export: %s\n", result.error.c_str());
        return 1;
    }
    std::uint64_t rows = 0;
    for (const auto& [table, count] : result.tables)
        rows += count;
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    std::fprintf(stderr, "wrote %s: %zu tables, %llu rows (slice %llu) in %.2f s\n", args.sqlite.c_str(),
                 result.tables.size(), static_cast<unsigned long long>(rows),
                 static_cast<unsigned long long>(result.tables.empty() ? 0 : result.tables.front().second),
                 seconds);
    return 0;
}

} // namespace kinetoscope::cli
