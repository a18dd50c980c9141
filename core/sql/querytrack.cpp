#include "sql/querytrack.h"

#include <algorithm>
#include <cmath>

namespace kinetoscope::sql {

namespace {

int columnNamed(const QueryResult& r, std::string_view name) {
    const auto it = std::find(r.columns.begin(), r.columns.end(), name);
    return it == r.columns.end() ? -1 : int(it - r.columns.begin());
}

std::optional<std::int64_t> integerOf(const Value& v) {
    if (const auto* i = std::get_if<std::int64_t>(&v)) return *i;
    if (const auto* d = std::get_if<double>(&v); d && std::isfinite(*d) && std::abs(*d) < 9.2e18)
        return std::int64_t(std::llround(*d));
    return std::nullopt;
}

} // namespace

std::optional<DerivedTrack> queryTrack(const TraceDatabase& db, const QueryResult& result, std::string title,
                                       std::string& why) {
    const int ts = columnNamed(result, "ts"), dur = columnNamed(result, "dur");
    if (ts < 0 || dur < 0) {
        why = "a track needs the columns ts and dur (ns)";
        return std::nullopt;
    }
    const int idColumn = sliceIdColumn(result), nameColumn = columnNamed(result, "name");
    const TraceStore& store = db.store();
    std::vector<TimeNs> starts, durations;
    std::vector<EventRef> refs;
    std::vector<StringId> names;
    for (const auto& row : result.rows) {
        const auto start = integerOf(row[std::size_t(ts)]);
        const auto length = std::holds_alternative<std::monostate>(row[std::size_t(dur)])
                                ? std::optional<std::int64_t>(0)
                                : integerOf(row[std::size_t(dur)]);
        if (!start || !length || *length < 0) continue;
        EventRef ref;
        if (idColumn >= 0)
            if (const auto id = integerOf(row[std::size_t(idColumn)]))
                if (const auto slice = db.sliceOf(*id)) ref = *slice;
        StringId name;
        if (ref.isValid())
            name = store.track(ref.track).names[ref.index.value];
        else if (nameColumn >= 0)
            if (const auto* text = std::get_if<std::string>(&row[std::size_t(nameColumn)]))
                name = store.strings().find(*text);
        starts.push_back(*start);
        durations.push_back(*length);
        refs.push_back(ref);
        names.push_back(name);
    }
    if (starts.empty()) {
        why = "no row has an integer ts and a dur of 0 or more";
        return std::nullopt;
    }
    std::vector<std::size_t> order;
    Track track = laneSlices(starts, durations, order);
    std::vector<EventRef> sources;
    for (std::size_t i : order) {
        const EventRef ref = refs[i];
        sources.push_back(ref);
        track.names.push_back(names[i]);
        // The named slice's category colours it; a row of no slice is coloured by its name.
        track.categories.push_back(ref.isValid() ? store.track(ref.track).categories[ref.index.value]
                                                 : noCategory);
        track.flags.push_back(durations[i] == 0 ? SliceFlag::Instant : 0);
        track.args.push_back(0);
    }
    return DerivedTrack(std::move(title), std::move(track), std::move(sources));
}

} // namespace kinetoscope::sql
