// A rank's distributed figures as JSON, both ways: the rank file (`kinetoscope-cli rank`), the "distributed"
// block of `summary --json`, and their one reader (the job report and the viewer's job view).
#include "analysis/jobs/distributed.h"

#include "analysis/report/sections.h"
#include "analysis/report/summaryformat.h"
#include "model/timeconv.h"

#include <simdjson.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace kinetoscope {

namespace {
constexpr std::string_view rankFileFormat = "kinetoscope-rank";
constexpr std::string_view instanceColumns[] = {"step",     "collective", "issue",
                                                "start_us", "end_us",     "issued_us"};

void writeInstance(JsonWriter<std::string>& w, const CollectiveInstance& c) {
    w.beginArray();
    w.num(c.step);
    w.num(c.collective);
    w.num(c.issue);
    w.micros(c.start);
    w.micros(c.end);
    if (c.issuedKnown)
        w.micros(c.issued);
    else
        w.null();
    w.endArray();
}

// How many instances of each step fit in `budget` bytes: the same number from every step (the first ones in
// issue order), so each step keeps its early collectives and the ranks keep the same ones.
std::size_t instancesPerStep(const RankFigures& r, std::size_t budget, std::size_t& kept) {
    std::vector<std::vector<std::size_t>> lengths(r.steps.size());
    for (const CollectiveInstance& c : r.instances) {
        std::string row;
        JsonWriter w(row);
        writeInstance(w, c);
        if (c.step < lengths.size()) lengths[c.step].push_back(row.size() + 5); // ",\n   "
    }
    std::size_t most = 0;
    for (const auto& l : lengths)
        most = std::max(most, l.size());
    const auto bytesFor = [&](std::size_t perStep) {
        std::size_t total = 0, count = 0;
        for (const auto& l : lengths)
            for (std::size_t i = 0; i < std::min(perStep, l.size()); ++i, ++count)
                total += l[i];
        kept = count;
        return total;
    };
    std::size_t lo = 0, hi = most; // the largest perStep whose rows fit
    while (lo < hi) {
        const std::size_t mid = (lo + hi + 1) / 2;
        if (bytesFor(mid) <= budget)
            lo = mid;
        else
            hi = mid - 1;
    }
    bytesFor(lo);
    return lo;
}
} // namespace

namespace {
// The bytes each row of `rows` takes as `columns` writes it, one a line.
template <typename Row>
std::vector<std::size_t> rowBytes(const Columns<Row>& columns, const std::vector<Row>& rows) {
    std::vector<std::size_t> bytes;
    for (const Row& row : rows) {
        std::string text;
        JsonWriter w(text);
        writeRows(w, columns, std::vector<Row>{row}, JsonLayout{});
        bytes.push_back(text.size() + 4);
    }
    return bytes;
}
// How many of the first rows fit in `budget`; `used` says what they take.
std::size_t prefixThatFits(const std::vector<std::size_t>& bytes, std::size_t budget, std::size_t& used) {
    used = 0;
    for (std::size_t i = 0; i < bytes.size(); ++i) {
        if (used + bytes[i] > budget) return i;
        used += bytes[i];
    }
    return bytes.size();
}
} // namespace

