#pragma once

// When dynolog already holds the name Kineto polls ("dynolog"), the request goes through it instead: its RPC
// on localhost (TCP, port 1778 by default), an i32 length in host order and a JSON object, the call `dyno
// gputrace` makes: {"fn": "setKinetOnDemandRequest", "config", "job_id", "pids", "process_limit"}, answered
// with the same framing and {"processesMatched": [pids], "activityProfilersTriggered": [pids], ...}. dynolog
// has no call that lists the processes it sees: with it, attach traces named pids or a job's, and cannot
// list. dynolog matches by job id alone when no pid is named, whoever runs the process: job 0 is every user's
// process outside a scheduler's job.

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

namespace kinetoscope::live {

struct DynologReply {
    std::vector<pid_t> matched; // the processes dynolog handed the config to (at most the limit, each once)
    int busy = 0;               // the processes it found with a trace already running
    std::string error;          // one line, when it could not be asked
};

// `pids` empty: every process of `jobId` dynolog knows (at most `limit`). Gives up after `timeoutMs`.
DynologReply askDynolog(int port, const std::string& config, std::int64_t jobId,
                        const std::vector<pid_t>& pids, int limit, int timeoutMs = 5000);
// The RPC's request text (for the tests' fake server to compare).
std::string dynologRequest(const std::string& config, std::int64_t jobId, const std::vector<pid_t>& pids,
                           int limit);

} // namespace kinetoscope::live
