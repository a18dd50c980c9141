#pragma once

// One live capture, host side, shared by the viewer and `kinetoscope-cli record`: a private Unix socket, the
// target started with the agent injected, and a reader thread that decodes every connection into one
// CaptureRecords.
//
// Security: the socket lives in $XDG_RUNTIME_DIR (or a 0700 folder of our own under the temp dir), is created
// 0600, and every connection's peer uid (SO_PEERCRED) must be ours; others are refused and counted. Every
// byte read is treated as hostile by the wire decoder.

#include "livecapture.h"
#include "wireingest.h"

#include <sys/types.h>

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace kinetoscope::live {

struct LaunchSpec {
    std::string program;
    std::vector<std::string> arguments;
    std::string workingDirectory;         // empty: ours
    std::vector<std::string> environment; // extra NAME=VALUE entries on top of ours
    std::string agentPath;                // empty: defaultAgentPath()
    std::string replayTrace;              // replay this trace (or saved capture) instead of CUPTI
    double replaySpeed = 1;               // KINETOSCOPE_REPLAY_SPEED
    std::string spoolPath; // empty: a file beside the socket, removed when the capture is discarded
};

struct SessionStatus {
    CaptureCounts counts;
    int connections = 0;
    int refusedPeers = 0;
    bool targetRunning = false;
    bool targetExited = false;
    int exitStatus = 0;               // exit code, or 128 + signal
    int exitSignal = 0;               // the signal that ended it, 0 when it exited by itself
    std::int64_t exitedAtMs = 0;      // when it was found ended: ms since the Unix epoch
    bool capturing = false;           // false after stop() or once the target exited and every stream ended
    std::string streamError;          // a corrupt stream (the connection is dropped, the rest kept)
    std::vector<std::string> notices; // what the agent said (CaptureRecords::notices)
};

// Where the agent library is: $KINETOSCOPE_AGENT, else beside the running program's build or install tree.
std::string defaultAgentPath();
// The folder for capture sockets: $XDG_RUNTIME_DIR when it is ours and private, else a 0700 folder of our own
// under the temp dir. Empty (with `error`) when neither is safe.
std::string privateSocketDir(std::string& error);

class CaptureSession {
  public:
    CaptureSession();
    ~CaptureSession(); // stops capturing; the target keeps running
    CaptureSession(const CaptureSession&) = delete;
    CaptureSession& operator=(const CaptureSession&) = delete;

    // Creates the socket and starts the target. False with a one-line reason when it cannot.
    bool start(const LaunchSpec& spec, std::string& error);
    // Listens without starting anything (tests connect their own agent); the socket path is socketPath().
    bool listen(std::string& error);
    // Stops reading: the target runs on and its agent drops (and counts) what it can no longer send.
    void stop();
    // Asks the target to end (SIGTERM).
    void terminateTarget();
    // Blocks until capturing ends (target exited and streams closed, or stop()), or `timeoutMs` passes.
    bool waitFinished(int timeoutMs);

    SessionStatus status() const;
    // Notes whether the target has ended (and reaps it), without blocking: the reader thread does so while it
    // runs; after stop() the caller polls with this, or the program stays a zombie said to be running.
    void pollTarget();
    // A copy of everything received so far, taken under a short lock.
    CaptureRecords snapshot() const;
    // Records received since the last call (for the live refresh to know whether anything changed).
    std::uint64_t generation() const { return m_generation.load(); }

    const std::string& socketPath() const { return m_socketPath; }
    const std::string& spoolPath() const { return m_spoolPath; }
    pid_t targetPid() const { return m_pid; }
    // The folder the target was given to find CUPTI in (empty: none found, or none needed), and where it was
    // looked for (cuptilocate.h).
    const std::string& cuptiDir() const { return m_cuptiDir; }
    const std::vector<std::string>& cuptiSearched() const { return m_cuptiSearched; }

  private:
    void run();
    void accept();
    bool readConnection(std::size_t index);
    void useCuptiFor(const std::string& program, std::vector<std::string>& env);

    std::string m_socketPath;
    std::string m_spoolPath;
    std::string m_replayPath; // the replayed trace as a wire stream, for the agent; removed with the session
    std::string m_cuptiDir;
    std::vector<std::string> m_cuptiSearched;
    bool m_ownsSpool = false;
    int m_listen = -1;
    int m_wakeRead = -1, m_wakeWrite = -1;
    pid_t m_pid = 0;
    std::thread m_thread;
    std::atomic<bool> m_stopRequested{false};
    std::atomic<std::uint64_t> m_generation{0};

    struct Connection {
        int fd = -1;
        std::unique_ptr<WireIngest> ingest;
    };
    std::vector<Connection> m_connections; // reader thread only

    mutable std::mutex m_mutex; // guards the members below
    CaptureRecords m_records;
    SessionStatus m_status;
};

} // namespace kinetoscope::live
