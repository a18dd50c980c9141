// kinetoscope-fake-kineto: Kineto's side of the on-demand protocol, as libkineto's IpcFabricConfigClient and
// its config loader behave, for the attach tests without PyTorch. It binds its own endpoint
// ("dynoconfigclient<pid>", abstract, or in $KINETO_IPC_SOCKET_DIR), sends a "req" poll {type, n, job id,
// pids: its own and its parent's} to "dynolog" every --interval-ms (type 2 idle, 0 busy while recording),
// waits ~90 ms for the answer, and on a config with ACTIVITIES_LOG_FILE records (--warmup-ms, then the
// duration asked) and writes a small Kineto trace in three pieces: to the path with its pid inserted before
// ".json" when it is under /tmp/ (under $KINETO_ONDEMAND_TRACE_DIR instead, when that is set), else to
// /tmp/libkineto_activities_<pid>.json.
//   --lifetime-ms N    exit after this long (default 20000)
//   --die-mid-trace    exit after the first piece of the trace
//   --stall-mid-trace  write the first piece of the trace, then never the rest (and keep running)
//   --stall-after-event  write the trace up to an event's closing brace, then never the rest
// The trace ends as Kineto ends it: the event array closed, then "traceName" with the file's path.
//   --busy             report a busy profiler on every poll
//   --once             exit once a trace is written
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>

namespace {

std::string encode(const char* type, const std::string& payload) {
    std::string out(40, '\0');
    const std::uint64_t size = payload.size();
    std::memcpy(out.data(), &size, 8);
    std::memcpy(out.data() + 8, type, std::strlen(type));
    return out + payload;
}

socklen_t address(const std::string& name, sockaddr_un& a) {
    a = {};
    a.sun_family = AF_UNIX;
    const char* dir = std::getenv("KINETO_IPC_SOCKET_DIR");
    if (dir && *dir) {
        const std::string path = std::string(dir) + "/" + name;
        std::memcpy(a.sun_path, path.c_str(), path.size() + 1);
        return socklen_t(offsetof(sockaddr_un, sun_path) + path.size() + 1);
    }
    std::memcpy(a.sun_path + 1, name.c_str(), name.size());
    return socklen_t(offsetof(sockaddr_un, sun_path) + name.size() + 2);
}

std::string value(const std::string& config, const std::string& key) {
    std::istringstream lines(config);
    std::string line;
    while (std::getline(lines, line))
        if (line.rfind(key + "=", 0) == 0) return line.substr(key.size() + 1);
    return {};
}

void sleepMs(long ms) {
    std::this_thread::sleep_for(std::chrono::milliseconds(ms));
}

} // namespace

