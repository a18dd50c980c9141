#include "ondemand.h"

#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

namespace kinetoscope::live {

namespace {

constexpr std::size_t maxPids = 1024;
constexpr std::size_t maxDatagram = 64 * 1024;

template <class T> T readAt(std::string_view bytes, std::size_t at) {
    T v;
    std::memcpy(&v, bytes.data() + at, sizeof v);
    return v;
}
template <class T> void append(std::string& out, T v) {
    out.append(reinterpret_cast<const char*>(&v), sizeof v);
}

} // namespace

std::optional<FabricMessage> decodeFabricMessage(std::string_view datagram) {
    if (datagram.size() < fabricHeaderBytes) return std::nullopt;
    const auto size = readAt<std::uint64_t>(datagram, 0);
    if (size != datagram.size() - fabricHeaderBytes) return std::nullopt; // lying or cut
    const std::string_view typeField = datagram.substr(8, fabricTypeBytes);
    const std::size_t nul = typeField.find('\0');
    if (nul == std::string_view::npos || nul == 0) return std::nullopt;
    for (std::size_t i = 0; i < nul; ++i)
        if (typeField[i] < 0x21 || typeField[i] > 0x7e) return std::nullopt;
    return FabricMessage{std::string(typeField.substr(0, nul)), datagram.substr(fabricHeaderBytes)};
}

std::string encodeFabricMessage(std::string_view type, std::string_view payload) {
    std::string out;
    append<std::uint64_t>(out, payload.size());
    char typeField[fabricTypeBytes] = {};
    std::memcpy(typeField, type.data(), std::min(type.size(), fabricTypeBytes - 1));
    out.append(typeField, fabricTypeBytes);
    out.append(payload);
    return out;
}

std::optional<KinetoPoll> decodeKinetoPoll(std::string_view payload) {
    // {i32 type, i32 n, i64 job id} then n i32 pids: 16 bytes of header as the C struct lays them out.
    if (payload.size() < 16) return std::nullopt;
    KinetoPoll poll;
    poll.type = readAt<std::int32_t>(payload, 0);
    const auto n = readAt<std::int32_t>(payload, 4);
    poll.jobId = readAt<std::int64_t>(payload, 8);
    if (n < 0 || std::size_t(n) > maxPids || payload.size() != 16 + 4 * std::size_t(n)) return std::nullopt;
    for (std::int32_t i = 0; i < n; ++i)
        poll.pids.push_back(readAt<std::int32_t>(payload, 16 + 4 * std::size_t(i)));
    return poll;
}

std::string encodeKinetoPoll(const KinetoPoll& poll) {
    std::string out;
    append<std::int32_t>(out, poll.type);
    append<std::int32_t>(out, std::int32_t(poll.pids.size()));
    append<std::int64_t>(out, poll.jobId);
    for (std::int32_t p : poll.pids)
        append<std::int32_t>(out, p);
    return out;
}

std::string onDemandConfig(const TraceRequest& r) {
    std::string c = "ACTIVITIES_LOG_FILE=" + r.logFile + "\n";
    if (r.iterations > 0) {
        // Counted by the optimizer step hook; the next iteration boundary starts it.
        c += "PROFILE_START_ITERATION=0\nPROFILE_START_ITERATION_ROUNDUP=1\nACTIVITIES_ITERATIONS=" +
             std::to_string(r.iterations) + "\n";
    } else {
        c += "PROFILE_START_TIME=0\nACTIVITIES_DURATION_MSECS=" + std::to_string(std::max(1, r.durationMs)) +
             "\n";
    }
    const auto flag = [&](const char* key, bool on) {
        c += std::string(key) + (on ? "=true\n" : "=false\n");
    };
    flag("PROFILE_REPORT_INPUT_SHAPES", r.shapes);
    flag("PROFILE_WITH_STACK", r.stack);
    flag("PROFILE_PROFILE_MEMORY", r.memory); // (PROFILE_MEMORY would ask for a memory snapshot instead)
    flag("PROFILE_WITH_MODULES", r.modules);
    return c;
}

std::string kinetoLogFileFor(const std::string& logFile, pid_t pid) {
    const std::size_t at = logFile.find(".json");
    if (at == std::string::npos) return logFile;
    return logFile.substr(0, at) + "_" + std::to_string(pid) + logFile.substr(at);
}

OnDemandDaemon::~OnDemandDaemon() {
    if (m_fd >= 0) ::close(m_fd);
    if (!m_path.empty()) ::unlink(m_path.c_str());
}

namespace {

// The name Kineto polls: the file $KINETO_IPC_SOCKET_DIR/dynolog, or the abstract "\0dynolog\0" (the
// trailing NUL is part of the name Kineto sends to). 0 when the folder's path is too long.
socklen_t daemonAddress(sockaddr_un& addr, std::string& path) {
    addr = {};
    addr.sun_family = AF_UNIX;
    path.clear();
    const char* dir = std::getenv("KINETO_IPC_SOCKET_DIR");
    if (dir && *dir) {
        path = std::string(dir) + "/dynolog";
        if (path.size() >= sizeof addr.sun_path) return 0;
        std::memcpy(addr.sun_path, path.c_str(), path.size() + 1);
        return socklen_t(offsetof(sockaddr_un, sun_path) + path.size() + 1);
    }
    std::memcpy(addr.sun_path, "\0dynolog\0", 9);
    return socklen_t(offsetof(sockaddr_un, sun_path) + 9);
}

} // namespace

bool OnDemandDaemon::bind(std::string& error) {
    m_nameHeld = false;
    if (m_fd >= 0) return true;
    m_fd = ::socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (m_fd < 0) {
        error = std::string("socket: ") + std::strerror(errno);
        return false;
    }
    const int on = 1;
    ::setsockopt(m_fd, SOL_SOCKET, SO_PASSCRED, &on, sizeof on); // the sender's pid and uid, from the kernel
    sockaddr_un addr{};
    const socklen_t length = daemonAddress(addr, m_path);
    if (length == 0) {
        error = "KINETO_IPC_SOCKET_DIR is too long for a socket path";
        m_path.clear();
        return false;
    }
    m_where = m_path.empty() ? std::string("the abstract socket \"dynolog\"") : m_path;
    int bound = ::bind(m_fd, reinterpret_cast<sockaddr*>(&addr), length);
    if (bound != 0 && errno == EADDRINUSE && !m_path.empty()) {
        // A socket file nobody listens on any more (a daemon that crashed): connecting is refused. Take it,
        // but only a socket: a file or link planted under the name is never removed.
        struct stat st {};
        const bool isSocket = ::lstat(m_path.c_str(), &st) == 0 && S_ISSOCK(st.st_mode);
        const int probe = ::socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
        const bool stale = isSocket && ::connect(probe, reinterpret_cast<sockaddr*>(&addr), length) != 0 &&
                           errno == ECONNREFUSED;
        ::close(probe);
        if (stale && ::unlink(m_path.c_str()) == 0)
            bound = ::bind(m_fd, reinterpret_cast<sockaddr*>(&addr), length);
        else
            errno = EADDRINUSE;
    }
    if (bound != 0) {
        const int e = errno;
        error = "cannot bind " + m_where + ": " + std::strerror(e) +
                (e == EADDRINUSE ? " (another daemon, such as dynolog, holds it)" : "");
        if (e == EADDRINUSE) m_nameHeld = true;
        m_path.clear(); // not ours to remove
        ::close(m_fd);
        m_fd = -1;
        return false;
    }
    return true;
}

NameHolder askNameHolder(int timeoutMs) {
    sockaddr_un to{};
    std::string path;
    const socklen_t length = daemonAddress(to, path);
    const int fd = ::socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd < 0 || length == 0) {
        if (fd >= 0) ::close(fd);
        return {};
    }
    NameHolder holder;
    // An autobound (abstract, unique) address, so that the holder can answer.
    sockaddr_un own{};
    own.sun_family = AF_UNIX;
    if (::bind(fd, reinterpret_cast<sockaddr*>(&own), sizeof(sa_family_t)) == 0) {
        const std::string probe = encodeFabricMessage(holderProbeType, {});
        if (::sendto(fd, probe.data(), probe.size(), MSG_DONTWAIT, reinterpret_cast<sockaddr*>(&to),
                     length) == ssize_t(probe.size())) {
            pollfd p{fd, POLLIN, 0};
            char buffer[512];
            if (::poll(&p, 1, timeoutMs) > 0) {
                const ssize_t n = ::recv(fd, buffer, sizeof buffer, MSG_DONTWAIT);
                const auto m =
                    n > 0 ? decodeFabricMessage(std::string_view(buffer, std::size_t(n))) : std::nullopt;
                if (m && m->type == holderProbeType) {
                    const std::string_view text = m->payload.substr(0, 200);
                    const std::size_t space = text.find(' ');
                    holder.pid = pid_t(std::atol(std::string(text.substr(0, space)).c_str()));
                    if (space != std::string_view::npos)
                        holder.name = escapeControlCharacters(text.substr(space + 1));
                }
            }
        }
    }
    ::close(fd);
    return holder;
}

