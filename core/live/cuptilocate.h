#pragma once

// Where a captured program finds CUPTI. The agent is linked against CUPTI's library by its soname, and the
// CUDA driver loads the agent inside the target process: when the dynamic loader cannot find CUPTI there, the
// driver drops the agent without a word and the capture stays empty. The toolkit folder this was built
// against is rarely where CUPTI lives on the GPU machine: PyTorch brings its own in its pip packages
// (nvidia/cu13/lib), and CUDA toolkits put it in extras/CUPTI/lib64. So the folder is found when the capture
// starts, and put first on the target's LD_LIBRARY_PATH.

#include <string>
#include <vector>

namespace kinetoscope::live {

struct CuptiSearch {
    std::string library;      // the file to find, e.g. "libcupti.so.13"; empty: the agent needs no CUPTI
    std::string program;      // the program to run, as given (a Python found on PATH brings its own packages)
    std::string pathVariable; // $PATH, to resolve a bare program name
    std::string overrideDir;  // $KINETOSCOPE_CUPTI_DIR: the user's choice, always first
    std::string cudaHome;     // $CUDA_HOME or $CUDA_PATH
    std::string defaultCuda = "/usr/local/cuda"; // the toolkit's usual home
    std::string builtDir;                        // the folder the agent was linked against here
};

// The folders searched, best first: the override; the target's Python environment's NVIDIA packages (so a
// PyTorch target keeps the CUPTI it loads itself: LD_LIBRARY_PATH comes before its RUNPATH); CUDA_HOME's and
// /usr/local/cuda's; the folder the build used.
std::vector<std::string> cuptiSearchDirs(const CuptiSearch& search);
// The first of those folders that holds search.library; empty when none does (or none is needed).
std::string findCuptiDir(const CuptiSearch& search);
// The first of `dirs` that holds `library`; empty when none does.
std::string firstDirWith(const std::vector<std::string>& dirs, const std::string& library);
// The CUPTI library the agent was built for ("" when it was built without CUPTI), and the folder it was
// linked from.
std::string builtCuptiLibrary();
std::string builtCuptiDir();

} // namespace kinetoscope::live
