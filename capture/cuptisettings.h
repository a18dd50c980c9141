#pragma once

// What the target's environment asks of the CUPTI source (the agent reads it, agent.cpp), for measuring what
// each part of a capture costs the program (tests/gpu/session.sh's overhead_parts) or for a smaller capture:
//   KINETOSCOPE_CUPTI_SKIP=DRIVER,SYNCHRONIZATION   activity kinds left off (by CUPTI's name without
//                                                    CUPTI_ACTIVITY_KIND_); kernels are always collected
//   KINETOSCOPE_CUPTI_THREAD_IDS=pthread            CUPTI's own thread ids (pthread_self) rather than the
//                                                    system's, which are the ones the user knows
// Measured on an H100 (bench/RESULTS.md): none of them changes what a capture costs beyond run-to-run noise.

#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

namespace kinetoscope::capture {

struct CuptiSettings {
    std::vector<std::string> skippedKinds; // as listed, spaces dropped, empty names ignored
    bool systemThreadIds = true;

    // From the two variables' values (null when unset).
    static CuptiSettings from(const char* skip, const char* threadIds) {
        CuptiSettings s;
        std::string name;
        for (const char* c = skip; c && *c; ++c) {
            if (*c == ',') {
                if (!name.empty()) s.skippedKinds.push_back(std::move(name));
                name.clear();
            } else if (*c != ' ') {
                name += *c;
            }
        }
        if (!name.empty()) s.skippedKinds.push_back(std::move(name));
        s.systemThreadIds = !threadIds || std::string_view(threadIds) != "pthread";
        return s;
    }
    bool skips(std::string_view kindName) const {
        return std::find(skippedKinds.begin(), skippedKinds.end(), kindName) != skippedKinds.end();
    }
};

} // namespace kinetoscope::capture
