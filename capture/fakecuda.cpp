// kinetoscope-fake-cuda [PROGRAM ARGS...]: does what the CUDA driver does for an injection library (loads the
// one named by CUDA_INJECTION64_PATH and calls its InitializeInjection), then plays the target. With a
// PROGRAM it runs it as a child and lives as long as it does; without one it lives until the agent's replayed
// GPU work has all been delivered. Exits with the program's status (1 when the agent cannot be loaded). Used
// by tests and the demo.

#include <dlfcn.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

extern char** environ;

int main(int argc, char** argv) {
    int first = 1;
    if (first < argc && std::strcmp(argv[first], "--") == 0) ++first;
    if (first < argc && (std::strcmp(argv[first], "--help") == 0 || std::strcmp(argv[first], "-h") == 0)) {
        std::printf(
            "usage: kinetoscope-fake-cuda [PROGRAM ARGS...]\n"
            "Loads $CUDA_INJECTION64_PATH and calls InitializeInjection, as the CUDA driver does, then runs\n"
            "PROGRAM (or, with none, waits until the agent's replay is delivered).\n");
        return 0;
    }
    const char* library = std::getenv("CUDA_INJECTION64_PATH");
    if (!library || !*library) {
        std::fprintf(stderr, "kinetoscope-fake-cuda: CUDA_INJECTION64_PATH is not set\n");
        return 1;
    }
    void* handle = dlopen(library, RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
        std::fprintf(stderr, "kinetoscope-fake-cuda: %s\n", dlerror());
        return 1;
    }
    using Init = int (*)();
    auto init = reinterpret_cast<Init>(dlsym(handle, "InitializeInjection"));
    if (!init) {
        std::fprintf(stderr, "kinetoscope-fake-cuda: %s has no InitializeInjection\n", library);
        return 1;
    }
    if (!init()) std::fprintf(stderr, "kinetoscope-fake-cuda: InitializeInjection reported failure\n");

    int status = 0;
    if (first < argc) {
        pid_t child = 0;
        if (const int rc = posix_spawnp(&child, argv[first], nullptr, nullptr, argv + first, environ);
            rc != 0) {
            std::fprintf(stderr, "kinetoscope-fake-cuda: cannot run %s: %s\n", argv[first],
                         std::strerror(rc));
            return 127;
        }
        int raw = 0;
        while (waitpid(child, &raw, 0) < 0 && errno == EINTR) {
        }
        status = WIFEXITED(raw) ? WEXITSTATUS(raw) : 128 + WTERMSIG(raw);
    } else if (auto wait = reinterpret_cast<void (*)()>(dlsym(handle, "KinetoscopeAgentWaitReplay"))) {
        wait();
    }
    // exit() runs the agent's atexit handler: its final flush, as at the end of a real CUDA program.
    return status;
}
