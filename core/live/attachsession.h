#pragma once

// One attach: trace requests to running PyTorch processes through the on-demand daemon (ondemand.h), and the
// wait for each trace Kineto writes, until it is whole and moved where the user wants it. One path for the
// CLI's `attach` and the viewer's Attach dialog: they pump the daemon and call step(), and read the targets'
// states.

#include "ondemand.h"

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

namespace kinetoscope::live {

struct AttachTarget {
    enum class State { WaitingForPoll, Recording, Writing, Done, Failed };
    pid_t pid = 0;
    State state = State::WaitingForPoll;
    std::string path; // Done: where the trace is now
    std::string why;  // Failed: one line
    // (watching the file)
    std::chrono::steady_clock::time_point askedAt, sizeSince;
    std::uintmax_t size = 0;
    // The request reached the target: its Kineto may write where it was told until it ends.
    bool delivered = false;
    // The user the target ran as when its request was delivered (a reused pid is another process).
    uid_t owner = 0;
    // Kineto's own fallback file as it was when the request was made: a file left by an earlier trace is
    // not this one.
    bool fallbackExisted = false;
    std::uint64_t fallbackInode = 0;
    std::int64_t fallbackMtimeNs = 0;
};

// "waiting for its poll", "recording", "writing", "done", "failed: <why>".
std::string stateText(const AttachTarget& t);

class AttachSession {
  public:
    // Targets must poll within `pollWait`; each trace may then take Kineto's warm-up, the recording (an
    // iteration counted generously) and a minute of writing.
    AttachSession(OnDemandDaemon& daemon, TraceRequest request, std::string outDir,
                  std::chrono::milliseconds pollWait);
    // Removes its folder under /tmp, or, while a target that was asked to write there still runs, empties it
    // and keeps it (0700, ours: nobody else can make it again and read or redirect what is written later);
    // a later session removes it once those targets have ended.
    ~AttachSession();
    AttachSession(const AttachSession&) = delete;
    AttachSession& operator=(const AttachSession&) = delete;

    // Makes the private folder Kineto writes in (under /tmp: Kineto takes no other) and asks each target.
    bool start(const std::vector<pid_t>& pids, std::string& error);
    // Advances every target: its poll, its file, its timeouts. Call after pumping the daemon.
    void step();
    // The targets not yet done or failed fail with this reason.
    void cancel(const std::string& why);
    bool finished() const;
    // The config the targets are asked with (after start()).
    const std::string& config() const { return m_config; }
    // Another daemon (dynolog) handed the config to `matched`: they record now; the targets it did not match
    // fail, saying so, and matched processes not named become targets (attach --all through dynolog).
    void deliveredElsewhere(const std::vector<pid_t>& matched, const std::string& who);
    const std::vector<AttachTarget>& targets() const { return m_targets; }
    // The private folder Kineto is told to write in (after start()).
    const std::string& folder() const { return m_folder; }

    // Where a finished trace goes: `outDir`/kineto_<pid>.pt.trace.json, or with .2, .3… before ".pt": never
    // over an existing file or through a link (renamed without replacing; across file systems copied into
    // a fresh temporary name, then renamed). Empty with `error` set when it cannot.
    static std::string moveTrace(const std::string& from, const std::string& outDir, pid_t pid,
                                 std::string& error);

  private:
    void fail(AttachTarget& t, std::string why);
    void done(AttachTarget& t, std::string path);
    void noteFallback(AttachTarget& t) const;
    bool freshFallback(const AttachTarget& t, const std::string& path) const;
    bool whole(const std::string& path, uid_t owner, AttachTarget& t, std::string& refused);

    OnDemandDaemon& m_daemon;
    TraceRequest m_request;
    std::string m_outDir;
    std::string m_folder;
    std::string m_config;
    std::chrono::milliseconds m_pollWait;
    std::chrono::steady_clock::time_point m_started;
    std::vector<AttachTarget> m_targets;
};

} // namespace kinetoscope::live
