#include "capturesession.h"

#include "cuptilocate.h"

#include "tracewire.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <utility>

extern char** environ;

namespace kinetoscope::live {

namespace {
std::atomic<unsigned> g_sessionCounter{0};

// Creates `path` (which must not exist) readable by us only, and writes `bytes` into it.
bool writePrivateFile(const std::string& path, std::string_view bytes, std::string& error) {
    ::unlink(path.c_str());
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    bool ok = fd >= 0;
    for (std::size_t done = 0; ok && done < bytes.size();) {
        const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
        if (n < 0 && errno == EINTR) continue;
        ok = n > 0;
        if (ok) done += std::size_t(n);
    }
    if (!ok) error = path + ": " + std::strerror(errno);
    if (fd >= 0 && ::close(fd) != 0 && ok) {
        error = path + ": " + std::strerror(errno);
        ok = false;
    }
    return ok;
}

bool isPrivateDir(const std::string& path) {
    struct stat st {};
    return ::lstat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode) && st.st_uid == ::getuid() &&
           (st.st_mode & 077) == 0;
}

std::string executableDir() {
    char buffer[PATH_MAX];
    const ssize_t n = ::readlink("/proc/self/exe", buffer, sizeof buffer - 1);
    if (n <= 0) return {};
    return std::filesystem::path(std::string(buffer, std::size_t(n))).parent_path().string();
}
} // namespace

std::string defaultAgentPath() {
    if (const char* env = std::getenv("KINETOSCOPE_AGENT"); env && *env) return env;
    namespace fs = std::filesystem;
    const fs::path dir = executableDir();
    const char* name = "libkinetoscope-agent.so";
    std::vector<fs::path> candidates = {dir / ".." / "capture" / name, dir / name,
                                        dir / ".." / "lib" / "kinetoscope" / name};
    // Installed: PREFIX/lib/<multiarch>/kinetoscope (Debian) or PREFIX/lib64/kinetoscope.
    std::error_code ec;
    for (const fs::path& lib : {dir / ".." / "lib", dir / ".." / "lib64"})
        for (const auto& entry : fs::directory_iterator(lib, ec))
            if (entry.is_directory(ec)) candidates.push_back(entry.path() / "kinetoscope" / name);
    candidates.push_back(dir / ".." / "lib64" / "kinetoscope" / name);
    for (const fs::path& p : candidates)
        if (fs::exists(p, ec)) return fs::weakly_canonical(p, ec).string();
    return {};
}

std::string privateSocketDir(std::string& error) {
    if (const char* xdg = std::getenv("XDG_RUNTIME_DIR"); xdg && *xdg && isPrivateDir(xdg)) return xdg;
    const char* tmp = std::getenv("TMPDIR");
    const std::string dir =
        std::string(tmp && *tmp ? tmp : "/tmp") + "/kinetoscope-capture-" + std::to_string(::getuid());
    if (::mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST) {
        error = dir + ": " + std::strerror(errno);
        return {};
    }
    // Someone else's folder (or a symlink planted in /tmp) is never used.
    if (!isPrivateDir(dir)) {
        error = dir + " is not a private folder of ours (owner and mode 0700 are checked)";
        return {};
    }
    return dir;
}

CaptureSession::CaptureSession() = default;

CaptureSession::~CaptureSession() {
    stop();
    if (!m_replayPath.empty()) ::unlink(m_replayPath.c_str()); // the agent read it as it started
    if (m_pid > 0 && !status().targetExited) {
        // Nobody will wait for it any more: reap it in the background so it does not linger as a zombie.
        std::thread([pid = m_pid] {
            int raw;
            while (::waitpid(pid, &raw, 0) < 0 && errno == EINTR) {
            }
        }).detach();
    }
}

