#include "transport.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <random>
#include <set>
#include <thread>

namespace kinetoscope::mcp {

int serveStdio(Server& server) {
    // Messages are one a line and hold no raw line break (JSON escapes them), both ways.
    std::ios::sync_with_stdio(false);
    std::string line;
    while (std::getline(std::cin, line)) {
        if (!line.empty() && line.back() == '\r') line.pop_back();
        if (line.find_first_not_of(" \t") == std::string::npos) continue;
        std::string answer = server.handle(line);
        if (answer.empty()) continue;
        // A report embedded as it was written (summary's, diff's JSON) has line breaks between its tokens;
        // over stdio a message is one line, and in JSON a raw break can only be such whitespace.
        std::replace(answer.begin(), answer.end(), '\n', ' ');
        std::replace(answer.begin(), answer.end(), '\r', ' ');
        std::fwrite(answer.data(), 1, answer.size(), stdout);
        std::fputc('\n', stdout);
        std::fflush(stdout);
    }
    return 0;
}

namespace {

std::string lower(std::string_view s) {
    std::string out(s);
    std::transform(out.begin(), out.end(), out.begin(),
                   [](unsigned char c) { return char(std::tolower(c)); });
    return out;
}

std::string_view trim(std::string_view s) {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t'))
        s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r'))
        s.remove_suffix(1);
    return s;
}

constexpr std::size_t maxHeaderBytes = 64 * 1024;
constexpr std::size_t maxBodyBytes = 64 * 1024 * 1024;

// host[:port] of a Host header or an Origin's authority: the host alone (an IPv6 literal keeps its
// brackets).
std::string hostOf(std::string_view authority) {
    if (authority.starts_with('[')) {
        const auto close = authority.find(']');
        return lower(authority.substr(0, close == std::string_view::npos ? authority.size() : close + 1));
    }
    return lower(authority.substr(0, authority.find(':')));
}

bool loopbackHost(std::string_view host) {
    return host == "127.0.0.1" || host == "localhost" || host == "[::1]";
}

std::string statusText(int status) {
    switch (status) {
    case 200:
        return "OK";
    case 202:
        return "Accepted";
    case 400:
        return "Bad Request";
    case 401:
        return "Unauthorized";
    case 403:
        return "Forbidden";
    case 404:
        return "Not Found";
    case 405:
        return "Method Not Allowed";
    case 406:
        return "Not Acceptable";
    case 411:
        return "Length Required";
    case 413:
        return "Content Too Large";
    case 415:
        return "Unsupported Media Type";
    case 431:
        return "Request Header Fields Too Large";
    case 503:
        return "Service Unavailable";
    default:
        return "Error";
    }
}

struct HttpResponse {
    int status = 200;
    std::string body;
    std::string contentType = "application/json";
    std::vector<std::pair<std::string, std::string>> headers;
};

std::string serialize(const HttpResponse& r, bool close) {
    std::string out = "HTTP/1.1 " + std::to_string(r.status) + " " + statusText(r.status) + "\r\n";
    if (!r.body.empty()) out += "Content-Type: " + r.contentType + "\r\n";
    out += "Content-Length: " + std::to_string(r.body.size()) + "\r\n";
    for (const auto& [k, v] : r.headers)
        out += k + ": " + v + "\r\n";
    if (close) out += "Connection: close\r\n";
    return out + "\r\n" + r.body;
}

// A plain-text refusal (what the transport says before any JSON-RPC is read), as a JSON-RPC error body the
// SDK's client can show.
HttpResponse refuse(int status, std::string_view why) {
    HttpResponse r;
    r.status = status;
    r.body = rpcError({}, RpcError::InvalidRequest, why);
    return r;
}

// The endpoint's rules, apart from the sockets.
class Endpoint {
  public:
    Endpoint(Server& server, const HttpOptions& options) : m_server(server), m_options(options) {}

