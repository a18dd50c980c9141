#include "trimcommand.h"

#include "open/trimtrace.h"

#include <cstdio>

namespace kinetoscope::cli {

CLI::App* addTrimCommand(CLI::App& app, TrimArgs& args) {
    CLI::App* c = app.add_subcommand(
        "trim", "A smaller trace of a time range: metadata kept, events overlapping the range kept whole");
    c->add_option("TRACE", args.path, "a Kineto trace (.json, .json.gz)")->required()->type_name("");
    c->add_option("--range", args.range,
                  "the range in microseconds on the trace's clock, as its events' ts (START_US:END_US)")
        ->required()
        ->type_name("START_US:END_US");
    c->add_option("--pid", args.pids,
                  "keep only this process's events (repeatable; a GPU's pid is its device)")
        ->type_name("PID");
    c->add_option("-o,--output", args.out, "the trace to write (.json, or .json.gz compressed)")
        ->required()
        ->type_name("FILE");
    return c;
}

int runTrim(const TrimArgs& args) {
    const auto colon = args.range.find(':');
    const auto from =
        colon == std::string::npos ? std::nullopt : parseMicrosecondsText(args.range.substr(0, colon));
    const auto to =
        colon == std::string::npos ? std::nullopt : parseMicrosecondsText(args.range.substr(colon + 1));
    if (!from || !to || *to <= *from) {
        std::fprintf(stderr,
                     "kinetoscope-cli: trim: --range: expected START_US:END_US with START < END, not '%s'\n",
                     args.range.c_str());
        return 2;
    }
    TrimOptions options;
    options.from = *from;
    options.to = *to;
    options.pids = args.pids;
    const TrimResult r = trimTrace(args.path, args.out, options);
    if (!r.ok()) {
        std::fprintf(stderr, "kinetoscope-cli: %s\n", r.error.c_str());
        return 1;
    }
    std::fprintf(
        stderr, "kinetoscope-cli: kept %llu of %llu events (%llu flows whole, %llu cut by the range) -> %s\n",
        static_cast<unsigned long long>(r.eventsKept), static_cast<unsigned long long>(r.eventsRead),
        static_cast<unsigned long long>(r.flowsKept), static_cast<unsigned long long>(r.flowsDropped),
        args.out.c_str());
    return 0;
}

} // namespace kinetoscope::cli