bool CaptureSession::listen(std::string& error) {
    const std::string dir = privateSocketDir(error);
    if (dir.empty()) return false;
    const unsigned n = g_sessionCounter++;
    m_socketPath =
        dir + "/kinetoscope-capture-" + std::to_string(::getpid()) + "-" + std::to_string(n) + ".sock";
    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    if (m_socketPath.size() >= sizeof address.sun_path) {
        error = "socket path too long: " + m_socketPath;
        return false;
    }
    std::memcpy(address.sun_path, m_socketPath.c_str(), m_socketPath.size() + 1);
    ::unlink(m_socketPath.c_str());
    m_listen = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (m_listen < 0 || ::bind(m_listen, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 ||
        ::chmod(m_socketPath.c_str(), 0600) != 0 || ::listen(m_listen, 16) != 0) {
        error = m_socketPath + ": " + std::strerror(errno);
        if (m_listen >= 0) ::close(m_listen);
        m_listen = -1;
        return false;
    }
    int pipeFds[2];
    if (::pipe2(pipeFds, O_CLOEXEC | O_NONBLOCK) != 0) {
        error = std::string("pipe: ") + std::strerror(errno);
        return false;
    }
    m_wakeRead = pipeFds[0];
    m_wakeWrite = pipeFds[1];
    {
        std::lock_guard lock(m_mutex);
        m_status.capturing = true;
    }
    m_thread = std::thread([this] { run(); });
    return true;
}

// Puts the folder of the CUPTI the agent needs first on the target's LD_LIBRARY_PATH (cuptilocate.h says
// why).
void CaptureSession::useCuptiFor(const std::string& program, std::vector<std::string>& env) {
    auto variable = [&env](std::string_view name) -> std::string* {
        for (auto e = env.rbegin(); e != env.rend(); ++e)
            if (e->size() > name.size() && e->starts_with(name) && (*e)[name.size()] == '=') return &*e;
        return nullptr;
    };
    auto value = [&](std::string_view name) {
        const std::string* entry = variable(name);
        return entry ? entry->substr(name.size() + 1) : std::string();
    };
    CuptiSearch search;
    search.library = builtCuptiLibrary();
    search.program = program;
    search.pathVariable = value("PATH");
    search.overrideDir = value("KINETOSCOPE_CUPTI_DIR");
    search.cudaHome = value("CUDA_HOME").empty() ? value("CUDA_PATH") : value("CUDA_HOME");
    search.builtDir = builtCuptiDir();
    m_cuptiSearched = cuptiSearchDirs(search);
    m_cuptiDir = firstDirWith(m_cuptiSearched, search.library);
    if (m_cuptiDir.empty()) return;
    if (std::string* path = variable("LD_LIBRARY_PATH"))
        *path =
            "LD_LIBRARY_PATH=" + m_cuptiDir + (path->size() > 16 ? ":" + path->substr(16) : std::string());
    else
        env.push_back("LD_LIBRARY_PATH=" + m_cuptiDir);
    // NVTX ranges reach CUPTI only when the NVTX library is told to load it; a user's own choice stays.
    if (!variable("NVTX_INJECTION64_PATH"))
        env.push_back("NVTX_INJECTION64_PATH=" + m_cuptiDir + "/" + search.library);
}

bool CaptureSession::start(const LaunchSpec& spec, std::string& error) {
    if (spec.program.empty()) {
        error = "no program to run";
        return false;
    }
    const std::string agent = spec.agentPath.empty() ? defaultAgentPath() : spec.agentPath;
    if (agent.empty() || ::access(agent.c_str(), R_OK) != 0) {
        error = "capture agent not found" + (agent.empty() ? std::string() : ": " + agent) +
                " (set KINETOSCOPE_AGENT to libkinetoscope-agent.so)";
        return false;
    }
    // The agent replays a wire stream only (it must not carry a JSON importer into the target): a trace is
    // converted here, into a private file beside the socket that the agent reads as it starts.
    std::string replayStream;
    if (!spec.replayTrace.empty() && !replayStreamFor(spec.replayTrace, replayStream, error)) return false;
    if (!listen(error)) return false;
    const std::string base = m_socketPath.substr(0, m_socketPath.size() - 5);
    m_spoolPath = spec.spoolPath;
    if (m_spoolPath.empty()) m_spoolPath = base + ".kscw";
    if (!spec.replayTrace.empty()) {
        m_replayPath = base + ".replay.kscw";
        if (!writePrivateFile(m_replayPath, replayStream, error)) {
            m_replayPath.clear();
            stop();
            return false;
        }
    }
    ::unlink(m_spoolPath.c_str()); // the agent creates it exclusively (see AgentWriter::open)

    // The environment: ours without any stale capture variables, the caller's extras, then the capture's own.
    static const char* const ours[] = {"CUDA_INJECTION64_PATH=", "KINETOSCOPE_SOCKET=", "KINETOSCOPE_SPOOL=",
                                       "KINETOSCOPE_REPLAY=", "KINETOSCOPE_REPLAY_SPEED="};
    std::vector<std::string> env;
    for (char** e = environ; *e; ++e) {
        const std::string_view entry(*e);
        bool replaced = false;
        for (const char* prefix : ours)
            replaced = replaced || entry.starts_with(prefix);
        if (!replaced) env.emplace_back(entry);
    }
    for (const std::string& extra : spec.environment)
        env.push_back(extra);
    if (spec.replayTrace.empty()) useCuptiFor(spec.program, env);
    env.push_back("CUDA_INJECTION64_PATH=" + agent);
    env.push_back("KINETOSCOPE_SOCKET=" + m_socketPath);
    env.push_back("KINETOSCOPE_SPOOL=" + m_spoolPath);
    if (!spec.replayTrace.empty()) {
        env.push_back("KINETOSCOPE_REPLAY=" + m_replayPath);
        char speed[32];
        std::snprintf(speed, sizeof speed, "%g", spec.replaySpeed);
        env.push_back(std::string("KINETOSCOPE_REPLAY_SPEED=") + speed);
    }
    std::vector<char*> envp, argv;
    for (std::string& e : env)
        envp.push_back(e.data());
    envp.push_back(nullptr);
    std::string program = spec.program;
    std::vector<std::string> args = spec.arguments;
    argv.push_back(program.data());
    for (std::string& a : args)
        argv.push_back(a.data());
    argv.push_back(nullptr);

    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    if (!spec.workingDirectory.empty())
        posix_spawn_file_actions_addchdir_np(&actions, spec.workingDirectory.c_str());
    const int rc = ::posix_spawnp(&m_pid, program.c_str(), &actions, nullptr, argv.data(), envp.data());
    posix_spawn_file_actions_destroy(&actions);
    if (rc != 0) {
        m_pid = 0;
        error = "cannot run " + spec.program + ": " + std::strerror(rc);
        stop();
        return false;
    }
    std::lock_guard lock(m_mutex);
    m_status.targetRunning = true;
    return true;
}

void CaptureSession::stop() {
    m_stopRequested = true;
    if (m_wakeWrite >= 0) (void)!::write(m_wakeWrite, "x", 1);
    if (m_thread.joinable()) m_thread.join();
    for (Connection& c : m_connections)
        if (c.fd >= 0) ::close(c.fd);
    m_connections.clear();
    if (m_listen >= 0) {
        ::close(m_listen);
        ::unlink(m_socketPath.c_str());
        m_listen = -1;
    }
    for (int* fd : {&m_wakeRead, &m_wakeWrite})
        if (*fd >= 0) ::close(std::exchange(*fd, -1));
    std::lock_guard lock(m_mutex);
    m_status.capturing = false;
}

void CaptureSession::terminateTarget() {
    if (m_pid > 0 && status().targetRunning) ::kill(m_pid, SIGTERM);
}

bool CaptureSession::waitFinished(int timeoutMs) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeoutMs);
    while (std::chrono::steady_clock::now() < deadline) {
        if (!status().capturing) return true;
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return !status().capturing;
}

