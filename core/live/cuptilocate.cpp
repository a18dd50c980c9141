#include "cuptilocate.h"

#include <algorithm>
#include <filesystem>
#include <string_view>
#include <system_error>

namespace kinetoscope::live {

namespace fs = std::filesystem;

namespace {

// PROGRAM as the target's exec would find it: a path as given, a bare name through PATH. The path is kept as
// found, not resolved: a virtual environment's python is a link to the system's, and the environment is the
// link's folder.
fs::path programOnPath(const std::string& program, const std::string& pathVariable) {
    if (program.empty()) return {};
    std::error_code ec;
    if (program.find('/') != std::string::npos) return fs::absolute(program, ec);
    std::string_view rest = pathVariable;
    while (!rest.empty()) {
        const std::size_t colon = rest.find(':');
        const std::string_view dir = rest.substr(0, colon);
        rest = colon == std::string_view::npos ? std::string_view() : rest.substr(colon + 1);
        const fs::path candidate = fs::path(dir.empty() ? "." : std::string(dir)) / program;
        if (fs::is_regular_file(candidate, ec)) return candidate;
    }
    return {};
}

bool looksLikePython(const fs::path& program) {
    return program.filename().string().starts_with("python");
}

// PREFIX/lib/python3.*/{site,dist}-packages/nvidia/{cu13,cuda_cupti}/lib and the like, for the prefix above
// PROGRAM's bin folder.
void addPythonPackages(const fs::path& program, std::vector<std::string>& dirs) {
    const fs::path prefix = program.parent_path().parent_path();
    std::error_code ec;
    std::vector<fs::path> packages;
    for (const char* lib : {"lib", "lib64", "local/lib"}) {
        for (const auto& entry : fs::directory_iterator(prefix / lib, ec)) {
            const std::string name = entry.path().filename().string();
            if (!name.starts_with("python3")) continue;
            for (const char* kind : {"site-packages", "dist-packages"})
                if (fs::is_directory(entry.path() / kind / "nvidia", ec))
                    packages.push_back(entry.path() / kind / "nvidia");
        }
    }
    std::sort(packages.begin(), packages.end()); // the same order on every machine
    for (const fs::path& nvidia : packages) {
        // PyTorch for CUDA 13 ships one folder per CUDA major (nvidia/cu13/lib); older wheels one per
        // library.
        std::vector<fs::path> majors;
        for (const auto& entry : fs::directory_iterator(nvidia, ec))
            if (entry.path().filename().string().starts_with("cu")) majors.push_back(entry.path());
        std::sort(majors.begin(), majors.end(), std::greater<>());
        for (const fs::path& folder : majors)
            dirs.push_back((folder / "lib").string());
    }
}

} // namespace

std::vector<std::string> cuptiSearchDirs(const CuptiSearch& search) {
    std::vector<std::string> dirs;
    if (search.library.empty()) return dirs;
    if (!search.overrideDir.empty()) dirs.push_back(search.overrideDir);
    const fs::path program = programOnPath(search.program, search.pathVariable);
    if (!program.empty() && looksLikePython(program)) addPythonPackages(program, dirs);
    for (const std::string& home : {search.cudaHome, search.defaultCuda}) {
        if (home.empty()) continue;
        // extras/CUPTI is the classic layout; the runfile installers put CUPTI beside the runtime, under
        // targets/ (lib64 is often, not always, a link to it).
        for (const char* sub :
             {"extras/CUPTI/lib64", "lib64", "lib", "targets/x86_64-linux/lib", "targets/sbsa-linux/lib"})
            dirs.push_back((fs::path(home) / sub).string());
    }
    if (!search.builtDir.empty()) dirs.push_back(search.builtDir);
    // Each folder once, in first-seen order.
    std::vector<std::string> unique;
    for (std::string& dir : dirs)
        if (std::find(unique.begin(), unique.end(), dir) == unique.end()) unique.push_back(std::move(dir));
    return unique;
}

std::string firstDirWith(const std::vector<std::string>& dirs, const std::string& library) {
    std::error_code ec;
    for (const std::string& dir : dirs)
        if (fs::exists(fs::path(dir) / library, ec)) return dir;
    return {};
}

std::string findCuptiDir(const CuptiSearch& search) {
    return firstDirWith(cuptiSearchDirs(search), search.library);
}

std::string builtCuptiLibrary() {
#ifdef KINETOSCOPE_CUPTI_LIBRARY
    return KINETOSCOPE_CUPTI_LIBRARY;
#else
    return {};
#endif
}

std::string builtCuptiDir() {
#ifdef KINETOSCOPE_CUPTI_BUILT_DIR
    return KINETOSCOPE_CUPTI_BUILT_DIR;
#else
    return {};
#endif
}

} // namespace kinetoscope::live
