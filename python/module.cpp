// The C++ half of `import kinetoscope` (python/kinetoscope/__init__.py is the other): load a trace without
// the GIL, cancellable from Python (Ctrl+C), and hand the report as the CLI's JSON, so that a notebook and
// `kinetoscope-cli summary --json` never disagree (one JSON writer, core/analysis/report).
#include "analysis/gpu/criticalpath.h"
#include "analysis/report/analysisresult.h"
#include "analysis/report/sections.h"
#include "analysis/report/summaryformat.h"
#include "bindings.h"
#include "import/traceloader.h"
#include "open/opentrace.h"
#include "query/lanelayout.h"
#include "sql/tracedatabase.h"

#include <pybind11/functional.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <atomic>
#include <exception>
#include <limits>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>
#include <unordered_map>

namespace py = pybind11;
using namespace kinetoscope;

namespace {

struct Trace {
    std::shared_ptr<const TraceStore> store;
    std::string path;
    double seconds = 0;
    std::vector<std::string> warnings; // what the load skipped (a truncated file), as the CLI warns
};

// Text from a trace as a Python str: a byte that is not UTF-8 (a name cut mid-character, a non-UTF-8 locale's
// path) becomes U+FFFD instead of raising for the whole table.
py::str text(std::string_view bytes) {
    PyObject* o = PyUnicode_DecodeUTF8(bytes.data(), Py_ssize_t(bytes.size()), "replace");
    if (!o) throw py::error_already_set();
    return py::reinterpret_steal<py::str>(o);
}

// Loads on a worker thread while the calling thread, holding the GIL only to check for signals, waits: Ctrl+C
// cancels the load (the loader stops at its next chunk and keeps nothing), and `progress(done, total)` is
// called every 20 ms with the bytes read so far.
Trace load(const std::string& path, bool gpuOnly, const std::function<void(double, double)>& progress) {
    std::atomic<bool> cancel{false};
    std::atomic<std::uint64_t> done{0}, total{0};
    LoadOptions options;
    options.cancel = &cancel;
    options.progress = [&](const LoadProgress& p) {
        done = p.bytesDone;
        total = p.bytesTotal;
    };
    if (gpuOnly) {
        options.gpuWorkOnly = true;
        options.gpuWorkOnlyUnlessTextHas = kernelTableHostKeys();
    }
    LoadResult result;
    std::atomic<bool> finished{false};
    std::exception_ptr failed; // thrown inside the load (out of memory): raised here, never past the thread
    std::thread worker([&] {
        try {
            result = loadTrace(path, options);
        } catch (...) {
            failed = std::current_exception();
        }
        finished = true;
    });
    bool interrupted = false;
    std::exception_ptr raised; // by the progress callback (a Ctrl+C that lands while it runs raises there)
    {
        py::gil_scoped_release released;
        while (!finished) {
            std::this_thread::sleep_for(std::chrono::milliseconds(20));
            py::gil_scoped_acquire held;
            if (PyErr_CheckSignals() != 0) {
                cancel = true;
                interrupted = true;
                break;
            }
            try {
                if (progress) progress(double(done.load()), double(total.load()));
            } catch (...) {
                cancel = true;
                raised = std::current_exception();
                break;
            }
        }
    }
    worker.join(); // on every path: a thread destroyed unjoined would end the process
    if (raised) std::rethrow_exception(raised);
    if (failed) std::rethrow_exception(failed);
    if (interrupted) throw py::error_already_set(); // KeyboardInterrupt, the load left nothing behind
    if (!result.ok()) throw std::runtime_error(result.message(path)); // file, byte, reason: the CLI's line
    std::vector<std::string> warnings = loadWarnings(result.store->stats(), path);
    return Trace{std::shared_ptr<const TraceStore>(std::move(result.store)), path, result.seconds,
                 std::move(warnings)};
}

// The summary JSON of `kinetoscope-cli summary --json`, every section or those named ("kernels,operators"),
// as bytes: the trace's names may hold bytes that are not UTF-8, which the Python side decodes with
// replacement.
py::bytes summaryJson(const Trace& t, const std::string& sections, bool byShape) {
    ReportSections wanted = allReportSections();
    if (!sections.empty()) {
        std::string error;
        const auto parsed = parseReportSections(sections, error);
        if (!parsed) throw std::invalid_argument(error);
        wanted = *parsed;
    }
    std::shared_ptr<AnalysisResult> report;
    {
        py::gil_scoped_release released;
        report = computeAnalysis(*t.store, std::nullopt,
                                 byShape ? OperatorGrouping::NameAndShape : OperatorGrouping::Name,
                                 KernelGrouping::Name, wanted);
        // The median step's critical path, as `summary` computes it.
        std::string error;
        if (has(wanted, ReportSection::CriticalPath))
            if (auto path = stepCriticalPath(*t.store, std::nullopt, error))
                attachCriticalPath(*report, std::move(*path));
    }
    // Every row of every table: a notebook slices them itself.
    return py::bytes(summaryToJson(report->summary, report.get(), std::numeric_limits<std::size_t>::max()));
}

// The store's slices as columns (numpy arrays: no Python object per slice), names and categories as codes
// into their dictionaries, filtered by exact name, exact category, track index and a time range (µs from the
// trace's start, as the ruler reads); with `args`, each slice's args as the trace wrote them (JSON text,
// which the Python side decodes), and only then.
py::dict slices(const Trace& t, std::optional<std::string> name, std::optional<std::string> category,
                std::optional<std::uint32_t> track, std::optional<double> startUs,
                std::optional<double> endUs, bool args) {
    const TraceStore& s = *t.store;
    const TimeNs origin = s.minTime();
    const TimeNs from = startUs ? origin + TimeNs(*startUs * 1000) : INT64_MIN;
    const TimeNs to = endUs ? origin + TimeNs(*endUs * 1000) : INT64_MAX;
    std::vector<std::int32_t> tracks, nameCodes, categoryCodes;
    std::vector<double> starts, durations;
    std::unordered_map<std::uint32_t, std::int32_t> nameCode;
    std::vector<std::string_view> names, categories;
    std::vector<std::string> titles;
    std::vector<std::string_view> argsTexts;
    for (const Category& c : s.categories())
        categories.emplace_back(s.strings().view(c.name));
    {
        py::gil_scoped_release released;
        for (std::uint32_t ti = 0; ti < s.tracks().size(); ++ti) {
            titles.push_back(trackTitle(s, TrackId(ti)));
            if (track && *track != ti) continue;
            const Track& tr = s.tracks()[ti];
            for (std::uint32_t r = 0; r < tr.sliceCount(); ++r) {
                if (tr.starts[r] < from || tr.starts[r] > to) continue;
                if (category && categories[tr.categories[r]] != *category) continue;
                const std::string_view n = s.strings().view(tr.names[r]);
                if (name && n != *name) continue;
                auto [it, fresh] = nameCode.try_emplace(tr.names[r].value, std::int32_t(names.size()));
                if (fresh) names.emplace_back(n);
                tracks.push_back(std::int32_t(ti));
                starts.push_back(double(tr.starts[r] - origin) / 1000.0);
                durations.push_back(double(tr.durations[r]) / 1000.0);
                nameCodes.push_back(it->second);
                categoryCodes.push_back(std::int32_t(tr.categories[r]));
                if (args) argsTexts.push_back(s.argsText(EventRef{TrackId(ti), EventIndex(r)}));
            }
        }
    }
    using kinetoscope::python::numpyColumn;
    py::dict out;
    out["track"] = numpyColumn(tracks);
    out["start_us"] = numpyColumn(starts);
    out["dur_us"] = numpyColumn(durations);
    out["name_code"] = numpyColumn(nameCodes);
    out["category_code"] = numpyColumn(categoryCodes);
    const auto strs = [](const auto& values) {
        py::list list(values.size());
        for (std::size_t i = 0; i < values.size(); ++i)
            list[i] = text(values[i]);
        return list;
    };
    out["names"] = strs(names);
    out["categories"] = strs(categories);
    out["track_titles"] = strs(titles);
    if (args) {
        py::list texts(argsTexts.size());
        for (std::size_t i = 0; i < argsTexts.size(); ++i)
            texts[i] = text(argsTexts[i]);
        out["args"] = texts;
    }
    return out;
}

// SQL over the trace (core/sql, docs/SQL.md): the columns as arrays (no Python object a row): int64 where
// every value is an integer, float64 where all are numbers (NULL as NaN), else a list of str and None. Runs
// off the GIL; Ctrl+C interrupts it. A bad query raises ValueError with SQLite's message and, where it knows
// it, the line and column.
py::dict query(const Trace& t, const std::string& sqlText) {
    sql::TraceDatabase db(*t.store);
    sql::QueryResult result;
    std::atomic<bool> finished{false};
    std::exception_ptr failed;
    std::thread worker([&] {
        try {
            result = db.query(sqlText);
        } catch (...) {
            failed = std::current_exception();
        }
        finished = true;
    });
    bool interrupted = false;
    {
        py::gil_scoped_release released;
        while (!finished) {
            std::this_thread::sleep_for(std::chrono::milliseconds(10));
            py::gil_scoped_acquire held;
            if (!interrupted && PyErr_CheckSignals() != 0) {
                interrupted = true;
                db.interrupt();
            }
        }
    }
    worker.join();
    if (failed) std::rethrow_exception(failed);
    if (interrupted) throw py::error_already_set(); // KeyboardInterrupt
    if (!result.ok()) {
        std::string message = result.error;
        if (result.errorLine > 0)
            message = "line " + std::to_string(result.errorLine) + ", column " +
                      std::to_string(result.errorColumn) + ": " + message;
        throw py::value_error(message);
    }
    py::list names, columns;
    for (std::size_t c = 0; c < result.columns.size(); ++c) {
        names.append(text(result.columns[c]));
        bool integers = true, numbers = true;
        for (const auto& row : result.rows) {
            const sql::Value& v = row[c];
            integers = integers && std::holds_alternative<std::int64_t>(v);
            numbers = numbers && !std::holds_alternative<std::string>(v);
        }
        if (integers) {
            std::vector<std::int64_t> values;
            values.reserve(result.rows.size());
            for (const auto& row : result.rows)
                values.push_back(std::get<std::int64_t>(row[c]));
            columns.append(kinetoscope::python::numpyColumn(values));
        } else if (numbers) {
            std::vector<double> values;
            values.reserve(result.rows.size());
            for (const auto& row : result.rows) {
                const sql::Value& v = row[c];
                values.push_back(std::holds_alternative<std::monostate>(v)
                                     ? std::numeric_limits<double>::quiet_NaN()
                                 : std::holds_alternative<double>(v) ? std::get<double>(v)
                                                                     : double(std::get<std::int64_t>(v)));
            }
            columns.append(kinetoscope::python::numpyColumn(values));
        } else {
            // Text, or values of mixed types (SQLite's columns have none): each its own, as the CLI's JSON.
            py::list values(result.rows.size());
            for (std::size_t r = 0; r < result.rows.size(); ++r) {
                const sql::Value& v = result.rows[r][c];
                if (std::holds_alternative<std::monostate>(v))
                    values[r] = py::none();
                else if (const auto* i = std::get_if<std::int64_t>(&v))
                    values[r] = py::int_(*i);
                else if (const auto* d = std::get_if<double>(&v))
                    values[r] = py::float_(*d);
                else
                    values[r] = text(std::get<std::string>(v));
            }
            columns.append(values);
        }
    }
    py::dict out;
    out["columns"] = names;
    out["values"] = columns;
    return out;
}

// The JSON members of a table's rows, in order: the columns an empty table still has.
template <typename Row> py::list jsonKeys(const Columns<Row>& columns) {
    py::list keys;
    for (const Column<Row>& c : columns)
        if (c.outputs & InJson) keys.append(py::str(c.key.data(), c.key.size()));
    return keys;
}

// Each table of `summary --json` and `job --json` by its JSON key (the job's prefixed "job."), from the one
// description of each table the reports write (analysis/report/sections.h).
py::dict tableColumns() {
    py::dict out;
    out["kernels"] = jsonKeys(kernelColumns());
    out["operators"] = jsonKeys(operatorColumns(true));
    out["annotations"] = jsonKeys(operatorColumns(true));
    out["steps"] = jsonKeys(stepColumns());
    out["gpu_idle"] = jsonKeys(gpuIdleColumns());
    out["temporal_breakdown"] = jsonKeys(temporalBreakdownColumns());
    out["gpu_queue"] = jsonKeys(gpuQueueColumns());
    out["kernel_sequences"] = jsonKeys(kernelSequenceColumns());
    out["recommendations"] = jsonKeys(recommendationColumns());
    out["perf_model"] = jsonKeys(perfModelColumns());
    out["perf_model_not_modelled"] = jsonKeys(notModelledColumns());
    out["graphs"] = jsonKeys(compiledGraphColumns());
    out["events"] = jsonKeys(pathEventColumns());
    // (the run's GPUs, which summaryformat.cpp writes member by member)
    out["devices"] = py::make_tuple("id", "name", "memory_bytes", "sms", "compute_capability");
    out["job.steps"] = jsonKeys(jobStepColumns());
    out["job.stragglers"] = jsonKeys(jobStragglerColumns());
    out["job.collectives"] = jsonKeys(jobCollectiveColumns());
    out["job.per_rank"] = jsonKeys(jobRankColumns());
    out["job.hosts"] = jsonKeys(jobHostColumns());
    out["job.unreadable"] = jsonKeys(unreadableColumns());
    return out;
}

} // namespace