SessionStatus CaptureSession::status() const {
    std::lock_guard lock(m_mutex);
    SessionStatus s = m_status;
    s.counts = m_records.counts();
    s.notices = m_records.notices();
    return s;
}

CaptureRecords CaptureSession::snapshot() const {
    std::lock_guard lock(m_mutex);
    return m_records;
}

void CaptureSession::pollTarget() {
    if (m_pid <= 0) return;
    int raw = 0;
    const pid_t r = ::waitpid(m_pid, &raw, WNOHANG);
    if (r != m_pid) return;
    std::lock_guard lock(m_mutex);
    m_status.targetRunning = false;
    m_status.targetExited = true;
    m_status.exitSignal = WIFSIGNALED(raw) ? WTERMSIG(raw) : 0;
    m_status.exitStatus = WIFEXITED(raw) ? WEXITSTATUS(raw) : 128 + WTERMSIG(raw);
    m_status.exitedAtMs = std::chrono::duration_cast<std::chrono::milliseconds>(
                              std::chrono::system_clock::now().time_since_epoch())
                              .count();
}

void CaptureSession::accept() {
    for (;;) {
        const int fd = ::accept4(m_listen, nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK);
        if (fd < 0) return;
        ucred peer{};
        socklen_t length = sizeof peer;
        if (::getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &peer, &length) != 0 || peer.uid != ::getuid()) {
            ::close(fd);
            std::lock_guard lock(m_mutex);
            ++m_status.refusedPeers;
            continue;
        }
        std::lock_guard lock(m_mutex);
        m_connections.push_back({fd, std::make_unique<WireIngest>(m_records)});
        ++m_status.connections;
    }
}