int main(int argc, char** argv) {
    long interval = 100, lifetime = 20000, warmup = 0;
    bool dieMidTrace = false, stallMidTrace = false, stallAfterEvent = false, busy = false, once = false;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--interval-ms" && i + 1 < argc)
            interval = std::atol(argv[++i]);
        else if (a == "--lifetime-ms" && i + 1 < argc)
            lifetime = std::atol(argv[++i]);
        else if (a == "--warmup-ms" && i + 1 < argc)
            warmup = std::atol(argv[++i]);
        else if (a == "--die-mid-trace")
            dieMidTrace = true;
        else if (a == "--stall-mid-trace")
            stallMidTrace = true;
        else if (a == "--stall-after-event")
            stallAfterEvent = true;
        else if (a == "--busy")
            busy = true;
        else if (a == "--once")
            once = true;
    }
    const int fd = ::socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    sockaddr_un own{}, daemon{};
    const socklen_t ownLength = address("dynoconfigclient" + std::to_string(::getpid()), own);
    if (own.sun_path[0]) ::unlink(own.sun_path);
    if (::bind(fd, reinterpret_cast<sockaddr*>(&own), ownLength) != 0) return 3;
    const socklen_t daemonLength = address("dynolog", daemon);
    std::string payload(16, '\0');
    const std::int32_t n = 2, pids[2] = {std::int32_t(::getpid()), std::int32_t(::getppid())};
    const char* slurm = std::getenv("SLURM_JOB_ID");
    const std::int64_t job = slurm ? std::atoll(slurm) : 0;
    std::memcpy(payload.data() + 4, &n, 4);
    std::memcpy(payload.data() + 8, &job, 8);
    payload.append(reinterpret_cast<const char*>(pids), sizeof pids);
    const auto end = std::chrono::steady_clock::now() + std::chrono::milliseconds(lifetime);
    while (std::chrono::steady_clock::now() < end) {
        const std::int32_t type = busy ? 0 : 2;
        std::memcpy(payload.data(), &type, 4);
        const std::string request = encode("req", payload);
        ::sendto(fd, request.data(), request.size(), MSG_DONTWAIT, reinterpret_cast<sockaddr*>(&daemon),
                 daemonLength);
        pollfd p{fd, POLLIN, 0};
        std::string config;
        if (::poll(&p, 1, 90) > 0) {
            char buffer[65536];
            const ssize_t got = ::recv(fd, buffer, sizeof buffer, 0);
            if (got >= 40) config.assign(buffer + 40, std::size_t(got - 40));
        }
        const std::string log = value(config, "ACTIVITIES_LOG_FILE");
        if (log.empty() || busy) {
            sleepMs(interval);
            continue;
        }
        // Kineto's rules for the path: the pid before ".json", and only /tmp/ (or its own folder).
        std::string path = log;
        if (const std::size_t at = path.find(".json"); at != std::string::npos)
            path = path.substr(0, at) + "_" + std::to_string(::getpid()) + path.substr(at);
        const char* own = std::getenv("KINETO_ONDEMAND_TRACE_DIR");
        const bool allowed = own && *own ? path.rfind(own, 0) == 0 : path.rfind("/tmp/", 0) == 0;
        if (!allowed) path = "/tmp/libkineto_activities_" + std::to_string(::getpid()) + ".json";
        const long duration = std::atol(value(config, "ACTIVITIES_DURATION_MSECS").c_str());
        sleepMs(warmup + (duration > 0 ? duration : 500));
        const std::string pid = std::to_string(::getpid());
        const std::string pieces[3] = {
            "{\n  \"schemaVersion\": 1,\n  \"traceEvents\": [\n",
            "  {\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"ProfilerStep#7\", \"pid\": " + pid +
                ", \"tid\": " + pid +
                ", \"ts\": 1000, \"dur\": 900},\n  {\"ph\": \"X\", \"cat\": \"cpu_op\", "
                "\"name\": \"aten::mm\", \"pid\": " +
                pid + ", \"tid\": " + pid +
                ", \"ts\": 1100, \"dur\": 50, "
                "\"args\": {\"Input Dims\": [[8, 8], [8, 8]]}},\n",
            "  {\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": " + pid +
                ", \"tid\": " + pid +
                ", \"ts\": 1110, \"dur\": 5, \"args\": {\"correlation\": 1}},\n"
                "  {\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"volta_sgemm_128x32_nn\", \"pid\": 0, "
                "\"tid\": 7, "
                "\"ts\": 1120, \"dur\": 40, \"args\": {\"correlation\": 1, \"device\": 0, \"stream\": 7}}\n  "
                "],\n  \"traceName\": \"" +
                path + "\"\n}\n"};
        std::ofstream out(path, std::ios::binary);
        for (int i = 0; i < 3; ++i) {
            // (stalled after an event: the file ends with that event's closing brace)
            const bool stallHere = stallAfterEvent && i == 1;
            out << (stallHere ? pieces[i].substr(0, pieces[i].size() - 2) : pieces[i]) << std::flush;
            if (dieMidTrace) return 1;
            if (stallMidTrace || stallHere) {
                sleepMs(lifetime);
                return 0;
            }
            sleepMs(150);
        }
        out.close();
        if (once) return 0;
    }
    return 0;
}
