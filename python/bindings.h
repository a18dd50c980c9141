#pragma once

// The parts of the _kinetoscope extension, each adding its functions to the module (module.cpp holds the
// trace's; jobsnapshot.cpp the job report's and the memory snapshot's).

#include <pybind11/pybind11.h>

namespace kinetoscope::python {

void addJobAndSnapshot(pybind11::module_& m);

} // namespace kinetoscope::python
