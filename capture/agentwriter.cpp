#include "agentwriter.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <thread>

namespace kinetoscope::capture {

std::string stringRecordsOf(std::string_view batch, std::uint64_t& otherRecords) {
    std::string strings;
    otherRecords = 0;
    std::size_t at = 0;
    while (at + wire::recordHeaderSize <= batch.size()) {
        std::uint32_t length;
        std::memcpy(&length, batch.data() + at + 1, sizeof length);
        const std::size_t size = wire::recordHeaderSize + length;
        if (at + size > batch.size()) break; // cannot happen for our own batches
        if (wire::RecordType(batch[at]) == wire::RecordType::String)
            strings.append(batch.substr(at, size));
        else
            ++otherRecords;
        at += size;
    }
    return strings;
}

AgentWriter::~AgentWriter() {
    close(std::chrono::milliseconds(0));
}

bool AgentWriter::open(const Options& options, std::string& error) {
    m_backlogLimit = options.socketBacklogLimit;
    std::string problems;
    if (!options.spoolPath.empty()) {
        // Each process of the target writes its own spool: a child that loads the agent too (a CUDA program
        // forked or run by the target) gets PATH.PID instead of overwriting its parent's.
        m_spool = ::open(options.spoolPath.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
        if (m_spool < 0 && errno == EEXIST)
            m_spool = ::open((options.spoolPath + "." + std::to_string(::getpid())).c_str(),
                             O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
        if (m_spool < 0) {
            problems += "spool " + options.spoolPath + ": " + std::strerror(errno);
            m_stats.spoolFailed = true;
        }
    }
    if (!options.socketPath.empty()) {
        sockaddr_un address{};
        address.sun_family = AF_UNIX;
        if (options.socketPath.size() >= sizeof address.sun_path) {
            problems += (problems.empty() ? "" : "; ") + std::string("socket path too long");
        } else {
            std::memcpy(address.sun_path, options.socketPath.c_str(), options.socketPath.size() + 1);
            m_socket = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
            if (m_socket >= 0 &&
                ::connect(m_socket, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0) {
                // From here on the socket never blocks the writer: a full socket means a slow viewer.
                ::fcntl(m_socket, F_SETFL, ::fcntl(m_socket, F_GETFL) | O_NONBLOCK);
                m_stats.socketConnected = true;
            } else {
                problems += (problems.empty() ? "socket " : "; socket ") + options.socketPath + ": " +
                            std::strerror(errno);
                if (m_socket >= 0) ::close(m_socket);
                m_socket = -1;
            }
        }
    }
    error = problems;
    return m_socket >= 0 || m_spool >= 0;
}

void AgentWriter::add(const wire::Record& record) {
    m_encoder.add(record);
    ++m_stats.recordsEncoded;
    // A burst (a full CUPTI buffer, a replay at full speed) goes out in pieces, so the viewer decodes one
    // piece while the next is encoded, and the batch buffer stays small.
    if (m_encoder.buffer().size() >= shipBytes) ship();
}

void AgentWriter::ship() {
    std::string batch = m_encoder.take();
    if (batch.empty()) return;
    if (m_spool >= 0) {
        std::size_t done = 0;
        while (done < batch.size()) {
            const ssize_t n = ::write(m_spool, batch.data() + done, batch.size() - done);
            if (n < 0 && errno == EINTR) continue;
            if (n <= 0) { // disk full or gone: the socket still gets everything it can
                ::close(m_spool);
                m_spool = -1;
                m_stats.spoolFailed = true;
                break;
            }
            done += std::size_t(n);
        }
        m_stats.bytesSpooled += done;
    }
    if (m_socket < 0) return;
    sendBacklog();
    if (m_socket < 0) return;
    // The first batch carries the stream header; it and every String record always go through, so that what
    // does reach the viewer stays decodable after a drop.
    const std::size_t headerBytes = m_headerPending ? wire::headerSize : 0;
    m_headerPending = false;
    if (m_backlog.size() - m_backlogSent + batch.size() <= m_backlogLimit) {
        m_backlog.append(batch);
    } else {
        m_backlog.append(batch, 0, headerBytes);
        dropForSocket(std::string_view(batch).substr(headerBytes));
    }
    sendBacklog();
}

void AgentWriter::dropForSocket(std::string_view batch) {
    std::uint64_t dropped = 0;
    m_backlog.append(stringRecordsOf(batch, dropped));
    m_stats.recordsDroppedForSocket += dropped;
    // Tell the viewer how much it missed.
    wire::Encoder note;
    note.add(wire::Dropped{dropped});
    m_backlog.append(note.take().substr(wire::headerSize));
}

void AgentWriter::sendBacklog() {
    while (m_socket >= 0 && m_backlogSent < m_backlog.size()) {
        const ssize_t n = ::send(m_socket, m_backlog.data() + m_backlogSent, m_backlog.size() - m_backlogSent,
                                 MSG_NOSIGNAL | MSG_DONTWAIT);
        if (n > 0) {
            m_backlogSent += std::size_t(n);
            m_stats.bytesSent += std::uint64_t(n);
            continue;
        }
        if (n < 0 && errno == EINTR) continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) break;
        // The viewer went away: from now on only the spool gets records.
        ::close(m_socket);
        m_socket = -1;
        m_stats.socketLost = true;
    }
    if (m_backlogSent == m_backlog.size()) {
        m_backlog.clear();
        m_backlogSent = 0;
    } else if (m_backlogSent > (1u << 20) && m_backlogSent * 2 > m_backlog.size()) {
        m_backlog.erase(0, m_backlogSent);
        m_backlogSent = 0;
    }
}

void AgentWriter::close(std::chrono::milliseconds linger) {
    ship();
    const auto deadline = std::chrono::steady_clock::now() + linger;
    while (m_socket >= 0 && m_backlogSent < m_backlog.size() && std::chrono::steady_clock::now() < deadline) {
        pollfd p{m_socket, POLLOUT, 0};
        ::poll(&p, 1, 50);
        sendBacklog();
    }
    if (m_socket >= 0) {
        ::close(m_socket);
        m_socket = -1;
    }
    if (m_spool >= 0) {
        ::fsync(m_spool);
        ::close(m_spool);
        m_spool = -1;
    }
}

} // namespace kinetoscope::capture
