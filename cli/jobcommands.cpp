#include "jobcommands.h"

#include "analysis/report/jobformat.h"
#include "open/rankinput.h"

#include <cstdio>
#include <fstream>

namespace kinetoscope::cli {

CLI::App* addRankCommand(CLI::App& app, RankArgs& args) {
    CLI::App* c = app.add_subcommand(
        "rank", "One rank's figures for the job report (a few KB of JSON): run it where each trace lives");
    c->add_option("TRACE", args.path, "a rank's trace (.json, .json.gz)")->required()->type_name("");
    c->add_option("-o,--output", args.out, "write the rank file here (default: standard output)")
        ->type_name("FILE");
    return c;
}

CLI::App* addJobCommand(CLI::App& app, JobArgs& args, const CLI::Validator& positiveCount) {
    CLI::App* c = app.add_subcommand(
        "job", "A distributed job from its ranks: steps across ranks, stragglers, collectives, waits");
    c->add_option("FILES", args.paths, "rank files, summaries or traces, mixed; or folders of them")
        ->type_name("");
    c->add_option("--list", args.list, "read the files' paths from FILE, one a line")->type_name("FILE");
    c->add_flag("--json", args.json, "as JSON (every row)");
    c->add_option("--top", args.top, "rows per table in the text (default 20)")->check(positiveCount);
    c->add_option("--threads", args.threads, "files read at once (default: one per core)")->type_name("N");
    return c;
}

int runRank(const RankArgs& args) {
    RankInput in = readRankInput(args.path);
    if (!in.figures) {
        std::fprintf(stderr, "kinetoscope-cli: %s\n", in.error.c_str());
        return 1;
    }
    if (in.kind != RankInputKind::Trace)
        std::fprintf(stderr, "kinetoscope-cli: note: %s is a %s already; written again as a rank file\n",
                     args.path.c_str(), in.kind == RankInputKind::RankFile ? "rank file" : "summary");
    const std::string json = rankFileJson(*in.figures);
    if (args.out.empty()) {
        std::fputs(json.c_str(), stdout);
        return 0;
    }
    // Written beside and renamed: a batch job killed mid-write leaves no half file for `job` to trip on.
    const std::string partial = args.out + ".partial";
    {
        std::ofstream out(partial, std::ios::binary);
        out << json;
        if (!out.flush()) {
            std::fprintf(stderr, "kinetoscope-cli: %s: cannot write the rank file\n", args.out.c_str());
            return 1;
        }
    }
    if (std::rename(partial.c_str(), args.out.c_str()) != 0) {
        std::fprintf(stderr, "kinetoscope-cli: %s: cannot write the rank file\n", args.out.c_str());
        return 1;
    }
    return 0;
}

int runJob(const JobArgs& args) {
    std::vector<UnreadableFile> unreadable;
    std::vector<std::string> files = jobFiles(args.paths, unreadable);
    if (!args.list.empty()) {
        const std::vector<std::string> listed = readFileList(args.list, unreadable);
        files.insert(files.end(), listed.begin(), listed.end());
    }
    if (args.paths.empty() && args.list.empty()) {
        std::fprintf(stderr, "kinetoscope-cli: job: no files given (FILES, a folder, or --list FILE)\n");
        return 2;
    }
    if (files.empty() && unreadable.empty()) {
        // An empty folder: what a batch job's last step finds when every task failed.
        std::fprintf(stderr, "kinetoscope-cli: job: no rank files, summaries or traces found\n");
        return 1;
    }
    JobInputs inputs = readJobInputs(files, {.threads = args.threads});
    unreadable.insert(unreadable.end(), std::make_move_iterator(inputs.unreadable.begin()),
                      std::make_move_iterator(inputs.unreadable.end()));
    for (const UnreadableFile& u : unreadable)
        std::fprintf(stderr, "kinetoscope-cli: %s\n", u.error.c_str());
    if (inputs.ranks.empty()) {
        std::fprintf(stderr, "kinetoscope-cli: job: none of the %zu files could be read\n", files.size());
        return 1;
    }
    const JobReport job = analyseJob(std::move(inputs.ranks), std::move(unreadable));
    const std::string out = args.json ? jobReportJson(job) : jobReportText(job, args.top);
    std::fputs(out.c_str(), stdout);
    return 0;
}

} // namespace kinetoscope::cli
