// The C++ half of `import kinetoscope` (python/kinetoscope/__init__.py is the other): load a trace without
// the GIL, cancellable from Python (Ctrl+C), and hand the report as the CLI's JSON, so that a notebook and
// `kinetoscope-cli summary --json` never disagree (one JSON writer, core/analysis/report).
#include "analysis/gpu/criticalpath.h"
#include "analysis/report/analysisresult.h"
#include "analysis/report/summaryformat.h"
#include "open/opentrace.h"

#include <pybind11/functional.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <atomic>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>

namespace py = pybind11;
using namespace kinetoscope;

namespace {

struct Trace {
    std::shared_ptr<const TraceStore> store;
    std::string path;
    double seconds = 0;
};

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
    std::thread worker([&] {
        result = loadTrace(path, options);
        finished = true;
    });
    bool interrupted = false;
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
            if (progress) progress(double(done.load()), double(total.load()));
        }
    }
    worker.join();
    if (interrupted) throw py::error_already_set(); // KeyboardInterrupt, the load left nothing behind
    if (!result.ok()) throw std::runtime_error(result.message(path)); // file, byte, reason: the CLI's line
    return Trace{std::shared_ptr<const TraceStore>(std::move(result.store)), path, result.seconds};
}

// The summary JSON of `kinetoscope-cli summary --json`, every section or those named ("kernels,operators").
std::string summaryJson(const Trace& t, const std::string& sections, bool byShape) {
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
    return summaryToJson(report->summary, report.get());
}

} // namespace

PYBIND11_MODULE(_kinetoscope, m) {
    m.doc() =
        "Kinetoscope's loader and reports (use the kinetoscope package, which wraps them as DataFrames)";
    py::class_<Trace>(m, "TraceHandle")
        .def_readonly("path", &Trace::path)
        .def_readonly("seconds", &Trace::seconds)
        .def_property_readonly("slices", [](const Trace& t) { return t.store->sliceCount(); })
        .def_property_readonly("gpu_only", [](const Trace& t) { return t.store->stats().gpuWorkOnly; });
    m.def("load", &load, py::arg("path"), py::arg("gpu_only") = false, py::arg("progress") = nullptr);
    m.def("summary_json", &summaryJson, py::arg("trace"), py::arg("sections") = "",
          py::arg("by_shape") = false);
}
