#include "kernelname.h"

#include <cxxabi.h>

#include <cstdlib>
#include <memory>

namespace kinetoscope::capture {

std::string demangledKernelName(const char* name) {
    if (!name) return {};
    if (name[0] != '_' || name[1] != 'Z') return name;
    int status = 0;
    std::unique_ptr<char, decltype(&std::free)> demangled(
        abi::__cxa_demangle(name, nullptr, nullptr, &status), &std::free);
    return status == 0 && demangled ? std::string(demangled.get()) : std::string(name);
}

} // namespace kinetoscope::capture
