#include "dynologrelay.h"

#include "model/jsonwriter.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <simdjson.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <limits>
#include <unordered_set>

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
    // Non-blocking from the start: a connect that hangs (a firewall dropping, a full backlog) ends at the
    // deadline like every read and write after it.
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(std::uint16_t(port));
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    int connectError = fd < 0 ? errno : 0;
    if (fd >= 0 && ::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
        connectError = errno;
        if (errno == EINPROGRESS) {
            pollfd p{fd, POLLOUT, 0};
            const auto left =
                std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
            socklen_t size = sizeof connectError;
            if (::poll(&p, 1, int(std::max<std::int64_t>(0, left))) <= 0)
                connectError = ETIMEDOUT;
            else if (::getsockopt(fd, SOL_SOCKET, SO_ERROR, &connectError, &size) != 0)
                connectError = errno;
        }
    }
    if (connectError != 0) {
        reply.error = "dynolog holds the name Kineto polls, but its RPC on port " + std::to_string(port) +
                      " answers nothing: " + std::strerror(connectError);
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
    // activityProfilersTriggered: the processes whose profiler took the config (dynolog caps it at
    // process_limit); processesMatched also holds those it found busy, and is not capped. An older dynolog
    // without the first: the matched ones.
    if (parser.parse(answer).get(root) != simdjson::SUCCESS ||
        (root["activityProfilersTriggered"].get(matched) != simdjson::SUCCESS &&
         root["processesMatched"].get(matched) != simdjson::SUCCESS)) {
        reply.error = "dynolog's answer names no process it asked";
        return reply;
    }
    // A bounded, de-duplicated list whatever the answer holds: at most `limit` processes.
    std::unordered_set<pid_t> seen;
    for (simdjson::dom::element e : matched) {
        if (reply.matched.size() >= std::size_t(std::max(0, limit))) break;
        std::int64_t pid = 0;
        if (e.get(pid) == simdjson::SUCCESS && pid > 0 && pid <= std::numeric_limits<pid_t>::max() &&
            seen.insert(pid_t(pid)).second)
            reply.matched.push_back(pid_t(pid));
    }
    std::int64_t busy = 0;
    if (root["activityProfilersBusy"].get(busy) == simdjson::SUCCESS)
        reply.busy = int(std::max<std::int64_t>(0, busy));
    return reply;
}

} // namespace kinetoscope::live
