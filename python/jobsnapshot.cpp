// `kinetoscope.job(paths)` and `kinetoscope.memory_snapshot(path)`: the job report and a CUDA memory
// snapshot's tables, from the same C++ as `kinetoscope-cli job --json` and `kinetoscope-cli memory --json`.
#include "bindings.h"

#include "analysis/memory/snapshotreport.h"
#include "analysis/report/jobformat.h"
#include "analysis/report/snapshotformat.h"
#include "open/rankinput.h"
#include "snapshot/snapshotloader.h"

#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <limits>
#include <stdexcept>

namespace py = pybind11;

namespace kinetoscope::python {

namespace {

// The job report as `kinetoscope-cli job --json` writes it, and the files that could not be read (the CLI
// prints those to stderr; here they are the report's "unreadable" rows too).
std::string jobJson(const std::vector<std::string>& paths, unsigned threads) {
    if (paths.empty()) throw std::invalid_argument("job: no files given (rank files, traces or folders)");
    std::vector<UnreadableFile> unreadable;
    std::string out;
    {
        py::gil_scoped_release released;
        const std::vector<std::string> files = jobFiles(paths, unreadable);
        if (files.empty() && unreadable.empty())
            throw std::runtime_error("job: no rank files, summaries or traces found");
        JobInputs inputs = readJobInputs(files, {.threads = threads});
        unreadable.insert(unreadable.end(), std::make_move_iterator(inputs.unreadable.begin()),
                          std::make_move_iterator(inputs.unreadable.end()));
        if (inputs.ranks.empty())
            throw std::runtime_error("job: none of the " + std::to_string(files.size()) +
                                     " files could be read" +
                                     (unreadable.empty() ? std::string() : ": " + unreadable.front().error));
        out = jobReportJson(analyseJob(std::move(inputs.ranks), std::move(unreadable)));
    }
    return out;
}

struct Snapshot {
    std::shared_ptr<const MemorySnapshot> snapshot;
    std::string path;
    std::string warning; // cut short or damaged: the tables cover what came before the fault
};

Snapshot loadMemorySnapshot(const std::string& path) {
    SnapshotLoadResult r;
    {
        py::gil_scoped_release released;
        r = loadSnapshot(path);
    }
    if (!r.ok()) throw std::runtime_error(r.message(path));
    return Snapshot{r.snapshot, path, r.error.empty() ? std::string() : r.message(path)};
}

// `kinetoscope-cli memory --json [--top N] [--at T]`; top 0: every allocation alive at the peak.
std::string snapshotJson(const Snapshot& s, std::size_t top, std::optional<std::int64_t> atUs) {
    SnapshotReportOptions options;
    options.top = top == 0 ? std::numeric_limits<std::size_t>::max() : top;
    options.atTimeUs = atUs;
    py::gil_scoped_release released;
    return snapshotReportJson(*s.snapshot, snapshotReport(*s.snapshot, options));
}

// The allocator's events, every device's in file order, as columns.
py::dict snapshotEvents(const Snapshot& s) {
    const MemorySnapshot& m = *s.snapshot;
    std::vector<std::int64_t> devices, sizes, streams, times;
    std::vector<std::uint64_t> addrs;
    std::vector<std::int32_t> actions;
    std::vector<std::string> actionNames;
    std::unordered_map<std::string_view, std::int32_t> actionCode;
    for (const DeviceHistory& d : m.devices)
        for (std::size_t i = 0; i < d.size(); ++i) {
            const std::string_view name = d.actions[i] == AllocatorAction::Other
                                              ? m.strings.view(d.actionNames[i])
                                              : allocatorActionName(d.actions[i]);
            auto [it, fresh] = actionCode.try_emplace(name, std::int32_t(actionNames.size()));
            if (fresh) actionNames.emplace_back(name);
            devices.push_back(d.device);
            actions.push_back(it->second);
            addrs.push_back(d.addrs[i]);
            sizes.push_back(d.sizes[i]);
            streams.push_back(d.streams[i]);
            times.push_back(d.timesUs[i]);
        }
    py::dict out;
    out["device"] = numpyColumn(devices);
    out["action_code"] = numpyColumn(actions);
    out["actions"] = actionNames;
    out["addr"] = numpyColumn(addrs);
    out["size"] = numpyColumn(sizes);
    out["stream"] = numpyColumn(streams);
    out["time_us"] = numpyColumn(times); // INT64_MIN where the file has no time
    return out;
}

// The segments the allocator held when the snapshot was taken, and where each was allocated.
py::dict snapshotSegments(const Snapshot& s) {
    const MemorySnapshot& m = *s.snapshot;
    std::vector<std::int64_t> devices, total, allocated, active, requested, streams, poolFirst, poolSecond;
    std::vector<std::uint64_t> addresses, blocks;
    std::vector<std::string> types, sites;
    for (const SnapshotSegment& g : m.segments) {
        devices.push_back(g.device);
        addresses.push_back(g.address);
        total.push_back(g.totalSize);
        allocated.push_back(g.allocatedSize);
        active.push_back(g.activeSize);
        requested.push_back(g.requestedSize);
        streams.push_back(g.stream);
        poolFirst.push_back(g.poolId.first);
        poolSecond.push_back(g.poolId.second);
        blocks.push_back(g.blockCount);
        types.emplace_back(m.strings.view(g.segmentType));
        sites.push_back(g.stack ? allocationSite(m, g.stack) : std::string());
    }
    py::dict out;
    out["device"] = numpyColumn(devices);
    out["address"] = numpyColumn(addresses);
    out["total_size"] = numpyColumn(total);
    out["allocated_size"] = numpyColumn(allocated);
    out["active_size"] = numpyColumn(active);
    out["requested_size"] = numpyColumn(requested);
    out["stream"] = numpyColumn(streams);
    out["blocks"] = numpyColumn(blocks);
    out["segment_type"] = types;
    // segment_pool_id, as the file's pair: (0, 0) the default pool, a CUDA graph's or MemPool's otherwise
    out["pool_id_0"] = numpyColumn(poolFirst);
    out["pool_id_1"] = numpyColumn(poolSecond);
    out["site"] = sites;
    return out;
}

} // namespace

void addJobAndSnapshot(py::module_& m) {
    // (as bytes: names in the files may hold bytes that are not UTF-8; the Python side decodes with
    // replacement)
    m.def(
        "job_json",
        [](const std::vector<std::string>& paths, unsigned threads) {
            return py::bytes(jobJson(paths, threads));
        },
        py::arg("paths"), py::arg("threads") = 0u);
    py::class_<Snapshot>(m, "SnapshotHandle")
        .def_property_readonly("path", [](const Snapshot& s) { return py::bytes(s.path); })
        .def_property_readonly("warning", [](const Snapshot& s) { return py::bytes(s.warning); })
        .def_property_readonly("partial", [](const Snapshot& s) { return s.snapshot->partial; });
    m.def("memory_snapshot", &loadMemorySnapshot, py::arg("path"));
    m.def(
        "snapshot_json",
        [](const Snapshot& s, std::size_t top, std::optional<std::int64_t> atUs) {
            return py::bytes(snapshotJson(s, top, atUs));
        },
        py::arg("snapshot"), py::arg("top") = 0, py::arg("at_us") = std::nullopt);
    m.def("snapshot_events", &snapshotEvents, py::arg("snapshot"));
    m.def("snapshot_segments", &snapshotSegments, py::arg("snapshot"));
}

} // namespace kinetoscope::python
