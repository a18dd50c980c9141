#pragma once

// The MCP server's protocol (issue 64): initialize and its version negotiation, ping, tools/list and
// tools/call, over whichever transport hands it messages (stdio.cpp, http.cpp). One message in, at most one
// message out; a notification or a client's response gets none. Nothing a client sends can end the server:
// a malformed message gets a JSON-RPC error, a tool that fails gets a tool error, and the next call works.

#include "jsonrpc.h"
#include "tools.h"

#include <mutex>
#include <optional>
#include <string>
#include <string_view>

namespace kinetoscope::mcp {

// The revisions we speak, newest first: a client asking for another gets the newest.
inline constexpr std::string_view protocolVersions[] = {"2025-11-25", "2025-06-18", "2025-03-26"};
bool supportedProtocolVersion(std::string_view version);

struct ServerOptions {
    std::string viewerPath; // the viewer that renders PNGs
    std::size_t cachedTraces = 4;
    std::string root; // when set, the tools read files under this folder only (`mcp --root DIR`)
};

class Server {
  public:
    explicit Server(ServerOptions options);
    // The answer to one message (empty for a notification or a response); safe to call from several threads
    // (one message at a time).
    std::string handle(std::string_view message);
    // The version initialize agreed on (empty before it).
    std::string protocolVersion() const;

  private:
    std::string initialize(const Message& m);
    std::string listTools() const;
    std::string callTool(const Message& m, std::optional<std::string>& protocolError);

    mutable std::mutex m_mutex;
    MessageDecoder m_decoder;
    TraceCache m_traces;
    ToolContext m_context;
    std::string m_protocolVersion;
};

// The viewer binary beside this one (installed side by side in bin/, or app/ beside cli/ in a build tree),
// unless KINETOSCOPE_VIEWER names one.
std::string defaultViewerPath();

} // namespace kinetoscope::mcp
