#pragma once

// MCP's two transports: stdio (one JSON-RPC message a line, both ways) and Streamable HTTP (a POST a message,
// answered with application/json), the second on loopback only with MCP's security rules: Origin and Host
// checked against DNS rebinding, MCP-Protocol-Version honoured, sessions, an optional bearer token.

#include "server.h"

#include <cstdint>
#include <optional>
#include <string>

namespace kinetoscope::mcp {

// Serves standard input until it ends; 0.
int serveStdio(Server& server);

struct HttpOptions {
    std::string host = "127.0.0.1"; // 127.0.0.1, ::1 or localhost: nothing else is allowed
    std::uint16_t port = 0;         // 0: any free port (said on stderr)
    std::string token;              // when set, every request needs "Authorization: Bearer TOKEN"
};

// "127.0.0.1:8080", "[::1]:0", "localhost:9000" as options; nullopt and `error` for another address.
std::optional<HttpOptions> parseHttpAddress(const std::string& text, std::string& error);

// Serves until the process is stopped; 1 (and the error on stderr) when it cannot listen.
int serveHttp(Server& server, const HttpOptions& options);

// One HTTP request as the server reads it (exposed for the tests and the fuzz target).
struct HttpRequest {
    std::string method, target, version;
    std::vector<std::pair<std::string, std::string>> headers; // names lower-cased
    std::string body;
    const std::string* header(std::string_view name) const;
};
// Parses a request from the front of `buffer`: the request and the bytes it used; nullopt with `error`
// empty when more bytes are needed, or with the status and reason to answer when it is malformed.
struct HttpParse {
    std::optional<HttpRequest> request;
    std::size_t consumed = 0;
    int errorStatus = 0;
    std::string error;
};
HttpParse parseHttpRequest(std::string_view buffer);

} // namespace kinetoscope::mcp