void OnDemandDaemon::setLimits(std::size_t capacity, std::chrono::milliseconds expiry) {
    m_capacity = capacity;
    m_expiry = expiry;
}

std::optional<uid_t> OnDemandDaemon::strangerUid(pid_t pid) const {
    const auto it = m_strangers.find(pid);
    if (it == m_strangers.end()) return std::nullopt;
    return it->second.first;
}

void OnDemandDaemon::expire() {
    const auto oldest = std::chrono::steady_clock::now() - m_expiry;
    // A process with a request pending or delivered stays: its attach still reads its row.
    for (auto it = m_processes.begin(); it != m_processes.end();)
        if (it->second.lastPoll < oldest && !m_pending.count(it->first) && !m_delivered.count(it->first))
            it = m_processes.erase(it);
        else
            ++it;
    for (auto it = m_strangers.begin(); it != m_strangers.end();)
        if (it->second.second < oldest)
            it = m_strangers.erase(it);
        else
            ++it;
}

void OnDemandDaemon::pump(int timeoutMs) {
    if (m_fd < 0) return;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeoutMs);
    // One buffer for the daemon's life: the dialog pumps five times a second.
    std::vector<char>& buffer = m_buffer;
    buffer.resize(maxDatagram + 1);
    for (;;) {
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
            deadline - std::chrono::steady_clock::now());
        pollfd p{m_fd, POLLIN, 0};
        if (::poll(&p, 1, int(std::max<std::int64_t>(0, left.count()))) <= 0) {
            if (left.count() <= 0) break;
            continue;
        }
        // Drain what is there, never blocking: one sender's flood does not stall the loop past its deadline.
        for (int i = 0; i < 256; ++i) {
            sockaddr_un from{};
            iovec iov{buffer.data(), buffer.size()};
            alignas(cmsghdr) char control[CMSG_SPACE(sizeof(ucred))];
            msghdr msg{};
            msg.msg_name = &from;
            msg.msg_namelen = sizeof from;
            msg.msg_iov = &iov;
            msg.msg_iovlen = 1;
            msg.msg_control = control;
            msg.msg_controllen = sizeof control;
            const ssize_t n = ::recvmsg(m_fd, &msg, MSG_DONTWAIT);
            if (n < 0) break;
            pid_t pid = 0;
            uid_t uid = uid_t(-1);
            for (cmsghdr* c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c))
                if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_CREDENTIALS) {
                    ucred cred;
                    std::memcpy(&cred, CMSG_DATA(c), sizeof cred);
                    pid = cred.pid;
                    uid = cred.uid;
                }
            if ((msg.msg_flags & MSG_TRUNC) || pid <= 0) {
                ++m_rejected;
                continue;
            }
            handle(std::string_view(buffer.data(), std::size_t(n)), pid, uid, &from, msg.msg_namelen);
        }
        if (std::chrono::steady_clock::now() >= deadline) break;
    }
    expire();
}

