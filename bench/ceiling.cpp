// The yardstick of the load (issue 54): simdjson On-Demand at its best on one core, as
// ../shared/tools/ceiling.cpp measures it. The file is read into memory and paged in first (not timed); then
// the "traceEvents" array is parsed in pieces of about 1 MiB that end at an event boundary (a "},{" between
// events), each piece wrapped as an array in one reused padded buffer, with one reused parser, reading every
// event's "dur". Only that visit is timed. Parsing the file as one document instead charges the kernel for
// faulting in simdjson's index of the whole file: seconds of system time on a 1 GB file, varying from machine
// to machine (the old yardstick's error). Prints "ceiling_seconds=<s> user_s=<s> sys_s=<s> events=<n>
// dur_sum=<x>" (user and system time of the visit).
#include "import/jsonscan.h"

#include <simdjson.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <string_view>
#include <sys/resource.h>
#include <vector>

namespace {
double seconds(const timeval& t) {
    return double(t.tv_sec) + double(t.tv_usec) / 1e6;
}
} // namespace

int main(int argc, char** argv) {
    if (argc != 2) {
        std::fprintf(stderr, "usage: kinetoscope-bench-ceiling TRACE.json\n");
        return 2;
    }
    simdjson::padded_string file;
    if (auto e = simdjson::padded_string::load(argv[1]).get(file)) {
        std::fprintf(stderr, "load: %s\n", simdjson::error_message(e));
        return 1;
    }
    const std::string_view text(file.data(), file.size());
    unsigned touched = 0;
    for (std::size_t i = 0; i < text.size(); i += 4096)
        touched += static_cast<unsigned char>(text[i]);
    const std::size_t key = text.find("\"traceEvents\"");
    const std::size_t open = key == std::string_view::npos ? key : text.find('[', key);
    if (open == std::string_view::npos) {
        std::fprintf(stderr, "no traceEvents array\n");
        return 1;
    }
    // The array's end, found once (not timed): the last piece ends there.
    const kinetoscope::jsonscan::ScanResult array = kinetoscope::jsonscan::scanValue(text, open);
    if (array.status != kinetoscope::jsonscan::ScanStatus::Ok) {
        std::fprintf(stderr, "the traceEvents array does not end\n");
        return 1;
    }
    const std::size_t close = array.end - 1;
    std::vector<char> buffer(4u << 20);
    rusage before{};
    getrusage(RUSAGE_SELF, &before);
    const auto t0 = std::chrono::steady_clock::now();
    simdjson::ondemand::parser parser;
    std::uint64_t events = 0;
    double durSum = 0;
    std::size_t pos = open + 1;
    bool closed = false;
    while (!closed && pos < text.size()) {
        // A piece: whole events up to the first boundary past 1 MiB, or the rest of the array.
        std::size_t end = pos + (1u << 20) < close
                              ? kinetoscope::jsonscan::findObjectBoundary(text, pos + (1u << 20), close)
                              : std::string_view::npos;
        if (end == std::string_view::npos) {
            end = close;
            closed = true;
        }
        const std::size_t length = end - pos;
        if (buffer.size() < length + 2 + simdjson::SIMDJSON_PADDING)
            buffer.resize(2 * (length + 2 + simdjson::SIMDJSON_PADDING));
        buffer[0] = '[';
        std::memcpy(buffer.data() + 1, text.data() + pos, length);
        buffer[length + 1] = ']';
        simdjson::ondemand::document doc;
        if (auto e = parser.iterate(buffer.data(), length + 2, buffer.size()).get(doc)) {
            std::fprintf(stderr, "iterate: %s\n", simdjson::error_message(e));
            return 1;
        }
        simdjson::ondemand::array piece;
        if (doc.get_array().get(piece)) return 1;
        for (auto event : piece) {
            ++events;
            double dur;
            if (!event["dur"].get_double().get(dur)) durSum += dur;
        }
        pos = end + 1;
    }
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    rusage after{};
    getrusage(RUSAGE_SELF, &after);
    std::printf("ceiling_seconds=%.6f user_s=%.3f sys_s=%.3f events=%llu dur_sum=%.0f (pages %u)\n", wall,
                seconds(after.ru_utime) - seconds(before.ru_utime),
                seconds(after.ru_stime) - seconds(before.ru_stime), static_cast<unsigned long long>(events),
                durSum, touched & 1u);
    return 0;
}
