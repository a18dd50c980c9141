#pragma once

// `kinetoscope-cli mcp`: the Model Context Protocol server for coding agents (cli/mcp, docs/AGENTS.md), over
// stdio or, with --http 127.0.0.1:PORT, Streamable HTTP on loopback.

#include <CLI/CLI.hpp>

#include <string>

namespace kinetoscope::cli {

struct McpArgs {
    std::string http;  // HOST:PORT; empty: stdio
    std::string token; // bearer token for HTTP (or KINETOSCOPE_MCP_TOKEN)
    std::size_t cache = 4;
    std::string root; // the tools read under this folder only
};

CLI::App* addMcpCommand(CLI::App& app, McpArgs& args);
int runMcp(const McpArgs& args);

} // namespace kinetoscope::cli
