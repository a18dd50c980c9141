#include "checkcommand.h"

#include "analysis/report/checkformat.h"
#include "open/opentrace.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace kinetoscope::cli {

namespace {

constexpr int unreadable = 2;

bool looksLikeTrace(const std::string& name) {
    for (const char* end :
         {".json", ".json.gz", ".pftrace", ".pftrace.gz", ".perfetto-trace", ".sqlite", ".rpd"})
        if (name.size() > std::strlen(end) &&
            name.compare(name.size() - std::strlen(end), std::strlen(end), end) == 0)
            return true;
    return false;
}

// A side's runs: the trace, or the traces of a folder (in name order).
std::vector<std::string> runsOf(const std::string& path, std::string& error) {
    std::error_code ec;
    if (!std::filesystem::is_directory(path, ec)) {
        if (!std::filesystem::exists(path, ec)) error = path + ": no such file or folder";
        return {path};
    }
    std::vector<std::string> runs;
    for (const auto& entry : std::filesystem::directory_iterator(path, ec))
        if (entry.is_regular_file() && looksLikeTrace(entry.path().filename().string()))
            runs.push_back(entry.path().string());
    std::sort(runs.begin(), runs.end());
    if (runs.empty()) error = path + ": no traces in this folder";
    return runs;
}

// Each run's figures, loaded one at a time (a run's store is let go before the next loads).
bool figuresOf(const std::vector<std::string>& runs, std::vector<RunFigures>& out) {
    ReportSections sections;
    for (const ReportSection s : {ReportSection::Overview, ReportSection::Operators, ReportSection::Kernels,
                                  ReportSection::Memory, ReportSection::GpuWaits})
        sections.set(std::size_t(s));
    for (const std::string& path : runs) {
        LoadResult r = loadTrace(path);
        if (!r.ok()) {
            std::fprintf(stderr, "kinetoscope-cli: %s\n", r.message(path).c_str());
            return false;
        }
        const auto report =
            computeAnalysis(*r.store, std::nullopt, OperatorGrouping::Name, KernelGrouping::Name, sections);
        std::error_code ec;
        const std::string absolute = std::filesystem::absolute(path, ec).lexically_normal().string();
        out.push_back(runFigures(*r.store, *report, ec ? path : absolute));
    }
    return true;
}

} // namespace

CLI::App* addCheckCommand(CLI::App& app, CheckArgs& args) {
    CLI::App* c = app.add_subcommand(
        "check",
        "A verdict for CI: NEW against BASE within a budget (exit 0 pass, 1 regression, 2 unreadable)");
    c->add_option("BASE", args.base, "the baseline: a trace, or a folder of runs")->required()->type_name("");
    c->add_option("NEW", args.changed, "the new side: a trace, or a folder of runs")
        ->required()
        ->type_name("");
    c->add_option("--budget", args.budget, "thresholds (JSON; docs/CHECK.md), over the defaults")
        ->type_name("FILE");
    auto* json = c->add_flag("--json", args.json, "as JSON");
    c->add_flag("--markdown", args.markdown, "as Markdown, for a CI job summary")->excludes(json);
    return c;
}

int runCheck(const CheckArgs& args) {
    Budget budget;
    if (!args.budget.empty()) {
        std::ifstream in(args.budget, std::ios::binary);
        if (!in) {
            std::fprintf(stderr, "kinetoscope-cli: %s: cannot read the budget\n", args.budget.c_str());
            return unreadable;
        }
        std::stringstream text;
        text << in.rdbuf();
        std::string error;
        const auto parsed = parseBudget(text.str(), error);
        if (!parsed) {
            std::fprintf(stderr, "kinetoscope-cli: %s: %s\n", args.budget.c_str(), error.c_str());
            return unreadable;
        }
        budget = *parsed;
    }
    std::string error;
    const std::vector<std::string> baseRuns = runsOf(args.base, error);
    const std::vector<std::string> newRuns =
        error.empty() ? runsOf(args.changed, error) : std::vector<std::string>{};
    if (!error.empty()) {
        std::fprintf(stderr, "kinetoscope-cli: %s\n", error.c_str());
        return unreadable;
    }
    std::vector<RunFigures> base, changed;
    if (!figuresOf(baseRuns, base) || !figuresOf(newRuns, changed)) return unreadable;
    const CheckReport report = checkRuns(base, changed, budget);
    const std::string out = args.json       ? checkToJson(report)
                            : args.markdown ? checkToMarkdown(report)
                                            : checkToText(report);
    std::fputs(out.c_str(), stdout);
    return report.passed() ? 0 : 1;
}

} // namespace kinetoscope::cli
