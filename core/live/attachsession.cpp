#include "attachsession.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <unordered_map>
#include <unordered_set>

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

constexpr const char* keptMarker = ".targets"; // in a folder kept for targets that may still write there

// Our own folders kept by an earlier session (keptMarker lists their targets) whose targets have all ended.
void sweepKeptFolders() {
    DIR* tmp = ::opendir("/tmp");
    if (!tmp) return;
    std::vector<std::string> ended;
    while (const dirent* e = ::readdir(tmp)) {
        const std::string name = e->d_name;
        if (name.rfind("kinetoscope-attach-", 0) != 0) continue;
        const std::string folder = "/tmp/" + name;
        struct stat st {};
        if (::lstat(folder.c_str(), &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != ::geteuid()) continue;
        std::ifstream marker(folder + "/" + keptMarker);
        if (!marker) continue; // a session at work, or not ours to judge
        bool anyAlive = false;
        for (long pid = 0; marker >> pid;)
            anyAlive = anyAlive || (pid > 0 && alive(pid_t(pid)));
        if (!anyAlive) ended.push_back(folder);
    }
    ::closedir(tmp);
    for (const std::string& folder : ended) {
        std::error_code ec;
        std::filesystem::remove_all(folder, ec);
    }
}

// The -o folder, unless it is a link someone else planted (another user's link in a shared folder would
// send the traces where they choose).
bool checkOutDir(const std::string& outDir, std::string& error) {
    struct stat st {};
    if (::lstat(outDir.c_str(), &st) == 0 && S_ISLNK(st.st_mode) && st.st_uid != ::geteuid()) {
        error = outDir + " is a link of another user (uid " + std::to_string(st.st_uid) + "): refused";
        return false;
    }
    return true;
}

std::string outName(pid_t pid, int n) {
    return "kineto_" + std::to_string(pid) + (n > 1 ? "." + std::to_string(n) : std::string()) +
           ".pt.trace.json";
}

// Renames fromDir/from into dir under the first free outName: never replacing a file or a link (renameat2's
// RENAME_NOREPLACE; a hard link where the file system lacks it). 0, or the errno that stopped it (EXDEV
// across file systems).
int placeWithoutReplacing(int fromDir, const std::string& from, int dir, pid_t pid, std::string& placed) {
    for (int n = 1; n <= 1000; ++n) {
        const std::string name = outName(pid, n);
        int rc = ::renameat2(fromDir, from.c_str(), dir, name.c_str(), RENAME_NOREPLACE);
        if (rc != 0 && (errno == EINVAL || errno == ENOSYS)) {
            rc = ::linkat(fromDir, from.c_str(), dir, name.c_str(), 0);
            if (rc == 0) ::unlinkat(fromDir, from.c_str(), 0);
        }
        if (rc == 0) {
            placed = name;
            return 0;
        }
        if (errno != EEXIST) return errno;
    }
    return EEXIST;
}

// Copies `from` (never through a link) into a fresh file of `dir`, created exclusively; its name, or empty.
std::string copyToTemporary(const std::string& from, int dir, pid_t pid, std::string& error) {
    const int in = ::open(from.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    struct stat st {};
    if (in < 0 || ::fstat(in, &st) != 0) {
        error = from + ": " + std::strerror(errno);
        if (in >= 0) ::close(in);
        return {};
    }
    std::random_device random;
    std::string name;
    int out = -1;
    for (int tries = 0; tries < 100 && out < 0; ++tries) {
        char suffix[16];
        std::snprintf(suffix, sizeof suffix, "%08x", unsigned(random()));
        name = ".kineto_" + std::to_string(pid) + "." + suffix + ".partial";
        out = ::openat(dir, name.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
        if (out < 0 && errno != EEXIST) break;
    }
    if (out < 0) {
        error = std::string("cannot create a file there: ") + std::strerror(errno);
        ::close(in);
        return {};
    }
    std::vector<char> buffer(1 << 20);
    bool ok = true;
    for (;;) {
        const ssize_t got = ::read(in, buffer.data(), buffer.size());
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) {
            ok = got == 0;
            break;
        }
        for (ssize_t done = 0; ok && done < got;) {
            const ssize_t wrote = ::write(out, buffer.data() + done, std::size_t(got - done));
            if (wrote < 0 && errno == EINTR) continue;
            ok = wrote > 0;
            done += wrote > 0 ? wrote : 0;
        }
        if (!ok) break;
    }
    if (ok) ok = ::fchmod(out, st.st_mode & 0644) == 0;
    if (::close(out) != 0) ok = false;
    ::close(in);
    if (!ok) {
        error = std::string("copying failed: ") + std::strerror(errno);
        ::unlinkat(dir, name.c_str(), 0);
        return {};
    }
    return name;
}

// Kineto's end of a trace: the event array closed, then "traceName" (and in some versions a few more keys),
// then the closing brace. A trailing '}' alone is any event's end, written long before the trace is whole.
bool endsAsKinetoEnds(const std::string& path) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) return false;
    struct stat st {};
    std::string tail;
    if (::fstat(fd, &st) == 0 && st.st_size > 0) {
        const off_t from = std::max<off_t>(0, st.st_size - 4096);
        tail.resize(std::size_t(st.st_size - from));
        const ssize_t got = ::pread(fd, tail.data(), tail.size(), from);
        tail.resize(got > 0 ? std::size_t(got) : 0);
    }
    ::close(fd);
    while (!tail.empty() && std::isspace(static_cast<unsigned char>(tail.back())))
        tail.pop_back();
    if (tail.empty() || tail.back() != '}') return false;
    const std::size_t arrayEnd = tail.rfind(']');
    return arrayEnd != std::string::npos && tail.find("\"traceName\"", arrayEnd) != std::string::npos;
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
    if (m_folder.empty()) return;
    std::vector<pid_t> mayWrite;
    for (const AttachTarget& t : m_targets)
        if (t.delivered && t.state != AttachTarget::State::Done && alive(t.pid)) mayWrite.push_back(t.pid);
    std::error_code ec;
    if (mayWrite.empty()) {
        std::filesystem::remove_all(m_folder, ec);
        return;
    }
    for (const auto& entry : std::filesystem::directory_iterator(m_folder, ec))
        std::filesystem::remove_all(entry.path(), ec);
    std::ofstream marker(m_folder + "/" + keptMarker);
    for (pid_t pid : mayWrite)
        marker << pid << "\n";
}

