#include "server.h"

#include "model/jsonwriter.h"

#include <unistd.h>

#include <climits>
#include <cstdlib>
#include <exception>

namespace kinetoscope::mcp {

namespace {

constexpr std::string_view instructions =
    "Kinetoscope reads PyTorch profiler traces (Kineto JSON; also Nsight Systems, Perfetto and ROCm files). "
    "Start with open_trace(path): it returns an id and the first findings. Then recommendations, "
    "top_kernels, top_operators, steps and gpu_idle give the report's tables; slices and explain_event find "
    "and "
    "explain single events by id; query runs SQL. Every finding carries event ids, times (us on the trace's "
    "clock) and a kinetoscope:// link that opens the viewer there.";

} // namespace

bool supportedProtocolVersion(std::string_view version) {
    for (const std::string_view v : protocolVersions)
        if (v == version) return true;
    return false;
}

std::string defaultViewerPath() {
    if (const char* viewer = std::getenv("KINETOSCOPE_VIEWER"); viewer && *viewer) return viewer;
    char self[PATH_MAX];
    const ssize_t n = ::readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0) return "kinetoscope";
    const std::string exe(self, std::size_t(n));
    const std::string dir = exe.substr(0, exe.rfind('/'));
    for (const std::string& candidate : {dir + "/kinetoscope", dir + "/../app/kinetoscope"})
        if (::access(candidate.c_str(), X_OK) == 0) return candidate;
    return "kinetoscope"; // from PATH
}

Server::Server(ServerOptions options)
    : m_traces(options.cachedTraces, options.root), m_context{m_traces, std::move(options.viewerPath),
                                                              options.root} {}

std::string Server::protocolVersion() const {
    std::lock_guard lock(m_mutex);
    return m_protocolVersion;
}

std::string Server::handle(std::string_view text) {
    std::lock_guard lock(m_mutex);
    auto decoded = m_decoder.decode(text);
    if (auto* failure = std::get_if<DecodeFailure>(&decoded))
        return rpcError(failure->id, failure->code, failure->message);
    const Message& m = std::get<Message>(decoded);
    if (m.kind != Message::Kind::Request) return {}; // notifications/initialized, cancelled, a response
    try {
        if (m.method == "initialize") return rpcResult(m.id, initialize(m));
        if (m.method == "ping") return rpcResult(m.id, "{}");
        if (m.method == "tools/list") return rpcResult(m.id, listTools());
        if (m.method == "tools/call") {
            std::optional<std::string> protocolError;
            const std::string result = callTool(m, protocolError);
            if (protocolError) return rpcError(m.id, RpcError::InvalidParams, *protocolError);
            return rpcResult(m.id, result);
        }
        return rpcError(m.id, RpcError::MethodNotFound, "method not found: " + m.method);
    } catch (const std::exception& e) {
        // A bug of ours (or memory running out) fails this call, not the server.
        return rpcError(m.id, RpcError::InternalError, std::string("internal error: ") + e.what());
    }
}

std::string Server::initialize(const Message& m) {
    std::string_view asked;
    if (m.params["protocolVersion"].get(asked)) asked = {};
    m_protocolVersion =
        supportedProtocolVersion(asked) ? std::string(asked) : std::string(protocolVersions[0]);
    std::string out;
    JsonWriter w(out);
    w.beginObject();
    w.strField("protocolVersion", m_protocolVersion);
    w.key("capabilities");
    w.beginObject();
    w.key("tools");
    w.beginObject();
    w.key("listChanged");
    w.boolean(false);
    w.endObject();
    w.endObject();
    w.key("serverInfo");
    w.beginObject();
    w.strField("name", "kinetoscope");
    w.strField("title", "Kinetoscope");
    w.strField("version", KINETOSCOPE_VERSION);
    w.endObject();
    w.strField("instructions", instructions);
    w.endObject();
    return out;
}

std::string Server::listTools() const {
    std::string out;
    JsonWriter w(out);
    w.beginObject();
    w.key("tools");
    w.beginArray();
    for (const ToolSpec& tool : toolSpecs()) {
        w.beginObject();
        w.strField("name", tool.name);
        w.strField("title", tool.title);
        w.strField("description", tool.description);
        w.key("inputSchema");
        w.json(tool.inputSchema);
        // Every tool reads; none writes, deletes or reaches beyond the files it is given.
        w.key("annotations");
        w.beginObject();
        w.key("readOnlyHint");
        w.boolean(true);
        w.key("openWorldHint");
        w.boolean(false);
        w.endObject();
        w.endObject();
    }
    w.endArray();
    w.endObject();
    return out;
}

std::string Server::callTool(const Message& m, std::optional<std::string>& protocolError) {
    std::string_view name;
    if (m.params["name"].get(name)) {
        protocolError = "tools/call needs the tool's name";
        return {};
    }
    const ToolSpec* tool = nullptr;
    for (const ToolSpec& t : toolSpecs())
        if (t.name == name) tool = &t;
    if (!tool) {
        protocolError = "unknown tool: " + std::string(name);
        return {};
    }
    simdjson::dom::object arguments;
    simdjson::dom::element given;
    const bool hasArguments = !m.params["arguments"].get(given) && !given.is_null();
    if (hasArguments && given.get(arguments)) {
        protocolError = "arguments must be an object";
        return {};
    }
    if (!hasArguments) arguments = emptyObject();
    ToolArguments args(arguments, schemaProperties(tool->inputSchema));
    const ToolResult result =
        args.error().empty() ? tool->run(m_context, args) : ToolResult::error(args.error());

    std::string out;
    JsonWriter w(out);
    w.beginObject();
    w.key("content");
    w.beginArray();
    w.beginObject();
    w.strField("type", "text");
    w.strField("text", result.text);
    w.endObject();
    for (const ToolResult::Image& image : result.images) {
        w.beginObject();
        w.strField("type", "image");
        w.strField("mimeType", image.mimeType);
        w.strField("data", image.base64);
        w.endObject();
    }
    w.endArray();
    if (!result.structuredJson.empty() && !result.isError) {
        w.key("structuredContent");
        w.json(result.structuredJson);
    }
    w.key("isError");
    w.boolean(result.isError);
    w.endObject();
    return out;
}

} // namespace kinetoscope::mcp
