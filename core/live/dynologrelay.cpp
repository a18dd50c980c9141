#include "dynologrelay.h"

#include "model/jsonwriter.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <simdjson.h>

#include <cerrno>
#include <chrono>
#include <cstring>

namespace kinetoscope::live {

namespace {

using Clock = std::chrono::steady_clock;

// All of `n` bytes, or false at the deadline, an error or the peer's close.
bool transfer(int fd, char* data, std::size_t n, bool sending, Clock::time_point deadline) {
    while (n > 0) {
        const auto left =
            std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
        pollfd p{fd, short(sending ? POLLOUT : POLLIN), 0};
        if (left <= 0 || ::poll(&p, 1, int(left)) <= 0) return false;
        const ssize_t done = sending ? ::send(fd, data, n, MSG_NOSIGNAL) : ::recv(fd, data, n, 0);
        if (done <= 0) {
            if (done < 0 && (errno == EINTR || errno == EAGAIN)) continue;
            return false;
        }
        data += done;
        n -= std::size_t(done);
    }
    return true;
}

} // namespace

std::string dynologRequest(const std::string& config, std::int64_t jobId, const std::vector<pid_t>& pids,
                           int limit) {
    std::string text;
    JsonWriter<std::string> w(text);
    w.beginObject();
    w.strField("fn", "setKinetOnDemandRequest");
    w.strField("config", config);
    w.numField("job_id", jobId);
    w.key("pids");
    w.beginArray();
    for (pid_t p : pids)
        w.num(std::int64_t(p));
    if (pids.empty()) w.num(0); // dyno gputrace's "any process"
    w.endArray();
    w.numField("process_limit", limit);
    w.endObject();
    return text;
}

DynologReply askDynolog(int port, const std::string& config, std::int64_t jobId,
                        const std::vector<pid_t>& pids, int limit, int timeoutMs) {
    DynologReply reply;
    const auto deadline = Clock::now() + std::chrono::milliseconds(timeoutMs);
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(std::uint16_t(port));
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (fd < 0 || ::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
        reply.error = "dynolog holds the name Kineto polls, but its RPC on port " + std::to_string(port) +
                      " answers nothing: " + std::strerror(errno);
        if (fd >= 0) ::close(fd);
        return reply;
    }
    std::string request = dynologRequest(config, jobId, pids, limit);
    const std::int32_t length = std::int32_t(request.size());
    request.insert(0, reinterpret_cast<const char*>(&length), 4);
    std::int32_t answerLength = 0;
    std::string answer;
    bool ok = transfer(fd, request.data(), request.size(), true, deadline) &&
              transfer(fd, reinterpret_cast<char*>(&answerLength), 4, false, deadline);
    if (ok && (answerLength < 0 || answerLength > (1 << 24))) ok = false; // a length no answer has
    if (ok) {
        answer.resize(std::size_t(answerLength));
        ok = transfer(fd, answer.data(), answer.size(), false, deadline);
    }
    ::close(fd);
    if (!ok) {
        reply.error = "dynolog's RPC on port " + std::to_string(port) + " gave no whole answer";
        return reply;
    }
    simdjson::dom::parser parser;
    simdjson::dom::element root;
    simdjson::dom::array matched;
    if (parser.parse(answer).get(root) != simdjson::SUCCESS ||
        root["processesMatched"].get(matched) != simdjson::SUCCESS) {
        reply.error = "dynolog's answer has no processesMatched";
        return reply;
    }
    for (simdjson::dom::element e : matched) {
        std::int64_t pid = 0;
        if (e.get(pid) == simdjson::SUCCESS && pid > 0) reply.matched.push_back(pid_t(pid));
    }
    return reply;
}

} // namespace kinetoscope::live