void writeRankFigures(JsonWriter<std::string>& w, const RankFigures& r, RankJson as) {
    // One step, collective or instance per line, indented under the block.
    constexpr JsonLayout rowPerLine{"\n   ", ",\n   ", ""};
    const std::size_t begin = w.text().size();
    // The tables first, within the budget: all of them, or when they alone would not fit (hundreds of steps,
    // or collectives of hundreds of sizes), the first steps and the collectives with the most time (both are
    // prefixes, so the instances' indices stay valid), each in half the room.
    std::size_t notesBytes = 2048 + r.source.size() + r.host.size();
    for (const std::string& n : r.notes)
        notesBytes += jsonEscape(n).size() + 8;
    const std::size_t tables = rankFileBudget > notesBytes ? rankFileBudget - notesBytes : 0;
    const std::vector<std::size_t> stepBytes = rowBytes(rankStepColumns(), r.steps);
    const std::vector<std::size_t> collectiveBytes = rowBytes(collectiveColumns(), r.collectives);
    std::size_t stepsUsed = 0, collectivesUsed = 0;
    std::size_t keptSteps = prefixThatFits(stepBytes, tables, stepsUsed);
    std::size_t keptCollectives = prefixThatFits(collectiveBytes, tables, collectivesUsed);
    if (stepsUsed + collectivesUsed > tables) {
        keptSteps = prefixThatFits(stepBytes, tables / 2, stepsUsed);
        keptCollectives = prefixThatFits(collectiveBytes, tables - stepsUsed, collectivesUsed);
    }
    const std::vector<RankStep> steps(r.steps.begin(), r.steps.begin() + std::ptrdiff_t(keptSteps));
    const std::vector<CollectiveStats> collectives(r.collectives.begin(),
                                                   r.collectives.begin() + std::ptrdiff_t(keptCollectives));
    RankFigures inTables; // the instances of the steps and collectives kept
    inTables.steps = steps;
    for (const CollectiveInstance& c : r.instances)
        if (c.step < keptSteps && c.collective < keptCollectives) inTables.instances.push_back(c);

    w.beginObject(as == RankJson::File ? JsonLayout{"\n", ",\n", "\n"} : JsonLayout{});
    if (as == RankJson::File) {
        w.strField("format", rankFileFormat);
        w.numField("version", rankFileVersion);
    }
    w.key("rank");
    if (r.rank >= 0)
        w.num(r.rank);
    else
        w.null();
    w.key("world_size");
    if (r.worldSize > 0)
        w.num(r.worldSize);
    else
        w.null();
    w.strField("source", r.source);
    w.key("host");
    if (r.host.empty())
        w.null();
    else
        w.str(r.host);
    w.microsField("step_mean_us", r.stepMean);
    w.key("steps");
    writeRows(w, rankStepColumns(), steps, rowPerLine);
    w.key("collectives");
    writeRows(w, collectiveColumns(), collectives, rowPerLine);
    // What each kept step's host did: [step, name, us] (rankStep's hostRanges).
    w.key("step_host_ranges");
    w.beginArray(rowPerLine);
    for (std::size_t i = 0; i < steps.size(); ++i)
        for (const auto& [name, time] : steps[i].hostRanges) {
            w.beginArray();
            w.num(i);
            w.str(name);
            w.micros(time);
            w.endArray();
        }
    w.endArray();

    // The instances take what is left of the budget.
    const std::size_t used = w.text().size() - begin + notesBytes;
    std::size_t kept = 0;
    const std::size_t perStep =
        instancesPerStep(inTables, used < rankFileBudget ? rankFileBudget - used : 0, kept);
    const std::uint64_t dropped = r.instancesDropped + (r.instances.size() - kept);
    w.key("collective_instances");
    w.beginObject();
    w.key("columns");
    w.beginArray();
    for (std::string_view c : instanceColumns)
        w.str(c);
    w.endArray();
    w.key("rows");
    w.beginArray(rowPerLine);
    std::vector<std::size_t> perStepCount(steps.size(), 0);
    for (const CollectiveInstance& c : inTables.instances) {
        if (perStepCount[c.step]++ >= perStep) continue;
        writeInstance(w, c);
    }
    w.endArray();
    w.endObject();
    w.numField("instances_dropped", dropped);
    std::vector<std::string> notes = r.notes;
    const std::string budget = " to stay under " + std::to_string(rankFileBudget / 1024) + " KB";
    if (keptSteps < r.steps.size())
        notes.push_back("kept the first " + std::to_string(keptSteps) + " of " +
                        std::to_string(r.steps.size()) + " steps" + budget);
    if (keptCollectives < r.collectives.size())
        notes.push_back("kept the " + std::to_string(keptCollectives) + " of " +
                        std::to_string(r.collectives.size()) +
                        " collectives (name and size) with the most time" + budget);
    if (kept < inTables.instances.size())
        notes.push_back("kept the first " + std::to_string(perStep) + " collective runs of each step (" +
                        std::to_string(kept) + " of " + std::to_string(inTables.instances.size()) + ")" +
                        budget);
    w.key("notes");
    w.beginArray();
    for (const std::string& n : notes)
        w.str(n);
    w.endArray();
    w.endObject();
}

