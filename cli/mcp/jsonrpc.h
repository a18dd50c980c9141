#pragma once

// JSON-RPC 2.0 as MCP uses it (one message a line on stdio, one a POST body over HTTP): the decoder of what a
// client sends and the writer of what the server answers. Read with the project's JSON reader (simdjson),
// written with its one writer (model/jsonwriter.h). Whatever the bytes, decoding returns a message or the
// JSON-RPC error to answer with; it never throws.

#include <simdjson.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>

namespace kinetoscope::mcp {

// JSON-RPC's error codes.
enum class RpcError : int {
    ParseError = -32700,
    InvalidRequest = -32600,
    MethodNotFound = -32601,
    InvalidParams = -32602,
    InternalError = -32603,
};

// A request's id: a string or an integer (MCP forbids null); none for a notification.
using RequestId = std::variant<std::monostate, std::int64_t, std::string>;

struct Message {
    enum class Kind : std::uint8_t { Request, Notification, Response } kind = Kind::Request;
    RequestId id;
    std::string method;
    // The params object (an empty object when the message has none); valid while the decoder that made it
    // lives and decodes nothing else.
    simdjson::dom::object params;
};

struct DecodeFailure {
    RpcError code = RpcError::InvalidRequest;
    std::string message;
    RequestId id; // when the message had a readable one
};

class MessageDecoder {
  public:
    // One message (an object); a batch (an array) is refused: MCP 2025-06-18 removed batching.
    std::variant<Message, DecodeFailure> decode(std::string_view text);

  private:
    simdjson::dom::parser m_parser;
    simdjson::padded_string m_text;
};

// Whether `text` is an initialize request (the HTTP transport opens a session for it, before the server reads
// it).
bool isInitializeRequest(std::string_view text);

// An empty JSON object (params or arguments a message left out).
simdjson::dom::object emptyObject();

// {"jsonrpc": "2.0", "id": ID, "result": RESULT} with RESULT JSON text as it is.
std::string rpcResult(const RequestId& id, std::string_view resultJson);
// {"jsonrpc": "2.0", "id": ID or null, "error": {"code": C, "message": M}}.
std::string rpcError(const RequestId& id, RpcError code, std::string_view message);

} // namespace kinetoscope::mcp