std::string AttachSession::moveTrace(const std::string& from, const std::string& outDir, pid_t pid,
                                     std::string& error) {
    if (!checkOutDir(outDir, error)) return {};
    const int dir = ::open(outDir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dir < 0) {
        error = outDir + ": " + std::strerror(errno);
        return {};
    }
    std::string placed;
    int e = placeWithoutReplacing(AT_FDCWD, from, dir, pid, placed);
    if (e == EXDEV) {
        // Another file system: a copy under a fresh name of the target folder, then renamed there, so that
        // nothing in place (a file an open tab maps) is ever truncated.
        const std::string temporary = copyToTemporary(from, dir, pid, error);
        if (temporary.empty()) {
            ::close(dir);
            return {};
        }
        e = placeWithoutReplacing(dir, temporary, dir, pid, placed);
        if (e == 0)
            ::unlink(from.c_str());
        else
            ::unlinkat(dir, temporary.c_str(), 0);
    }
    ::close(dir);
    if (e != 0) {
        error = std::string("cannot move its trace to ") + outDir + ": " + std::strerror(e);
        return {};
    }
    return (std::filesystem::path(outDir) / placed).string();
}

bool AttachSession::start(const std::vector<pid_t>& pids, std::string& error) {
    sweepKeptFolders();
    if (!checkOutDir(m_outDir, error)) return false;
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
    std::unordered_set<pid_t> seen;
    for (pid_t pid : pids) {
        if (!seen.insert(pid).second) continue;
        m_daemon.request(pid, m_config);
        AttachTarget t;
        t.pid = pid;
        noteFallback(t);
        m_targets.push_back(t);
    }
    return true;
}

