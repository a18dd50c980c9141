#include "attachsession.h"

#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>

namespace kinetoscope::live {

namespace {

using Clock = std::chrono::steady_clock;

constexpr auto warmUp = std::chrono::seconds(10); // Kineto's, before a timed trace (about 5 s)
constexpr auto writing = std::chrono::seconds(60);
constexpr auto perIteration = std::chrono::seconds(30);  // nobody can predict a step: generous
constexpr auto settled = std::chrono::milliseconds(500); // no growth this long, and the last byte a '}'

// Kineto's warm-up and the writing; KINETOSCOPE_ATTACH_PATIENCE_MS replaces both (the tests' stalled writer).
Clock::duration patience() {
    if (const char* ms = std::getenv("KINETOSCOPE_ATTACH_PATIENCE_MS"); ms && *ms)
        return std::chrono::milliseconds(std::atoll(ms));
    return warmUp + writing;
}

bool alive(pid_t pid) {
    if (::kill(pid, 0) != 0 && errno != EPERM) return false;
    // A zombie has ended: its state in /proc/PID/stat is Z.
    std::ifstream f("/proc/" + std::to_string(pid) + "/stat");
    std::string stat((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    const std::size_t paren = stat.rfind(')');
    return paren == std::string::npos || paren + 2 >= stat.size() || stat[paren + 2] != 'Z';
}

} // namespace

std::string stateText(const AttachTarget& t) {
    switch (t.state) {
    case AttachTarget::State::WaitingForPoll:
        return "waiting for its poll";
    case AttachTarget::State::Recording:
        return "recording";
    case AttachTarget::State::Writing:
        return "writing";
    case AttachTarget::State::Done:
        return "done";
    case AttachTarget::State::Failed:
        return "failed: " + t.why;
    }
    return {};
}

AttachSession::AttachSession(OnDemandDaemon& daemon, TraceRequest request, std::string outDir,
                             std::chrono::milliseconds pollWait)
    : m_daemon(daemon), m_request(std::move(request)), m_outDir(std::move(outDir)), m_pollWait(pollWait) {}

AttachSession::~AttachSession() {
    std::error_code ec;
    if (!m_folder.empty()) std::filesystem::remove_all(m_folder, ec);
}

bool AttachSession::start(const std::vector<pid_t>& pids, std::string& error) {
    char folder[] = "/tmp/kinetoscope-attach-XXXXXX"; // 0700
    if (!::mkdtemp(folder)) {
        error = std::string("cannot make a folder in /tmp: ") + std::strerror(errno);
        return false;
    }
    m_folder = folder;
    std::error_code ec;
    std::filesystem::create_directories(m_outDir, ec);
    if (ec) {
        error = "cannot make " + m_outDir + ": " + ec.message();
        return false;
    }
    m_request.logFile = m_folder + "/trace.json";
    m_config = onDemandConfig(m_request);
    m_started = Clock::now();
    for (pid_t pid : pids) {
        m_daemon.request(pid, m_config);
        AttachTarget t;
        t.pid = pid;
        m_targets.push_back(t);
    }
    return true;
}

void AttachSession::deliveredElsewhere(const std::vector<pid_t>& matched, const std::string& who) {
    for (AttachTarget& t : m_targets)
        if (std::find(matched.begin(), matched.end(), t.pid) == matched.end())
            fail(t, who + " did not find it among the processes it sees");
    for (pid_t pid : matched) {
        if (std::none_of(m_targets.begin(), m_targets.end(),
                         [&](const AttachTarget& t) { return t.pid == pid; })) {
            AttachTarget t;
            t.pid = pid;
            m_targets.push_back(t);
        }
        m_daemon.markDelivered(pid);
    }
}

void AttachSession::fail(AttachTarget& t, std::string why) {
    t.state = AttachTarget::State::Failed;
    t.why = std::move(why);
}

void AttachSession::cancel(const std::string& why) {
    for (AttachTarget& t : m_targets)
        if (t.state != AttachTarget::State::Done && t.state != AttachTarget::State::Failed) fail(t, why);
}

bool AttachSession::finished() const {
    for (const AttachTarget& t : m_targets)
        if (t.state != AttachTarget::State::Done && t.state != AttachTarget::State::Failed) return false;
    return true;
}

// A trace Kineto has finished writing: a regular file (not a link) of the target's user, no growth for half a
// second, its last byte a closing brace. Kineto sends no word when it is done.
bool AttachSession::whole(const std::string& path, uid_t owner, AttachTarget& t, std::string& refused) {
    struct stat st {};
    if (::lstat(path.c_str(), &st) != 0) return false;
    if (!S_ISREG(st.st_mode) || st.st_uid != owner) {
        refused = path + " is not a regular file of the target's user: refused";
        return false;
    }
    t.state = AttachTarget::State::Writing;
    if (std::uintmax_t(st.st_size) != t.size || t.sizeSince == Clock::time_point{}) {
        t.size = std::uintmax_t(st.st_size);
        t.sizeSince = Clock::now();
        return false;
    }
    if (Clock::now() - t.sizeSince < settled || t.size == 0) return false;
    std::ifstream f(path, std::ios::binary);
    f.seekg(-std::streamoff(std::min<std::uintmax_t>(64, t.size)), std::ios::end);
    std::string tail(64, '\0');
    f.read(tail.data(), 64);
    tail.resize(std::size_t(f.gcount()));
    while (!tail.empty() && std::isspace(static_cast<unsigned char>(tail.back())))
        tail.pop_back();
    return !tail.empty() && tail.back() == '}';
}

void AttachSession::step() {
    const auto recording =
        m_request.iterations > 0
            ? std::chrono::duration_cast<Clock::duration>(perIteration * m_request.iterations)
            : std::chrono::duration_cast<Clock::duration>(
                  std::chrono::milliseconds(std::max(1, m_request.durationMs)));
    for (AttachTarget& t : m_targets) {
        if (t.state == AttachTarget::State::Done || t.state == AttachTarget::State::Failed) continue;
        if (t.state == AttachTarget::State::WaitingForPoll) {
            const auto polled = m_daemon.processes().find(t.pid);
            if (m_daemon.delivered(t.pid)) {
                t.state = AttachTarget::State::Recording;
                t.askedAt = Clock::now();
            } else if (polled != m_daemon.processes().end() && polled->second.uid != ::geteuid()) {
                fail(t,
                     "runs as another user (uid " + std::to_string(polled->second.uid) + "): out of reach");
            } else if (!alive(t.pid)) {
                fail(t, "exited before it polled");
            } else if (Clock::now() > m_started + m_pollWait) {
                fail(t, polled != m_daemon.processes().end()
                            ? "its profiler stayed busy (another trace is running)"
                            : "never polled: was it started with KINETO_USE_DAEMON=1?");
            }
            continue;
        }
        const uid_t owner = m_daemon.processes().at(t.pid).uid;
        // Kineto inserts the pid; a path it refuses becomes /tmp/libkineto_activities_<pid>.json.
        const std::string ours = kinetoLogFileFor(m_request.logFile, t.pid);
        const std::string fallback = "/tmp/libkineto_activities_" + std::to_string(t.pid) + ".json";
        std::string refused;
        std::string found;
        if (whole(ours, owner, t, refused))
            found = ours;
        else if (refused.empty() && ::access(ours.c_str(), F_OK) != 0 && whole(fallback, owner, t, refused))
            found = fallback;
        if (!refused.empty()) {
            fail(t, refused);
            continue;
        }
        if (!found.empty()) {
            const std::string dest =
                (std::filesystem::path(m_outDir) / ("kineto_" + std::to_string(t.pid) + ".pt.trace.json"))
                    .string();
            std::error_code ec;
            std::filesystem::rename(found, dest, ec);
            if (ec) { // another file system: copy, then remove
                ec.clear();
                std::filesystem::copy_file(found, dest, std::filesystem::copy_options::overwrite_existing,
                                           ec);
                if (!ec) std::filesystem::remove(found, ec);
            }
            if (ec) {
                fail(t, "cannot move its trace to " + dest + ": " + ec.message());
                continue;
            }
            t.state = AttachTarget::State::Done;
            t.path = dest;
            continue;
        }
        if (!alive(t.pid))
            fail(t, "exited before its trace was complete");
        else if (Clock::now() > t.askedAt + patience() + recording)
            fail(t, "its trace did not complete in time (" + ours + ")");
    }
}

} // namespace kinetoscope::live
