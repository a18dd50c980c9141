// The distributed figures of one rank as JSON, both ways: written into `summary --json`, read back by the
// distributed view from each rank's summary file.
#include "analysis/jobs/distributed.h"

#include "analysis/report/sections.h"
#include "analysis/report/summaryformat.h"

#include <simdjson.h>

#include <cstdio>

namespace kinetoscope {

void writeRankFigures(JsonWriter<std::string>& w, const RankFigures& r) {
    // Inside the summary's top-level object: one step or collective per line, indented under it.
    constexpr JsonLayout rowPerLine{"\n   ", ",\n   ", ""};
    w.beginObject();
    w.numField("rank", r.rank);
    w.numField("world_size", r.worldSize);
    w.microsField("step_mean_us", r.stepMean);
    w.key("steps");
    writeRows(w, rankStepColumns(), r.steps, rowPerLine);
    w.key("collectives");
    writeRows(w, collectiveColumns(), r.collectives, rowPerLine);
    w.endObject();
}

std::optional<RankFigures> rankFiguresFromSummaryJson(std::string_view summaryJson, std::string* error) {
    simdjson::dom::parser parser;
    simdjson::padded_string padded(summaryJson);
    simdjson::dom::element root;
    if (auto e = parser.parse(padded).get(root)) {
        if (error) *error = std::string("not JSON: ") + simdjson::error_message(e);
        return std::nullopt;
    }
    simdjson::dom::object d;
    if (root["distributed"].get_object().get(d)) {
        if (error) *error = "no \"distributed\" block (write it with kinetoscope-cli summary --json)";
        return std::nullopt;
    }
    // Microseconds are written with exactly three decimals; read them back exactly from their text.
    auto micros = [](simdjson::dom::element v) -> TimeNs {
        const std::string text = simdjson::minify(v);
        return parseMicrosecondsText(text).value_or(0);
    };
    RankFigures f;
    std::int64_t i64 = 0;
    if (!d["rank"].get_int64().get(i64)) f.rank = i64;
    if (!d["world_size"].get_int64().get(i64)) f.worldSize = i64;
    simdjson::dom::element e;
    if (!d["step_mean_us"].get(e)) f.stepMean = micros(e);
    simdjson::dom::array steps, collectives;
    if (!d["steps"].get_array().get(steps)) {
        for (simdjson::dom::element s : steps) {
            RankStep rs;
            std::string_view name;
            if (!s["name"].get_string().get(name)) rs.name = std::string(name);
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
    if (!d["collectives"].get_array().get(collectives)) {
        for (simdjson::dom::element c : collectives) {
            CollectiveStats cs;
            std::string_view name;
            if (!c["name"].get_string().get(name)) cs.name = std::string(name);
            std::uint64_t u = 0;
            if (!c["calls"].get_uint64().get(u)) cs.calls = u;
            double bytes = 0;
            if (!c["bytes"].get_double().get(bytes)) cs.bytes = bytes;
            if (!c["total_us"].get(e)) cs.total = micros(e);
            cs.transfer = cs.total;
            f.collectives.push_back(std::move(cs));
        }
    }
    return f;
}

} // namespace kinetoscope
