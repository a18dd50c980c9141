#include "jsonrpc.h"

#include "model/jsonwriter.h"

namespace kinetoscope::mcp {

namespace {

void writeId(JsonWriter<std::string>& w, const RequestId& id) {
    if (const auto* n = std::get_if<std::int64_t>(&id))
        w.num(*n);
    else if (const auto* s = std::get_if<std::string>(&id))
        w.str(*s);
    else
        w.null();
}

// The id as the client wrote it; nullopt when it is not one JSON-RPC allows (MCP also refuses null).
std::optional<RequestId> readId(simdjson::dom::element e) {
    if (e.is_int64()) return RequestId(e.get_int64().value());
    if (e.is_string()) return RequestId(std::string(e.get_string().value()));
    return std::nullopt;
}

DecodeFailure failed(RpcError code, std::string message) {
    DecodeFailure f;
    f.code = code;
    f.message = std::move(message);
    return f;
}

} // namespace

bool isInitializeRequest(std::string_view text) {
    static thread_local simdjson::dom::parser parser;
    const simdjson::padded_string padded(text);
    std::string_view method;
    return !parser.parse(padded)["method"].get(method) && method == "initialize";
}

simdjson::dom::object emptyObject() {
    // Parsed once, kept for the process: every message without params, every call without arguments.
    static const simdjson::padded_string text(std::string_view("{}"));
    static simdjson::dom::parser parser;
    static const simdjson::dom::object object = parser.parse(text).get_object().value_unsafe();
    return object;
}

std::variant<Message, DecodeFailure> MessageDecoder::decode(std::string_view text) {
    m_text = simdjson::padded_string(text);
    simdjson::dom::element root;
    if (const auto error = m_parser.parse(m_text).get(root))
        return failed(RpcError::ParseError, std::string("not JSON: ") + simdjson::error_message(error));
    if (root.is_array())
        return failed(RpcError::InvalidRequest, "batches are not supported (MCP 2025-06-18 and later)");
    simdjson::dom::object object;
    if (root.get(object)) return failed(RpcError::InvalidRequest, "a message must be a JSON object");

    Message m;
    DecodeFailure failure;
    simdjson::dom::element id;
    const bool hasId = !object.at_key("id").get(id);
    if (hasId) {
        const auto read = readId(id);
        if (!read) return failed(RpcError::InvalidRequest, "id must be a string or an integer");
        m.id = *read;
        failure.id = *read;
    }
    std::string_view version;
    if (object.at_key("jsonrpc").get(version) || version != "2.0") {
        failure.message = "jsonrpc must be \"2.0\"";
        return failure;
    }
    simdjson::dom::element method;
    if (object.at_key("method").get(method)) {
        // A response to a request of ours: the server sends none, so there is nothing to match it with.
        if (hasId && (!object.at_key("result").error() || !object.at_key("error").error())) {
            m.kind = Message::Kind::Response;
            return m;
        }
        failure.message = "a request needs a method";
        return failure;
    }
    std::string_view name;
    if (method.get(name)) {
        failure.message = "method must be a string";
        return failure;
    }
    m.method = std::string(name);
    m.kind = hasId ? Message::Kind::Request : Message::Kind::Notification;
    simdjson::dom::element params;
    if (!object.at_key("params").get(params)) {
        if (params.get(m.params)) {
            failure.code = RpcError::InvalidParams;
            failure.message = "params must be an object";
            return failure;
        }
    } else {
        m.params = emptyObject(); // so that a handler always reads one
    }
    return m;
}

// An answer's opening: the version and the id it answers.
static void beginAnswer(JsonWriter<std::string>& w, const RequestId& id) {
    w.beginObject();
    w.strField("jsonrpc", "2.0");
    w.key("id");
    writeId(w, id);
}

std::string rpcResult(const RequestId& id, std::string_view resultJson) {
    std::string out;
    JsonWriter w(out);
    beginAnswer(w, id);
    w.key("result");
    w.json(resultJson);
    w.endObject();
    return out;
}

std::string rpcError(const RequestId& id, RpcError code, std::string_view message) {
    std::string out;
    JsonWriter w(out);
    beginAnswer(w, id);
    w.key("error");
    w.beginObject();
    w.numField("code", int(code));
    w.strField("message", message);
    w.endObject();
    w.endObject();
    return out;
}

} // namespace kinetoscope::mcp