void OnDemandDaemon::handle(std::string_view datagram, pid_t pid, uid_t uid, const void* from,
                            unsigned fromLength) {
    const std::optional<FabricMessage> message = decodeFabricMessage(datagram);
    if (!message) {
        ++m_rejected;
        return;
    }
    std::string reply;
    if (message->type == "req") {
        const std::optional<KinetoPoll> poll = decodeKinetoPoll(message->payload);
        if (!poll) {
            ++m_rejected;
            return;
        }
        const auto now = std::chrono::steady_clock::now();
        std::string config;
        if (uid != ::geteuid()) {
            // Another user's process is out of reach (it could not write where we read, nor we read what it
            // writes): never asked, never listed; remembered only to say so, a bounded few.
            if (m_strangers.count(pid) || m_strangers.size() < 256) m_strangers[pid] = {uid, now};
        } else {
            auto it = m_processes.find(pid);
            if (it == m_processes.end()) {
                if (m_processes.size() >= m_capacity) expire();
                // (one asked for is listed whatever the count: its attach reads its row)
                if (m_processes.size() < m_capacity || m_pending.count(pid))
                    it = m_processes.emplace(pid, PolledProcess{}).first;
                else
                    ++m_overflowed;
            }
            if (it != m_processes.end()) {
                PolledProcess& p = it->second;
                p.pid = pid;
                p.uid = uid;
                p.jobId = poll->jobId;
                p.idle = poll->idle();
                p.lastPoll = now;
                ++p.polls;
            }
            // A busy profiler drops what it is sent: the request waits for an idle poll.
            if (const auto pending = m_pending.find(pid); pending != m_pending.end() && poll->idle()) {
                config = std::move(pending->second);
                m_pending.erase(pending);
                m_delivered[pid] = true;
            }
        }
        reply = encodeFabricMessage("req", config);
    } else if (message->type == holderProbeType && !m_holderName.empty()) {
        // Who holds the name (askNameHolder): so that a second Kinetoscope says so instead of "dynolog".
        reply = encodeFabricMessage(holderProbeType, std::to_string(::getpid()) + " " + m_holderName);
    } else if (message->type == "ctxt") {
        const std::int32_t instances = 1;
        reply = encodeFabricMessage("ctxt", std::string_view(reinterpret_cast<const char*>(&instances), 4));
    } else {
        ++m_rejected;
        return;
    }
    // Unnamed senders cannot be answered.
    if (fromLength > offsetof(sockaddr_un, sun_path))
        (void)::sendto(m_fd, reply.data(), reply.size(), MSG_DONTWAIT, static_cast<const sockaddr*>(from),
                       socklen_t(fromLength));
}

