#pragma once

// What the target's environment asks of the CUPTI source (the agent reads it, agent.cpp), for measuring what
// each part of a capture costs the program (tests/gpu/session.sh's overhead_parts) or for a smaller capture:
//   KINETOSCOPE_CUPTI_SKIP=DRIVER,SYNCHRONIZATION   activity kinds left off (by CUPTI's name without
//                                                    CUPTI_ACTIVITY_KIND_); kernels are always collected
//   KINETOSCOPE_CUPTI_THREAD_IDS=pthread            CUPTI's own thread ids (pthread_self) rather than the
//                                                    system's, which are the ones the user knows
// Measured on an H100 (bench/RESULTS.md): none of them changes what a capture costs beyond run-to-run noise.

#include <string>
#include <string_view>
#include <vector>

namespace kinetoscope::capture {

struct CuptiSettings {
    std::string skippedKinds; // ",DRIVER,SYNCHRONIZATION,": each name between commas
    bool systemThreadIds = true;

    // From the two variables' values (null when unset).
    static CuptiSettings from(const char* skip, const char* threadIds) {
        CuptiSettings s;
        if (skip && *skip) {
            s.skippedKinds = ",";
            for (const char* c = skip; *c; ++c)
                if (*c != ' ') s.skippedKinds += *c;
            s.skippedKinds += ",";
        }
        s.systemThreadIds = !threadIds || std::string_view(threadIds) != "pthread";
        return s;
    }
    // The names listed, in order (each said back to the user when no kind has it).
    std::vector<std::string> skippedNames() const {
        std::vector<std::string> names;
        std::size_t at = 1;
        while (at < skippedKinds.size()) {
            const std::size_t comma = skippedKinds.find(',', at);
            if (comma > at) names.push_back(skippedKinds.substr(at, comma - at));
            at = comma + 1;
        }
        return names;
    }
    bool skips(std::string_view kindName) const {
        return !kindName.empty() &&
               skippedKinds.find(std::string(",").append(kindName).append(",")) != std::string::npos;
    }
};

} // namespace kinetoscope::capture