    HttpResponse answer(const HttpRequest& request) {
        // DNS rebinding: a page on another site reaches a loopback server through a name of its own (its
        // Host) or from its own origin (Origin); both must be this machine.
        if (const std::string* host = request.header("host"); !host || !loopbackHost(hostOf(*host)))
            return refuse(403, "Host must be this machine (127.0.0.1, localhost or [::1])");
        if (const std::string* origin = request.header("origin")) {
            const auto scheme = origin->find("://");
            const std::string authority =
                scheme == std::string::npos ? std::string() : origin->substr(scheme + 3);
            if (!loopbackHost(hostOf(authority))) return refuse(403, "Origin not allowed: " + *origin);
        }
        if (!m_options.token.empty()) {
            const std::string* auth = request.header("authorization");
            if (!auth || *auth != "Bearer " + m_options.token) {
                HttpResponse r = refuse(401, "a bearer token is required (Authorization: Bearer TOKEN)");
                r.headers.emplace_back("WWW-Authenticate", "Bearer");
                return r;
            }
        }
        const std::string path = request.target.substr(0, request.target.find('?'));
        if (path != "/mcp") return refuse(404, "the MCP endpoint is /mcp");
        if (const std::string* version = request.header("mcp-protocol-version");
            version && !supportedProtocolVersion(trim(*version)))
            return refuse(400, "unsupported MCP-Protocol-Version: " + *version);
        if (request.method == "DELETE") return endSession(request);
        if (request.method != "POST") {
            // No stream of server-initiated messages: this server only answers.
            HttpResponse r = refuse(405, "POST a JSON-RPC message (this server offers no SSE stream)");
            r.headers.emplace_back("Allow", "POST, DELETE");
            return r;
        }
        if (const std::string* type = request.header("content-type");
            !type || lower(*type).find("application/json") == std::string::npos)
            return refuse(415, "Content-Type must be application/json");
        if (const std::string* accept = request.header("accept")) {
            const std::string a = lower(*accept);
            if (a.find("application/json") == std::string::npos && a.find("*/*") == std::string::npos)
                return refuse(406, "Accept must include application/json");
        }
        return post(request);
    }

  private:
    HttpResponse post(const HttpRequest& request) {
        const bool initialize = isInitializeRequest(request.body);
        const std::string* session = request.header("mcp-session-id");
        std::string newSession;
        if (session) {
            std::lock_guard lock(m_mutex);
            if (!m_sessions.contains(*session))
                return refuse(404, "unknown or ended session; initialize again");
        } else if (!initialize) {
            return refuse(400, "Mcp-Session-Id header is required (initialize first)");
        }
        HttpResponse r;
        r.body = m_server.handle(request.body);
        if (r.body.empty()) { // a notification or a response: accepted, nothing to say
            r.status = 202;
            return r;
        }
        if (initialize && !session && r.body.find("\"result\"") != std::string::npos) {
            newSession = makeSessionId();
            std::lock_guard lock(m_mutex);
            m_sessions.insert(newSession);
            r.headers.emplace_back("Mcp-Session-Id", newSession);
        }
        return r;
    }

    HttpResponse endSession(const HttpRequest& request) {
        const std::string* session = request.header("mcp-session-id");
        if (!session) return refuse(400, "Mcp-Session-Id header is required");
        std::lock_guard lock(m_mutex);
        if (!m_sessions.erase(*session)) return refuse(404, "unknown session");
        HttpResponse r;
        r.status = 200;
        return r;
    }

    static std::string makeSessionId() {
        std::random_device random;
        static constexpr char hex[] = "0123456789abcdef";
        std::string id;
        for (int i = 0; i < 32; ++i)
            id += hex[random() & 15];
        return id;
    }