PYBIND11_MODULE(_kinetoscope, m) {
    m.doc() =
        "Kinetoscope's loader and reports (use the kinetoscope package, which wraps them as DataFrames)";
    py::class_<Trace>(m, "TraceHandle")
        // (bytes: a path is the file system's bytes, which need not be UTF-8; os.fsdecode on the Python side)
        .def_property_readonly("path", [](const Trace& t) { return py::bytes(t.path); })
        .def_readonly("seconds", &Trace::seconds)
        .def_property_readonly("warnings",
                               [](const Trace& t) {
                                   py::list out;
                                   for (const std::string& w : t.warnings)
                                       out.append(text(w));
                                   return out;
                               })
        .def_property_readonly("slices", [](const Trace& t) { return t.store->sliceCount(); })
        .def_property_readonly("gpu_only", [](const Trace& t) { return t.store->stats().gpuWorkOnly; })
        .def_property_readonly("origin_us",
                               [](const Trace& t) { return double(t.store->minTime()) / 1000.0; })
        .def_property_readonly("span_us", [](const Trace& t) {
            return double(t.store->maxTime() - t.store->minTime()) / 1000.0;
        });
    m.def("load", &load, py::arg("path"), py::arg("gpu_only") = false, py::arg("progress") = nullptr);
    m.def("slices", &slices, py::arg("trace"), py::arg("name") = std::nullopt,
          py::arg("category") = std::nullopt, py::arg("track") = std::nullopt,
          py::arg("start_us") = std::nullopt, py::arg("end_us") = std::nullopt, py::arg("args") = false);
    m.def("table_columns", &tableColumns);
    m.def("query", &query, py::arg("trace"), py::arg("sql"));
    m.def("summary_json", &summaryJson, py::arg("trace"), py::arg("sections") = "",
          py::arg("by_shape") = false);
    kinetoscope::python::addJobAndSnapshot(m);
}
