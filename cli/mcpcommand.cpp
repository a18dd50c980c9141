#include "mcpcommand.h"

#include "mcp/server.h"
#include "mcp/transport.h"

#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace kinetoscope::cli {

CLI::App* addMcpCommand(CLI::App& app, McpArgs& args) {
    CLI::App* c = app.add_subcommand(
        "mcp",
        "A Model Context Protocol server for coding agents, over stdio (default) or HTTP (docs/AGENTS.md)");
    c->add_option("--http", args.http,
                  "serve Streamable HTTP at HOST:PORT (loopback only; port 0: any free one)")
        ->type_name("HOST:PORT");
    c->add_option("--token", args.token,
                  "with --http: require 'Authorization: Bearer TOKEN' (default: $KINETOSCOPE_MCP_TOKEN)")
        ->type_name("TOKEN");
    c->add_option("--root", args.root,
                  "the tools read files under DIR only (default: any file the user can read)")
        ->type_name("DIR")
        ->check(CLI::ExistingDirectory);
    c->add_option("--cache", args.cache, "traces kept loaded (default 4)")->check(CLI::Range(1, 64));
    return c;
}

int runMcp(const McpArgs& args) {
    std::string root;
    if (!args.root.empty()) {
        char resolved[PATH_MAX];
        if (!::realpath(args.root.c_str(), resolved)) {
            std::fprintf(stderr, "kinetoscope-cli: mcp: --root %s: %s\n", args.root.c_str(),
                         std::strerror(errno));
            return 2;
        }
        root = resolved;
    }
    mcp::Server server({mcp::defaultViewerPath(), args.cache, root});
    if (args.http.empty()) {
        if (!args.token.empty()) {
            std::fprintf(stderr, "kinetoscope-cli: mcp: --token goes with --http\n");
            return 2;
        }
        return mcp::serveStdio(server);
    }
    std::string error;
    auto options = mcp::parseHttpAddress(args.http, error);
    if (!options) {
        std::fprintf(stderr, "kinetoscope-cli: mcp: %s\n", error.c_str());
        return 2;
    }
    options->token = args.token;
    if (options->token.empty())
        if (const char* token = std::getenv("KINETOSCOPE_MCP_TOKEN")) options->token = token;
    return mcp::serveHttp(server, *options);
}

} // namespace kinetoscope::cli
