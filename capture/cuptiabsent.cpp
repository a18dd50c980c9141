// Built instead of cuptisource.cpp when CMake finds no CUPTI: the agent then only replays.
#include "activitysource.h"

namespace kinetoscope::capture {
std::unique_ptr<ActivitySource> makeCuptiSource(const CuptiSettings&) {
    return nullptr;
}
} // namespace kinetoscope::capture