namespace {
std::string fallbackPath(pid_t pid) {
    return "/tmp/libkineto_activities_" + std::to_string(pid) + ".json";
}
std::int64_t mtimeNs(const struct stat& st) {
    return std::int64_t(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
}
uid_t processOwner(pid_t pid) {
    struct stat st {};
    return ::stat(("/proc/" + std::to_string(pid)).c_str(), &st) == 0 ? st.st_uid : uid_t(-1);
}
} // namespace

void AttachSession::noteFallback(AttachTarget& t) const {
    struct stat st {};
    t.fallbackExisted = ::lstat(fallbackPath(t.pid).c_str(), &st) == 0;
    if (t.fallbackExisted) {
        t.fallbackInode = std::uint64_t(st.st_ino);
        t.fallbackMtimeNs = mtimeNs(st);
    }
}

bool AttachSession::freshFallback(const AttachTarget& t, const std::string& path) const {
    struct stat st {};
    if (::lstat(path.c_str(), &st) != 0) return false;
    return !t.fallbackExisted || std::uint64_t(st.st_ino) != t.fallbackInode ||
           mtimeNs(st) != t.fallbackMtimeNs;
}

void AttachSession::deliveredElsewhere(const std::vector<pid_t>& matched, const std::string& who) {
    const std::unordered_set<pid_t> handed(matched.begin(), matched.end());
    std::unordered_map<pid_t, std::size_t> indexOf; // a target by its pid: no search per matched process
    for (std::size_t i = 0; i < m_targets.size(); ++i) {
        AttachTarget& t = m_targets[i];
        indexOf.emplace(t.pid, i);
        if (!handed.count(t.pid))
            fail(t, who + " did not hand it the request (not seen, or its profiler busy)");
    }
    for (pid_t pid : matched) {
        const auto [at, added] = indexOf.emplace(pid, m_targets.size());
        if (added) {
            AttachTarget t;
            t.pid = pid;
            noteFallback(t);
            m_targets.push_back(t);
        }
        AttachTarget& t = m_targets[at->second];
        if (t.state == AttachTarget::State::Failed) continue;
        m_daemon.markDelivered(pid);
        t.delivered = true;
        t.owner = ::geteuid();
        t.state = AttachTarget::State::Recording;
        t.askedAt = Clock::now();
        // dynolog hands a request to every user's processes of the job: another user's trace is not ours.
        if (const uid_t owner = processOwner(pid); owner != uid_t(-1) && owner != ::geteuid())
            fail(t, who + " asked it, but it runs as another user (uid " + std::to_string(owner) +
                        "): its trace is not ours to read");
    }
}

void AttachSession::fail(AttachTarget& t, std::string why) {
    t.state = AttachTarget::State::Failed;
    t.why = std::move(why);
    // A request not yet delivered is taken back: no Kineto will write for it after this.
    if (m_daemon.withdraw(t.pid)) t.delivered = true;
}

void AttachSession::done(AttachTarget& t, std::string path) {
    t.state = AttachTarget::State::Done;
    t.path = std::move(path);
    m_daemon.withdraw(t.pid);
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
// second, and Kineto's end written (endsAsKinetoEnds). Kineto sends no word when it is done.
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
    return endsAsKinetoEnds(path);
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
                // Delivered only to a poll of our own user: the owner is fixed now, whatever polls later.
                t.state = AttachTarget::State::Recording;
                t.askedAt = Clock::now();
                t.delivered = true;
                t.owner = ::geteuid();
            } else if (const auto stranger = m_daemon.strangerUid(t.pid)) {
                fail(t, "runs as another user (uid " + std::to_string(*stranger) + "): out of reach");
            } else if (!alive(t.pid)) {
                fail(t, "exited before it polled");
            } else if (Clock::now() > m_started + m_pollWait) {
                fail(t, polled != m_daemon.processes().end()
                            ? "its profiler stayed busy (another trace is running)"
                            : "never polled: was it started with KINETO_USE_DAEMON=1?");
            }
            continue;
        }
        const uid_t owner = t.owner;
        // Kineto inserts the pid; a path it refuses becomes /tmp/libkineto_activities_<pid>.json (taken only
        // when it is not the file an earlier trace left there).
        const std::string ours = kinetoLogFileFor(m_request.logFile, t.pid);
        const std::string fallback = fallbackPath(t.pid);
        std::string refused;
        std::string found;
        if (whole(ours, owner, t, refused))
            found = ours;
        else if (refused.empty() && ::access(ours.c_str(), F_OK) != 0 && freshFallback(t, fallback) &&
                 whole(fallback, owner, t, refused))
            found = fallback;
        if (!refused.empty()) {
            fail(t, refused);
            continue;
        }
        if (!found.empty()) {
            std::string error;
            const std::string dest = moveTrace(found, m_outDir, t.pid, error);
            if (dest.empty())
                fail(t, error);
            else
                done(t, dest);
            continue;
        }
        if (!alive(t.pid))
            fail(t, "exited before its trace was complete");
        else if (Clock::now() > t.askedAt + patience() + recording)
            fail(t, "its trace did not complete in time (" + ours + ")");
    }
}

} // namespace kinetoscope::live
