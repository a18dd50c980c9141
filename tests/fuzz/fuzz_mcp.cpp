// libFuzzer target: the MCP server's request decoding (issue 64). The first byte picks the door: the HTTP
// request parser, or a JSON-RPC message handed to the whole server (decoder, dispatch, argument checks and
// the tools, which may read files only under an empty folder, so that the input cannot make them load a real
// trace). Every input must get an answer or an error: no crash, leak, hang or unbounded growth, and every
// answer must be one JSON-RPC message the project's reader accepts.
#include "mcp/server.h"
#include "mcp/transport.h"

#include <simdjson.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <unistd.h>

namespace {

kinetoscope::mcp::Server& server() {
    static const std::string root = [] {
        char dir[] = "/tmp/kinetoscope-fuzz-mcp-XXXXXX";
        return std::string(::mkdtemp(dir) ? dir : "/nonexistent-kinetoscope-fuzz-root");
    }();
    static kinetoscope::mcp::Server s({"/nonexistent/kinetoscope", 2, root});
    return s;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size == 0) return 0;
    const std::string_view input(reinterpret_cast<const char*>(data) + 1, size - 1);
    if (data[0] & 1) {
        const auto parsed = kinetoscope::mcp::parseHttpRequest(input);
        if (parsed.request && parsed.consumed > input.size()) std::abort();
        if (!parsed.request && parsed.errorStatus != 0 && parsed.error.empty()) std::abort();
        return 0;
    }
    const std::string answer = server().handle(input);
    if (answer.empty()) return 0; // a notification or a response
    static simdjson::dom::parser parser;
    simdjson::dom::object object;
    if (parser.parse(answer).get(object) || object["jsonrpc"].error()) {
        std::fprintf(stderr, "not a JSON-RPC answer: %s\n", answer.c_str());
        std::abort();
    }
    return 0;
}
