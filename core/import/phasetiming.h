#pragma once

// Where a load's time goes, for benchmarks and for a user asking why a file is slow: LoadOptions::phaseTiming
// is called as each phase ends. The library never prints; programs decide (`KINETOSCOPE_TIMING=1
// kinetoscope-cli info`).

#include <chrono>
#include <functional>
#include <string_view>

namespace kinetoscope {

using PhaseTimingFn = std::function<void(std::string_view phase, double milliseconds)>;

// Reports the time since the previous lap (or since it was made) under each phase name; free when nobody
// listens.
class PhaseClock {
  public:
    explicit PhaseClock(const PhaseTimingFn& report,
                        std::chrono::steady_clock::time_point start = std::chrono::steady_clock::now())
        : m_report(report), m_last(start) {}
    void lap(std::string_view phase) {
        if (!m_report) return;
        const auto now = std::chrono::steady_clock::now();
        m_report(phase, std::chrono::duration<double, std::milli>(now - m_last).count());
        m_last = now;
    }

  private:
    const PhaseTimingFn& m_report;
    std::chrono::steady_clock::time_point m_last;
};

} // namespace kinetoscope