std::string rankFileJson(const RankFigures& r) {
    std::string out;
    JsonWriter w(out);
    writeRankFigures(w, r, RankJson::File);
    out += '\n';
    return out;
}

std::optional<RankFigures> readRankFigures(std::string_view json, std::string* error) {
    const auto fail = [&](std::string message) -> std::optional<RankFigures> {
        if (error) *error = std::move(message);
        return std::nullopt;
    };
    simdjson::dom::parser parser;
    simdjson::padded_string padded(json);
    simdjson::dom::element root;
    if (auto e = parser.parse(padded).get(root))
        return fail(std::string("not JSON: ") + simdjson::error_message(e));
    simdjson::dom::object d;
    std::string_view format;
    if (!root["format"].get_string().get(format) && format == rankFileFormat) {
        std::int64_t version = 0;
        if (root["version"].get_int64().get(version) || version < 1)
            return fail("a rank file without a valid \"version\"");
        if (version > rankFileVersion)
            return fail("rank file version " + std::to_string(version) +
                        " is newer than this Kinetoscope reads (" + std::to_string(rankFileVersion) + ")");
        if (root.get_object().get(d)) return fail("a rank file that is not an object");
    } else if (root["distributed"].get_object().get(d)) {
        return fail("neither a rank file nor a summary with a \"distributed\" block (write one with "
                    "kinetoscope-cli rank or summary --json)");
    }
    // Microseconds with three decimals. Times a rank file can hold are within ±2^62 ns (a step's start on the
    // epoch clock is about 2^60): anything outside is refused, so no sum or difference of them overflows.
    bool outOfRange = false;
    const auto micros = [&](simdjson::dom::element v) -> TimeNs {
        const std::optional<TimeNs> ns = parseMicrosecondsText(simdjson::minify(v));
        if (!ns || *ns < -(TimeNs(1) << 62) || *ns > (TimeNs(1) << 62)) {
            outOfRange = true;
            return 0;
        }
        return *ns;
    };
    RankFigures f;
    std::int64_t i64 = 0;
    if (!d["rank"].get_int64().get(i64) && i64 >= 0) f.rank = i64;
    if (!d["world_size"].get_int64().get(i64) && i64 > 0) f.worldSize = i64;
    std::string_view text;
    if (!d["source"].get_string().get(text)) f.source = std::string(text);
    if (!d["host"].get_string().get(text)) f.host = std::string(text);
    simdjson::dom::element e;
    if (!d["step_mean_us"].get(e)) f.stepMean = micros(e);
    simdjson::dom::array array;
    if (!d["notes"].get_array().get(array))
        for (simdjson::dom::element n : array)
            if (!n.get_string().get(text)) f.notes.emplace_back(text);
    if (!d["steps"].get_array().get(array)) {
        for (simdjson::dom::element s : array) {
            RankStep rs;
            if (!s["name"].get_string().get(text)) rs.name = std::string(text);
            if (!s["start_us"].get(e)) rs.start = micros(e);
            if (!s["end_us"].get(e)) rs.end = micros(e);
            if (!s["computation_us"].get(e)) rs.computation = micros(e);
            if (!s["communication_us"].get(e)) rs.communication = micros(e);
            if (!s["overlap_us"].get(e)) rs.overlap = micros(e);
            if (!s["other_us"].get(e)) rs.other = micros(e);
            f.computation += rs.computation;
            f.communication += rs.communication;
            f.overlap += rs.overlap;
            f.other += rs.other;
            f.steps.push_back(std::move(rs));
        }
    }
    if (!d["step_host_ranges"].get_array().get(array)) {
        for (simdjson::dom::element row : array) {
            simdjson::dom::array cells;
            std::uint64_t step = 0;
            simdjson::dom::element time;
            if (row.get_array().get(cells) || cells.size() != 3 || cells.at(0).get_uint64().get(step) ||
                step >= f.steps.size() || cells.at(1).get_string().get(text) || cells.at(2).get(time))
                return fail("a step host range is not [step, name, microseconds] of a step listed");
            if (f.steps[step].hostRanges.size() < maxHostRanges)
                f.steps[step].hostRanges.emplace_back(std::string(text), micros(time));
        }
    }
    if (!d["collectives"].get_array().get(array)) {
        for (simdjson::dom::element c : array) {
            CollectiveStats cs;
            if (!c["name"].get_string().get(text)) cs.name = std::string(text);
            if (!c["group"].get_string().get(text)) cs.group = std::string(text);
            std::uint64_t u = 0;
            if (!c["calls"].get_uint64().get(u)) cs.calls = u;
            double number = 0;
            if (!c["message_bytes"].get_double().get(number)) cs.messageBytes = number;
            if (!c["bytes"].get_double().get(number)) cs.bytes = number;
            if (!c["total_us"].get(e)) cs.total = micros(e);
            if (!c["longest_us"].get(e)) cs.longest = micros(e);
            cs.transfer = cs.total;
            f.collectives.push_back(std::move(cs));
        }
    }
    // Instances: [step, collective, issue, start_us, end_us] and, from version 2, issued_us (the launch; null
    // when unknown), checked against the tables they point into.
    if (!d["collective_instances"]["rows"].get_array().get(array)) {
        for (simdjson::dom::element row : array) {
            simdjson::dom::array cells;
            if (row.get_array().get(cells) || (cells.size() != 5 && cells.size() != 6))
                return fail("a collective instance is not 5 or 6 numbers");
            std::uint64_t step = 0, collective = 0, issue = 0;
            if (cells.at(0).get_uint64().get(step) || cells.at(1).get_uint64().get(collective) ||
                cells.at(2).get_uint64().get(issue) || step >= f.steps.size() ||
                collective >= f.collectives.size())
                return fail("a collective instance points outside the steps or collectives");
            // Times within a step are small: a double holds them to the nanosecond, no text round trip needed
            // (and a job of 10,000 ranks reads millions of them).
            double start = 0, end = 0;
            if (cells.at(3).get_double().get(start) || cells.at(4).get_double().get(end))
                return fail("a collective instance's times are not numbers");
            // Within a step: from 0 to well under 2^53 ns (104 days), and not ending before it starts.
            if (!(start >= 0 && start <= end && end < 9e12) || issue > UINT32_MAX)
                return fail("a collective instance's times or number are out of range");
            double issued = 0;
            const bool issuedKnown = cells.size() == 6 && !cells.at(5).get_double().get(issued);
            // A launch precedes its kernel, and may precede the step's start by as much as a step.
            if (issuedKnown && !(issued > -9e12 && issued < 9e12))
                return fail("a collective instance's launch time is out of range");
            f.instances.push_back({std::uint32_t(step), std::uint32_t(collective), std::uint32_t(issue),
                                   TimeNs(std::llround(start * 1000)), TimeNs(std::llround(end * 1000)),
                                   issuedKnown ? TimeNs(std::llround(issued * 1000)) : 0, issuedKnown});
        }
    }
    std::uint64_t dropped = 0;
    if (!d["instances_dropped"].get_uint64().get(dropped)) f.instancesDropped = dropped;
    if (outOfRange) return fail("a time is out of range (beyond ±2^62 ns)");
    for (const RankStep& s : f.steps)
        if (s.end < s.start) return fail("a step ends before it starts: " + s.name);
    return f;
}

} // namespace kinetoscope
