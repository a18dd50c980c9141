#pragma once

// The parts of the _kinetoscope extension, each adding its functions to the module (module.cpp holds the
// trace's; jobsnapshot.cpp the job report's and the memory snapshot's).

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <vector>

namespace kinetoscope::python {

// A column handed to numpy: one copy into an array numpy owns, no Python object per value.
template <typename T> pybind11::array_t<T> numpyColumn(const std::vector<T>& v) {
    return pybind11::array_t<T>(pybind11::ssize_t(v.size()), v.data());
}

void addJobAndSnapshot(pybind11::module_& m);

} // namespace kinetoscope::python
