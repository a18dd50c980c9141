#pragma once

// CUPTI names a C++ kernel by its mangled symbol (_Z22kinetoscope_probe_fillPfif); Kineto demangles it, so
// every trace the viewer reads, and the TorchInductor categories it derives, use the readable form
// ("kinetoscope_probe_fill(float*, int, float)", "void at::native::vectorized_elementwise_kernel<4,
// ...>(...)").

#include <string>

namespace kinetoscope::capture {

// The demangled name, or the name as given when it is not a mangled C++ symbol (a C kernel, a cuBLAS one).
std::string demangledKernelName(const char* name);

} // namespace kinetoscope::capture
