#pragma once

// Kineto's on-demand tracing, daemon side: what dynolog does for `dyno gputrace`, so that a PyTorch job
// started with KINETO_USE_DAEMON=1 can be traced with its own profiler (operators, shapes, stacks, memory)
// without a restart.
//
// The protocol (pytorch/kineto IpcFabricConfigClient, facebookincubator/dynolog ipcfabric): Unix datagrams.
// The daemon binds the abstract name "\0dynolog\0", or the file $KINETO_IPC_SOCKET_DIR/dynolog when that is
// set (in both processes). Each datagram is a 40-byte header (u64 payload size, a 32-byte NUL-padded type)
// and the payload. A traced process sends "req" {i32 type, i32 n, i64 job id, i32 pids[n]} (its pid, then its
// ancestors) every few seconds and waits briefly for a "req" answer: a config of KEY=VALUE lines, empty when
// nothing is asked. It may first send "ctxt" {i32 gpu, i32 pid, i64 job id}, answered with an i32.
//
// Anyone on the machine can send to the socket: every datagram is decoded defensively (short, huge, lying
// sizes, unknown types are counted and dropped), and the sender is known from the kernel (SO_PASSCRED), not
// from the pids it writes.

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kinetoscope::live {

constexpr std::size_t fabricHeaderBytes = 40;
constexpr std::size_t fabricTypeBytes = 32;

struct FabricMessage {
    std::string type;
    std::string_view payload; // into the datagram
};

// One datagram: nullopt when it is shorter than the header, its size disagrees with its bytes, or its type is
// not NUL-terminated printable text.
std::optional<FabricMessage> decodeFabricMessage(std::string_view datagram);
std::string encodeFabricMessage(std::string_view type, std::string_view payload);

// A "req" poll: the profiler is idle (type 2) or busy (0, and drops requests); the job id (SLURM_JOB_ID, or
// 0); its pid and its ancestors'.
struct KinetoPoll {
    std::int32_t type = 0;
    std::int64_t jobId = 0;
    std::vector<std::int32_t> pids;
    bool idle() const { return type != 0; }
};
// nullopt when n is negative, over 1024, or disagrees with the payload's size.
std::optional<KinetoPoll> decodeKinetoPoll(std::string_view payload);
std::string encodeKinetoPoll(const KinetoPoll& poll);

// What to record, as the config Kineto reads.
struct TraceRequest {
    int durationMs = 0; // > 0: a span of time (Kineto waits its warm-up first)
    int iterations = 0; // > 0: optimizer steps (counted by the hook PyTorch installs with KINETO_USE_DAEMON)
    bool shapes = false, stack = false, memory = false, modules = false;
    std::string logFile; // must hold ".json": Kineto inserts the target's pid before it
};
std::string onDemandConfig(const TraceRequest& request);
// Where Kineto writes for `pid`: the pid inserted before the first ".json" ("/tmp/d/t.json" ->
// "/tmp/d/t_123.json").
std::string kinetoLogFileFor(const std::string& logFile, pid_t pid);

// Which Kinetoscope holds the name Kineto polls, when one does: a daemon given a holder name answers a
// "kinetoscope" datagram with its pid and that name; dynolog answers nothing. pid 0 when nothing answers in
// `timeoutMs`.
struct NameHolder {
    pid_t pid = 0;
    std::string name; // "the Kinetoscope viewer", "kinetoscope-cli attach" (control characters escaped)
};
NameHolder askNameHolder(int timeoutMs = 300);
constexpr const char* holderProbeType = "kinetoscope";

struct PolledProcess {
    pid_t pid = 0;
    uid_t uid = 0;
    std::int64_t jobId = 0;
    bool idle = true;
    std::chrono::steady_clock::time_point lastPoll;
    std::uint64_t polls = 0;
};

// What a polling process is, from /proc: its command line (control characters written as \xNN: a listed
// process chooses its own arguments, and a terminal must not take them for commands), and RANK, LOCAL_RANK,
// WORLD_SIZE and CUDA_VISIBLE_DEVICES where its environment is readable (the same user).
std::string processCommandLine(pid_t pid);
std::string escapeControlCharacters(std::string_view text);
std::map<std::string, std::string> processJobEnvironment(pid_t pid);

class OnDemandDaemon {
  public:
    // `holderName`: what this program says it is when another asks who holds the name (askNameHolder).
    explicit OnDemandDaemon(std::string holderName = {}) : m_holderName(std::move(holderName)) {}
    ~OnDemandDaemon();
    OnDemandDaemon(const OnDemandDaemon&) = delete;
    OnDemandDaemon& operator=(const OnDemandDaemon&) = delete;

    // Binds the name Kineto polls. False with a one-line reason (another daemon, dynolog, holds it).
    bool bind(std::string& error);
    // Receives for up to `timeoutMs`, recording each poll and answering it: with the config set for its
    // sender's pid (once) or an empty one. Forgets the processes that stopped polling.
    void pump(int timeoutMs);
    // Answered at `pid`'s next poll while it is idle.
    void request(pid_t pid, std::string config);
    // A request not yet delivered is taken back (cancel, failure): nothing will be told to write for it.
    // Returns whether it had already been delivered (then the target may still write where it was told).
    bool withdraw(pid_t pid);
    bool delivered(pid_t pid) const;
    // A request handed over by another daemon (dynolog, ondemand's relay): `pid` is now recording, as if it
    // had polled (its user taken as ours: its file must be ours to be taken).
    void markDelivered(pid_t pid);
    // bind() failed because another program holds the name (dynolog): requests then go through it.
    bool nameHeld() const { return m_nameHeld; }
    // The processes of this user that polled within the expiry, at most `capacity` of them: anyone local can
    // send polls, so the list is bounded, and another user's processes (out of reach: they could not write
    // where we read) are not in it.
    const std::map<pid_t, PolledProcess>& processes() const { return m_processes; }
    // The user of another user's process that polled lately (a bounded few), for saying why it is out of
    // reach.
    std::optional<uid_t> strangerUid(pid_t pid) const;
    // Defaults: 1,024 processes, forgotten 60 s after their last poll (Kineto polls every few seconds).
    void setLimits(std::size_t capacity, std::chrono::milliseconds expiry);
    std::uint64_t rejected() const { return m_rejected; }
    // Polls of processes not listed because the list was full.
    std::uint64_t overflowed() const { return m_overflowed; }
    // The name bound, for messages ("abstract dynolog" or the socket's path).
    const std::string& where() const { return m_where; }

  private:
    void handle(std::string_view datagram, pid_t pid, uid_t uid, const void* from, unsigned fromLength);
    void expire();

    int m_fd = -1;
    std::string m_holderName;
    std::string m_where;
    std::string m_path; // a socket file to remove (KINETO_IPC_SOCKET_DIR)
    std::map<pid_t, PolledProcess> m_processes;
    std::map<pid_t, std::string> m_pending;
    std::map<pid_t, bool> m_delivered;
    std::map<pid_t, std::pair<uid_t, std::chrono::steady_clock::time_point>> m_strangers;
    std::size_t m_capacity = 1024;
    std::chrono::milliseconds m_expiry{60000};
    std::uint64_t m_rejected = 0, m_overflowed = 0;
    bool m_nameHeld = false;
    std::vector<char> m_buffer; // what a datagram is received into
};

} // namespace kinetoscope::live
