// The load ceiling of the core issue: simdjson On-Demand on one core, the whole file copied into memory,
// visiting every event and reading only `dur`. Prints "ceiling_seconds=<s> events=<n> dur_sum=<x>".
#include <simdjson.h>

#include <chrono>
#include <cstdio>

int main(int argc, char** argv) {
    if (argc != 2) {
        std::fprintf(stderr, "usage: kinetoscope-bench-ceiling TRACE.json\n");
        return 2;
    }
    const auto t0 = std::chrono::steady_clock::now();
    simdjson::padded_string json;
    if (auto e = simdjson::padded_string::load(argv[1]).get(json)) {
        std::fprintf(stderr, "load: %s\n", simdjson::error_message(e));
        return 1;
    }
    simdjson::ondemand::parser parser;
    simdjson::ondemand::document doc;
    if (auto e = parser.iterate(json).get(doc)) {
        std::fprintf(stderr, "iterate: %s\n", simdjson::error_message(e));
        return 1;
    }
    std::uint64_t events = 0;
    double durSum = 0;
    simdjson::ondemand::array events_array;
    if (doc["traceEvents"].get_array().get(events_array)) return 1;
    for (auto event : events_array) {
        ++events;
        double dur;
        if (!event["dur"].get_double().get(dur)) durSum += dur;
    }
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::printf("ceiling_seconds=%.3f events=%llu dur_sum=%.0f\n", s, static_cast<unsigned long long>(events),
                durSum);
    return 0;
}