bool CaptureSession::readConnection(std::size_t index) {
    Connection& c = m_connections[index];
    static thread_local std::string buffer(1 << 18, '\0');
    for (;;) {
        const ssize_t n = ::read(c.fd, buffer.data(), buffer.size());
        if (n > 0) {
            std::lock_guard lock(m_mutex);
            if (!c.ingest->feed(std::string_view(buffer.data(), std::size_t(n)))) {
                // A corrupt stream: keep what it delivered, drop the connection.
                m_status.streamError =
                    c.ingest->error() + " (byte " + std::to_string(c.ingest->errorOffset()) + ")";
                return false;
            }
            m_generation.fetch_add(1, std::memory_order_relaxed);
            continue;
        }
        if (n < 0 && errno == EINTR) continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return true;
        // End of stream: a target killed mid-record leaves a partial record, which is reported, not fatal.
        std::lock_guard lock(m_mutex);
        if (!c.ingest->finish())
            m_status.streamError =
                c.ingest->error() + " (byte " + std::to_string(c.ingest->errorOffset()) + ")";
        return false;
    }
}

void CaptureSession::run() {
    std::vector<pollfd> fds;
    while (!m_stopRequested) {
        fds.clear();
        fds.push_back({m_wakeRead, POLLIN, 0});
        fds.push_back({m_listen, POLLIN, 0});
        for (const Connection& c : m_connections)
            fds.push_back({c.fd, POLLIN, 0});
        ::poll(fds.data(), fds.size(), 100);
        if (m_stopRequested) break;
        if (fds[1].revents & POLLIN) accept();
        for (std::size_t i = 0; i < m_connections.size();) {
            if (fds.size() > i + 2 && fds[i + 2].revents == 0) {
                ++i;
                continue;
            }
            if (readConnection(i)) {
                ++i;
                continue;
            }
            ::close(m_connections[i].fd);
            m_connections.erase(m_connections.begin() + std::ptrdiff_t(i));
            // A connection accepted in this round has no poll entry yet: erasing one for it would be
            // erase(end()), undefined behaviour that shrank the vector below its contents (and crashed
            // `record` under load, when an agent connected and finished within one round).
            if (i + 2 < fds.size()) fds.erase(fds.begin() + std::ptrdiff_t(i) + 2);
        }
        pollTarget();
        // Done once the target has exited and every stream (including any still waiting to be accepted) has
        // ended.
        if (m_pid > 0 && status().targetExited && m_connections.empty()) {
            accept();
            if (m_connections.empty()) break;
        }
    }
    std::lock_guard lock(m_mutex);
    m_status.capturing = false;
}

} // namespace kinetoscope::live