    Server& m_server;
    const HttpOptions& m_options;
    std::mutex m_mutex;
    std::set<std::string> m_sessions;
};

bool sendAll(int fd, std::string_view data) {
    while (!data.empty()) {
        const ssize_t n = ::send(fd, data.data(), data.size(), MSG_NOSIGNAL);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return false;
        data.remove_prefix(std::size_t(n));
    }
    return true;
}

// One connection: requests one after another (keep-alive) until the client closes it or asks to.
void serveConnection(int fd, Endpoint& endpoint) {
    std::string buffer;
    char chunk[65536];
    while (true) {
        HttpParse parsed = parseHttpRequest(buffer);
        if (!parsed.request && parsed.errorStatus == 0) {
            // Idle keep-alive connections end after a while, so that they cannot pile up.
            pollfd p{fd, POLLIN, 0};
            if (::poll(&p, 1, 120000) <= 0) break;
            const ssize_t n = ::recv(fd, chunk, sizeof chunk, 0);
            if (n < 0 && errno == EINTR) continue;
            if (n <= 0) break;
            buffer.append(chunk, std::size_t(n));
            continue;
        }
        if (!parsed.request) {
            sendAll(fd, serialize(refuse(parsed.errorStatus, parsed.error), true));
            break;
        }
        buffer.erase(0, parsed.consumed);
        const HttpRequest& request = *parsed.request;
        const std::string* connection = request.header("connection");
        const bool close = request.version == "HTTP/1.0" || (connection && lower(*connection) == "close");
        if (!sendAll(fd, serialize(endpoint.answer(request), close)) || close) break;
    }
    ::close(fd);
}

} // namespace

const std::string* HttpRequest::header(std::string_view name) const {
    for (const auto& [k, v] : headers)
        if (k == name) return &v;
    return nullptr;
}

HttpParse parseHttpRequest(std::string_view buffer) {
    HttpParse out;
    const auto headerEnd = buffer.find("\r\n\r\n");
    if (headerEnd == std::string_view::npos) {
        if (buffer.size() > maxHeaderBytes) {
            out.errorStatus = 431;
            out.error = "request headers too large";
        }
        return out;
    }
    HttpRequest r;
    std::string_view head = buffer.substr(0, headerEnd);
    const auto lineEnd = head.find("\r\n");
    const std::string_view requestLine = head.substr(0, lineEnd);
    const auto sp1 = requestLine.find(' ');
    const auto sp2 = sp1 == std::string_view::npos ? sp1 : requestLine.find(' ', sp1 + 1);
    if (sp2 == std::string_view::npos) {
        out.errorStatus = 400;
        out.error = "malformed request line";
        return out;
    }
    r.method = std::string(requestLine.substr(0, sp1));
    r.target = std::string(requestLine.substr(sp1 + 1, sp2 - sp1 - 1));
    r.version = std::string(requestLine.substr(sp2 + 1));
    if (!r.version.starts_with("HTTP/1.")) {
        out.errorStatus = 400;
        out.error = "only HTTP/1.x is served";
        return out;
    }
    head = lineEnd == std::string_view::npos ? std::string_view() : head.substr(lineEnd + 2);
    while (!head.empty()) {
        const auto end = head.find("\r\n");
        const std::string_view line = head.substr(0, end);
        head = end == std::string_view::npos ? std::string_view() : head.substr(end + 2);
        const auto colon = line.find(':');
        if (colon == std::string_view::npos || colon == 0) {
            out.errorStatus = 400;
            out.error = "malformed header line";
            return out;
        }
        r.headers.emplace_back(lower(trim(line.substr(0, colon))), std::string(trim(line.substr(colon + 1))));
    }
    std::size_t at = headerEnd + 4;
    const std::string* length = r.header("content-length");
    const std::string* encoding = r.header("transfer-encoding");
    if (encoding && lower(*encoding) == "chunked") {
        // Chunks: a hex size line, the bytes, CRLF; a zero size ends the body (no trailers expected).
        while (true) {
            const auto sizeEnd = buffer.find("\r\n", at);
            if (sizeEnd == std::string_view::npos) return out;
            std::string_view sizeText = buffer.substr(at, sizeEnd - at);
            sizeText = sizeText.substr(0, sizeText.find(';'));
            std::size_t size = 0;
            const auto [end, ec] =
                std::from_chars(sizeText.data(), sizeText.data() + sizeText.size(), size, 16);
            if (ec != std::errc() || end != sizeText.data() + sizeText.size() || sizeText.empty()) {
                out.errorStatus = 400;
                out.error = "malformed chunk size";
                return out;
            }
            if (size > maxBodyBytes || r.body.size() + size > maxBodyBytes) {
                out.errorStatus = 413;
                out.error = "request body over 64 MiB";
                return out;
            }
            if (buffer.size() < sizeEnd + 2 + size + 2) return out;
            if (size == 0) {
                at = sizeEnd + 4;
                break;
            }
            r.body.append(buffer.substr(sizeEnd + 2, size));
            at = sizeEnd + 2 + size + 2;
        }
    } else if (length) {
        std::size_t size = 0;
        const auto [end, ec] = std::from_chars(length->data(), length->data() + length->size(), size);
        if (ec != std::errc() || end != length->data() + length->size()) {
            out.errorStatus = 400;
            out.error = "malformed Content-Length";
            return out;
        }
        if (size > maxBodyBytes) {
            out.errorStatus = 413;
            out.error = "request body over 64 MiB";
            return out;
        }
        if (buffer.size() < at + size) return out;
        r.body = std::string(buffer.substr(at, size));
        at += size;
    } else if (r.method == "POST") {
        out.errorStatus = 411;
        out.error = "a POST needs Content-Length";
        return out;
    }
    out.request = std::move(r);
    out.consumed = at;
    return out;
}

std::optional<HttpOptions> parseHttpAddress(const std::string& text, std::string& error) {
    HttpOptions options;
    const auto colon = text.rfind(':');
    if (colon == std::string::npos) {
        error = "--http: expected HOST:PORT (127.0.0.1:8765), not '" + text + "'";
        return std::nullopt;
    }
    std::string host = text.substr(0, colon);
    if (host.starts_with('[') && host.ends_with(']')) host = host.substr(1, host.size() - 2);
    const std::string port = text.substr(colon + 1);
    unsigned value = 0;
    const auto [end, ec] = std::from_chars(port.data(), port.data() + port.size(), value);
    if (ec != std::errc() || end != port.data() + port.size() || value > 65535) {
        error = "--http: bad port '" + port + "'";
        return std::nullopt;
    }
    if (host != "127.0.0.1" && host != "::1" && host != "localhost") {
        error =
            "--http: the server listens on loopback only (127.0.0.1, ::1 or localhost), not '" + host + "'";
        return std::nullopt;
    }
    options.host = host == "localhost" ? "127.0.0.1" : host;
    options.port = std::uint16_t(value);
    return options;
}

int serveHttp(Server& server, const HttpOptions& options) {
    const bool v6 = options.host == "::1";
    const int listener = ::socket(v6 ? AF_INET6 : AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    const int yes = 1;
    ::setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
    sockaddr_storage address{};
    socklen_t length = 0;
    if (v6) {
        auto* a = reinterpret_cast<sockaddr_in6*>(&address);
        a->sin6_family = AF_INET6;
        a->sin6_port = htons(options.port);
        a->sin6_addr = in6addr_loopback;
        length = sizeof *a;
    } else {
        auto* a = reinterpret_cast<sockaddr_in*>(&address);
        a->sin_family = AF_INET;
        a->sin_port = htons(options.port);
        a->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        length = sizeof *a;
    }
    if (listener < 0 || ::bind(listener, reinterpret_cast<sockaddr*>(&address), length) != 0 ||
        ::listen(listener, 64) != 0) {
        std::fprintf(stderr, "kinetoscope-cli: mcp: cannot listen on %s:%u: %s\n", options.host.c_str(),
                     unsigned(options.port), std::strerror(errno));
        return 1;
    }
    ::getsockname(listener, reinterpret_cast<sockaddr*>(&address), &length);
    const std::uint16_t port = ntohs(v6 ? reinterpret_cast<sockaddr_in6*>(&address)->sin6_port
                                        : reinterpret_cast<sockaddr_in*>(&address)->sin_port);
    std::fprintf(stderr, "kinetoscope-cli: MCP over HTTP at http://%s:%u/mcp\n",
                 v6 ? "[::1]" : options.host.c_str(), unsigned(port));
    std::fflush(stderr);
    Endpoint endpoint(server, options);
    std::atomic<int> open{0};
    constexpr int maxConnections = 64;
    while (true) {
        const int fd = ::accept4(listener, nullptr, nullptr, SOCK_CLOEXEC);
        if (fd < 0) {
            if (errno == EINTR || errno == ECONNABORTED || errno == EMFILE || errno == ENFILE) continue;
            std::fprintf(stderr, "kinetoscope-cli: mcp: accept: %s\n", std::strerror(errno));
            return 1;
        }
        if (open.load() >= maxConnections) {
            sendAll(fd, serialize(refuse(503, "too many connections"), true));
            ::close(fd);
            continue;
        }
        ++open;
        std::thread([fd, &endpoint, &open] {
            serveConnection(fd, endpoint);
            --open;
        }).detach();
    }
}

} // namespace kinetoscope::mcp