void OnDemandDaemon::request(pid_t pid, std::string config) {
    m_pending[pid] = std::move(config);
    m_delivered[pid] = false;
}

bool OnDemandDaemon::withdraw(pid_t pid) {
    m_pending.erase(pid);
    const auto it = m_delivered.find(pid);
    const bool was = it != m_delivered.end() && it->second;
    if (it != m_delivered.end()) m_delivered.erase(it);
    return was;
}

void OnDemandDaemon::markDelivered(pid_t pid) {
    m_pending.erase(pid);
    m_delivered[pid] = true;
    PolledProcess& p = m_processes[pid];
    if (p.pid == 0) {
        p.pid = pid;
        p.uid = ::geteuid();
        p.lastPoll = std::chrono::steady_clock::now();
    }
}

bool OnDemandDaemon::delivered(pid_t pid) const {
    const auto it = m_delivered.find(pid);
    return it != m_delivered.end() && it->second;
}

namespace {
std::string readFile(const std::string& path) {
    std::ifstream f(path, std::ios::binary);
    std::stringstream s;
    s << f.rdbuf();
    return s.str();
}

} // namespace

std::string escapeControlCharacters(std::string_view text) {
    std::string out;
    out.reserve(text.size());
    for (const char c : text) {
        const auto u = static_cast<unsigned char>(c);
        if (u < 0x20 || u == 0x7f) {
            char hex[8];
            std::snprintf(hex, sizeof hex, "\\x%02x", u);
            out += hex;
        } else {
            out += c;
        }
    }
    return out;
}

std::string processCommandLine(pid_t pid) {
    std::string text = readFile("/proc/" + std::to_string(pid) + "/cmdline");
    std::replace(text.begin(), text.end(), '\0', ' ');
    while (!text.empty() && text.back() == ' ')
        text.pop_back();
    return escapeControlCharacters(text);
}

// RANK, LOCAL_RANK, WORLD_SIZE, CUDA_VISIBLE_DEVICES where the environment is readable (the same user).
std::map<std::string, std::string> processJobEnvironment(pid_t pid) {
    std::map<std::string, std::string> out;
    const std::string env = readFile("/proc/" + std::to_string(pid) + "/environ");
    std::size_t at = 0;
    while (at < env.size()) {
        const std::size_t end = env.find('\0', at);
        const std::string entry = env.substr(at, end == std::string::npos ? std::string::npos : end - at);
        const std::size_t eq = entry.find('=');
        if (eq != std::string::npos) {
            const std::string key = entry.substr(0, eq);
            if (key == "RANK" || key == "LOCAL_RANK" || key == "WORLD_SIZE" || key == "CUDA_VISIBLE_DEVICES")
                out[key] = entry.substr(eq + 1);
        }
        if (end == std::string::npos) break;
        at = end + 1;
    }
    return out;
}

} // namespace kinetoscope::live
